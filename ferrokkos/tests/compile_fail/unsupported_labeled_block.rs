// Unsupported syntax: a labeled block (`'a: { ... break 'a; }`); labeled loops are supported.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let mut s = 0.0;
        'block: {
            s += 1.0;
            if i > 3 {
                break 'block;
            }
            s += 1.0;
        }
        y[i] = s;
    });
}
