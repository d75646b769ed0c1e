// `#[ferrokkos::device]`: a device function's parameters are device values (numbers, `bool`,
// `#[derive(DeviceValue)]` structs) passed by value: a `Vec<f64>` parameter is not a device value,
// and a reference is not passed by value.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[ferrokkos::device]
fn first(_v: Vec<f64>) -> f64 {
    1.0
}

#[ferrokkos::device]
fn by_ref(_x: &f64) -> f64 {
    1.0
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = 1.0;
    });
}
