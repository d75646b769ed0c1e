// Unsupported syntax: a macro call other than the output macros (`assert!`) inside a kernel.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        assert!(i < 10);
        y[i] = 1.0;
    });
}
