// Unsupported syntax: `while let`.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let mut k = i;
        while let 0 = k {
            k = k + 1;
        }
        y[i] = 1.0;
    });
}
