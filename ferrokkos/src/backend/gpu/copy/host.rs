//! The host's side of copies and fills: element loops over pageable blocks, packing and
//! unpacking through compact staging blocks, and the wait for a block's device work before the
//! host touches it.

use std::sync::Arc;

use crate::error::Result;
use crate::space::{Allocation, Elem, Side};

/// Waits for device work on the allocations before host code touches them.
pub(super) fn wait_host(a: Option<&Arc<Allocation>>, b: Option<&Arc<Allocation>>) -> Result<()> {
    for x in [a, b].into_iter().flatten() {
        x.wait_pending()?;
    }
    Ok(())
}

/// Copies element by element between two host blocks.
pub(super) fn host_copy(dst: &Side<'_>, src: &Side<'_>, elem: Elem) {
    for k in 0..dst.count() {
        // SAFETY: both offsets stay inside their Views' spans; the borrows keep other users out.
        unsafe {
            std::ptr::copy_nonoverlapping(
                src.ptr.add(src.offset_of(k, elem)),
                dst.ptr.add(dst.offset_of(k, elem)),
                elem.size,
            )
        };
    }
}

/// Writes the element whose bytes are `value` into every position of a host block.
pub(super) fn host_fill(dst: &Side<'_>, value: &[u8], elem: Elem) {
    for k in 0..dst.count() {
        // SAFETY: `offset_of` stays inside the View's span; the exclusive borrow keeps other
        // users out, and no device work uses the memory any more (the caller waited).
        unsafe {
            std::ptr::copy_nonoverlapping(
                value.as_ptr(),
                dst.ptr.add(dst.offset_of(k, elem)),
                elem.size,
            )
        };
    }
}

/// The elements of a host block, packed in row-major order.
pub(super) fn gather(src: &Side<'_>, elem: Elem) -> Vec<u8> {
    let count = src.count();
    let mut out = vec![0u8; count * elem.size];
    for k in 0..count {
        // SAFETY: the offset stays inside the View's span, `out` has room for `count` elements,
        // and the borrow keeps writers out.
        unsafe {
            std::ptr::copy_nonoverlapping(
                src.ptr.add(src.offset_of(k, elem)),
                out.as_mut_ptr().add(k * elem.size),
                elem.size,
            )
        };
    }
    out
}

/// Writes packed row-major elements into a host block.
pub(super) fn scatter(dst: &Side<'_>, packed: &[u8], elem: Elem) {
    for k in 0..dst.count() {
        // SAFETY: as in `gather`, with the exclusive borrow of the destination.
        unsafe {
            std::ptr::copy_nonoverlapping(
                packed.as_ptr().add(k * elem.size),
                dst.ptr.add(dst.offset_of(k, elem)),
                elem.size,
            )
        };
    }
}

/// A compact row-major block with `extents` at device address `ptr` (a temporary's), described by
/// `strides` (which [`compact_strides`] gives; all 0 for one element read at every position).
pub(super) fn compact<'a>(ptr: u64, extents: &'a [usize], strides: &'a [usize]) -> Side<'a> {
    Side {
        alloc: None,
        ptr: ptr as *mut u8,
        extents,
        strides,
    }
}

/// Row-major strides of a compact block with `extents`.
pub(super) fn compact_strides(extents: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; extents.len()];
    for r in (0..extents.len().saturating_sub(1)).rev() {
        strides[r] = strides[r + 1] * extents[r + 1].max(1);
    }
    strides
}
