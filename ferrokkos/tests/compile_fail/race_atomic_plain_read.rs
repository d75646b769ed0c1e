// Race rule: a View the kernel updates atomically may be read only atomically, or inside
// `unsafe { }`; a plain read `h[k]` races with the other iterations' updates.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let h = View::<i32, 1>::new("h", [4]).unwrap();
    let y = View::<i32, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let k = i % 4;
        h.atomic_add(k, 1);
        let t = h[k];
        y[i] = t;
    });
}
