// Unsupported syntax: taking a reference (`&x[i]`).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let x = View::<f64, 1>::new("x", [10]).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let r = &x[i];
        y[i] = 1.0;
    });
}
