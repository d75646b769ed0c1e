// Soundness (the device proof): a kernel cannot hand a View to a `#[device]` function as a proven
// one itself (`proven_view` is what the macro writes in the shadow after recording the call's
// composed reads for the launch to prove); calling it is not a device function.
use ferrokkos::prelude::*;

#[device]
fn next(x: &View<f64, 1>, i: usize) -> f64 {
    x[i + 1]
}

fn main() {
    let x = View::<f64, 1>::new("x", [4]).unwrap();
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let _k = kernel!(|i| y[i] = next(&ferrokkos::__private::shadow::proven_view(x, true), i));
}
