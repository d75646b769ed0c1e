//! GPU timing for the trace (`FERROKKOS_TRACE`): a base event whose host time is known, and a pair of
//! timing events around each piece of work on an instance's stream.
//!
//! The pair is recorded on the stream with the work, so the launch path never waits; the trace reads
//! the times (`cuEventElapsedTime` from the base) once the end event has completed, which it checks
//! at fences and at finalize. The base is recorded on the default instance's stream and waited for
//! once, when the trace starts, which ties the GPU clock to the trace's host clock to within a few
//! microseconds.

use std::sync::{Arc, Mutex};
use std::time::Instant;

use super::driver::{Event, Stream};
use crate::error::Result;
use crate::tools::trace::{DeviceSpan, PendingSpan};

/// The trace clock of one device: the base event and its time on the trace clock.
#[derive(Default)]
pub(crate) struct DeviceClock {
    base: Mutex<Option<Arc<Base>>>,
}

/// The event all GPU times are measured from, and its host time.
struct Base {
    event: Event,
    /// Microseconds since the trace's origin when the event completed.
    at_us: f64,
}

impl DeviceClock {
    /// Starts the clock: records the base event on `stream` and waits for it.
    pub(crate) fn start(&self, stream: &Arc<Stream>, origin: Instant) -> Result<()> {
        let event = Event::record(stream, true, || "starting the trace's GPU clock".into())?;
        event.synchronize(|| "starting the trace's GPU clock".into())?;
        let at_us = origin.elapsed().as_secs_f64() * 1e6;
        *self.lock() = Some(Arc::new(Base { event, at_us }));
        Ok(())
    }

    /// Stops the clock (at finalize): drops the base event, and with it its hold on the stream.
    pub(crate) fn stop(&self) {
        *self.lock() = None;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Arc<Base>>> {
        self.base.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts timing work about to be enqueued on `stream` (the lane of instance `device_id`), when
    /// a trace with a GPU clock is being written.
    #[cold]
    #[inline(never)]
    pub(crate) fn begin(
        &self,
        stream: &Arc<Stream>,
        device_id: u32,
        cat: &'static str,
        name: String,
        args: Vec<(&'static str, String)>,
    ) -> Option<Timing> {
        let base = self.lock().clone()?;
        let tools = crate::tools::current()?;
        let trace = tools.trace()?;
        let tid = trace.instance_lane(device_id, || {
            format!("Cuda instance {} (stream)", device_id & 0x1_ffff)
        });
        let start = Event::record(stream, true, String::new).ok()?;
        Some(Timing {
            start,
            base,
            tid,
            cat,
            name,
            args,
        })
    }
}

/// Work being timed: its start event and what the trace will say of it.
pub(crate) struct Timing {
    start: Event,
    base: Arc<Base>,
    tid: u64,
    cat: &'static str,
    name: String,
    args: Vec<(&'static str, String)>,
}

impl Timing {
    /// Records the end event after the work on `stream` and hands the span to the trace.
    pub(crate) fn end(self, stream: &Arc<Stream>) {
        let Ok(end) = Event::record(stream, true, String::new) else {
            return;
        };
        let Some(tools) = crate::tools::current() else {
            return;
        };
        if let Some(trace) = tools.trace() {
            trace.pending(PendingSpan {
                tid: self.tid,
                cat: self.cat,
                name: self.name,
                args: self.args,
                span: Box::new(GpuSpan {
                    start: self.start,
                    end,
                    base: self.base,
                }),
            });
        }
    }
}

/// A timed piece of GPU work.
struct GpuSpan {
    start: Event,
    end: Event,
    base: Arc<Base>,
}

impl DeviceSpan for GpuSpan {
    fn times(&self) -> Result<Option<(f64, f64)>> {
        if !self.end.is_complete()? {
            return Ok(None);
        }
        let what = || "reading a GPU time for the trace".to_string();
        let start = self.start.elapsed_ms_since(&self.base.event, what)?;
        let end = self.end.elapsed_ms_since(&self.base.event, what)?;
        let at = |ms: f32| self.base.at_us + f64::from(ms) * 1e3;
        Ok(Some((at(start), at(end))))
    }
}
