// Unsupported syntax: a cast to a type that is not a primitive number or `bool` (`as char`).
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let x = View::<u8, 1>::new("x", [10]).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        let c = x[i] as char;
        y[i] = 1.0;
    });
}
