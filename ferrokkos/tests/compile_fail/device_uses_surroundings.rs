// `#[ferrokkos::device]`: a device function may use its parameters, its locals and constants (names
// in UPPER_CASE), not a variable from its surroundings (here a lower-case `static`).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[allow(non_upper_case_globals)]
static scale: f64 = 2.0;

#[ferrokkos::device]
fn scaled(x: f64) -> f64 {
    x * scale
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = scaled(1.0);
    });
}
