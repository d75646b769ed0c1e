// Soundness (names resolved as rustc resolves them): the converse of an UPPER_CASE local. A name
// in a `match` arm that the kernel language takes for a binding (lowercase) is a constant pattern
// for rustc when a constant of that name is in scope; the host would then match only that value
// while the device code binds every value. rustc must refuse it rather than let the two differ.
#![forbid(unsafe_code)]
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[allow(non_upper_case_globals)]
const k: usize = 3;

fn main() {
    let d = View::<usize, 1>::new("d", [10]).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        match d[i] {
            0 => {}
            k => y[i] = k as f64,
        }
    });
}
