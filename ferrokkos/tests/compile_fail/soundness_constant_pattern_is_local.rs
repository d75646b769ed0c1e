// Soundness (names resolved as rustc resolves them): in a `match` arm, an UPPER_CASE name is a
// constant only when a `const` item of that name is in scope; otherwise Rust binds a new variable
// to the matched value. Here `N` is a local, so the arm binds `N` to `d[i]`, while the race rules
// and the launch's bounds proof would take `N` for the local's value 0: `y[i + N]` would write far
// past `y`. The constant must be checkable by rustc, so a local is refused.
#![forbid(unsafe_code)]
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[allow(non_snake_case)]
fn main() {
    let d = View::<usize, 1>::new("d", [10]).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let N = 0usize;
    let _kernel = kernel!(|i| {
        match d[i] {
            N => y[i + N] = 1.0,
            _ => {}
        }
    });
}
