// An OffsetView's host accessor keeps its View accessor and begins private: a forged begin would
// move a proven (unchecked) access past the View.
use ferrokkos::LayoutRight;
use ferrokkos::__private::{OffsetReadAccess, ReadAccess};

fn forge(inner: ReadAccess<'_, f64, 1, LayoutRight>) -> OffsetReadAccess<'_, f64, 1, LayoutRight> {
    OffsetReadAccess {
        inner,
        begins: [-1_000_000],
    }
}

fn main() {}
