//! The HIP backend (AMD GPUs), as far as it can be built and tested without one: every kernel's
//! HIP source ([`codegen`]: the shared emitter of `backend/gpu` with the HIP target prelude) and its
//! compilation by hiprtc, HIP's run-time compiler ([`hiprtc`], loaded at run time from
//! `libhiprtc` or `libamdhip64`), for AMD GPU architectures such as `gfx90a`. hiprtc needs no GPU.
//!
//! The runtime (the `Hip` execution space, its memory spaces and instances) waits for hardware;
//! `docs/hip.md` is its design. Of it, what can be tested without a GPU is built: `copy_plan`,
//! how deep_copy will copy and fill from the pointers' kinds (DESIGN.md seed 002).

pub(crate) mod codegen;
mod copy_plan;
pub mod hiprtc;
