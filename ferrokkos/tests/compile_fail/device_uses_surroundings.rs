// `#[ferrokkos::device]`: a device function may use only its parameters and locals, not a variable
// from its surroundings (here a `static`).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

static SCALE: f64 = 2.0;

#[ferrokkos::device]
fn scaled(x: f64) -> f64 {
    x * SCALE
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = scaled(1.0);
    });
}
