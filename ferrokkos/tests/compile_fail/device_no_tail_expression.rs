// `#[ferrokkos::device]`: a device function that returns a value must end with that value as its
// tail expression (`return x;` as the last statement is not accepted).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[ferrokkos::device]
fn twice(x: f64) -> f64 {
    return x * 2.0;
}

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = twice(1.0);
    });
}
