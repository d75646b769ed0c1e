// Unsupported syntax: a method that is not in the kernel language's list (`sin_cos`).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let x = View::<f64, 1>::new("x", [10]).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let s = x[i].sin_cos();
        y[i] = 1.0;
    });
}
