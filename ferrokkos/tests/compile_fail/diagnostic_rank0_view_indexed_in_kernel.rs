// A kernel reaches a rank-0 View's one element with `()` (`s[()]`), not with an integer: the
// message says which index each rank takes.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let s = View::<f64, 0>::new("s", []).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = s[0];
    });
}
