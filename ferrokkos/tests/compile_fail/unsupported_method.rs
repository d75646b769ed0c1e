// Unsupported: a method that is neither in the kernel language's list nor in a `#[device] impl`
// block (`sin_cos`): the kernel's shadow finds no `__fk_sin_cos` on the type, and rustc says so at
// the call.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let x = View::<f64, 1>::new("x", [10]).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let s = x[i].sin_cos();
        y[i] = 1.0;
    });
}
