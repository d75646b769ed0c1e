//! Run-time compilation of generated HIP C++ to AMD GPU code objects with hiprtc, HIP's run-time
//! compiler. It needs no GPU: a machine without one compiles for any target hiprtc knows.
//!
//! hiprtc is loaded on first use with `dlopen` (libloading), as NVRTC and the CUDA driver are: the
//! first of [`LIBRARIES`] that loads and exports every function this module calls. ROCm 6 ships it
//! as `libhiprtc.so`; ROCm 5 inside `libamdhip64.so` (Debian and Ubuntu: the package
//! `libamdhip64-5`, with `libhiprtc-builtins5`, which hiprtc loads when it compiles).
//!
//! Every call into the library holds one process-wide lock: hiprtc's thread safety is not
//! documented for the versions this supports, and a compilation of a kernel takes long enough
//! (0.2 to 1 s) that the lock costs nothing worth measuring.

use std::ffi::{CString, c_char, c_int, c_void};
use std::sync::{Mutex, OnceLock};
use std::time::{Duration, Instant};

use super::codegen::{self, GfxTarget};
use super::library;
use crate::backend::gpu::codegen::{Target, TranslationUnit};
use crate::error::{BackendError, Error, Result};

/// The library's name in errors.
const LIBRARY: &str = "libamdhip64 / libhiprtc";

/// The file names tried, in order (each through the dynamic loader's search: `LD_LIBRARY_PATH`,
/// the runpath, the system directories, where ROCm's installer registers `/opt/rocm/lib`).
pub const LIBRARIES: [&str; 6] = [
    "libhiprtc.so",
    "libhiprtc.so.6",
    "libamdhip64.so",
    "libamdhip64.so.6",
    "libamdhip64.so.5",
    "/opt/rocm/lib/libhiprtc.so",
];

/// `hiprtcProgram`: an opaque handle.
type Program = *mut c_void;
/// `hiprtcResult`: 0 is success.
type Status = c_int;

/// The hiprtc functions this module calls, from one loaded library.
struct Api {
    /// Keeps the functions' code mapped (never unloaded: a static of the process).
    _library: libloading::Library,
    version: unsafe extern "C" fn(*mut c_int, *mut c_int) -> Status,
    create: unsafe extern "C" fn(
        *mut Program,
        *const c_char,
        *const c_char,
        c_int,
        *const *const c_char,
        *const *const c_char,
    ) -> Status,
    compile: unsafe extern "C" fn(Program, c_int, *const *const c_char) -> Status,
    log_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    log: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    code_size: unsafe extern "C" fn(Program, *mut usize) -> Status,
    code: unsafe extern "C" fn(Program, *mut c_char) -> Status,
    destroy: unsafe extern "C" fn(*mut Program) -> Status,
    /// `hipRuntimeGetVersion`, where the library has it (libamdhip64 does; ROCm 6's libhiprtc
    /// does not): ROCm 5.2's `hiprtcVersion` answers 9.0, not its release.
    runtime_version: Option<unsafe extern "C" fn(*mut c_int) -> Status>,
}

/// Serializes every call into hiprtc (see the module documentation).
static CALLS: Mutex<()> = Mutex::new(());

/// The loaded library, or why there is none (the hint of [`BackendError::LibraryMissing`]). The
/// answer is computed once per process.
fn api() -> &'static std::result::Result<Api, String> {
    static API: OnceLock<std::result::Result<Api, String>> = OnceLock::new();
    API.get_or_init(|| {
        library::first_of(
            &LIBRARIES,
            "hiprtc's functions",
            "install ROCm's hiprtc (on Debian or Ubuntu: `apt-get install libamdhip64-5 \
             libhiprtc-builtins5`) or put its library directory on LD_LIBRARY_PATH",
            load,
        )
    })
}

/// Loads `name` and looks up every function of [`Api`].
fn load(name: &str) -> std::result::Result<Api, String> {
    let lib = library::open(name)?;
    // SAFETY: each field's type is hiprtc's C signature of its function, as `hiprtc.h` declares
    // it (every argument and result is a pointer, `int` or `size_t`), and `runtime_version`'s is
    // `hipRuntimeGetVersion(int*)` as `hip_runtime_api.h` declares it; the library is kept with
    // the pointers, for the process.
    unsafe {
        Ok(Api {
            version: library::function(&lib, b"hiprtcVersion")?,
            create: library::function(&lib, b"hiprtcCreateProgram")?,
            compile: library::function(&lib, b"hiprtcCompileProgram")?,
            log_size: library::function(&lib, b"hiprtcGetProgramLogSize")?,
            log: library::function(&lib, b"hiprtcGetProgramLog")?,
            code_size: library::function(&lib, b"hiprtcGetCodeSize")?,
            code: library::function(&lib, b"hiprtcGetCode")?,
            destroy: library::function(&lib, b"hiprtcDestroyProgram")?,
            runtime_version: library::function(&lib, b"hipRuntimeGetVersion").ok(),
            _library: lib,
        })
    }
}

/// The loaded library, or [`BackendError::LibraryMissing`].
fn loaded() -> Result<&'static Api> {
    library::loaded(api(), LIBRARY)
}

/// Whether hiprtc can be used: a library of [`LIBRARIES`] loads with every function this module
/// calls.
pub fn is_available() -> bool {
    api().is_ok()
}

/// The ROCm release of the loaded hiprtc, `(major, minor)`: `(5, 2)` for ROCm 5.2. From
/// `hipRuntimeGetVersion` (`major * 10^7 + minor * 10^5 + patch`) where the library has it, else
/// from `hiprtcVersion` (ROCm 6's `libhiprtc`); ROCm 5's `hiprtcVersion` answers 9.0 whatever
/// the release, so it is not asked there.
pub fn version() -> Result<(i32, i32)> {
    let api = loaded()?;
    let _calls = CALLS.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(runtime_version) = api.runtime_version {
        let mut n: c_int = 0;
        // SAFETY: the library is loaded; the pointer is valid for a write.
        let status = unsafe { runtime_version(&mut n) };
        if status == 0 && n > 0 {
            return Ok((n / 10_000_000, n / 100_000 % 100));
        }
    }
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: the library is loaded; both pointers are valid for writes.
    let status = unsafe { (api.version)(&mut major, &mut minor) };
    if status != 0 {
        return Err(failure("", "", "hiprtcVersion", status, String::new()));
    }
    Ok((major, minor))
}

/// A compiled program: the code object (an ELF image for one AMD GPU architecture) and hiprtc's
/// log.
#[derive(Clone, Debug)]
pub struct CodeObject {
    /// The architecture compiled for: `gfx90a`.
    pub target: String,
    /// The code object, ready for `hipModuleLoadData`.
    pub image: Vec<u8>,
    /// hiprtc's log (warnings; usually empty).
    pub log: String,
    /// How long hiprtc took, from creating the program to handing back the code.
    pub compile_time: Duration,
}

/// hiprtc's name of `status` (`hiprtcResult`, whose values are the same in every ROCm release).
fn status_name(status: Status) -> &'static str {
    const NAMES: [&str; 12] = [
        "HIPRTC_SUCCESS",
        "HIPRTC_ERROR_OUT_OF_MEMORY",
        "HIPRTC_ERROR_PROGRAM_CREATION_FAILURE",
        "HIPRTC_ERROR_INVALID_INPUT",
        "HIPRTC_ERROR_INVALID_PROGRAM",
        "HIPRTC_ERROR_INVALID_OPTION",
        "HIPRTC_ERROR_COMPILATION",
        "HIPRTC_ERROR_BUILTIN_OPERATION_FAILURE",
        "HIPRTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION",
        "HIPRTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION",
        "HIPRTC_ERROR_NAME_EXPRESSION_NOT_VALID",
        "HIPRTC_ERROR_INTERNAL_ERROR",
    ];
    usize::try_from(status)
        .ok()
        .and_then(|k| NAMES.get(k))
        .copied()
        .unwrap_or("HIPRTC_ERROR_UNKNOWN")
}

/// [`BackendError::Hiprtc`] for a failed `call`.
fn failure(program: &str, target: &str, call: &'static str, status: Status, log: String) -> Error {
    Error::Backend(BackendError::Hiprtc {
        program: program.to_string(),
        target: target.to_string(),
        call,
        code: status_name(status),
        log,
    })
}

/// A program created by hiprtc, destroyed on drop.
struct Created<'a> {
    api: &'a Api,
    program: Program,
}

impl Created<'_> {
    /// The program's log (empty if there is none or it cannot be read).
    fn log(&self) -> String {
        let mut size = 0usize;
        // SAFETY: the program is live; `size` is valid for a write.
        if unsafe { (self.api.log_size)(self.program, &mut size) } != 0 || size == 0 {
            return String::new();
        }
        let mut bytes = vec![0u8; size];
        // SAFETY: `bytes` has the `size` bytes hiprtc writes (the log and its NUL).
        if unsafe { (self.api.log)(self.program, bytes.as_mut_ptr().cast::<c_char>()) } != 0 {
            return String::new();
        }
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        String::from_utf8_lossy(&bytes[..end]).into_owned()
    }
}

impl Drop for Created<'_> {
    fn drop(&mut self) {
        // SAFETY: the program is live and destroyed once, here; the call lock is held by the
        // compile that owns this value (it is dropped before the guard).
        unsafe { (self.api.destroy)(&mut self.program) };
    }
}

/// A C string for hiprtc, or [`Error::InvalidArgument`] naming `what` if `text` contains a NUL.
fn c_string(text: &str, what: &str) -> Result<CString> {
    CString::new(text).map_err(|e| Error::InvalidArgument {
        operation: "compile_code_object",
        reason: format!(
            "the {what} contains a NUL byte at offset {}",
            e.nul_position()
        ),
    })
}

/// Compiles the HIP C++ `source` (a complete translation unit: no `#include`s are resolved) for the
/// AMD GPU architecture `target` (`gfx90a`, `gfx908`, `gfx1030`, with optional features such as
/// `gfx90a:xnack+`) with `--offload-arch=<target> -std=c++17 -O3 -ffp-contract=off` (no
/// contraction of `a * b + c`: each operation rounds as Rust rounds it, as with NVRTC's
/// `--fmad=false`). `program_name` names the program in errors (`fk_kernel_l12_0badc0de.hip`);
/// ROCm 5's log names the source `CompileSource`, and generated kernels' `#line` directives name
/// the kernel's Rust file and line.
///
/// Errors: [`BackendError::LibraryMissing`] when hiprtc cannot be loaded;
/// [`Error::InvalidArgument`] when `target` is not an AMD GPU architecture's name, or the source
/// or name holds a NUL byte; [`Error::Unsupported`] for a target this hiprtc is known to crash on
/// (gfx94x before ROCm 6); [`BackendError::Hiprtc`] (with the log) when the program does not
/// compile; [`Error::Internal`] when the code object hiprtc returns is not an AMD GPU ELF object
/// for `target`'s processor.
pub fn compile_code_object(source: &str, program_name: &str, target: &str) -> Result<CodeObject> {
    let gfx = GfxTarget::parse(target)?;
    let api = loaded()?;
    gfx.check_supported(version()?)?;
    let src = c_string(source, "source")?;
    let name = c_string(program_name, "program name")?;
    let options: Vec<CString> = codegen::compile_options(&gfx)
        .into_iter()
        .map(|o| c_string(&o, "compile options"))
        .collect::<Result<_>>()?;
    let option_ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
    let fail = |call, status, log| failure(program_name, target, call, status, log);

    let _calls = CALLS.lock().unwrap_or_else(|e| e.into_inner());
    let start = Instant::now();
    let mut raw: Program = std::ptr::null_mut();
    // SAFETY: the library is loaded; `src` and `name` are NUL-terminated and outlive the program;
    // no headers are passed (0, null, null).
    let status = unsafe {
        (api.create)(
            &mut raw,
            src.as_ptr(),
            name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if status != 0 {
        return Err(fail("hiprtcCreateProgram", status, String::new()));
    }
    let program = Created { api, program: raw };
    let count = c_int::try_from(option_ptrs.len()).expect("a few options");
    // SAFETY: the program is live; `option_ptrs` holds `count` pointers to NUL-terminated strings
    // that `options` keeps alive for the call.
    let status = unsafe { (api.compile)(program.program, count, option_ptrs.as_ptr()) };
    let log = program.log();
    if status != 0 {
        return Err(fail("hiprtcCompileProgram", status, log));
    }
    let mut size = 0usize;
    // SAFETY: the program is live and compiled; `size` is valid for a write.
    let status = unsafe { (api.code_size)(program.program, &mut size) };
    if status != 0 {
        return Err(fail("hiprtcGetCodeSize", status, log));
    }
    let mut image = vec![0u8; size];
    // SAFETY: `image` has the `size` bytes hiprtc writes.
    let status = unsafe { (api.code)(program.program, image.as_mut_ptr().cast::<c_char>()) };
    if status != 0 {
        return Err(fail("hiprtcGetCode", status, log));
    }
    drop(program);
    codegen::check_for_target(&image, &gfx)?;
    Ok(CodeObject {
        target: target.to_string(),
        image,
        log,
        compile_time: start.elapsed(),
    })
}

/// Whether the environment requires hiprtc (`FERROKKOS_REQUIRE_HIPRTC=1`), so that tests fail
/// instead of skipping when it is missing.
fn hiprtc_required() -> bool {
    std::env::var("FERROKKOS_REQUIRE_HIPRTC").is_ok_and(|v| v.trim() == "1")
}

/// For tests: `true` when hiprtc is usable; `false`, after printing why, when the test should be
/// skipped. Panics when hiprtc is missing and `FERROKKOS_REQUIRE_HIPRTC=1` is set.
#[doc(hidden)]
pub fn require_or_skip() -> bool {
    match api() {
        Ok(_) => true,
        Err(hint) if hiprtc_required() => {
            panic!("FERROKKOS_REQUIRE_HIPRTC=1 is set but hiprtc is not usable: {hint}")
        }
        Err(hint) => {
            eprintln!(
                "skipped: hiprtc is not usable ({hint}); \
                 set FERROKKOS_REQUIRE_HIPRTC=1 to fail instead"
            );
            false
        }
    }
}

/// Compiling a kernel's translation unit for an AMD GPU.
impl TranslationUnit {
    /// The unit as HIP C++ ([`Target::Hip`]): the device header with the HIP target prelude,
    /// then the same entries.
    pub fn to_hip(&self) -> TranslationUnit {
        self.for_target(Target::Hip)
    }

    /// Compiles the unit's HIP source with hiprtc to a code object for the AMD GPU architecture
    /// `target` (`gfx90a`). Needs hiprtc (no GPU): see [`compile_code_object`] for the errors;
    /// hiprtc's log points at the kernel's Rust source, as NVRTC's does.
    pub fn compile_hip(&self, target: &str) -> Result<CodeObject> {
        let hip = self.to_hip();
        compile_code_object(&hip.source, &hip.program_name(), target)
    }
}

#[cfg(test)]
mod tests;
