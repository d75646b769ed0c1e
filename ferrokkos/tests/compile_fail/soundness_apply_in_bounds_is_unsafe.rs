// Soundness (bounds proved at launch): `apply_in_bounds` runs a body's proven form, whose accesses
// skip their bounds checks; only a driver that knows the index lies in the launch's proven box may
// call it, so it is an `unsafe fn` that safe code cannot call.
use ferrokkos::traits::ForKernel;

fn main() {
    let k = |i: usize| assert!(i < 4);
    k.apply_in_bounds(100);
}
