//! The host rows of `deep_copy` that move whole contiguous spans: handed to the host backend
//! (`runtime::HostBulk`), which splits large ones over its threads and streams them past the
//! caches; done on the calling thread when no runtime is running.

use std::any::Any;

use crate::runtime;

/// Copies `bytes` bytes from `src` to `dst` on `exec` (a host instance; `None`: the default one).
///
/// # Safety
/// As [`runtime::HostBulk::copy`]: both ranges valid, disjoint, and held exclusively (for `dst`)
/// or against writers (for `src`) by the caller for the whole call.
pub(super) unsafe fn copy(exec: Option<&dyn Any>, dst: *mut u8, src: *const u8, bytes: usize) {
    let state = runtime::state(String::new).ok();
    match state.as_deref().and_then(runtime::State::host_bulk) {
        // SAFETY: the caller's contract is the trait's.
        Some(bulk) => unsafe { bulk.copy(exec, dst, src, bytes) },
        // SAFETY: the caller's contract.
        None => unsafe { std::ptr::copy_nonoverlapping(src, dst, bytes) },
    }
}

/// Writes `count` copies of the element whose bytes are `value` from `dst` on, on `exec`.
///
/// # Safety
/// As [`runtime::HostBulk::fill`]: `count * value.len()` bytes from `dst` valid for writes and
/// held exclusively by the caller for the whole call.
pub(super) unsafe fn fill(exec: Option<&dyn Any>, dst: *mut u8, value: &[u8], count: usize) {
    let state = runtime::state(String::new).ok();
    match state.as_deref().and_then(runtime::State::host_bulk) {
        // SAFETY: the caller's contract is the trait's.
        Some(bulk) => unsafe { bulk.fill(exec, dst, value, count) },
        None => {
            for k in 0..count {
                // SAFETY: element `k` lies inside the caller's range.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        value.as_ptr(),
                        dst.add(k * value.len()),
                        value.len(),
                    )
                };
            }
        }
    }
}
