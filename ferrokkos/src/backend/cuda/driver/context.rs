//! The retained primary context of one device, and binding it to the calling thread.

use std::cell::Cell;
use std::sync::Arc;
use std::sync::atomic::{AtomicUsize, Ordering};

use cudarc::driver::sys;

use super::check;
use super::device::{attribute, device_handle};
use crate::error::Result;

/// Source of [`Context::id`]: every `Context` value gets a new one, never 0.
static NEXT_ID: AtomicUsize = AtomicUsize::new(1);

thread_local! {
    /// The id of the [`Context`] this layer last made current on this thread (0: none).
    static CURRENT: Cell<usize> = const { Cell::new(0) };
}

/// The primary context of one device, retained (`cuDevicePrimaryCtxRetain`) for as long as this
/// value lives and released (`cuDevicePrimaryCtxRelease`) when it is dropped.
///
/// The primary context is the one the CUDA runtime uses too, so memory and modules are shared with
/// CUDA libraries in the same process. Every method that calls the driver first [binds](Self::bind)
/// the context to the calling thread.
///
/// `Context` is `Send + Sync`: the driver API is thread-safe, a context may be current on several
/// threads at once, and each method makes it current on the calling thread before using it. The
/// value holds only handles (no host memory the driver writes to), and the handle is released only
/// in `Drop`, when no other reference exists.
pub(crate) struct Context {
    /// The primary context.
    raw: sys::CUcontext,
    /// Its device.
    device: sys::CUdevice,
    /// The device's ordinal.
    ordinal: usize,
    /// This value's identity for the per-thread binding cache: unique per `Context` value, so a
    /// context retained again later (with the same raw handle) is bound afresh.
    id: usize,
    /// Whether the device supports the stream-ordered allocator.
    memory_pools: bool,
}

// SAFETY: see the type's documentation: the driver API is thread-safe and the context is bound to
// the calling thread before every use; the raw handles are plain identifiers.
unsafe impl Send for Context {}
// SAFETY: as for `Send`; no method mutates the value (only the thread-local cache and the driver's
// own, internally synchronized, state).
unsafe impl Sync for Context {}

impl std::fmt::Debug for Context {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Context")
            .field("ordinal", &self.ordinal)
            .field("raw", &self.raw)
            .finish()
    }
}

impl Context {
    /// Retains the primary context of device `ordinal` (initializing the driver first).
    /// [`crate::Error::Unavailable`] if there is no such device.
    pub(crate) fn retain(ordinal: usize) -> Result<Arc<Context>> {
        let device = device_handle(ordinal)?;
        let memory_pools = attribute(
            device,
            sys::CUdevice_attribute::CU_DEVICE_ATTRIBUTE_MEMORY_POOLS_SUPPORTED,
            ordinal,
        )? != 0;
        let mut raw: sys::CUcontext = std::ptr::null_mut();
        // SAFETY: the driver is initialized and `device` is a valid handle (`device_handle`); `raw`
        // is valid for a write.
        let code = unsafe { sys::cuDevicePrimaryCtxRetain(&mut raw, device) };
        check(code, "cuDevicePrimaryCtxRetain", || {
            format!("retaining the primary context of CUDA device {ordinal}")
        })?;
        super::live::created(&super::live::CONTEXTS);
        Ok(Arc::new(Context {
            raw,
            device,
            ordinal,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            memory_pools,
        }))
    }

    /// Makes this context current on the calling thread (`cuCtxSetCurrent`). Skipped when this layer
    /// already made it current on this thread, so it costs a thread-local read after the first call.
    ///
    /// The cache assumes that nothing else changes the thread's current context; code that does
    /// (another CUDA library on the same thread) must not rely on it.
    pub(crate) fn bind(&self) -> Result<()> {
        if CURRENT.get() == self.id {
            return Ok(());
        }
        // SAFETY: `self.raw` is a retained primary context (alive while `self` is).
        let code = unsafe { sys::cuCtxSetCurrent(self.raw) };
        check(code, "cuCtxSetCurrent", || {
            format!(
                "making the context of CUDA device {} current on this thread",
                self.ordinal
            )
        })?;
        CURRENT.set(self.id);
        Ok(())
    }

    /// Waits for all work on every stream of this context (`cuCtxSynchronize`); returns the first
    /// asynchronous error of earlier work, if any.
    pub(crate) fn synchronize(&self, what: impl FnOnce() -> String) -> Result<()> {
        self.bind()?;
        // SAFETY: the context is current on this thread (bound above).
        let code = unsafe { sys::cuCtxSynchronize() };
        check(code, "cuCtxSynchronize", what)
    }

    /// The device's memory: `(free, total)` bytes (`cuMemGetInfo`).
    pub(crate) fn memory_info(&self) -> Result<(usize, usize)> {
        self.bind()?;
        let (mut free, mut total) = (0usize, 0usize);
        // SAFETY: the context is current on this thread; both pointers are valid for writes.
        let code = unsafe { sys::cuMemGetInfo_v2(&mut free, &mut total) };
        check(code, "cuMemGetInfo", || {
            format!("querying the free memory of CUDA device {}", self.ordinal)
        })?;
        Ok((free, total))
    }

    /// The device's ordinal.
    pub(crate) fn ordinal(&self) -> usize {
        self.ordinal
    }

    /// The raw context handle (valid while `self` lives).
    pub(crate) fn raw(&self) -> sys::CUcontext {
        self.raw
    }

    /// Whether the device supports the stream-ordered allocator (`cuMemAllocAsync`).
    pub(crate) fn supports_memory_pools(&self) -> bool {
        self.memory_pools
    }
}

impl Drop for Context {
    fn drop(&mut self) {
        // Give the stream-ordered allocator's unused memory back to the device (the primary context
        // may stay alive, retained by other code in the process).
        if self.memory_pools && self.bind().is_ok() {
            let mut pool: sys::CUmemoryPool = std::ptr::null_mut();
            // SAFETY: the context is current; `pool` is valid for a write.
            let code = unsafe { sys::cuDeviceGetDefaultMemPool(&mut pool, self.device) };
            if code == sys::CUresult::CUDA_SUCCESS {
                // SAFETY: `pool` is the device's default pool; trimming frees only unused memory.
                let _ = unsafe { sys::cuMemPoolTrimTo(pool, 0) };
            }
        }
        if CURRENT.get() == self.id {
            CURRENT.set(0);
        }
        // SAFETY: `self.device`'s primary context was retained once by this value and is released
        // once, here. Releasing cannot usefully fail; the result is ignored.
        let _ = unsafe { sys::cuDevicePrimaryCtxRelease_v2(self.device) };
        super::live::destroyed(&super::live::CONTEXTS);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_context;
    use super::*;

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn a_context_binds_on_any_thread_and_reports_memory() {
        let ctx = test_context();
        assert_eq!(ctx.ordinal(), 0);
        assert!(!ctx.raw().is_null());
        ctx.bind().expect("bind");
        ctx.bind().expect("bind again (cached)");
        let (free, total) = ctx.memory_info().expect("memory info");
        assert!(free > 0 && free <= total, "free {free} total {total}");
        ctx.synchronize(|| "synchronizing".into()).expect("sync");
        let other = Arc::clone(&ctx);
        std::thread::spawn(move || {
            other.memory_info().expect("memory info on another thread");
            other.synchronize(|| "sync".into()).expect("sync");
        })
        .join()
        .expect("thread");
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn retaining_twice_gives_the_same_primary_context() {
        let a = test_context();
        let b = test_context();
        assert_eq!(a.raw(), b.raw());
        a.bind().expect("bind a");
        b.bind().expect("bind b");
        drop(a);
        b.memory_info().expect("b still works after a is released");
    }
}
