//! [`StreamBuffer`]: device memory that belongs to the work of one stream and frees itself,
//! stream-ordered, when dropped (as cudarc's `CudaSlice` frees in `Drop`), so that no early return
//! or error leaks it and no code outside this layer calls a raw free for it.

use super::{Stream, alloc_device, free_device};
use crate::error::Result;

/// `bytes` of device memory for work on `stream`, freed when dropped after the work enqueued on
/// the stream until then (`cuMemFreeAsync`; `cuMemFree` after synchronizing the stream on devices
/// without memory pools). It borrows the stream, so the stream outlives it.
///
/// Invariant: only work enqueued on `stream` uses the memory (the users of [`StreamBuffer::ptr`]
/// in this crate enqueue there), and none is enqueued after the drop.
pub(crate) struct StreamBuffer<'s> {
    stream: &'s Stream,
    ptr: u64,
}

impl<'s> StreamBuffer<'s> {
    /// Allocates `bytes` (stream-ordered where the device supports it). Zero bytes allocate
    /// nothing and give the null address.
    pub(crate) fn new(
        stream: &'s Stream,
        bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<StreamBuffer<'s>> {
        let ptr = alloc_device(stream.context(), bytes, Some(stream), what)?;
        Ok(StreamBuffer { stream, ptr })
    }

    /// The device address of the first byte.
    pub(crate) fn ptr(&self) -> u64 {
        self.ptr
    }
}

impl Drop for StreamBuffer<'_> {
    fn drop(&mut self) {
        // SAFETY: `ptr` came from `alloc_device` on the stream's context with this stream and is
        // freed only here; by the type's invariant only work enqueued on this stream uses it, and
        // the free is ordered after that work.
        let freed = unsafe { free_device(self.stream.context(), self.ptr, Some(self.stream)) };
        if let Err(e) = freed {
            eprintln!("ferrokkos: {e}");
        }
    }
}
