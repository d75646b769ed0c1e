// What the expansion trusts stays out of reach of safe code: `PlainMemory` (a rank-0 View written
// plainly) is sealed, so an atomic View cannot be declared plain; a `ProvenRead` (a View read
// without bounds checks inside a launch's proven box) is made only through an `unsafe fn`.
use ferrokkos::__private::{PlainMemory, ProvenRead, ReadAccess};
use ferrokkos::AtomicView;

struct Fake;
impl PlainMemory for Fake {}

fn proven<'a>(access: &ReadAccess<'a, f64, 1, ferrokkos::LayoutRight>) {
    let _unchecked = ProvenRead::new(access);
}

fn plain<T: PlainMemory>() {}

fn main() {
    plain::<AtomicView<f64, 0, ferrokkos::LayoutRight, ferrokkos::HostSpace>>();
}
