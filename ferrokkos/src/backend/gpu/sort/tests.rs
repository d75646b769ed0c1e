//! The sort's program compiles with NVRTC (no GPU needed).

use super::source::{SORT_PROGRAM, entries, entry_source, program_source};
use crate::nvrtc::{compile_cubin, require_or_skip};

/// Every entry of the sort compiles without warnings for sm_80 and sm_90 and is exported.
#[test]
fn the_sort_program_compiles_for_sm80_and_sm90() {
    if !require_or_skip() {
        return;
    }
    let source = program_source();
    for arch in [80, 90] {
        let cubin = compile_cubin(&source, SORT_PROGRAM, arch)
            .unwrap_or_else(|e| panic!("the sort's kernels do not compile: {e}"));
        assert!(
            cubin.log.trim().is_empty(),
            "the sort's kernels compile without warnings: {}",
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
            "{SORT_PROGRAM} for sm_{arch}: {} bytes in {:.2?}",
            cubin.image.len(),
            cubin.compile_time
        );
    }
}

/// Each entry compiles alone (what a process compiles on first use); other names have no source.
#[test]
fn each_sort_entry_compiles_alone() {
    if !require_or_skip() {
        return;
    }
    for entry in entries() {
        let source = entry_source(entry).expect("an entry of the sort");
        compile_cubin(&source, &format!("{entry}.cu"), 90)
            .unwrap_or_else(|e| panic!("{entry} does not compile alone: {e}"));
    }
    assert!(entry_source("fk_copy_strided_a4").is_none());
}
