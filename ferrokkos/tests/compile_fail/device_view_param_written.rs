// `#[ferrokkos::device]`: a device function only reads the Views it takes (`&View<T, R>`); the one
// element an iteration may change reaches it as `&mut T` (the kernel passes `&mut y[i]`).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[ferrokkos::device]
fn clear(u: &View<f64, 1>, i: usize) {
    u[i] = 0.0;
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = 1.0;
    });
}
