//! The part of the HIP runtime API (`libamdhip64`) that answers without a GPU: error names, the
//! runtime's and driver's versions, and the device count (`hipErrorNoDevice` here). The HIP
//! runtime (docs/hip.md) builds its errors and its device selection on it; today it lets
//! the error mapping and the device-selection messages be tested against the real library.
//!
//! The library is loaded on first use with `dlopen` (libloading), as hiprtc is: the first of
//! [`LIBRARIES`] that loads and exports every function this module calls.

use std::ffi::{CStr, c_char, c_int};
use std::sync::OnceLock;

use super::library;
use crate::error::{BackendError, Error, Result};

/// The library's name in errors.
const LIBRARY: &str = "libamdhip64";

/// The file names tried, in order (through the dynamic loader's search, as for hiprtc).
const LIBRARIES: [&str; 4] = [
    "libamdhip64.so",
    "libamdhip64.so.6",
    "libamdhip64.so.5",
    "/opt/rocm/lib/libamdhip64.so",
];

/// `hipError_t`: 0 is success.
type Status = c_int;

/// `hipErrorNoDevice`: no AMD GPU is visible (the same number in ROCm 5 and 6).
pub(crate) const NO_DEVICE: Status = 100;

/// The runtime functions this module calls, from one loaded library.
struct Api {
    /// Keeps the functions' code mapped (never unloaded: a static of the process).
    _library: libloading::Library,
    error_name: unsafe extern "C" fn(Status) -> *const c_char,
    runtime_version: unsafe extern "C" fn(*mut c_int) -> Status,
    driver_version: unsafe extern "C" fn(*mut c_int) -> Status,
    device_count: unsafe extern "C" fn(*mut c_int) -> Status,
}

/// The loaded library, or why there is none. Computed once per process.
fn api() -> &'static std::result::Result<Api, String> {
    static API: OnceLock<std::result::Result<Api, String>> = OnceLock::new();
    API.get_or_init(|| {
        library::first_of(
            &LIBRARIES,
            "the HIP runtime's functions",
            "install ROCm (on Debian or Ubuntu: `apt-get install libamdhip64-5`) or put its \
             library directory on LD_LIBRARY_PATH",
            load,
        )
    })
}

/// Loads `name` and looks up every function of [`Api`].
fn load(name: &str) -> std::result::Result<Api, String> {
    let lib = library::open(name)?;
    // SAFETY: each field's type is the C signature `hip_runtime_api.h` declares for its function
    // (an `int` argument or an `int*`, an `int` or a C string result); the library is kept with
    // the pointers, for the process.
    unsafe {
        Ok(Api {
            error_name: library::function(&lib, b"hipGetErrorName")?,
            runtime_version: library::function(&lib, b"hipRuntimeGetVersion")?,
            driver_version: library::function(&lib, b"hipDriverGetVersion")?,
            device_count: library::function(&lib, b"hipGetDeviceCount")?,
            _library: lib,
        })
    }
}

/// The loaded library, or [`BackendError::LibraryMissing`].
fn loaded() -> Result<&'static Api> {
    library::loaded(api(), LIBRARY)
}

/// The names of the errors the runtime will meet most, by number (ROCm 5 and 6 agree on these;
/// the library's `hipGetErrorName` is the authority, and a test checks the two agree). Used when
/// the library cannot answer.
const NAMES: [(Status, &str); 22] = [
    (0, "hipSuccess"),
    (1, "hipErrorInvalidValue"),
    (2, "hipErrorOutOfMemory"),
    (3, "hipErrorNotInitialized"),
    (4, "hipErrorDeinitialized"),
    (9, "hipErrorInvalidConfiguration"),
    (17, "hipErrorInvalidDevicePointer"),
    (21, "hipErrorInvalidMemcpyDirection"),
    (98, "hipErrorInvalidDeviceFunction"),
    (NO_DEVICE, "hipErrorNoDevice"),
    (101, "hipErrorInvalidDevice"),
    (200, "hipErrorInvalidImage"),
    (201, "hipErrorInvalidContext"),
    (209, "hipErrorNoBinaryForGpu"),
    (400, "hipErrorInvalidHandle"),
    (500, "hipErrorNotFound"),
    (600, "hipErrorNotReady"),
    (700, "hipErrorIllegalAddress"),
    (701, "hipErrorLaunchOutOfResources"),
    (709, "hipErrorContextIsDestroyed"),
    (719, "hipErrorLaunchFailure"),
    (801, "hipErrorNotSupported"),
];

/// The name of the HIP error `code`: the library's (`hipGetErrorName`) when it is loaded, else
/// [`NAMES`]', else `hipError(<code>)`.
pub(crate) fn error_name(code: Status) -> String {
    if let Ok(api) = api() {
        // SAFETY: `hipGetErrorName` takes any number and returns a pointer to a static C string
        // (`hipErrorUnknown` for numbers it does not know), or null, checked below.
        let name = unsafe { (api.error_name)(code) };
        if !name.is_null() {
            // SAFETY: non-null, so a NUL-terminated static string of the library, which stays
            // loaded for the process.
            return unsafe { CStr::from_ptr(name) }
                .to_string_lossy()
                .into_owned();
        }
    }
    table_name(code).map_or_else(|| format!("hipError({code})"), str::to_string)
}

/// The name [`NAMES`] gives `code`, if any.
fn table_name(code: Status) -> Option<&'static str> {
    NAMES.iter().find(|(c, _)| *c == code).map(|(_, n)| *n)
}

/// What to check for the HIP error `code`, for the errors with a known fix (empty otherwise).
pub(crate) fn hint(code: Status) -> &'static str {
    match code {
        NO_DEVICE => {
            "no AMD GPU is visible to this process: check that it may open /dev/kfd and /dev/dri \
             (groups render and video) and what ROCR_VISIBLE_DEVICES, HIP_VISIBLE_DEVICES and \
             CUDA_VISIBLE_DEVICES select"
        }
        101 => {
            "the device number is not among the visible devices (ROCR_VISIBLE_DEVICES, \
             HIP_VISIBLE_DEVICES and CUDA_VISIBLE_DEVICES renumber them from 0)"
        }
        200 | 209 => {
            "the code object was compiled for another target than the device's: did its xnack or \
             sramecc mode change (HSA_XNACK)? Set FERROKKOS_CACHE_DIR=off to rule out a stale \
             disk cache"
        }
        2 => "the GPU's memory is exhausted: free Views, or allocate fewer or smaller ones",
        700 | 719 => {
            "a kernel faulted on the GPU; the HIP backend cannot be used again in this process"
        }
        _ => "",
    }
}

/// `Ok(())` for `hipSuccess`, else [`BackendError::Hip`] naming the call, the error and `what`,
/// with the error's [`hint`].
pub(crate) fn check(code: Status, call: &'static str, what: impl FnOnce() -> String) -> Result<()> {
    if code == 0 {
        return Ok(());
    }
    Err(Error::Backend(BackendError::Hip {
        call,
        name: error_name(code),
        code,
        what: what(),
        hint: hint(code),
    }))
}

/// The ROCm runtime's and driver's versions as HIP encodes them (`major * 10^7 + minor * 10^5 +
/// patch`: 50221153 is 5.2.21153).
pub(crate) fn versions() -> Result<(i32, i32)> {
    let api = loaded()?;
    let (mut runtime, mut driver) = (0, 0);
    // SAFETY: the library is loaded; each pointer is valid for one `int` write.
    let code = unsafe { (api.runtime_version)(&mut runtime) };
    check(code, "hipRuntimeGetVersion", || {
        "asking HIP's version".into()
    })?;
    // SAFETY: as above.
    let code = unsafe { (api.driver_version)(&mut driver) };
    check(code, "hipDriverGetVersion", || {
        "asking HIP's version".into()
    })?;
    Ok((runtime, driver))
}

/// The number of AMD GPUs the runtime sees (after `HIP_VISIBLE_DEVICES` and
/// `ROCR_VISIBLE_DEVICES`): 0 when it reports `hipErrorNoDevice`; another failure is an error.
pub(crate) fn device_count() -> Result<u32> {
    let api = loaded()?;
    let mut count: c_int = 0;
    // SAFETY: the library is loaded; `count` is valid for one `int` write.
    let code = unsafe { (api.device_count)(&mut count) };
    if code == NO_DEVICE {
        return Ok(0);
    }
    check(code, "hipGetDeviceCount", || "counting AMD GPUs".into())?;
    Ok(u32::try_from(count).unwrap_or(0))
}

/// The variables that decide which AMD GPUs a process sees, in the order the stack applies them.
const VISIBILITY: [&str; 3] = [
    "ROCR_VISIBLE_DEVICES",
    "HIP_VISIBLE_DEVICES",
    "CUDA_VISIBLE_DEVICES",
];

/// Device `ordinal` when the runtime sees `count` devices, or [`Error::Unavailable`] naming the
/// ordinal, the count and the visibility variables that are set (read through `var`; HIP also
/// honours `CUDA_VISIBLE_DEVICES`, which surprises CUDA users on mixed machines).
pub(crate) fn check_device(
    ordinal: u32,
    count: u32,
    var: impl Fn(&str) -> Option<String>,
) -> Result<u32> {
    if ordinal < count {
        return Ok(ordinal);
    }
    let set: Vec<String> = VISIBILITY
        .iter()
        .filter_map(|name| var(name).map(|value| format!("{name}={value:?}")))
        .collect();
    let visibility = if set.is_empty() {
        format!("none of {} is set", VISIBILITY.join(", "))
    } else {
        format!("set: {}", set.join(", "))
    };
    let seen = match count {
        0 => "the HIP runtime sees no AMD GPU".to_string(),
        n => format!("the HIP runtime sees {n} AMD GPU(s) (valid ordinals 0..{n})"),
    };
    Err(Error::Unavailable {
        space: "HIP",
        reason: format!("there is no AMD GPU {ordinal}: {seen}; {visibility}"),
    })
}

#[cfg(test)]
mod tests;
