//! The CUDA driver layer: a checked, ownership-tracking wrapper over cudarc's raw `sys` bindings.
//!
//! Layering follows cudarc's own: `sys` (raw FFI, loaded at run time) -> [`check`] (a `CUresult`
//! becomes [`crate::BackendError::Cuda`] with the driver's own error name) -> small owning types whose lifetimes
//! mirror CUDA's (decision 8 of the design): a [`Context`] is the retained primary context of one
//! device, a [`Stream`] keeps its context alive, an [`Event`] keeps its stream alive, a [`Module`]
//! keeps its context alive and a [`Function`] keeps its module loaded.
//!
//! libcuda is loaded dynamically (cudarc's `dynamic-loading`). cudarc panics when a function of an
//! absent library (or an absent symbol) is called, so every entry point that may be the first call
//! goes through [`init`], which checks that the library loads and exports every function this layer
//! calls, and returns [`crate::BackendError::LibraryMissing`] otherwise.
//!
//! Every fallible call takes a `what` closure describing what ferrokkos was doing (`allocating View
//! "x" in CudaSpace`); it is evaluated only on error, so the success path allocates nothing.

mod buffer;
mod context;
mod device;
mod event;
mod gpu;
mod graph;
pub(crate) mod live;
mod memory;
mod module;
mod stream;

use std::ffi::{CStr, c_char, c_int};
use std::sync::OnceLock;

use cudarc::driver::sys;

use crate::error::{BackendError, Error, Result};

// The re-exports are the layer's API; each is allowed unused until the Cuda space uses it.
pub(crate) use crate::backend::gpu::driver::PointerKind;
#[allow(unused_imports)]
pub(crate) use buffer::{DeviceBuffer, ManagedBuffer, PinnedBuffer};
#[allow(unused_imports)]
pub(crate) use context::Context;
#[allow(unused_imports)]
pub(crate) use device::{DeviceInfo, device_info};
#[allow(unused_imports)]
pub(crate) use event::Event;
pub(crate) use gpu::CudaDriver;
pub(crate) use graph::{Executable, Graph, Node};
#[allow(unused_imports)]
pub(crate) use memory::{copy, copy_async, fill_async, fill_sync, pointer_kind};
// Raw allocation and free stay inside this layer: other code gets memory as the owning types of
// `buffer.rs`, which free it (so no code outside `driver/` can leak or double-free it).
#[cfg(test)]
use memory::{alloc_device, free_device};
#[cfg(test)]
pub(crate) use module::launch;
#[allow(unused_imports)]
pub(crate) use module::{Function, MAX_PARAMS, Module, launch_with_pointers};
#[allow(unused_imports)]
pub(crate) use stream::Stream;

/// The library's name in errors.
const LIBRARY: &str = "libcuda";

/// The driver functions this layer calls, by the names cudarc loads (its `_v2` choices included);
/// the library must export all of them. `cuEventElapsedTime_v2` is not listed: it is preferred
/// when present, with a fallback to `cuEventElapsedTime` (see `event.rs`).
const SYMBOLS: [&str; 58] = [
    "cuGetErrorName",
    "cuInit",
    "cuDriverGetVersion",
    "cuDeviceGetCount",
    "cuDeviceGet",
    "cuDeviceGetName",
    "cuDeviceGetAttribute",
    "cuDeviceTotalMem_v2",
    "cuDevicePrimaryCtxRetain",
    "cuDevicePrimaryCtxRelease_v2",
    "cuCtxSetCurrent",
    "cuCtxSynchronize",
    "cuMemGetInfo_v2",
    "cuStreamCreate",
    "cuStreamSynchronize",
    "cuStreamQuery",
    "cuStreamWaitEvent",
    "cuStreamDestroy_v2",
    "cuEventCreate",
    "cuEventRecord",
    "cuEventSynchronize",
    "cuEventQuery",
    "cuEventDestroy_v2",
    "cuMemAlloc_v2",
    "cuMemAllocAsync",
    "cuDeviceGetDefaultMemPool",
    "cuMemPoolTrimTo",
    "cuMemFree_v2",
    "cuMemFreeAsync",
    "cuMemHostAlloc",
    "cuMemFreeHost",
    "cuMemAllocManaged",
    "cuMemcpy",
    "cuMemcpyAsync",
    "cuMemsetD8_v2",
    "cuMemsetD8Async",
    "cuMemsetD16Async",
    "cuMemsetD32Async",
    "cuPointerGetAttributes",
    "cuModuleLoadData",
    "cuModuleUnload",
    "cuModuleGetFunction",
    "cuModuleGetGlobal_v2",
    "cuOccupancyMaxPotentialBlockSize",
    "cuOccupancyMaxActiveBlocksPerMultiprocessor",
    "cuFuncGetAttribute",
    "cuFuncSetAttribute",
    "cuLaunchKernel",
    "cuGraphCreate",
    "cuGraphDestroy",
    "cuStreamBeginCapture_v2",
    "cuStreamEndCapture",
    "cuGraphAddChildGraphNode",
    "cuGraphAddEmptyNode",
    "cuGraphInstantiateWithFlags",
    "cuGraphLaunch",
    "cuGraphExecDestroy",
    "cuGraphUpload",
];

/// Why libcuda is not usable (kept without heap memory: the state lives in a static for the whole
/// process, and the message is built when asked for).
#[derive(Clone, Copy, Debug)]
enum Missing {
    /// No candidate name loads.
    NotFound,
    /// The library loads but lacks this function.
    Symbol(&'static str),
}

impl Missing {
    /// The hint of [`crate::BackendError::LibraryMissing`].
    fn hint(self) -> String {
        match self {
            Missing::NotFound => {
                // The driver installs `libcuda.so.1`; the other names cudarc tries are counted,
                // not listed, so that the message stays one readable line.
                let mut names = cudarc::get_lib_name_candidates("cuda");
                let mut seen = std::collections::HashSet::new();
                names.retain(|n| seen.insert(n.clone()) && n != "libcuda.so.1");
                format!(
                    "libcuda.so.1 was not found by the dynamic loader (nor {} other names); \
                     install the NVIDIA driver (libcuda ships with it, not with the CUDA \
                     toolkit) or put its directory on LD_LIBRARY_PATH",
                    names.len()
                )
            }
            Missing::Symbol(name) => format!(
                "the library was found but does not export {name}; an NVIDIA driver for CUDA 12 \
                 or newer is needed"
            ),
        }
    }
}

/// `Ok` when libcuda loads and exports every function in [`SYMBOLS`], otherwise why not. Computed
/// once per process; calls nothing in the library.
fn library() -> std::result::Result<(), Missing> {
    static STATE: OnceLock<std::result::Result<(), Missing>> = OnceLock::new();
    *STATE.get_or_init(|| {
        // SAFETY: this only tries to dlopen each candidate name (running the library's
        // initializers, which have no preconditions) and closes it again.
        if !unsafe { sys::is_culib_present() } {
            return Err(Missing::NotFound);
        }
        match SYMBOLS.iter().find(|name| !has_symbol(name)) {
            Some(name) => Err(Missing::Symbol(name)),
            None => Ok(()),
        }
    })
}

/// Whether libcuda exports `name`. Only call when the library is present.
fn has_symbol(name: &str) -> bool {
    // SAFETY: callers checked that the library is present, so `culib` loads it by the same list of
    // names and does not panic; the symbol is only looked up, never called through this type.
    unsafe { sys::culib().get::<*const std::ffi::c_void>(name.as_bytes()) }.is_ok()
}

/// [`crate::BackendError::LibraryMissing`] unless libcuda is usable (loaded, every function exported). Does not
/// call `cuInit`.
fn check_library() -> Result<()> {
    library().map_err(|missing| {
        Error::Backend(BackendError::LibraryMissing {
            library: LIBRARY,
            hint: missing.hint(),
        })
    })
}

/// The driver's name for `code` (`CUDA_ERROR_OUT_OF_MEMORY`, from `cuGetErrorName`), or the Debug
/// name of cudarc's enum variant when libcuda is not usable or does not know the code (the two
/// agree for every code cudarc knows).
pub(crate) fn error_name(code: sys::CUresult) -> String {
    if library().is_ok() {
        let mut name: *const c_char = std::ptr::null();
        // SAFETY: the library is loaded and exports cuGetErrorName (checked by `library`), which
        // may be called before cuInit; `name` is valid for a write.
        let status = unsafe { sys::cuGetErrorName(code, &mut name) };
        if status == sys::CUresult::CUDA_SUCCESS && !name.is_null() {
            // SAFETY: on success the driver points `name` at a static NUL-terminated string.
            return unsafe { CStr::from_ptr(name) }
                .to_string_lossy()
                .into_owned();
        }
    }
    format!("{code:?}")
}

/// `Ok` on `CUDA_SUCCESS`, otherwise [`crate::BackendError::Cuda`] naming `call`, the driver's error name and
/// code, and `what` (evaluated only on error).
pub(crate) fn check(
    code: sys::CUresult,
    call: &'static str,
    what: impl FnOnce() -> String,
) -> Result<()> {
    if code == sys::CUresult::CUDA_SUCCESS {
        Ok(())
    } else {
        Err(cuda_error(code, call, what()))
    }
}

/// [`crate::BackendError::Cuda`] for a failed `call`.
fn cuda_error(code: sys::CUresult, call: &'static str, what: String) -> Error {
    Error::Backend(BackendError::Cuda {
        call,
        name: error_name(code),
        code: code as i32,
        what,
    })
}

/// Initializes the driver once per process: libcuda must be usable ([`crate::BackendError::LibraryMissing`]
/// otherwise, with a hint) and `cuInit(0)` must succeed ([`crate::BackendError::Cuda`] otherwise, e.g.
/// `CUDA_ERROR_NO_DEVICE`). Later calls return the first call's outcome.
pub(crate) fn init() -> Result<()> {
    static STATE: OnceLock<std::result::Result<(), sys::CUresult>> = OnceLock::new();
    check_library()?;
    let state = STATE.get_or_init(|| {
        // SAFETY: the library is loaded and exports cuInit (checked just above); 0 is the only
        // valid flag value.
        let code = unsafe { sys::cuInit(0) };
        if code == sys::CUresult::CUDA_SUCCESS {
            Ok(())
        } else {
            Err(code)
        }
    });
    match state {
        Ok(()) => Ok(()),
        Err(code) => Err(cuda_error(
            *code,
            "cuInit",
            "initializing the CUDA driver".to_string(),
        )),
    }
}

/// Whether CUDA can be used: the driver initializes and sees at least one device.
pub(crate) fn is_available() -> bool {
    init().is_ok() && device_count().is_ok_and(|n| n > 0)
}

/// The CUDA version the driver supports, `(major, minor)`: `(13, 0)` for 13000. Needs the library
/// but not a device (it does not call `cuInit`).
pub(crate) fn driver_version() -> Result<(i32, i32)> {
    let raw = driver_version_raw()?;
    Ok((raw / 1000, (raw % 1000) / 10))
}

/// `cuDriverGetVersion` as the driver reports it: 1000 * major + 10 * minor (13000, 12010).
pub(crate) fn driver_version_raw() -> Result<i32> {
    check_library()?;
    let mut version: c_int = 0;
    // SAFETY: the library is loaded (checked above); cuDriverGetVersion may be called before cuInit;
    // `version` is valid for a write.
    let code = unsafe { sys::cuDriverGetVersion(&mut version) };
    check(code, "cuDriverGetVersion", || {
        "querying the CUDA driver version".to_string()
    })?;
    Ok(version)
}

/// The number of CUDA devices the driver sees (after `CUDA_VISIBLE_DEVICES`).
pub(crate) fn device_count() -> Result<usize> {
    init()?;
    let mut count: c_int = 0;
    // SAFETY: the driver is initialized (above); `count` is valid for a write.
    let code = unsafe { sys::cuDeviceGetCount(&mut count) };
    check(code, "cuDeviceGetCount", || {
        "counting the CUDA devices".to_string()
    })?;
    Ok(usize::try_from(count).unwrap_or(0))
}

/// Whether libcuda is present at all (without checking its exports). Used by tests to decide what
/// to expect.
#[cfg(test)]
fn library_present() -> bool {
    // SAFETY: as in `library`: only dlopen / dlclose of the candidate names.
    unsafe { sys::is_culib_present() }
}

/// For the GPU tests of this layer: the primary context of device 0.
#[cfg(test)]
pub(super) fn test_context() -> std::sync::Arc<Context> {
    Context::retain(0).expect("a CUDA device 0 (these tests need a GPU)")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_passes_success_without_evaluating_what() {
        check(sys::CUresult::CUDA_SUCCESS, "cuInit", || {
            panic!("`what` must not be evaluated on success")
        })
        .expect("success is Ok");
    }

    #[test]
    fn check_maps_a_failure_to_a_named_cuda_error() {
        let err = check(
            sys::CUresult::CUDA_ERROR_INVALID_VALUE,
            "cuLaunchKernel",
            || "parallel_for \"axpy\" on Cuda".to_string(),
        )
        .expect_err("a failure is Err");
        match &err {
            Error::Backend(BackendError::Cuda {
                call,
                name,
                code,
                what,
            }) => {
                assert_eq!(*call, "cuLaunchKernel");
                assert_eq!(name, "CUDA_ERROR_INVALID_VALUE");
                assert_eq!(*code, 1);
                assert_eq!(what, "parallel_for \"axpy\" on Cuda");
            }
            other => panic!("expected BackendError::Cuda, got {other:?}"),
        }
        let message = err.to_string();
        assert!(
            message.contains("cuLaunchKernel failed with")
                && message.contains("CUDA_ERROR_INVALID_VALUE"),
            "{message}"
        );
        assert!(
            message.starts_with("parallel_for \"axpy\" on Cuda: "),
            "{message}"
        );
    }

    #[test]
    fn error_name_matches_the_driver_names() {
        assert_eq!(
            error_name(sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY),
            "CUDA_ERROR_OUT_OF_MEMORY"
        );
        assert_eq!(
            error_name(sys::CUresult::CUDA_ERROR_ILLEGAL_ADDRESS),
            "CUDA_ERROR_ILLEGAL_ADDRESS"
        );
        assert_eq!(error_name(sys::CUresult::CUDA_SUCCESS), "CUDA_SUCCESS");
    }

    #[test]
    fn without_libcuda_everything_is_library_missing() {
        if library_present() {
            eprintln!("skipped: libcuda is present on this machine");
            return;
        }
        assert!(!is_available());
        for err in [
            init().expect_err("no libcuda"),
            device_count().expect_err("no libcuda"),
            driver_version().expect_err("no libcuda"),
            device_info(0).expect_err("no libcuda"),
            Context::retain(0).expect_err("no libcuda"),
            pointer_kind(std::ptr::null()).expect_err("no libcuda"),
        ] {
            match &err {
                Error::Backend(BackendError::LibraryMissing { library, hint }) => {
                    assert_eq!(*library, "libcuda");
                    assert!(hint.contains("libcuda.so"), "{hint}");
                }
                other => panic!("expected BackendError::LibraryMissing, got {other:?}"),
            }
        }
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn the_driver_initializes_and_sees_a_device() {
        init().expect("cuInit");
        assert!(is_available());
        assert!(device_count().expect("count") >= 1);
        let (major, minor) = driver_version().expect("version");
        assert!(major >= 12, "driver {major}.{minor}");
        assert!((0..10).contains(&minor));
        assert_eq!(
            driver_version_raw().expect("raw"),
            major * 1000 + minor * 10
        );
    }
}
