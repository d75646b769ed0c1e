// Unsupported syntax: `if let`.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        if let 0 = i {
            y[i] = 1.0;
        }
    });
}
