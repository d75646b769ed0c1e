// Soundness (names resolved as rustc resolves them): an UPPER_CASE iteration index `I` used as a
// `match` pattern is not a constant pattern (a local never is): Rust binds a new `I` to the matched
// value, shadowing the index, while the race rules would still take `y[I]` for the iteration's own
// element.
#![forbid(unsafe_code)]
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[allow(non_snake_case)]
fn main() {
    let d = View::<usize, 1>::new("d", [10]).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|I| {
        match d[I] {
            I => y[I] = 1.0,
        }
    });
}
