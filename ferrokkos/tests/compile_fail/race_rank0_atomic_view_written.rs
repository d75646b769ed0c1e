// A plain rank-0 View's one element may be written from a launch of one iteration (the launch
// checks it); an atomic View of rank 0 is not written plainly: every access of it is atomic, through
// its methods.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let s = View::<f64, 0>::new("s", []).unwrap();
    let h = s.atomic();
    let _kernel = kernel!(|i| {
        h[()] += i as f64;
    });
}
