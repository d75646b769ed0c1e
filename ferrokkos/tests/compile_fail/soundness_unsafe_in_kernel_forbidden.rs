// Soundness (`unsafe` in kernels): an `unsafe { }` block inside `kernel!` turns the race rules off
// for the kernel, so `#![forbid(unsafe_code)]` sees it, at the author's own tokens.
#![forbid(unsafe_code)]
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _safe = kernel!(|i| y[i] = 1.0);
    let _kernel = kernel!(|i| unsafe {
        y[i] = y[(i + 1) % 10];
    });
}
