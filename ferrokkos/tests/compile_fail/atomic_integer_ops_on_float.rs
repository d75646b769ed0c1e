// `mod`, `nand`, shifts and increments exist for the integer Views only, and complex Views have
// only `add`, `sub`, `load` and `store` (each component atomic): the other atomics on them are type
// errors at the call.
use ferrokkos::prelude::*;
use ferrokkos::{Complex, kernel};

fn main() {
    let h = View::<f64, 1>::new("h", [4]).unwrap();
    let c = View::<Complex<f64>, 1>::new("c", [4]).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = h.atomic_fetch_mod(i % 4, 2.0);
        h.atomic_inc(i % 4);
    });
    let _kernel = kernel!(|i| {
        c.atomic_max(i % 4, Complex::new(1.0, 0.0));
    });
}
