// Race rule: a View the kernel writes may be read only at the iteration index; `y[i - 1]` may be
// written by another iteration at the same time.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = y[i - 1];
    });
}
