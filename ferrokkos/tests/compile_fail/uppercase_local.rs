// In a kernel, names starting with an uppercase letter are constants (written as literals in the
// device code), so a local may not be named that way.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let Total = 2.0;
        y[i] = Total;
    });
}
