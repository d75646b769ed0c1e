//! The built-in copy and fill kernels (`backend/gpu/builtin.rs`) compile with NVRTC.

use crate::backend::gpu::builtin::{BUILTIN_PROGRAM, builtin_source, entries, entry_source};
use crate::nvrtc::{compile_cubin, require_or_skip};

#[test]
fn the_builtin_program_compiles_for_sm80_and_sm90() {
    if !require_or_skip() {
        return;
    }
    let source = builtin_source();
    for arch in [80, 90] {
        let cubin = compile_cubin(&source, BUILTIN_PROGRAM, arch)
            .unwrap_or_else(|e| panic!("the built-in kernels do not compile: {e}"));
        assert!(cubin.image.starts_with(b"\x7fELF"));
        assert!(
            cubin.log.trim().is_empty(),
            "the built-in kernels compile without warnings: {}",
            cubin.log
        );
        for name in entries() {
            assert!(
                cubin
                    .image
                    .windows(name.len() + 1)
                    .any(|w| w[..name.len()] == *name.as_bytes() && w[name.len()] == 0),
                "the CUBIN for sm_{arch} exports {name}"
            );
        }
        eprintln!(
            "{BUILTIN_PROGRAM} for sm_{arch}: {} bytes in {:.2?}",
            cubin.image.len(),
            cubin.compile_time
        );
    }
}

#[test]
fn each_entry_compiles_alone() {
    if !require_or_skip() {
        return;
    }
    for entry in entries() {
        let src = entry_source(entry).expect("a built-in entry");
        assert_eq!(src.matches("__global__").count(), 1, "{entry}");
        let cubin = compile_cubin(&src, &format!("{entry}.cu"), 90).unwrap();
        println!("{entry}: {:?}", cubin.compile_time);
    }
    assert!(entry_source("fk_nope").is_none());
}
