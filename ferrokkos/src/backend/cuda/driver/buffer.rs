//! Owning memory: device, pinned and managed memory that frees itself when dropped (as cudarc's
//! `CudaSlice` frees in `Drop`), so that no early return or error leaks it and no code outside
//! this layer calls a raw free.
//!
//! - [`DeviceBuffer`]: device memory that outlives a borrow: allocated for one stream (which it
//!   holds) and freed in that stream's order, or allocated for any stream and freed at once;
//! - [`PinnedBuffer`]: pinned host memory;
//! - [`ManagedBuffer`]: managed memory.
//!
//! Each type's invariant has two parts: what the type keeps itself (the address came from the
//! matching allocation function and is freed once, by this value), and what the code that uses
//! the address keeps (stated on the type): the memory is used only by work that the free is
//! ordered after. Every use of an address by the device goes through an `unsafe` call (a launch,
//! a copy, a fill) whose `SAFETY` comment relies on the second part.

use std::sync::Arc;

use super::memory::{
    alloc_device, alloc_host_pinned, alloc_managed, free_device, free_host_pinned, free_managed,
};
use super::{Context, Stream};
use crate::error::Result;

/// Reports an error of a free in `Drop`, which cannot return it.
fn report(freed: Result<()>) {
    if let Err(e) = freed {
        eprintln!("ferrokkos: {e}");
    }
}

/// `bytes` of device memory owned by this value and freed when it is dropped, or by
/// [`DeviceBuffer::free`], which returns the driver's error instead of printing it.
///
/// - Made by [`DeviceBuffer::on_stream`], it holds the stream (which therefore outlives it): it is
///   allocated stream-ordered (`cuMemAllocAsync` where the device has memory pools) and freed in
///   the stream's order (`cuMemFreeAsync`: after the work enqueued on the stream so far, without
///   waiting; on devices without pools, `cuMemFree` after synchronizing the stream).
/// - Made by [`DeviceBuffer::new`], it is allocated with `cuMemAlloc` and freed with `cuMemFree`.
///
/// Invariants. Kept by the type: `ptr` is 0 (nothing allocated, or freed already) or a live
/// allocation of `alloc_device` on `ctx` (with `stream`, when there is one) that only this value
/// frees, once. Kept by the code that uses [`DeviceBuffer::ptr`]: with a stream, device work that
/// uses the memory is enqueued only on that stream, and none after the free; without, no device
/// work that uses the memory may still be running, and no host reference to it is left, when the
/// value is dropped.
pub(crate) struct DeviceBuffer {
    ctx: Arc<Context>,
    stream: Option<Arc<Stream>>,
    ptr: u64,
    bytes: usize,
}

impl DeviceBuffer {
    /// Allocates `bytes` on `ctx`'s device (`cuMemAlloc`), usable by any stream at once. Zero
    /// bytes allocate nothing and give the null address.
    pub(crate) fn new(
        ctx: &Arc<Context>,
        bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<DeviceBuffer> {
        let ptr = alloc_device(ctx, bytes, None, what)?;
        Ok(DeviceBuffer {
            ctx: Arc::clone(ctx),
            stream: None,
            ptr,
            bytes,
        })
    }

    /// Allocates `bytes` for work on `stream` (stream-ordered where the device supports it), to be
    /// freed in the stream's order. Zero bytes allocate nothing and give the null address.
    pub(crate) fn on_stream(
        stream: &Arc<Stream>,
        bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<DeviceBuffer> {
        let ptr = alloc_device(stream.context(), bytes, Some(stream), what)?;
        Ok(DeviceBuffer {
            ctx: Arc::clone(stream.context()),
            stream: Some(Arc::clone(stream)),
            ptr,
            bytes,
        })
    }

    /// The device address of the first byte (0 for an empty buffer).
    pub(crate) fn ptr(&self) -> u64 {
        self.ptr
    }

    /// The size in bytes.
    pub(crate) fn len(&self) -> usize {
        self.bytes
    }

    /// Frees the memory now (in the stream's order, with a stream) and returns the driver's error,
    /// if any; the memory is not freed again either way.
    pub(crate) fn free(mut self) -> Result<()> {
        self.release()
    }

    /// Frees the memory once; later calls (and the drop) do nothing.
    fn release(&mut self) -> Result<()> {
        let ptr = std::mem::take(&mut self.ptr);
        // SAFETY: `ptr` is 0 (a no-op) or the live allocation of `alloc_device` on `ctx` that this
        // value owns (the type's invariant), taken out above so that it is freed once. A stream
        // is passed only for memory allocated with it; with one, the memory is used only by work
        // on that stream, which the free is ordered after; without, no work that uses it is still
        // running (the users' part of the invariant).
        unsafe { free_device(&self.ctx, ptr, self.stream.as_deref()) }
    }
}

impl Drop for DeviceBuffer {
    fn drop(&mut self) {
        report(self.release());
    }
}

impl std::fmt::Debug for DeviceBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceBuffer")
            .field("ptr", &format_args!("{:#x}", self.ptr))
            .field("bytes", &self.bytes)
            .field("stream_ordered", &self.stream.is_some())
            .finish()
    }
}

/// `bytes` of pinned host memory (`cuMemHostAlloc` with flags 0), owned by this value and freed
/// (`cuMemFreeHost`) when it is dropped, or by [`PinnedBuffer::free`], which returns the driver's
/// error instead of printing it.
///
/// Invariants. Kept by the type: `ptr` is null (nothing allocated, or freed already) or a live
/// allocation of `alloc_host_pinned` that only this value frees, once. Kept by the code that uses
/// [`PinnedBuffer::ptr`]: when the value is dropped, no host reference into the memory is left and
/// no device work that uses it may still be running (the free does not wait for the device).
pub(crate) struct PinnedBuffer {
    ctx: Arc<Context>,
    ptr: *mut u8,
    bytes: usize,
}

// SAFETY: the value owns its memory exclusively, like a `Box<[u8]>`: the pointer is only handed
// out (the users' invariant governs its use) and freed once, on whichever thread drops the value;
// `cuMemFreeHost` may be called from any thread (the context is bound first).
unsafe impl Send for PinnedBuffer {}
// SAFETY: a shared reference only reads the pointer and the size.
unsafe impl Sync for PinnedBuffer {}

impl PinnedBuffer {
    /// Allocates `bytes` of pinned host memory through `ctx` (not zeroed). Zero bytes allocate
    /// nothing and give a null pointer.
    pub(crate) fn new(
        ctx: &Arc<Context>,
        bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<PinnedBuffer> {
        let ptr = alloc_host_pinned(ctx, bytes, what)?;
        Ok(PinnedBuffer {
            ctx: Arc::clone(ctx),
            ptr,
            bytes,
        })
    }

    /// The first byte (null for an empty buffer); with unified addressing also its device address.
    pub(crate) fn ptr(&self) -> *mut u8 {
        self.ptr
    }

    /// The size in bytes.
    pub(crate) fn len(&self) -> usize {
        self.bytes
    }

    /// Frees the memory now and returns the driver's error, if any; the memory is not freed again
    /// either way.
    pub(crate) fn free(mut self) -> Result<()> {
        self.release()
    }

    /// Frees the memory once; later calls (and the drop) do nothing.
    fn release(&mut self) -> Result<()> {
        let ptr = std::mem::replace(&mut self.ptr, std::ptr::null_mut());
        // SAFETY: `ptr` is null (a no-op) or the live allocation of `alloc_host_pinned` that this
        // value owns, taken out above so that it is freed once; no host reference to it and no
        // running device work uses it (the users' part of the invariant).
        unsafe { free_host_pinned(&self.ctx, ptr) }
    }
}

impl Drop for PinnedBuffer {
    fn drop(&mut self) {
        report(self.release());
    }
}

impl std::fmt::Debug for PinnedBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("PinnedBuffer")
            .field("ptr", &self.ptr)
            .field("bytes", &self.bytes)
            .finish()
    }
}

/// `bytes` of managed memory (`cuMemAllocManaged`, attached globally), owned by this value and
/// freed (`cuMemFree`) when it is dropped, or by [`ManagedBuffer::free`], which returns the
/// driver's error instead of printing it.
///
/// Invariants: as for [`PinnedBuffer`], with an allocation of `alloc_managed` on `ctx`.
pub(crate) struct ManagedBuffer {
    ctx: Arc<Context>,
    ptr: u64,
    bytes: usize,
}

impl ManagedBuffer {
    /// Allocates `bytes` of managed memory on `ctx`'s device (not zeroed); more than the device's
    /// free memory is refused (see `alloc_managed`). Zero bytes allocate nothing and give the null
    /// address.
    pub(crate) fn new(
        ctx: &Arc<Context>,
        bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<ManagedBuffer> {
        let ptr = alloc_managed(ctx, bytes, what)?;
        Ok(ManagedBuffer {
            ctx: Arc::clone(ctx),
            ptr,
            bytes,
        })
    }

    /// The address of the first byte, for the host and the device (0 for an empty buffer).
    pub(crate) fn ptr(&self) -> u64 {
        self.ptr
    }

    /// The size in bytes.
    #[cfg_attr(not(test), allow(dead_code))] // used by the tests
    pub(crate) fn len(&self) -> usize {
        self.bytes
    }

    /// Frees the memory now and returns the driver's error, if any; the memory is not freed again
    /// either way.
    pub(crate) fn free(mut self) -> Result<()> {
        self.release()
    }

    /// Frees the memory once; later calls (and the drop) do nothing.
    fn release(&mut self) -> Result<()> {
        let ptr = std::mem::take(&mut self.ptr);
        // SAFETY: `ptr` is 0 (a no-op) or the live allocation of `alloc_managed` on `ctx` that
        // this value owns, taken out above so that it is freed once; no host reference to it and
        // no running device work uses it (the users' part of the invariant).
        unsafe { free_managed(&self.ctx, ptr) }
    }
}

impl Drop for ManagedBuffer {
    fn drop(&mut self) {
        report(self.release());
    }
}

impl std::fmt::Debug for ManagedBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ManagedBuffer")
            .field("ptr", &format_args!("{:#x}", self.ptr))
            .field("bytes", &self.bytes)
            .finish()
    }
}

#[cfg(test)]
mod tests;
