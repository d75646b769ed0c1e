//! An event recorded on a stream, which keeps that stream alive.

// Timing with events (`elapsed_ms_since`) is for the timeline trace (issue 6); the backend now
// only records events to order instances, and the tests use the rest.
#![cfg_attr(not(test), allow(dead_code))]

use std::sync::{Arc, OnceLock};

use cudarc::driver::sys;

use super::{LIBRARY, Stream, check};
use crate::error::{BackendError, Error, Result};

/// `cuEventElapsedTime`'s signature (the `_v2` of CUDA 12.8+ has the same one).
type ElapsedFn = unsafe extern "C" fn(*mut f32, sys::CUevent, sys::CUevent) -> sys::CUresult;

/// A `CUevent` recorded on a stream. It holds an `Arc` of that stream, so the stream cannot be
/// destroyed while the event exists: synchronizing on an event of a destroyed stream (the first
/// seed problem of the design) cannot be written.
///
/// `Event` is `Send + Sync`: the driver API is thread-safe, the event is only recorded once (in
/// [`Event::record`]) and only queried afterwards, and every method binds the context first.
pub(crate) struct Event {
    /// The event handle.
    raw: sys::CUevent,
    /// The stream it was recorded on.
    stream: Arc<Stream>,
    /// Whether it records a timestamp (created without `CU_EVENT_DISABLE_TIMING`).
    timing: bool,
}

// SAFETY: see the type's documentation.
unsafe impl Send for Event {}
// SAFETY: see the type's documentation; no method mutates the value.
unsafe impl Sync for Event {}

impl std::fmt::Debug for Event {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Event")
            .field("raw", &self.raw)
            .field("stream", &self.stream)
            .field("timing", &self.timing)
            .finish()
    }
}

impl Event {
    /// Creates an event (`cuEventCreate`; with `CU_EVENT_DISABLE_TIMING` unless `timing`, which is
    /// cheaper) and records it on `stream` (`cuEventRecord`): it completes when all work enqueued on
    /// the stream so far has completed.
    pub(crate) fn record(
        stream: &Arc<Stream>,
        timing: bool,
        what: impl FnOnce() -> String,
    ) -> Result<Event> {
        stream.context().bind()?;
        let flags = if timing {
            sys::CUevent_flags::CU_EVENT_DEFAULT as u32
        } else {
            sys::CUevent_flags::CU_EVENT_DISABLE_TIMING as u32
        };
        let mut raw: sys::CUevent = std::ptr::null_mut();
        // SAFETY: the stream's context is current on this thread; `raw` is valid for a write.
        let code = unsafe { sys::cuEventCreate(&mut raw, flags) };
        // `what` is needed by one of the two calls at most.
        let mut what = Some(what);
        let mut describe = || what.take().map_or_else(String::new, |w| w());
        check(code, "cuEventCreate", &mut describe)?;
        super::live::created(&super::live::EVENTS);
        // From here on, `Drop` destroys the event if recording fails.
        let event = Event {
            raw,
            stream: Arc::clone(stream),
            timing,
        };
        // SAFETY: the event and the stream are alive and belong to the current context.
        let code = unsafe { sys::cuEventRecord(event.raw, stream.raw()) };
        check(code, "cuEventRecord", describe)?;
        Ok(event)
    }

    /// The raw event handle (valid while `self` lives).
    pub(crate) fn raw(&self) -> sys::CUevent {
        self.raw
    }

    /// The stream the event was recorded on.
    pub(crate) fn stream(&self) -> &Arc<Stream> {
        &self.stream
    }

    /// Waits until the event has completed (`cuEventSynchronize`); returns the first asynchronous
    /// error of the work before it, if any.
    pub(crate) fn synchronize(&self, what: impl FnOnce() -> String) -> Result<()> {
        self.stream.context().bind()?;
        // SAFETY: the event is alive and recorded.
        let code = unsafe { sys::cuEventSynchronize(self.raw) };
        check(code, "cuEventSynchronize", what)
    }

    /// Whether the event has completed (`cuEventQuery`), without waiting.
    pub(crate) fn is_complete(&self) -> Result<bool> {
        self.stream.context().bind()?;
        // SAFETY: the event is alive and recorded.
        let code = unsafe { sys::cuEventQuery(self.raw) };
        match code {
            sys::CUresult::CUDA_SUCCESS => Ok(true),
            sys::CUresult::CUDA_ERROR_NOT_READY => Ok(false),
            _ => check(code, "cuEventQuery", || {
                "querying a CUDA event for completion".to_string()
            })
            .map(|()| false),
        }
    }

    /// The time from `earlier` to this event in milliseconds (`cuEventElapsedTime(earlier, self)`,
    /// about 0.5 microsecond resolution). Both events must have been recorded with `timing`
    /// ([`Error::InvalidArgument`] otherwise) and must have completed: the driver answers
    /// `CUDA_ERROR_NOT_READY` otherwise, so synchronize this event first.
    pub(crate) fn elapsed_ms_since(
        &self,
        earlier: &Event,
        what: impl FnOnce() -> String,
    ) -> Result<f32> {
        if !(self.timing && earlier.timing) {
            return Err(Error::InvalidArgument {
                operation: "elapsed_ms_since",
                reason: "both events must be recorded with timing enabled".to_string(),
            });
        }
        let Some(elapsed) = elapsed_fn() else {
            return Err(Error::Backend(BackendError::LibraryMissing {
                library: LIBRARY,
                hint: "the library exports neither cuEventElapsedTime_v2 nor cuEventElapsedTime"
                    .to_string(),
            }));
        };
        self.stream.context().bind()?;
        let mut ms = 0f32;
        // SAFETY: both events are alive and recorded; `ms` is valid for a write; `elapsed` has the
        // driver's signature for this symbol.
        let code = unsafe { elapsed(&mut ms, earlier.raw, self.raw) };
        check(code, "cuEventElapsedTime", what)?;
        Ok(ms)
    }
}

/// `cuEventElapsedTime_v2` (CUDA 12.8+ drivers; the name CUDA 13's header maps
/// `cuEventElapsedTime` to), else the original `cuEventElapsedTime`. cudarc's `cuda-13000` bindings
/// offer only the `_v2`, which would panic on older drivers, hence the lookup by hand. Only called
/// when an event exists, so the library is loaded.
fn elapsed_fn() -> Option<ElapsedFn> {
    static FUNCTION: OnceLock<Option<ElapsedFn>> = OnceLock::new();
    *FUNCTION.get_or_init(|| {
        ["cuEventElapsedTime_v2", "cuEventElapsedTime"]
            .into_iter()
            .find_map(|name| {
                // SAFETY: the library is loaded (an event exists), so `culib` does not panic; both
                // symbols have the signature `ElapsedFn` in every driver that exports them.
                unsafe { sys::culib().get::<ElapsedFn>(name.as_bytes()) }
                    .ok()
                    .map(|symbol| *symbol)
            })
    })
}

impl Drop for Event {
    fn drop(&mut self) {
        let _ = self.stream.context().bind();
        // SAFETY: the event was created by cuEventCreate and is destroyed only here, once.
        // Destroying an event whose work is pending is allowed (resources are released when it
        // completes). The result is ignored: nothing useful can be done about a failure.
        let _ = unsafe { sys::cuEventDestroy_v2(self.raw) };
        super::live::destroyed(&super::live::EVENTS);
    }
}

#[cfg(test)]
mod tests {
    use super::super::{alloc_device, fill_async, free_device, test_context};
    use super::*;

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn events_order_streams_and_time_work() {
        let ctx = test_context();
        let a = Arc::new(Stream::new(&ctx, || "stream a".into()).expect("stream a"));
        let b = Arc::new(Stream::new(&ctx, || "stream b".into()).expect("stream b"));
        let bytes = 64 << 20;
        let buf = alloc_device(&ctx, bytes, None, || "alloc".into()).expect("alloc");

        let start = Event::record(&a, true, || "start".into()).expect("start");
        // SAFETY: `buf` holds `bytes` bytes of device memory.
        unsafe { fill_async(buf, &[7], bytes, &a, || "fill".into()) }.expect("fill");
        let end = Event::record(&a, true, || "end".into()).expect("end");
        assert!(Arc::ptr_eq(end.stream(), &a));

        b.wait_event(&end, || "b waits for a".into()).expect("wait");
        let after = Event::record(&b, false, || "after".into()).expect("after");
        after
            .synchronize(|| "sync after".into())
            .expect("sync after");
        // `after` completed only after `end`, through the wait.
        assert!(end.is_complete().expect("query end"));
        assert!(after.is_complete().expect("query after"));

        end.synchronize(|| "sync end".into()).expect("sync end");
        let ms = end
            .elapsed_ms_since(&start, || "elapsed".into())
            .expect("elapsed");
        assert!((0.0..10_000.0).contains(&ms), "{ms} ms");

        let untimed = after.elapsed_ms_since(&start, || "elapsed".into());
        assert!(
            matches!(untimed, Err(Error::InvalidArgument { .. })),
            "{untimed:?}"
        );

        drop((a, b)); // the events keep their streams alive
        assert!(start.is_complete().expect("query start"));
        drop((start, end, after));
        // SAFETY: allocated above with no stream; all work using it has completed.
        unsafe { free_device(&ctx, buf, None) }.expect("free");
    }
}
