// Unsupported syntax: a labeled loop.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let mut s = 0.0;
        'outer: for k in 0..4 {
            s += k as f64;
        }
        y[i] = s;
    });
}
