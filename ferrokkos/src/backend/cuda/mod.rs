//! The CUDA backend: run-time compilation of generated kernels with NVRTC.

pub mod nvrtc;
