// A rank-0 View is not indexed inside a kernel (the kernel language indexes rank 1 with an integer
// and ranks 2 to 8 with a tuple): the message says which indices a kernel accepts for a View of
// that rank, and what to do with a rank-0 View instead, without naming the expansion's traits.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let s = View::<f64, 0>::new("s", []).unwrap();
    let y = View::<f64, 1>::new("y", [10]).unwrap();
    let _kernel = kernel!(|i| {
        y[i] = s[()];
    });
}
