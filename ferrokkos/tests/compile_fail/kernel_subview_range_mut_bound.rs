// A subview's range ends are written into every access, so they must mean the same value at every
// use: an end bound from a `mut` local (or bound twice) is refused.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let a = View::<f64, 2>::new("a", [4, 4]).unwrap();
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let _kernel = kernel!(|i| {
        let mut lo = 0;
        let row = subview(&a, (i, lo..3));
        lo += 1;
        y[i] = row[0] + lo as f64;
    });
    let _kernel = kernel!(|i| {
        let hi = 3;
        let col = subview(&a, (1..hi, i));
        let hi = 4;
        y[i] = col[0] + hi as f64;
    });
}
