//! The CUDA backend: the [`Cuda`] execution space, its memory spaces, and the machinery under them
//! (the driver layer, NVRTC, the kernel cache, launches and copies).
//!
//! Everything here is loaded at run time: a build needs no CUDA toolkit, and a process without a
//! GPU or driver simply has no Cuda backend ([`Cuda::is_available`] is false, and
//! [`crate::ExecutionSpace::default_instance`] says why).

pub(crate) mod backend;
#[cfg(test)]
mod builtin_tests;
mod collective;
pub(crate) mod driver;
mod graph;
mod instance;
pub(crate) mod jit_cache;
#[cfg(test)]
mod launch_profile;
mod nccl;
pub mod nvrtc;
mod policies;
mod runtime;
mod spaces;
mod team;

pub use crate::backend::gpu::kernels::JitStats;
pub(crate) use backend::start;
pub use collective::{NcclComm, NcclId, NcclOp, NcclTransfer, NcclType};
pub use driver::live::CudaHandles;
pub use instance::{Cuda, CudaDevice};
pub use spaces::{CudaHostPinnedSpace, CudaSpace, CudaUVMSpace};
