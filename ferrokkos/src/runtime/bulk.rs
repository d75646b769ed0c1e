//! [`HostBulk`]: the seam through which `deep_copy` hands large host copies and fills to the host
//! backend, which splits them over its threads (the view layer cannot name the backend).

use std::any::Any;

/// Large copies and fills of host memory, carried out by the host backend.
///
/// `exec` is the host execution-space instance the copy was given (`deep_copy_async`), or `None`
/// for the default host instance. Both never fail: work the backend cannot run on its threads
/// (after finalize, from inside a kernel) runs on the calling thread.
pub(crate) trait HostBulk: Sync {
    /// Copies `bytes` bytes from `src` to `dst`.
    ///
    /// # Safety
    /// `src` must be valid for reads and `dst` for writes of `bytes` bytes, the two ranges must not
    /// overlap, and nothing else may access `dst`, or write `src`, until the call returns.
    unsafe fn copy(&self, exec: Option<&dyn Any>, dst: *mut u8, src: *const u8, bytes: usize);

    /// Writes `count` copies of the element whose bytes are `value`, one after the other, from
    /// `dst` on.
    ///
    /// # Safety
    /// `dst` must be valid for writes of `count * value.len()` bytes (which must not overflow), and
    /// nothing else may access them until the call returns.
    unsafe fn fill(&self, exec: Option<&dyn Any>, dst: *mut u8, value: &[u8], count: usize);
}
