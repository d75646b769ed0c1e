//! The GPU runtime's parts written once over the driver traits (`backend/gpu`), instantiated for
//! the CUDA driver.

use super::driver::CudaDriver;
use crate::backend::gpu;

/// An instance's stream and its bookkeeping.
pub(crate) type Queue = gpu::queue::Queue<CudaDriver>;
