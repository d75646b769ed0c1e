//! The CUDA backend: run-time compilation of generated kernels with NVRTC.

// Until the CUDA execution space uses it, only the tests reach this module.
#[allow(
    dead_code,
    reason = "used by the CUDA execution space, which is not wired in yet"
)]
pub mod nvrtc;
