// Unsupported syntax: a macro call (`println!`) inside a kernel.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        println!("{}", i);
        y[i] = 1.0;
    });
}
