//! The Cuda backend's part of the runtime state: the GPU runtime's device state, instance state and
//! backend (`backend/gpu`) for the CUDA driver, how the backend starts, and how the rest of the
//! CUDA backend finds it.

use std::sync::Arc;

use super::driver::{self, Context, CudaDriver};
use crate::backend::gpu;
use crate::error::{Error, Result};
use crate::runtime::{self, Backend};
use crate::settings::InitSettings;

/// What every Cuda instance and memory space of the process shares.
pub(crate) type CudaShared = gpu::device::Device<CudaDriver>;
/// One Cuda instance's state (what the public [`super::Cuda`] handle holds).
pub(crate) type CudaInstance = gpu::instance::Instance<CudaDriver>;
/// The Cuda backend of a running ferrokkos.
pub(crate) type CudaBackend = gpu::backend::GpuBackend<CudaDriver>;

/// Starts the backend on the device the settings choose, or `None` when the process has no
/// usable GPU (no driver library, no device) or the settings disable it. A device the settings
/// name explicitly that does not exist is an error.
fn start_cuda(settings: &InitSettings) -> Result<Option<CudaBackend>> {
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
    let shared = CudaShared::new(ctx, info, driver::driver_version()?)?;
    Ok(Some(CudaBackend::new(shared)?))
}

/// Starts the Cuda backend (the runtime's [`crate::runtime::Start`] for it): nothing when the
/// process has no usable GPU.
pub(crate) fn start(settings: &InitSettings) -> Result<Option<Arc<dyn Backend>>> {
    Ok(start_cuda(settings)?.map(|b| Arc::new(b) as Arc<dyn Backend>))
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
