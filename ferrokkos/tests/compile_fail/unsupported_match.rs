// Unsupported syntax: `match` (kernels use `if` / `else`).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = match i {
            0 => 1.0,
            _ => 2.0,
        };
    });
}
