// Race rule: the iteration index may not be rebound (`let i = i + 1;` would let `y[i]` name another
// iteration's element).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let i = i + 1;
        y[i] = 1.0;
    });
}
