//! Run-time compilation of generated CUDA C++ to CUBIN with NVRTC, and the generated C++ itself
//! ([`TranslationUnit`]: a kernel's unit, made by its constructors such as
//! [`TranslationUnit::for_kernel`]).
//!
//! NVRTC is loaded dynamically (cudarc's `dynamic-loading`), on first use. cudarc asks the dynamic
//! loader (`dlopen`: `LD_LIBRARY_PATH`, the runpath, the system directories) for these names, in
//! order, and takes the first that loads: `libnvrtc.so`, `libnvrtc64.so`, `libnvrtc64_13.so`,
//! `libnvrtc64_130.so`, `libnvrtc64_130_0.so`, `libnvrtc64_10.so`, `libnvrtc64_11.so`,
//! `libnvrtc64_12.so`, `libnvrtc64_9.so`, `libnvrtc.so.13`, `libnvrtc.so.12`, `libnvrtc.so.11`,
//! `libnvrtc.so.10`, `libnvrtc.so.9`, `libnvrtc.so.1`
//! ([`cudarc::get_lib_name_candidates`]`("nvrtc")`; 13 and 0 are the CUDA version of the
//! `cuda-13000` feature). NVRTC from PyPI
//! (`pip install --target DIR nvidia-cuda-nvrtc==13.0.88`) is `DIR/nvidia/cu13/lib/libnvrtc.so.13`,
//! found by that name once the directory is on `LD_LIBRARY_PATH` (it loads
//! `libnvrtc-builtins.so.13.0` from the same directory when it compiles).
//!
//! cudarc panics when a function of an absent library is called, so every entry point here checks
//! [`is_available`] first and returns [`crate::BackendError::LibraryMissing`] instead.

use std::ffi::{CString, c_char, c_int};
use std::sync::OnceLock;
use std::time::{Duration, Instant};

use cudarc::nvrtc::sys;

use crate::backend::gpu::codegen::TranslationUnit;
use crate::error::{BackendError, Error, Result};

/// The library's name in errors.
const LIBRARY: &str = "libnvrtc";

/// The NVRTC functions this module calls; the library must export all of them.
const SYMBOLS: [&str; 8] = [
    "nvrtcVersion",
    "nvrtcCreateProgram",
    "nvrtcCompileProgram",
    "nvrtcGetProgramLogSize",
    "nvrtcGetProgramLog",
    "nvrtcGetCUBINSize",
    "nvrtcGetCUBIN",
    "nvrtcDestroyProgram",
];

/// Whether NVRTC can be used: the library loads and exports every function this module calls. The
/// answer is computed once per process.
pub fn is_available() -> bool {
    availability().is_ok()
}

/// `Ok` when NVRTC is usable, otherwise why not (the hint of [`crate::BackendError::LibraryMissing`]).
fn availability() -> &'static std::result::Result<(), String> {
    static STATE: OnceLock<std::result::Result<(), String>> = OnceLock::new();
    STATE.get_or_init(|| {
        // SAFETY: this only tries to dlopen each candidate name (running the library's
        // initializers, which have no preconditions) and closes it again.
        if !unsafe { sys::is_culib_present() } {
            let mut names = cudarc::get_lib_name_candidates("nvrtc");
            let mut seen = std::collections::HashSet::new();
            names.retain(|n| seen.insert(n.clone()));
            return Err(format!(
                "none of {:?} was found by the dynamic loader; install NVRTC (for example \
                 `python3 -m pip install --target DIR nvidia-cuda-nvrtc==13.0.88`) and put its \
                 library directory (DIR/nvidia/cu13/lib) on LD_LIBRARY_PATH",
                names
            ));
        }
        // SAFETY: the library is present (checked just above), so `culib` finds it by the same list
        // of names and does not panic.
        let lib = unsafe { sys::culib() };
        for name in SYMBOLS {
            // SAFETY: the symbol is only looked up, never called through this pointer type.
            let found = unsafe { lib.get::<*const std::ffi::c_void>(name.as_bytes()) }.is_ok();
            if !found {
                return Err(format!(
                    "the library was found but does not export {name}; NVRTC 12 or newer is needed"
                ));
            }
        }
        Ok(())
    })
}

/// [`crate::BackendError::LibraryMissing`] unless NVRTC is usable.
fn check_available() -> Result<()> {
    availability().as_ref().map(|_| ()).map_err(|hint| {
        Error::Backend(BackendError::LibraryMissing {
            library: LIBRARY,
            hint: hint.clone(),
        })
    })
}

/// NVRTC's version, `(major, minor)`, e.g. `(13, 0)`.
pub fn version() -> Result<(i32, i32)> {
    check_available()?;
    let (mut major, mut minor): (c_int, c_int) = (0, 0);
    // SAFETY: NVRTC is loaded (checked above); both pointers are valid for writes.
    let code = unsafe { sys::nvrtcVersion(&mut major, &mut minor) };
    if code != sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(Error::Backend(BackendError::Nvrtc {
            program: String::new(),
            arch: 0,
            call: "nvrtcVersion",
            code: format!("{code:?}"),
            log: String::new(),
        }));
    }
    Ok((major, minor))
}

/// A compiled program: the CUBIN (an ELF image for one real architecture) and NVRTC's log.
#[derive(Clone, Debug)]
pub struct Cubin {
    /// The architecture compiled for: 90 for `sm_90`.
    pub arch: u32,
    /// The CUBIN bytes, ready for `cuModuleLoadData`.
    pub image: Vec<u8>,
    /// NVRTC's log (warnings; usually empty).
    pub log: String,
    /// How long NVRTC took, from creating the program to handing back the CUBIN.
    pub compile_time: Duration,
}

/// An NVRTC program, destroyed when dropped.
struct Program(sys::nvrtcProgram);

impl Drop for Program {
    fn drop(&mut self) {
        // SAFETY: `self.0` was created by nvrtcCreateProgram and is destroyed only here, once.
        // Destroying cannot usefully fail, so its result is ignored.
        let _ = unsafe { sys::nvrtcDestroyProgram(&mut self.0) };
    }
}

impl Program {
    /// The program's log (empty if NVRTC has none), without the terminating NUL.
    fn log(&self) -> String {
        let mut size = 0usize;
        // SAFETY: `self.0` is a live program; `size` is valid for a write.
        if unsafe { sys::nvrtcGetProgramLogSize(self.0, &mut size) }
            != sys::nvrtcResult::NVRTC_SUCCESS
        {
            return String::new();
        }
        let mut buf = vec![0u8; size.max(1)];
        // SAFETY: `buf` holds the `size` bytes (terminating NUL included) NVRTC writes.
        let code = unsafe { sys::nvrtcGetProgramLog(self.0, buf.as_mut_ptr().cast::<c_char>()) };
        if code != sys::nvrtcResult::NVRTC_SUCCESS {
            return String::new();
        }
        until_nul(buf)
    }
}

/// The text before the first NUL of `buf`.
fn until_nul(mut buf: Vec<u8>) -> String {
    if let Some(end) = buf.iter().position(|&b| b == 0) {
        buf.truncate(end);
    }
    String::from_utf8_lossy(&buf).into_owned()
}

/// A C string for NVRTC, or [`Error::InvalidArgument`] naming `what` if `text` contains a NUL byte.
fn c_string(text: &str, what: &str) -> Result<CString> {
    CString::new(text).map_err(|e| Error::InvalidArgument {
        operation: "compile_cubin",
        reason: format!(
            "the {what} contains a NUL byte at offset {}",
            e.nul_position()
        ),
    })
}

/// Compiles the CUDA C++ `source` (a complete translation unit: no `#include`s are resolved) for
/// the real architecture `sm_{arch}` with `-std=c++17 -default-device -lineinfo --fmad=false` (no
/// contraction of `a * b + c`: each operation is rounded as Rust rounds it). `program_name` is
/// the file name NVRTC's messages use (`fk_kernel_l12_0badc0de.cu`).
///
/// Errors: [`crate::BackendError::LibraryMissing`] when NVRTC cannot be loaded, [`crate::BackendError::Nvrtc`] (with the log)
/// when the program does not compile or NVRTC fails otherwise, [`Error::InvalidArgument`] when the
/// source or the name contains a NUL byte.
pub fn compile_cubin(source: &str, program_name: &str, arch: u32) -> Result<Cubin> {
    compile_cubin_split(source, program_name, arch, 1)
}

/// [`compile_cubin`], with NVRTC's split compilation on up to `threads` threads
/// (`-split-compile`; 1 or 0: none): NVRTC optimizes and generates the program's functions in
/// parallel, which pays for a program of several kernels ([`crate::Prepare`]'s batches) and costs
/// time for a program of one small kernel.
pub fn compile_cubin_split(
    source: &str,
    program_name: &str,
    arch: u32,
    threads: u32,
) -> Result<Cubin> {
    check_available()?;
    let src = c_string(source, "source")?;
    let name = c_string(program_name, "program name")?;
    let options: Vec<CString> = [
        format!("--gpu-architecture=sm_{arch}"),
        "-std=c++17".to_string(),
        "-default-device".to_string(),
        "-lineinfo".to_string(),
        // Rust never fuses `a * b + c` into one rounding; neither does the device code, so that it
        // computes what the host closure computes (kernels that want a fused multiply-add say
        // `a.mul_add(b, c)`).
        "--fmad=false".to_string(),
    ]
    .into_iter()
    .chain((threads > 1).then(|| format!("-split-compile={threads}")))
    .map(|o| CString::new(o).expect("the options contain no NUL byte"))
    .collect();
    let option_ptrs: Vec<*const c_char> = options.iter().map(|o| o.as_ptr()).collect();
    let fail = |call: &'static str, code: sys::nvrtcResult, log: String| {
        Error::Backend(BackendError::Nvrtc {
            program: program_name.to_string(),
            arch,
            call,
            code: format!("{code:?}"),
            log,
        })
    };

    let start = Instant::now();
    let mut raw: sys::nvrtcProgram = std::ptr::null_mut();
    // SAFETY: NVRTC is loaded; `src` and `name` are NUL-terminated and outlive the program (they
    // are dropped after `program`, declared later); no headers are passed (0, null, null).
    let code = unsafe {
        sys::nvrtcCreateProgram(
            &mut raw,
            src.as_ptr(),
            name.as_ptr(),
            0,
            std::ptr::null(),
            std::ptr::null(),
        )
    };
    if code != sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(fail("nvrtcCreateProgram", code, String::new()));
    }
    let program = Program(raw);

    let count = c_int::try_from(option_ptrs.len()).expect("a few options");
    // SAFETY: `program` is live; `option_ptrs` holds `count` pointers to NUL-terminated strings
    // that `options` keeps alive for the call.
    let code = unsafe { sys::nvrtcCompileProgram(program.0, count, option_ptrs.as_ptr()) };
    let log = program.log();
    if code != sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(fail("nvrtcCompileProgram", code, log));
    }

    let mut size = 0usize;
    // SAFETY: `program` is live and compiled; `size` is valid for a write.
    let code = unsafe { sys::nvrtcGetCUBINSize(program.0, &mut size) };
    if code != sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(fail("nvrtcGetCUBINSize", code, log));
    }
    let mut image = vec![0u8; size];
    // SAFETY: `image` has the `size` bytes NVRTC writes.
    let code = unsafe { sys::nvrtcGetCUBIN(program.0, image.as_mut_ptr().cast::<c_char>()) };
    if code != sys::nvrtcResult::NVRTC_SUCCESS {
        return Err(fail("nvrtcGetCUBIN", code, log));
    }
    drop(program);
    Ok(Cubin {
        arch,
        image,
        log,
        compile_time: start.elapsed(),
    })
}

/// Whether the environment requires NVRTC (`FERROKKOS_REQUIRE_NVRTC=1`), so that tests fail instead
/// of skipping when it is missing.
fn nvrtc_required() -> bool {
    std::env::var("FERROKKOS_REQUIRE_NVRTC").is_ok_and(|v| v.trim() == "1")
}

/// For tests: `true` when NVRTC is usable; `false`, after printing why, when the test should be
/// skipped. Panics when NVRTC is missing and `FERROKKOS_REQUIRE_NVRTC=1` is set.
#[doc(hidden)]
pub fn require_or_skip() -> bool {
    match availability() {
        Ok(()) => true,
        Err(hint) if nvrtc_required() => {
            panic!("FERROKKOS_REQUIRE_NVRTC=1 is set but NVRTC is not usable: {hint}")
        }
        Err(hint) => {
            eprintln!(
                "skipped: NVRTC is not usable ({hint}); \
                 set FERROKKOS_REQUIRE_NVRTC=1 to fail instead"
            );
            false
        }
    }
}

/// Compiling a kernel's translation unit (the method lives with the compiler it needs).
impl TranslationUnit {
    /// Compiles the unit with NVRTC to a CUBIN for `sm_<arch>` (e.g. 90). Needs the NVRTC library
    /// (no GPU): an [`crate::BackendError::LibraryMissing`] without it, an [`crate::BackendError::Nvrtc`] with
    /// NVRTC's log (whose lines point at the kernel's Rust source) when the code does not compile.
    pub fn compile_cubin(&self, arch: u32) -> Result<Cubin> {
        compile_cubin(&self.source, &self.program_name(), arch)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::gpu::codegen::header::DEVICE_HEADER;

    /// The ten integer types and the two float types, by their device names.
    const INTS: [&str; 10] = [
        "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize",
    ];
    const SIGNED: [&str; 5] = ["i8", "i16", "i32", "i64", "isize"];
    const FLOATS: [&str; 2] = ["f32", "f64"];
    const LAYOUTS: [&str; 3] = ["LayoutRight", "LayoutLeft", "LayoutStride"];

    /// A translation unit that uses every facility of the device header.
    fn coverage_source() -> String {
        let mut s = String::from(DEVICE_HEADER);
        s.push_str("\n// Coverage of the device header.\n");
        cover_views(&mut s);
        cover_casts(&mut s);
        cover_floats(&mut s);
        cover_ints(&mut s);
        cover_atomics(&mut s);
        cover_reducers(&mut s);
        s
    }

    /// Coverage: Views of rank 1, 2 and 8 in each layout, read and written.
    fn cover_views(s: &mut String) {
        for l in LAYOUTS {
            s.push_str(&format!(
                "extern \"C\" __global__ void views_{l}(fk::View<f64, 1, fk::{l}> a, \
                 fk::View<const f64, 2, fk::{l}> b, fk::View<f32, 8, fk::{l}> c, \
                 fk::View<const i32, 1, fk::{l}> d, fk::View<u64, 0, fk::{l}> e) {{\n\
                 \x20   const u32 i = threadIdx.x;\n\
                 \x20   a(i) = b(i, 1) + b(u8(0), (i64)i) + (f64)d(i);\n\
                 \x20   e() = (u64)a(0);\n\
                 \x20   c(0, 1, 2, 3, 4, 5, 6, i) = (f32)a(usize(i)) + c(i, i, 0, 0, u16(1), 0, 0, 0);\n}}\n"
            ));
        }
    }

    /// Coverage: Every cast: 13 sources (12 numbers and bool) to 12 targets.
    fn cover_casts(s: &mut String) {
        let sources: Vec<&str> = INTS
            .iter()
            .chain(&FLOATS)
            .copied()
            .chain(["bool"])
            .collect();
        let params: Vec<String> = sources.iter().map(|t| format!("{t} x_{t}")).collect();
        s.push_str(&format!(
            "extern \"C\" __global__ void casts(f64* out, {}) {{\n    f64 acc = 0;\n",
            params.join(", ")
        ));
        for from in &sources {
            for to in INTS.iter().chain(&FLOATS) {
                s.push_str(&format!(
                    "    acc += fk::cast<f64>(fk::cast<{to}>(x_{from}));\n"
                ));
            }
        }
        s.push_str("    *out = acc;\n}\n");
    }

    /// Coverage: Every float method, for f32 and f64, and the special values.
    fn cover_floats(s: &mut String) {
        for t in FLOATS {
            s.push_str(&format!(
                "extern \"C\" __global__ void floats_{t}({t}* out, {t} a, {t} b, {t} c, i32 n) {{\n\
                 \x20   {t} r = fk::infinity<{t}>() + fk::quiet_nan<{t}>();\n"
            ));
            for m in [
                "abs", "sqrt", "cbrt", "exp", "exp2", "ln", "log2", "log10", "sin", "cos", "tan",
                "asin", "acos", "atan", "sinh", "cosh", "tanh", "floor", "ceil", "round", "trunc",
                "signum",
            ] {
                s.push_str(&format!("    r += fk::{m}(a);\n"));
            }
            for m in ["powf", "atan2", "min", "max", "hypot"] {
                s.push_str(&format!("    r += fk::{m}(a, b);\n"));
            }
            s.push_str(
                "    r += fk::powi(a, n) + fk::mul_add(a, b, c) + fk::clamp(a, b, c);\n\
                 \x20   r += (fk::is_nan(a) ? 1 : 0) + (fk::is_finite(b) ? 1 : 0);\n\
                 \x20   *out = r;\n}\n",
            );
        }
    }

    /// Coverage: Every integer method and shift, for the ten integer types.
    fn cover_ints(s: &mut String) {
        for t in INTS {
            s.push_str(&format!(
                "extern \"C\" __global__ void ints_{t}({t}* out, u32* bits, {t} a, {t} b, u32 e, \
                 i8 s8, u64 s64) {{\n\
                 \x20   {t} r = fk::min(a, b);\n\
                 \x20   r = fk::wrapping_add(r, fk::max(a, b));\n\
                 \x20   r = fk::wrapping_sub(r, fk::pow(a, e));\n\
                 \x20   r = fk::wrapping_mul(r, fk::rem_euclid(a, b));\n\
                 \x20   r = fk::wrapping_add(r, fk::shl(a, s8));\n\
                 \x20   r = fk::wrapping_add(r, fk::shr(b, s64));\n\
                 \x20   r = fk::wrapping_add(r, fk::shr(a, e));\n"
            ));
            if SIGNED.contains(&t) {
                s.push_str("    r = fk::wrapping_add(r, fk::abs(a));\n");
            }
            s.push_str(
                "    *out = r;\n    bits[0] = fk::count_ones(a);\n    bits[1] = fk::leading_zeros(b);\n}\n",
            );
        }
    }

    /// Coverage: Every atomic on every type.
    fn cover_atomics(s: &mut String) {
        s.push_str(&crate::backend::gpu::codegen::atomic_coverage::every_atomic());
    }

    /// Coverage: Every reducer, through block_reduce and block_exclusive_scan.
    fn cover_reducers(s: &mut String) {
        let reducers: [(&str, &str); 17] = [
            ("sum_f64", "fk::Sum<f64>"),
            ("sum_i32", "fk::Sum<i32>"),
            ("sum_u8", "fk::Sum<u8>"),
            ("prod_f32", "fk::Prod<f32>"),
            ("prod_i64", "fk::Prod<i64>"),
            ("min_f64", "fk::Min<f64>"),
            ("min_u16", "fk::Min<u16>"),
            ("max_f32", "fk::Max<f32>"),
            ("max_i8", "fk::Max<i8>"),
            ("band_u32", "fk::BAnd<u32>"),
            ("bor_bool", "fk::BOr<bool>"),
            ("land", "fk::LAnd"),
            ("lor", "fk::LOr"),
            ("minloc_f64_i64", "fk::MinLoc<f64, i64>"),
            ("maxloc_i32_usize", "fk::MaxLoc<i32, usize>"),
            ("minmax_f64", "fk::MinMax<f64>"),
            ("minmaxloc_f32_i32", "fk::MinMaxLoc<f32, i32>"),
        ];
        for (name, red) in reducers {
            s.push_str(&format!(
                "extern \"C\" __global__ void reduce_{name}({red}::value_type* in, {red}::value_type* out) {{\n\
                 \x20   typedef {red} R;\n\
                 \x20   extern __shared__ __align__(16) unsigned char fk_shared[];\n\
                 \x20   R::value_type* smem = reinterpret_cast<R::value_type*>(fk_shared);\n\
                 \x20   R::value_type v = in[threadIdx.x];\n\
                 \x20   R::value_type total;\n\
                 \x20   out[threadIdx.x] = fk::block_exclusive_scan<R>(v, smem, total);\n\
                 \x20   fk::block_reduce<R>(v, smem);\n\
                 \x20   if (threadIdx.x == 0) {{ out[blockDim.x] = v; out[blockDim.x + 1] = total; }}\n}}\n"
            ));
        }
    }

    #[test]
    fn device_header_compiles_for_sm80_and_sm90() {
        if !require_or_skip() {
            return;
        }
        let (major, minor) = version().expect("nvrtcVersion");
        let source = coverage_source();
        for arch in [80, 90] {
            let cubin = compile_cubin(&source, "coverage.cu", arch)
                .unwrap_or_else(|e| panic!("the coverage program does not compile: {e}"));
            assert_eq!(cubin.arch, arch);
            assert!(
                cubin.image.starts_with(b"\x7fELF"),
                "a CUBIN is an ELF image"
            );
            assert!(cubin.image.len() > 1024);
            assert!(
                cubin.log.trim().is_empty(),
                "the header compiles without warnings: {}",
                cubin.log
            );
            eprintln!(
                "NVRTC {major}.{minor}: coverage.cu ({} lines) for sm_{arch}: {} bytes in {:.2?}",
                source.lines().count(),
                cubin.image.len(),
                cubin.compile_time
            );
        }
    }

    #[test]
    fn a_small_kernel_compiles() {
        if !require_or_skip() {
            return;
        }
        let source = format!(
            "{DEVICE_HEADER}\nextern \"C\" __global__ void axpy(u64 n, f64 a, \
             fk::View<const f64, 1, fk::LayoutRight> x, fk::View<f64, 1, fk::LayoutRight> y) {{\n\
             \x20   for (u64 i = (u64)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += (u64)gridDim.x * blockDim.x)\n\
             \x20       y(i) = fk::mul_add(a, x(i), y(i));\n}}\n"
        );
        for arch in [80, 90] {
            let cubin = compile_cubin(&source, "axpy.cu", arch).expect("axpy compiles");
            assert!(cubin.image.starts_with(b"\x7fELF"));
            eprintln!(
                "axpy.cu for sm_{arch}: {} bytes in {:.2?}",
                cubin.image.len(),
                cubin.compile_time
            );
        }
    }

    #[test]
    fn a_split_compilation_gives_every_kernel_of_the_program() {
        if !require_or_skip() {
            return;
        }
        let source: String = (0..4)
            .map(|k| {
                format!(
                    "extern \"C\" __global__ void split_{k}(float* a, int n) {{ \
                     for (int i = threadIdx.x; i < n; i += blockDim.x) a[i] = sinf(a[i]) * {k}.0f; }}\n"
                )
            })
            .collect();
        let split = compile_cubin_split(&source, "split.cu", 90, 2).expect("compiles split");
        let whole = compile_cubin(&source, "split.cu", 90).expect("compiles");
        for cubin in [&split, &whole] {
            assert!(cubin.image.starts_with(b"\x7fELF"));
            let image = String::from_utf8_lossy(&cubin.image);
            for k in 0..4 {
                assert!(
                    image.contains(&format!("split_{k}")),
                    "split_{k} is in the CUBIN"
                );
            }
        }
    }

    #[test]
    fn bounds_checked_views_and_arrays_compile_and_keep_their_fault_globals() {
        if !require_or_skip() {
            return;
        }
        let source = format!(
            "{DEVICE_HEADER}\nextern \"C\" __global__ void k(\
             fk::View<f64, 3, fk::LayoutStride> x, fk::View<const f32, 2, fk::LayoutLeft> y, \
             const fk::Array<i32, 4> a, fk::View<u32, 1, fk::LayoutRight> h) {{\n\
             \x20   x(threadIdx.x, 1, blockIdx.x) = y(i64(threadIdx.x) - 1, 0u) + a[threadIdx.x];\n\
             \x20   fk::atomic_add(&h(threadIdx.x), 1u);\n}}\n"
        );
        let cubin = compile_cubin(&source, "bounds.cu", 90).expect("compiles");
        assert!(cubin.image.starts_with(b"\x7fELF"));
        // The launcher looks the fault globals up by these names after loading the module.
        let image = String::from_utf8_lossy(&cubin.image);
        assert!(
            image.contains("fk_fault_record"),
            "the record pointer is a global of the module"
        );
        assert!(
            image.contains("fk_fault_unit"),
            "the unit number is a global of the module"
        );
    }

    #[test]
    fn a_syntax_error_is_reported_with_its_line() {
        if !require_or_skip() {
            return;
        }
        let source =
            "extern \"C\" __global__ void bad(int* x) {\n    int y = 1;\n    x[0] = y +;\n}\n";
        let err = compile_cubin(source, "bad.cu", 90).expect_err("the program has a syntax error");
        match &err {
            Error::Backend(BackendError::Nvrtc {
                program,
                arch,
                call,
                code,
                log,
            }) => {
                assert_eq!(program, "bad.cu");
                assert_eq!(*arch, 90);
                assert_eq!(*call, "nvrtcCompileProgram");
                assert_eq!(code, "NVRTC_ERROR_COMPILATION");
                assert!(log.contains("bad.cu(3)"), "the log names line 3: {log}");
            }
            other => panic!("expected BackendError::Nvrtc, got {other:?}"),
        }
        let message = err.to_string();
        assert!(
            message.contains("bad.cu") && message.contains("sm_90"),
            "{message}"
        );
        assert!(message.contains("bad.cu(3)"), "{message}");
    }

    #[test]
    fn an_invalid_architecture_is_an_nvrtc_error() {
        if !require_or_skip() {
            return;
        }
        let err = compile_cubin("__global__ void k() {}", "k.cu", 1).expect_err("sm_1 is no arch");
        assert!(
            matches!(&err, Error::Backend(BackendError::Nvrtc { arch: 1, call: "nvrtcCompileProgram", code, .. })
                if code == "NVRTC_ERROR_INVALID_OPTION"),
            "{err:?}"
        );
    }

    #[test]
    fn a_nul_byte_is_an_invalid_argument() {
        let err = compile_cubin("int x;\0", "k.cu", 90).expect_err("NUL in the source");
        if is_available() {
            assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
        } else {
            assert!(
                matches!(err, Error::Backend(BackendError::LibraryMissing { .. })),
                "{err:?}"
            );
        }
    }

    #[test]
    fn until_nul_stops_at_the_terminator() {
        assert_eq!(until_nul(b"log\0junk".to_vec()), "log");
        assert_eq!(until_nul(b"no terminator".to_vec()), "no terminator");
        assert_eq!(until_nul(vec![0]), "");
    }
}
