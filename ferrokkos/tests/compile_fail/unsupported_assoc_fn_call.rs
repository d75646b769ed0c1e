// Unsupported syntax: calling an associated function (`Vec::new()`); kernels call only
// `#[ferrokkos::device]` functions.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let v = Vec::new();
        y[i] = 1.0;
    });
}
