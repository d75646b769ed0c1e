//! The HIP backend (AMD GPUs), as far as it can be built and tested without one: every kernel's
//! HIP source ([`codegen`]: the shared emitter of `backend/gpu` with the HIP target prelude) and its
//! compilation by hiprtc, HIP's run-time compiler ([`hiprtc`], loaded at run time from
//! `libhiprtc` or `libamdhip64`), for AMD GPU architectures such as `gfx90a`. hiprtc needs no GPU.
//!
//! The runtime (the `Hip` execution space, its memory spaces and instances) waits for hardware;
//! `docs/hip.md` is its design. Of it, what can be tested without a GPU is built: `pointer_kind`,
//! what a pointer is from HIP's answer on each ROCm numbering, which deep_copy's plan
//! (`backend/gpu/copy/plan.rs`) follows (DESIGN.md seed 002); `code_cache`, the on-disk cache of
//! code objects (the GPU backends' shared disk cache, keyed by
//! hiprtc's library files, the target and the options), so that a warm start compiles nothing;
//! `runtime_api`, the part of the HIP runtime API that answers without a GPU (error names, versions,
//! the device count) with the device-selection check; and the launch planning of `backend/gpu`
//! (grids, team shapes, scratch), which takes the wavefront's width from [`codegen::GfxTarget`].

mod code_cache;
pub(crate) mod codegen;
pub mod hiprtc;
mod library;
mod pointer_kind;
// The HIP runtime that will call it waits for hardware; its tests run against the library.
#[cfg_attr(not(test), allow(dead_code))]
mod runtime_api;
