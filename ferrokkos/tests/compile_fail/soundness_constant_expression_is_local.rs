// Soundness (names resolved as rustc resolves them): an UPPER_CASE name in a kernel is written into
// the device code as a literal and used as a launch constant by the race rules; a local variable of
// that name would make the generated code depend on a value rather than on types. Only constants
// (`const` items, const generics, associated constants) may be used so.
#![forbid(unsafe_code)]
use ferrokkos::kernel;
use ferrokkos::prelude::*;

#[allow(non_snake_case)]
fn main() {
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let SHIFT = 1usize;
    let _kernel = kernel!(|i| y[i + SHIFT] = 1.0);
}
