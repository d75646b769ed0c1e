//! The one seam between the runtime and the backends: [`Backend`]. The runtime starts, fences and
//! stops the backends it is given without naming any of them; a backend finds its own part of the
//! state with [`super::State::backend`].

use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

use crate::error::Result;
use crate::settings::InitSettings;

/// A backend's part of the process state, from initialize to finalize.
pub(crate) trait Backend: Any + Send + Sync {
    /// Waits for all work submitted to the backend (its part of Kokkos' global `fence`).
    fn fence_all(&self, label: &str) -> Result<()>;

    /// Waits for work in flight and refuses new work; called once, at finalize, in reverse start
    /// order.
    fn shutdown(&self);

    /// Whether the calling thread counts as started by work running on one of the backend's
    /// instances, which may be waiting for it (a host kernel that starts threads and joins them):
    /// finalize from such a thread is deferred as finalize inside a kernel is.
    fn started_by_running_work(&self) -> bool {
        false
    }

    /// What the backend declares to tools at initialize (`kokkosp_declare_metadata`).
    fn metadata(&self) -> Vec<(&'static str, String)> {
        Vec::new()
    }

    /// Starts the backend's clock of the trace whose start is `origin` (a device clock).
    fn start_trace_clock(&self, _origin: Instant) -> Result<()> {
        Ok(())
    }

    /// Stops that clock, before the trace is finished.
    fn stop_trace_clock(&self) {}

    /// The backend's large host copies and fills, if it does them (the host backend).
    fn host_bulk(&self) -> Option<&dyn super::HostBulk> {
        None
    }

    /// The backend as `Any`, for [`super::State::backend`].
    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync>;
}

/// Starts a backend: `Ok(None)` when this process cannot run it (no GPU) and the settings do not
/// insist; an error when the settings ask for something it cannot do.
pub(crate) type Start = fn(&InitSettings) -> Result<Option<Arc<dyn Backend>>>;
