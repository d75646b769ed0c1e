//! The HIP backend (AMD GPUs), as far as it can be built and tested without one: every kernel's
//! HIP source ([`codegen`]: the shared emitter of `backend/gpu` with the HIP target prelude) and its
//! compilation by hiprtc, HIP's run-time compiler ([`hiprtc`], loaded at run time from
//! `libhiprtc` or `libamdhip64`), for AMD GPU architectures such as `gfx90a`. hiprtc needs no GPU.
//!
//! The runtime (the `Hip` execution space, its memory spaces and instances) waits for hardware;
//! `docs/hip.md` is its design.

pub(crate) mod codegen;
pub mod hiprtc;
