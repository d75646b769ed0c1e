//! [`HostBulk`]: the seam through which `deep_copy` hands large host copies and fills to the host
//! backend, which splits them over its threads, and through which the host's sorts run their parts
//! (the view and algorithms layers cannot name the backend).

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

    /// How many threads `exec` runs work on (1 for Serial).
    fn participants(&self, exec: Option<&dyn Any>) -> usize;

    /// Runs `part(k)` once for every `k` in `0..parts`, spread over the threads of `exec`, and
    /// returns when all have finished (on the calling thread, in order, when the instance cannot
    /// run it). For the host's sorts, whose phases are parts over disjoint memory.
    fn run_parts(&self, exec: Option<&dyn Any>, parts: usize, part: &(dyn Fn(usize) + Sync));
}
