// Unsupported capture: a `Vec<f64>` (kernels capture numbers, `bool`s and Views); the message comes
// from `#[diagnostic::on_unimplemented]` on the capture traits.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let v: Vec<f64> = vec![1.0; 10];
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = v[i];
    });
}
