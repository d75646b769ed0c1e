// Race rules: a device function may read any element of a View it is given, so a kernel may not
// pass a View that it also writes (another iteration's write could meet the function's read).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[ferrokkos::device]
fn neighbours(u: &View<f64, 1>, i: usize) -> f64 {
    u[i - 1] + u[i + 1]
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = neighbours(&y, i);
    });
}
