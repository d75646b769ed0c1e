//! A non-blocking CUDA stream that keeps its context alive.

use std::sync::Arc;

use cudarc::driver::sys;

use super::{Context, Event, check};
use crate::error::Result;

/// A stream created with `CU_STREAM_NON_BLOCKING` (it does not synchronize with the legacy default
/// stream). It holds its [`Context`], so the context outlives it. Dropping it waits for its work and
/// then destroys it.
///
/// `Stream` is `Send + Sync`: the driver API is thread-safe, work may be enqueued on one stream
/// from several threads (the driver serializes the submissions), and every method binds the
/// context on the calling thread first.
pub(crate) struct Stream {
    /// The stream handle.
    raw: sys::CUstream,
    /// Its context.
    ctx: Arc<Context>,
}

// SAFETY: see the type's documentation.
unsafe impl Send for Stream {}
// SAFETY: see the type's documentation; no method mutates the value.
unsafe impl Sync for Stream {}

impl std::fmt::Debug for Stream {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Stream")
            .field("raw", &self.raw)
            .field("device", &self.ctx.ordinal())
            .finish()
    }
}

impl Stream {
    /// Creates a non-blocking stream on `ctx` (`cuStreamCreate`).
    pub(crate) fn new(ctx: &Arc<Context>, what: impl FnOnce() -> String) -> Result<Stream> {
        ctx.bind()?;
        let mut raw: sys::CUstream = std::ptr::null_mut();
        let flags = sys::CUstream_flags::CU_STREAM_NON_BLOCKING as u32;
        // SAFETY: `ctx` is current on this thread; `raw` is valid for a write.
        let code = unsafe { sys::cuStreamCreate(&mut raw, flags) };
        check(code, "cuStreamCreate", what)?;
        super::live::created(&super::live::STREAMS);
        Ok(Stream {
            raw,
            ctx: Arc::clone(ctx),
        })
    }

    /// The raw stream handle (valid while `self` lives).
    pub(crate) fn raw(&self) -> sys::CUstream {
        self.raw
    }

    /// The stream's context.
    pub(crate) fn context(&self) -> &Arc<Context> {
        &self.ctx
    }

    /// Waits for all work enqueued on the stream so far (`cuStreamSynchronize`); returns the first
    /// asynchronous error of that work, if any.
    pub(crate) fn synchronize(&self, what: impl FnOnce() -> String) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: the stream is alive and its context is current on this thread.
        let code = unsafe { sys::cuStreamSynchronize(self.raw) };
        check(code, "cuStreamSynchronize", what)
    }

    /// Whether all work enqueued on the stream so far has completed (`cuStreamQuery`), without
    /// waiting.
    #[cfg_attr(not(test), allow(dead_code))] // used by the tests
    pub(crate) fn is_idle(&self) -> Result<bool> {
        self.ctx.bind()?;
        // SAFETY: the stream is alive and its context is current on this thread.
        let code = unsafe { sys::cuStreamQuery(self.raw) };
        match code {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            _ => check(code, "cuStreamQuery", || {
                format!(
                    "querying a stream of CUDA device {} for completion",
                    self.ctx.ordinal()
                )
            })
            .map(|()| false),
        }
    }

    /// Makes work enqueued on this stream later wait until `event` has completed
    /// (`cuStreamWaitEvent`); does not block the host. The event may belong to another stream.
    pub(crate) fn wait_event(&self, event: &Event, what: impl FnOnce() -> String) -> Result<()> {
        self.ctx.bind()?;
        // SAFETY: the stream and the event are alive (the event's stream too, which it holds);
        // flags 0 is the only documented value.
        let code = unsafe { sys::cuStreamWaitEvent(self.raw, event.raw(), 0) };
        check(code, "cuStreamWaitEvent", what)
    }
}

impl Drop for Stream {
    fn drop(&mut self) {
        // Binding only fails if the context is unusable; then destroying fails too, harmlessly.
        let _ = self.ctx.bind();
        // SAFETY: the stream is alive; waiting for it has no other precondition.
        let code = unsafe { sys::cuStreamSynchronize(self.raw) };
        if let Err(e) = check(code, "cuStreamSynchronize", || {
            "synchronizing a stream before destroying it".to_string()
        }) {
            eprintln!("ferrokkos: {e}");
        }
        // SAFETY: the stream was created by cuStreamCreate and is destroyed only here, once; no
        // event holds it (events hold an `Arc<Stream>`, so none is left when this runs).
        let _ = unsafe { sys::cuStreamDestroy_v2(self.raw) };
        super::live::destroyed(&super::live::STREAMS);
    }
}

#[cfg(test)]
mod tests {
    use super::super::test_context;
    use super::*;

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn a_new_stream_is_idle_and_synchronizes() {
        let ctx = test_context();
        let stream = Stream::new(&ctx, || "creating a stream".into()).expect("stream");
        assert!(!stream.raw().is_null());
        assert!(Arc::ptr_eq(stream.context(), &ctx));
        stream.synchronize(|| "sync".into()).expect("sync");
        assert!(stream.is_idle().expect("query"));
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn streams_are_created_and_dropped_from_many_threads() {
        let ctx = test_context();
        let threads: Vec<_> = (0..8)
            .map(|_| {
                let ctx = Arc::clone(&ctx);
                std::thread::spawn(move || {
                    for _ in 0..50 {
                        let s = Arc::new(Stream::new(&ctx, || "stream".into()).expect("stream"));
                        let e = Event::record(&s, false, || "event".into()).expect("event");
                        e.synchronize(|| "sync".into()).expect("sync");
                        drop(s); // the event still holds the stream
                        assert!(e.is_complete().expect("query"));
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().expect("thread");
        }
    }
}
