// `#[ferrokkos::device]`: a device function is generic only over types and `usize` constants (an
// array's length); another const parameter, a lifetime parameter (or a generic method) is an
// error naming what is allowed.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[ferrokkos::device]
fn pick<const FIRST: bool>(x: f64, y: f64) -> f64 {
    if FIRST { x } else { y }
}

#[ferrokkos::device]
fn first<'a>(x: f64) -> f64 {
    x
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = 1.0;
    });
}
