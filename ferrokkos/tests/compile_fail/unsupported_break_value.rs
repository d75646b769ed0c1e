// Unsupported syntax: `break` with a value.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        loop {
            break 1.0;
        }
        y[i] = 1.0;
    });
}
