// `#[ferrokkos::device]`: a device function is generic only over number types; a const or lifetime
// parameter (or a generic method) is an error naming what is allowed.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[ferrokkos::device]
fn pick<const N: usize>(x: f64) -> f64 {
    x * N as f64
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = 1.0;
    });
}
