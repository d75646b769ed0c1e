//! The argument checks the std algorithms share: a destination long enough for its source, Views
//! of one extent, distinct allocations where one is read and the other written.

use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::space::MemorySpace;
use crate::view::{Element, View};

/// `Err(ExtentMismatch)` unless `dst` holds at least `src`'s elements.
pub(super) fn fits<T: Element, U: Element, L: Layout, K: Layout, M: MemorySpace, N: MemorySpace>(
    operation: &'static str,
    src: &View<T, 1, L, M>,
    dst: &View<U, 1, K, N>,
) -> Result<()> {
    if dst.extent(0) >= src.extent(0) {
        return Ok(());
    }
    Err(mismatch(operation, src, dst))
}

/// `Err(ExtentMismatch)` unless `a` and `b` have one extent.
pub(super) fn same_extent<
    T: Element,
    U: Element,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    N: MemorySpace,
>(
    operation: &'static str,
    a: &View<T, 1, L, M>,
    b: &View<U, 1, K, N>,
) -> Result<()> {
    if a.extent(0) == b.extent(0) {
        return Ok(());
    }
    Err(mismatch(operation, a, b))
}

fn mismatch<T: Element, U: Element, L: Layout, K: Layout, M: MemorySpace, N: MemorySpace>(
    operation: &'static str,
    src: &View<T, 1, L, M>,
    dst: &View<U, 1, K, N>,
) -> Error {
    Error::ExtentMismatch {
        operation,
        dst_label: dst.label().to_owned(),
        dst_extents: vec![dst.extent(0)],
        src_label: src.label().to_owned(),
        src_extents: vec![src.extent(0)],
    }
}

/// `Err(InvalidArgument)` when `src` and `dst` share an allocation (the algorithm reads one while
/// it writes the other in another order).
pub(super) fn distinct<
    T: Element,
    U: Element,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    N: MemorySpace,
>(
    operation: &'static str,
    src: &View<T, 1, L, M>,
    dst: &View<U, 1, K, N>,
) -> Result<()> {
    if !src.shares_allocation_with(dst) {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        operation,
        reason: format!(
            "the source View \"{}\" and the destination View \"{}\" share an allocation; write to \
             another View",
            src.label(),
            dst.label()
        ),
    })
}

/// `Err(InvalidArgument)` unless `view` has at least `n` elements.
pub(super) fn has<T: Element, L: Layout, M: MemorySpace>(
    operation: &'static str,
    view: &View<T, 1, L, M>,
    n: usize,
) -> Result<()> {
    if n <= view.extent(0) {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        operation,
        reason: format!(
            "{n} elements asked of View \"{}\", which has {}",
            view.label(),
            view.extent(0)
        ),
    })
}

/// `Err(InvalidArgument)` unless `i` indexes `view`.
pub(super) fn index<T: Element, L: Layout, M: MemorySpace>(
    operation: &'static str,
    view: &View<T, 1, L, M>,
    i: usize,
) -> Result<()> {
    if i < view.extent(0) {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        operation,
        reason: format!(
            "index {i} is out of bounds of View \"{}\" (extent {})",
            view.label(),
            view.extent(0)
        ),
    })
}
