// Soundness (bounds proved at launch): the proven form's unchecked accessor is the expansion's, not
// the author's. A kernel that calls it on a captured View (here at an index the launch could not
// prove) is refused: a kernel reaches a View only by indexing it, `extent` and atomics.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let x = View::<f64, 1>::new("x", [4]).unwrap();
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let _kernel = kernel!(|i| y[i] = unsafe { x.at_unchecked(i + 100) });
}
