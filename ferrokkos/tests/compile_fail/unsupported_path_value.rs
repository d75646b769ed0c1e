// Unsupported syntax: a path that is not a numeric constant (`std::cmp::Ordering::Less`).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let o = std::cmp::Ordering::Less;
        y[i] = 1.0;
    });
}
