//! What the GPU backends share: the code generator ([`codegen`]), which turns a kernel's
//! backend-neutral body into C++ entry points over one device header. CUDA and HIP speak nearly the
//! same kernel language, so one emitter serves both; the few differences (warp width, shuffles,
//! masks) sit in one small target prelude per language (`codegen/device/target_*.h`), chosen by
//! [`codegen::Target`]. Each backend compiles the text with its own run-time compiler (NVRTC in
//! `backend/cuda`, hiprtc in `backend/hip`).
//!
//! Launch planning is shared too, as pure functions of the programming model's lanes and limits
//! ([`arch::GpuArch`]: warps of 32 or wavefronts of 64, HIP's 32-bit thread count per launch):
//! grids and blocks ([`grid`]) and leagues of teams with their scratch ([`team`]).

pub(crate) mod arch;
// The runtime over the driver traits is built where a driver is: CUDA's (HIP's runtime is
// designed in docs/hip.md and not written yet).
#[cfg(feature = "cuda")]
pub(crate) mod backend;
// The built-in kernels and the copy plan are pure and unit-tested (as `grid`, below).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) mod builtin;
#[cfg(feature = "cuda")]
pub(crate) mod capture_lock;
#[cfg(feature = "cuda")]
pub(crate) mod clock;
pub(crate) mod codegen;
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) mod copy;
#[cfg(feature = "cuda")]
pub(crate) mod device;
pub(crate) mod disk_cache;
#[cfg(feature = "cuda")]
pub(crate) mod driver;
#[cfg(feature = "cuda")]
pub(crate) mod fault;
#[cfg(feature = "cuda")]
pub(crate) mod graph;
// The fault record's reader (`fault.rs`, built with CUDA) is its only caller.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
mod panic_message;
// Launch planning is pure and unit-tested; only the runtime (built with CUDA) calls it, so with
// HIP alone it has no caller until the HIP runtime (docs/hip.md) does.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) mod grid;
#[cfg(feature = "cuda")]
pub(crate) mod instance;
#[cfg(feature = "cuda")]
pub(crate) mod kernels;
#[cfg(feature = "cuda")]
pub(crate) mod launch;
#[cfg(feature = "cuda")]
pub(crate) mod patterns;
#[cfg(feature = "cuda")]
pub(crate) mod queue;
#[cfg(feature = "cuda")]
pub(crate) mod reduce;
#[cfg(feature = "cuda")]
pub(crate) mod scratch;
// The sort's plan and source are pure and unit-tested (as `grid`); its runtime needs a driver.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub(crate) mod sort;
#[cfg(feature = "cuda")]
pub(crate) mod space;
#[cfg_attr(not(feature = "cuda"), allow(dead_code))] // as `grid`
pub(crate) mod team;
