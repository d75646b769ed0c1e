// Unsupported: calling an associated function that no `#[device] impl` block defines
// (`Vec::new()`): the kernel's shadow finds no `__fk_new` on the type, and rustc says so at the call.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let v = Vec::new();
        y[i] = 1.0;
    });
}
