// An OffsetView's host accessor (a View's element mapping and the begins a launch proved its
// indices against) is made only by the crate, and only the crate's ranges are index ranges: a
// forged begin or extent would let a proven access reach past the View.
use ferrokkos::__private::OffsetReadAccess;
use ferrokkos::traits::IndexRange;
use ferrokkos::{OffsetView, View};

struct Wide;

impl IndexRange for Wide {
    fn begin_extent(&self) -> Option<(i64, usize)> {
        Some((0, usize::MAX))
    }
}

fn main() {
    let v = View::<f64, 1>::new("v", [4]).unwrap();
    let _made = OffsetReadAccess::new(&v, [0]);
    let _o = OffsetView::<f64, 1>::new("o", [Wide]);
}
