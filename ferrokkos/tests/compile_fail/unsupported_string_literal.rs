// Unsupported syntax: a string literal (kernels have numbers and `bool`s only).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let s = "hello";
        y[i] = 1.0;
    });
}
