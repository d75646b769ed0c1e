//! [`GpuBackend`]: a GPU backend's part of the runtime state (its [`Device`] and default
//! [`Instance`]) and its answers to the runtime ([`crate::runtime::Backend`]): the global fence,
//! the trace's GPU clock, shutdown and the metadata tools get.

use std::any::Any;
use std::sync::Arc;
use std::time::Instant;

use super::device::Device;
use super::driver::{Context as _, DeviceInfo as _, Driver};
use super::instance::Instance;
use crate::error::Result;
use crate::runtime::Backend;

/// A running GPU backend.
pub(crate) struct GpuBackend<D: Driver> {
    pub(crate) shared: Arc<Device<D>>,
    pub(crate) default: Arc<Instance<D>>,
}

impl<D: Driver> GpuBackend<D> {
    /// The backend of `shared`, with a new default instance.
    pub(crate) fn new(shared: Arc<Device<D>>) -> Result<GpuBackend<D>> {
        let default = Instance::create(&shared, false)?;
        Ok(GpuBackend { shared, default })
    }
}

impl<D: Driver> Backend for GpuBackend<D> {
    /// Waits for all work on the device (every instance).
    fn fence_all(&self, label: &str) -> Result<()> {
        let device = crate::space::device_id(D::DEVICE_TYPE, self.shared.info.ordinal() as u32, 0);
        let _tools = crate::tools::FenceScope::begin(label, device);
        let what = || format!("fence \"{label}\" on {}", D::SPACE);
        let _alone = super::capture_lock::fence_whole_device(&what)?;
        self.shared.ctx.synchronize(what)?;
        self.shared.faults.check(&what)
    }

    /// Starts the trace's GPU clock on the default instance's stream (`origin`: the trace's start).
    fn start_trace_clock(&self, origin: Instant) -> Result<()> {
        self.shared
            .clock
            .start(self.default.queue().stream(), origin)
    }

    /// Stops the trace's GPU clock (at finalize, before the streams go).
    fn stop_trace_clock(&self) {
        self.shared.clock.stop();
    }

    /// Waits for the device, refuses new work, and drops the compiled kernels.
    fn shutdown(&self) {
        if let Err(e) = self.fence_all("ferrokkos::finalize") {
            eprintln!("ferrokkos: {e}");
        }
        self.shared.retire();
        self.shared.kernels.clear();
    }

    fn metadata(&self) -> Vec<(&'static str, String)> {
        vec![(D::DEVICE_METADATA, self.shared.info.name().to_string())]
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}
