// Unsupported syntax: a `match` pattern other than literals, ranges, `|`, `_`, names and
// constants (here a tuple-struct pattern).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = match i {
            Some(k) => 1.0,
            _ => 2.0,
        };
    });
}
