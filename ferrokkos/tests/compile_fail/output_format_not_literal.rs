// A kernel's `println!` takes a string literal first: the device's format is fixed when the kernel
// is compiled.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        println!(i);
        y[i] = 1.0;
    });
}
