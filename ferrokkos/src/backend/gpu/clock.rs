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

use super::driver::{Driver, Event as _};
use crate::error::Result;
use crate::tools::trace::{DeviceSpan, PendingSpan};

/// The trace clock of one device: the base event and its time on the trace clock.
pub(crate) struct DeviceClock<D: Driver> {
    base: Mutex<Option<Arc<Base<D>>>>,
}

impl<D: Driver> Default for DeviceClock<D> {
    fn default() -> Self {
        DeviceClock {
            base: Mutex::new(None),
        }
    }
}

/// The event all GPU times are measured from, and its host time.
struct Base<D: Driver> {
    event: D::Event,
    /// Microseconds since the trace's origin when the event completed.
    at_us: f64,
}

impl<D: Driver> DeviceClock<D> {
    /// Starts the clock: records the base event on `stream` and waits for it.
    pub(crate) fn start(&self, stream: &Arc<D::Stream>, origin: Instant) -> Result<()> {
        let event = D::Event::record(stream, true, || "starting the trace's GPU clock".into())?;
        event.synchronize(|| "starting the trace's GPU clock".into())?;
        let at_us = origin.elapsed().as_secs_f64() * 1e6;
        *self.lock() = Some(Arc::new(Base { event, at_us }));
        Ok(())
    }

    /// Stops the clock (at finalize): drops the base event, and with it its hold on the stream.
    pub(crate) fn stop(&self) {
        *self.lock() = None;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, Option<Arc<Base<D>>>> {
        self.base.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Starts timing work about to be enqueued on `stream` (the lane of instance `device_id`), when
    /// a trace with a GPU clock is being written.
    #[cold]
    #[inline(never)]
    pub(crate) fn begin(
        &self,
        stream: &Arc<D::Stream>,
        device_id: u32,
        cat: &'static str,
        name: String,
        args: Vec<(&'static str, String)>,
    ) -> Option<Timing<D>> {
        let base = self.lock().clone()?;
        let tools = crate::tools::current()?;
        let trace = tools.trace()?;
        let tid = trace.instance_lane(device_id, || {
            format!("{} instance {} (stream)", D::SPACE, device_id & 0x1_ffff)
        });
        let start = D::Event::record(stream, true, String::new).ok()?;
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
pub(crate) struct Timing<D: Driver> {
    start: D::Event,
    base: Arc<Base<D>>,
    tid: u64,
    cat: &'static str,
    name: String,
    args: Vec<(&'static str, String)>,
}

impl<D: Driver> Timing<D> {
    /// Records the end event after the work on `stream` and hands the span to the trace.
    pub(crate) fn end(self, stream: &Arc<D::Stream>) {
        let Ok(end) = D::Event::record(stream, true, String::new) else {
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
struct GpuSpan<D: Driver> {
    start: D::Event,
    end: D::Event,
    base: Arc<Base<D>>,
}

impl<D: Driver> DeviceSpan for GpuSpan<D> {
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
