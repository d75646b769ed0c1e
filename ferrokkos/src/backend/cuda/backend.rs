//! The Cuda backend's part of the runtime state: the device's context, what every instance shares
//! (the compiled-kernel cache, the memory accounting), the state of one instance
//! ([`CudaInstance`], which the public [`super::Cuda`] handle holds) and the default instance.

use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};
use std::time::Instant;

use super::driver::{self, Context, DeviceInfo};
use super::jit::KernelCache;
use super::runtime::{DeviceClock, Faults, Queue};
use crate::error::{Error, Result};
use crate::runtime::{self, Backend};
use crate::settings::InitSettings;
use crate::space::{DeviceType, MemoryRecord, device_id};

/// What every Cuda instance and memory space of the process shares.
pub(crate) struct CudaShared {
    alive: AtomicBool,
    ids: AtomicU32,
    pub(crate) ctx: Arc<Context>,
    pub(crate) info: DeviceInfo,
    pub(crate) driver_version: (i32, i32),
    pub(crate) kernels: KernelCache,
    /// Accounting of CudaSpace, CudaHostPinnedSpace and CudaUVMSpace.
    pub(crate) device_memory: Arc<MemoryRecord>,
    pub(crate) pinned_memory: Arc<MemoryRecord>,
    pub(crate) managed_memory: Arc<MemoryRecord>,
    /// The GPU clock of the trace, while one is written.
    pub(crate) clock: Arc<DeviceClock>,
    /// Where kernels record out-of-bounds accesses.
    pub(crate) faults: Arc<Faults>,
}

impl CudaShared {
    /// `Err(Finalized)` once the backend has shut down.
    pub(crate) fn check_alive(&self, what: impl FnOnce() -> String) -> Result<()> {
        if self.alive.load(Ordering::Acquire) {
            Ok(())
        } else {
            Err(Error::Finalized { what: what() })
        }
    }

    /// The next instance number.
    pub(crate) fn next_id(&self) -> u32 {
        self.ids.fetch_add(1, Ordering::Relaxed) + 1
    }
}

/// One Cuda instance: its number, its queue (stream, work numbers, scratch memory) and the device
/// state it shares. Dropping it waits for its work.
pub(crate) struct CudaInstance {
    id: u32,
    shared: Arc<CudaShared>,
    queue: Arc<Queue>,
}

impl CudaInstance {
    /// A new instance with its own stream; a `recording` one records work into a graph instead of
    /// running it (see `super::graph`).
    pub(crate) fn create(shared: &Arc<CudaShared>, recording: bool) -> Result<Arc<CudaInstance>> {
        let id = shared.next_id();
        let device = device_id(DeviceType::Cuda, shared.info.ordinal as u32, id);
        let queue = Queue::new(
            &shared.ctx,
            &shared.clock,
            &shared.faults,
            device,
            recording,
        )?;
        Ok(Arc::new(CudaInstance {
            id,
            shared: Arc::clone(shared),
            queue,
        }))
    }

    /// The instance's number (Kokkos Tools' instance ID).
    pub(crate) fn id(&self) -> u32 {
        self.id
    }

    /// What every instance of the device shares.
    pub(crate) fn shared(&self) -> &Arc<CudaShared> {
        &self.shared
    }

    /// The instance's queue.
    pub(crate) fn queue(&self) -> &Arc<Queue> {
        &self.queue
    }
}

impl Drop for CudaInstance {
    fn drop(&mut self) {
        // The queue (and its stream) goes with the instance: wait for the work first (a recording
        // queue runs none).
        if self.queue.is_recording() {
            return;
        }
        if let Err(e) = self
            .queue
            .fence(&|| format!("dropping Cuda instance {}", self.id))
        {
            eprintln!("ferrokkos: {e}");
        }
    }
}

/// The Cuda backend of a running ferrokkos.
pub(crate) struct CudaBackend {
    pub(crate) shared: Arc<CudaShared>,
    default: Arc<CudaInstance>,
}

impl CudaBackend {
    /// Starts the backend on the device the settings choose, or `None` when the process has no
    /// usable GPU (no driver library, no device) or the settings disable it. A device the settings
    /// name explicitly that does not exist is an error.
    pub(crate) fn start(settings: &InitSettings) -> Result<Option<CudaBackend>> {
        if settings.cuda_disabled() {
            return Ok(None);
        }
        if !driver::is_available() {
            return match settings.requested_device() {
                Some(id) => Err(Error::Unavailable {
                    space: "Cuda",
                    reason: format!("device {id} was requested, but {}", unavailable_reason()),
                }),
                None => Ok(None),
            };
        }
        let ordinal = settings.select_device(driver::device_count()?)?;
        let info = driver::device_info(ordinal)?;
        let ctx = Context::retain(ordinal)?;
        let faults = Arc::new(Faults::new(&ctx)?);
        let shared = Arc::new(CudaShared {
            alive: AtomicBool::new(true),
            ids: AtomicU32::new(0),
            ctx,
            info,
            driver_version: driver::driver_version()?,
            kernels: KernelCache::new(Arc::clone(&faults)),
            device_memory: Arc::default(),
            pinned_memory: Arc::default(),
            managed_memory: Arc::default(),
            clock: Arc::default(),
            faults,
        });
        let default = CudaInstance::create(&shared, false)?;
        Ok(Some(CudaBackend { shared, default }))
    }
}

impl Backend for CudaBackend {
    /// Waits for all work on the device (every instance).
    fn fence_all(&self, label: &str) -> Result<()> {
        let device = crate::space::device_id(
            crate::space::DeviceType::Cuda,
            self.shared.info.ordinal as u32,
            0,
        );
        let _tools = crate::tools::FenceScope::begin(label, device);
        let what = || format!("fence \"{label}\" on Cuda");
        self.shared.ctx.synchronize(what)?;
        self.shared.faults.check(&what)
    }

    /// Starts the trace's GPU clock on the default instance's stream (`origin`: the trace's start).
    fn start_trace_clock(&self, origin: Instant) -> Result<()> {
        self.shared.clock.start(self.default.queue.stream(), origin)
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
        self.shared.alive.store(false, Ordering::Release);
        self.shared.kernels.clear();
    }

    fn metadata(&self) -> Vec<(&'static str, String)> {
        vec![("Cuda device", self.shared.info.name.clone())]
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

/// Starts the Cuda backend (the runtime's [`crate::runtime::Start`] for it): nothing when the
/// process has no usable GPU.
pub(crate) fn start(settings: &InitSettings) -> Result<Option<Arc<dyn Backend>>> {
    Ok(CudaBackend::start(settings)?.map(|b| Arc::new(b) as Arc<dyn Backend>))
}

/// Why the Cuda space cannot be used in this process.
pub(crate) fn unavailable_reason() -> String {
    match driver::init() {
        Err(e) => e.to_string(),
        Ok(()) => match driver::device_count() {
            Ok(0) => "the CUDA driver reports no device (check CUDA_VISIBLE_DEVICES)".into(),
            Ok(_) => "ferrokkos was initialized with the Cuda backend disabled".into(),
            Err(e) => e.to_string(),
        },
    }
}

/// The running Cuda backend's shared state, or why there is none.
pub(crate) fn backend_shared(what: impl Fn() -> String) -> Result<Arc<CudaShared>> {
    let state = runtime::state(&what)?;
    match state.backend::<CudaBackend>() {
        Some(cuda) => Ok(Arc::clone(&cuda.shared)),
        None => Err(Error::Unavailable {
            space: "Cuda",
            reason: format!("{}: {}", what(), unavailable_reason()),
        }),
    }
}

/// The running Cuda backend's default instance, or why there is none.
pub(crate) fn default_instance() -> Result<Arc<CudaInstance>> {
    let state = runtime::state(|| "getting the default Cuda instance".into())?;
    match state.backend::<CudaBackend>() {
        Some(cuda) => Ok(Arc::clone(&cuda.default)),
        None => Err(Error::Unavailable {
            space: "Cuda",
            reason: unavailable_reason(),
        }),
    }
}
