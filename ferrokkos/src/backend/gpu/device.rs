//! [`Device`]: what every instance and memory space of one GPU shares in a process — the
//! driver's context, what the runtime reads about the device, the compiled kernels, the memory
//! accounting, the trace's clock and the fault record — and whether the backend still runs.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use super::clock::DeviceClock;
use super::driver::Driver;
use super::fault::Faults;
use super::kernels::KernelCache;
use crate::error::{Error, Result};
use crate::space::MemoryRecord;

/// One GPU's shared state.
pub(crate) struct Device<D: Driver> {
    alive: AtomicBool,
    ids: AtomicU32,
    pub(crate) ctx: Arc<D::Context>,
    pub(crate) info: D::DeviceInfo,
    /// The driver's version, `(major, minor)`.
    pub(crate) driver_version: (i32, i32),
    pub(crate) kernels: KernelCache<D>,
    /// Accounting of the device's memory spaces: device, pinned host and managed memory.
    pub(crate) device_memory: Arc<MemoryRecord>,
    pub(crate) pinned_memory: Arc<MemoryRecord>,
    pub(crate) managed_memory: Arc<MemoryRecord>,
    /// The GPU clock of the trace, while one is written.
    pub(crate) clock: Arc<DeviceClock<D>>,
    /// Where kernels record out-of-bounds accesses.
    pub(crate) faults: Arc<Faults<D>>,
}

impl<D: Driver> Device<D> {
    /// The state of the device of `ctx`.
    pub(crate) fn new(
        ctx: Arc<D::Context>,
        info: D::DeviceInfo,
        driver_version: (i32, i32),
    ) -> Result<Arc<Device<D>>> {
        let faults = Arc::new(Faults::new(&ctx)?);
        Ok(Arc::new(Device {
            alive: AtomicBool::new(true),
            ids: AtomicU32::new(0),
            ctx,
            info,
            driver_version,
            kernels: KernelCache::new(Arc::clone(&faults)),
            device_memory: Arc::default(),
            pinned_memory: Arc::default(),
            managed_memory: Arc::default(),
            clock: Arc::default(),
            faults,
        }))
    }

    /// `Err(Finalized)` once the backend has shut down.
    pub(crate) fn check_alive(&self, what: impl FnOnce() -> String) -> Result<()> {
        if self.alive.load(Ordering::Acquire) {
            Ok(())
        } else {
            Err(Error::Finalized { what: what() })
        }
    }

    /// Refuses new work from now on (at finalize).
    pub(crate) fn retire(&self) {
        self.alive.store(false, Ordering::Release);
    }

    /// The next instance number.
    pub(crate) fn next_id(&self) -> u32 {
        self.ids.fetch_add(1, Ordering::Relaxed) + 1
    }
}
