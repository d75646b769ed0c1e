// Unsupported capture: writing a captured scalar through indexing (`a[i] = y[i]` with `a: f64`);
// kernels write only Views.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let a: f64 = 0.0;
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        a[i] = y[i];
    });
}
