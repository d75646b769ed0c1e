//! Tests of `hiprtc.rs`: they need hiprtc (no GPU) and are skipped without it, unless
//! `FERROKKOS_REQUIRE_HIPRTC=1`.

use super::*;
use crate::backend::gpu::codegen::header::DEVICE_HEADER;

/// The AMD targets hiprtc 5.2 compiles for without a GPU: CDNA 2 and 1 (64-lane wavefronts) and
/// RDNA 2 (32 lanes).
const TARGETS: [&str; 3] = ["gfx90a", "gfx908", "gfx1030"];

#[test]
fn a_small_kernel_compiles_for_each_target() {
    if !require_or_skip() {
        return;
    }
    let source = "extern \"C\" __global__ void fill(float* out, unsigned long long n, float v) {\n\
                  \x20 unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;\n\
                  \x20 if (i < n) out[i] = v;\n}\n";
    for target in TARGETS {
        let object = compile_code_object(source, "fill.hip", target).expect("compiles");
        assert!(
            object.image.starts_with(b"\x7fELF"),
            "{target}: not an ELF image"
        );
        assert_eq!(object.target, target);
        eprintln!(
            "fill.hip for {target}: {} bytes in {:.2?}",
            object.image.len(),
            object.compile_time
        );
    }
    // Each code object names its own processor: a gfx90a object is not a gfx908 one.
    let mi250 = compile_code_object(source, "fill.hip", "gfx90a").unwrap();
    assert!(codegen::check_code_object(&mi250.image, "gfx90a").is_ok());
    let e = codegen::check_code_object(&mi250.image, "gfx908").unwrap_err();
    assert!(e.to_string().contains("not gfx908's 0x30"), "{e}");
    // The ROCm release, not ROCm 5's fixed 9.0 from hiprtcVersion.
    let (major, minor) = version().unwrap();
    assert!((5..9).contains(&major), "ROCm {major}.{minor}");
}

#[test]
fn a_compile_error_gives_the_target_and_the_rust_line() {
    if !require_or_skip() {
        return;
    }
    // Generated code points its lines at the kernel's Rust source with `#line`, as for NVRTC.
    let source = "extern \"C\" __global__ void k(int* p) {\n#line 42 \"src/solver.rs\"\n  \
                  p[0] = y;\n}\n";
    let e = compile_code_object(source, "bad.hip", "gfx90a").unwrap_err();
    match &e {
        Error::Backend(BackendError::Hiprtc {
            program,
            target,
            call,
            log,
            ..
        }) => {
            assert_eq!((program.as_str(), target.as_str()), ("bad.hip", "gfx90a"));
            assert_eq!(*call, "hiprtcCompileProgram");
            assert!(
                log.contains("src/solver.rs:42:"),
                "the log names the Rust line: {log}"
            );
            assert!(log.contains("'y'"), "{log}");
        }
        other => panic!("expected a hiprtc error, got {other:?}"),
    }
    let message = e.to_string();
    assert!(message.contains("\"bad.hip\" for gfx90a"), "{message}");
}

#[test]
fn bad_targets_and_nul_bytes_are_errors_before_hiprtc_runs() {
    // No hiprtc needed: the name is checked first.
    let e = compile_code_object("", "k.hip", "sm_90").unwrap_err();
    assert!(matches!(e, Error::InvalidArgument { .. }), "{e:?}");
    if !require_or_skip() {
        return;
    }
    let e = compile_code_object("int x;\0", "k.hip", "gfx90a").unwrap_err();
    assert!(e.to_string().contains("NUL byte at offset 6"), "{e}");
    if version().unwrap().0 < 6 {
        let e = compile_code_object("", "k.hip", "gfx942").unwrap_err();
        assert!(matches!(e, Error::Unsupported { .. }), "{e:?}");
    }
}

#[test]
fn the_whole_device_header_compiles_for_hip() {
    if !require_or_skip() {
        return;
    }
    // The CUDA header with every part, its prelude swapped for HIP's.
    let cuda_prelude = include_str!("../../gpu/codegen/device/target_cuda.cuh");
    let hip_prelude = include_str!("../../gpu/codegen/device/target_hip.h");
    assert!(DEVICE_HEADER.contains(cuda_prelude));
    let header = DEVICE_HEADER.replace(cuda_prelude, hip_prelude);
    let source = format!(
        "{header}\nextern \"C\" __global__ void k(fk::View<f64, 2, fk::LayoutRight> v, u64* w) {{\n\
         \x20 const u32 lanes = FK_WARP;\n\
         \x20 const u32 t = threadIdx.x;\n\
         \x20 v(0, t) = (f64)fk::detail::shfl_down(v(1, t), 1u, fk::detail::lane_mask(lanes));\n\
         \x20 fk::atomic_add(w, (u64)lanes);\n}}\n{}",
        crate::backend::gpu::codegen::atomic_coverage::every_atomic()
    );
    for target in TARGETS {
        if let Err(e) = compile_code_object(&source, "header.hip", target) {
            panic!("{target}: {e}");
        }
    }
}

#[test]
fn the_builtin_copy_and_fill_kernels_compile_for_each_target() {
    use crate::backend::gpu::builtin::{builtin_source, entries};
    if !require_or_skip() {
        return;
    }
    // The GPU runtime's deep_copy kernels (`backend/gpu/builtin.rs`) are one program for both
    // GPU backends.
    let source = builtin_source();
    for target in TARGETS {
        let object = compile_code_object(&source, "ferrokkos_builtin.hip", target)
            .unwrap_or_else(|e| panic!("the built-in kernels do not compile for {target}: {e}"));
        for name in entries() {
            assert!(
                object
                    .image
                    .windows(name.len() + 1)
                    .any(|w| w[..name.len()] == *name.as_bytes() && w[name.len()] == 0),
                "the {target} code object exports {name}"
            );
        }
    }
}
