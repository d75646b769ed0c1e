// A kernel indexes a DynRankView through a View of the rank it expects (`d.view::<2>()?`), not
// the DynRankView itself: its rank is known only at run time.
use ferrokkos::prelude::*;
use ferrokkos::{DynRankView, kernel};

fn main() {
    let d = DynRankView::<f64>::new("d", &[4, 4]).unwrap();
    let y = View::<f64, 1>::new("y", [4]).unwrap();
    let _kernel = kernel!(|i| y[i] = d[(i, i)]);
}
