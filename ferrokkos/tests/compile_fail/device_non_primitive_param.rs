// `#[ferrokkos::device]`: a device function's parameters are primitive numbers or `bool`; a
// `Vec<f64>` parameter is an error.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[ferrokkos::device]
fn first(v: Vec<f64>) -> f64 {
    v[0]
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = 1.0;
    });
}
