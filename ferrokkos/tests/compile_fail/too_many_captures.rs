// Checks: a kernel captures at most 16 values; the 17th capture is named in the error.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let (a0, a1, a2, a3, a4, a5, a6, a7) = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0);
    let (b0, b1, b2, b3, b4, b5, b6, b7) = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0);
    let _kernel = kernel!(|i| {
        y[i] = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 + b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7;
    });
}
