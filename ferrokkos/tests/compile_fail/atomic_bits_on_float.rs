// Atomic bitwise operations exist for the integer Views only: `atomic_fetch_or` on a View of f64
// is a type error at the call.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let h = View::<f64, 1>::new("h", [4]).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = h.atomic_fetch_or(i % 4, 1.0);
    });
}
