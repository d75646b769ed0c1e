// Unsupported syntax: calling a library function by path (`std::mem::size_of::<f64>()`); kernels
// call only `#[ferrokkos::device]` functions.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = std::mem::size_of::<f64>() as f64;
    });
}
