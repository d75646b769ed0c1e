// Unsupported syntax: a closure inside a kernel.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let twice = |v: f64| v * 2.0;
        y[i] = 1.0;
    });
}
