// Race rule: a View the kernel updates atomically may not also be written plainly, even at the
// iteration index.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let h = View::<i32, 1>::new("h", [10]).unwrap();
    let _kernel = kernel!(|i| {
        h.atomic_add(i % 4, 1);
        h[i] = 0;
    });
}
