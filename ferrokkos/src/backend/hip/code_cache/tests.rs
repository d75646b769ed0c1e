//! Tests of `code_cache.rs`: they need hiprtc (no GPU) and are skipped without it, unless
//! `FERROKKOS_REQUIRE_HIPRTC=1`; the key's and the target's checks need nothing.

use super::*;
use crate::backend::gpu::disk_cache::test_support::{TempDir, entries};
use crate::backend::gpu::disk_cache::{CACHE_DIR_VAR, encode_entry};
use crate::error::Error;
use crate::hiprtc::require_or_skip;
use crate::profiling::{CompileStage, compile_events};
use std::ffi::OsString;
use std::fs;

/// A small kernel; `value` makes variants with different sources.
fn kernel_source(value: u32) -> String {
    format!(
        "extern \"C\" __global__ void fill(unsigned* out, unsigned long long n) {{\n\
         \x20 unsigned long long i = blockIdx.x * (unsigned long long)blockDim.x + threadIdx.x;\n\
         \x20 if (i < n) out[i] = {value}u;\n}}\n"
    )
}

/// The name of the directory that holds `path`.
fn dir_name(path: &Path) -> Option<&str> {
    path.parent()
        .and_then(Path::file_name)
        .and_then(|n| n.to_str())
}

/// This test's events (its programs start with `prefix`) received so far, as (program, target,
/// whether it is a start).
fn events_of(
    events: &std::sync::mpsc::Receiver<crate::profiling::CompileEvent>,
    prefix: &str,
) -> Vec<(String, String, CompileStage)> {
    events
        .try_iter()
        .filter(|e| e.program.starts_with(prefix))
        .map(|e| (e.program, e.target, e.stage))
        .collect()
}

#[test]
fn a_first_compile_misses_and_a_new_cache_on_the_same_dir_loads_it_without_compiling() {
    if !require_or_skip() {
        return;
    }
    let tmp = TempDir::new("hip-warm");
    let source = kernel_source(7);
    let events = compile_events();

    let first = CodeCache::at(Some(tmp.0.clone()))
        .compile_cached(&source, "warm_fill.hip", "gfx90a")
        .expect("cold compile");
    assert!(!first.from_disk);
    assert!(first.compile_time.is_some_and(|t| t.as_nanos() > 0));
    assert!(codegen::check_code_object(&first.image, "gfx90a").is_ok());
    let (files, tmp_left) = entries(&tmp.0);
    assert_eq!(files.len(), 1, "one entry written: {files:?}");
    assert!(!tmp_left, "no temporary file is left behind");
    assert_eq!(dir_name(&files[0]), Some("gfx90a"));
    let stem = files[0].file_stem().and_then(|s| s.to_str()).unwrap_or("");
    assert!(
        stem.len() == 32 && stem.chars().all(|c| c.is_ascii_hexdigit()),
        "{stem}"
    );
    let stored = fs::read(&files[0]).expect("entry readable");
    assert_eq!(&stored[..8], b"FKHIPCO1");
    assert!(stored.ends_with(&first.image));
    let seen = events_of(&events, "warm_");
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(
        (seen[0].0.as_str(), seen[0].1.as_str(), seen[0].2),
        ("warm_fill.hip", "gfx90a", CompileStage::Started)
    );
    assert!(matches!(seen[1].2, CompileStage::Finished { .. }));

    let second = CodeCache::at(Some(tmp.0.clone()))
        .compile_cached(&source, "warm_fill.hip", "gfx90a")
        .expect("warm load");
    assert!(second.from_disk);
    assert!(second.compile_time.is_none());
    assert_eq!(second.image, first.image);
    assert_eq!(
        events_of(&events, "warm_"),
        [],
        "a disk hit reports no compile"
    );
    assert_eq!(entries(&tmp.0).0.len(), 1);
}

#[test]
fn another_target_or_source_misses_and_gets_its_own_entry() {
    if !require_or_skip() {
        return;
    }
    let tmp = TempDir::new("hip-targets");
    let cache = CodeCache::at(Some(tmp.0.clone()));
    let source = kernel_source(1);
    let mi250 = cache
        .compile_cached(&source, "fill.hip", "gfx90a")
        .expect("compiles");
    let rdna2 = cache
        .compile_cached(&source, "fill.hip", "gfx1030")
        .expect("compiles");
    assert!(!mi250.from_disk);
    assert!(
        !rdna2.from_disk,
        "another target must not hit gfx90a's entry"
    );
    assert!(codegen::check_code_object(&rdna2.image, "gfx1030").is_ok());
    assert_ne!(rdna2.image, mi250.image);
    let changed = cache
        .compile_cached(&kernel_source(2), "fill.hip", "gfx90a")
        .expect("compiles");
    assert!(!changed.from_disk, "a changed source must not hit");
    // A target with features is another target, in a safe directory name.
    let xnack = cache
        .compile_cached(&source, "fill.hip", "gfx90a:xnack+")
        .expect("compiles");
    assert!(!xnack.from_disk);
    assert!(codegen::check_code_object(&xnack.image, "gfx90a").is_ok());

    let (files, _) = entries(&tmp.0);
    let mut dirs: Vec<&str> = files.iter().filter_map(|f| dir_name(f)).collect();
    dirs.sort_unstable();
    assert_eq!(dirs, ["gfx1030", "gfx90a", "gfx90a", "gfx90a_xnack+"]);
    for (target, image) in [("gfx90a", &mi250.image), ("gfx1030", &rdna2.image)] {
        let again = cache
            .compile_cached(&source, "fill.hip", target)
            .expect("loads");
        assert!(again.from_disk, "{target}");
        assert_eq!(&again.image, image, "{target}");
    }
    let again = cache
        .compile_cached(&source, "fill.hip", "gfx90a:xnack+")
        .expect("loads");
    assert!(again.from_disk);
    assert_eq!(again.image, xnack.image);
}

#[test]
fn a_corrupt_or_wrong_target_entry_misses_and_is_rewritten() {
    if !require_or_skip() {
        return;
    }
    let tmp = TempDir::new("hip-corrupt");
    let cache = CodeCache::at(Some(tmp.0.clone()));
    let source = kernel_source(3);
    let first = cache
        .compile_cached(&source, "fill.hip", "gfx90a")
        .expect("compiles");
    let (files, _) = entries(&tmp.0);
    assert_eq!(files.len(), 1);
    let full = fs::read(&files[0]).expect("entry readable");

    // A truncated entry.
    fs::write(&files[0], &full[..full.len() / 2]).expect("truncate the entry");
    let second = cache
        .compile_cached(&source, "fill.hip", "gfx90a")
        .expect("recompiles");
    assert!(!second.from_disk, "a truncated entry is a miss");
    assert_eq!(second.image, first.image);
    assert_eq!(
        fs::read(&files[0]).expect("readable"),
        full,
        "rewritten in full"
    );

    // A well-formed entry with gfx90a's key that holds a gfx1030 code object.
    let rdna2 = hiprtc::compile_code_object(&source, "fill.hip", "gfx1030").expect("compiles");
    let gfx90a = GfxTarget::parse("gfx90a").expect("a target");
    let key = cache_key(&source, "fill.hip", &gfx90a, &hiprtc_identity());
    fs::write(&files[0], encode_entry(MAGIC, &key, &rdna2.image)).expect("misplace an object");
    let third = cache
        .compile_cached(&source, "fill.hip", "gfx90a")
        .expect("recompiles");
    assert!(
        !third.from_disk,
        "another processor's code object is a miss"
    );
    assert!(codegen::check_code_object(&third.image, "gfx90a").is_ok());
    assert_eq!(
        fs::read(&files[0]).expect("readable"),
        full,
        "rewritten in full"
    );

    let fourth = cache
        .compile_cached(&source, "fill.hip", "gfx90a")
        .expect("loads");
    assert!(fourth.from_disk);
    assert_eq!(fourth.image, first.image);
    assert_eq!(entries(&tmp.0).0.len(), 1);
}

#[test]
fn the_cache_off_writes_nothing() {
    if !require_or_skip() {
        return;
    }
    let tmp = TempDir::new("hip-off");
    let home = OsString::from(&tmp.0);
    let dir = disk_cache::cache_dir(|name| match name {
        CACHE_DIR_VAR => Some(OsString::from("off")),
        "HOME" => Some(home.clone()),
        _ => None,
    });
    let cache = CodeCache::at(dir);
    assert_eq!(cache.dir(), None);
    for _ in 0..2 {
        let c = cache
            .compile_cached(&kernel_source(4), "fill.hip", "gfx90a")
            .expect("compiles");
        assert!(!c.from_disk);
        assert!(codegen::check_code_object(&c.image, "gfx90a").is_ok());
    }
    assert!(!tmp.0.exists(), "nothing was written under HOME");
}

#[test]
fn a_compile_error_is_returned_reported_and_not_cached() {
    if !require_or_skip() {
        return;
    }
    let tmp = TempDir::new("hip-error");
    let events = compile_events();
    let cache = CodeCache::at(Some(tmp.0.clone()));
    let err = cache
        .compile_cached(
            "extern \"C\" __global__ void k() { x; }",
            "error_bad.hip",
            "gfx90a",
        )
        .expect_err("does not compile");
    assert!(
        matches!(err, Error::Backend(crate::BackendError::Hiprtc { .. })),
        "{err:?}"
    );
    assert!(entries(&tmp.0).0.is_empty());
    let seen = events_of(&events, "error_");
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(seen[0].2, CompileStage::Started);
    assert!(matches!(seen[1].2, CompileStage::Failed { .. }));
}

#[test]
fn the_environment_chooses_the_shared_cache_directory() {
    let env = disk_cache::cache_dir(|name| std::env::var_os(name));
    assert_eq!(CodeCache::from_env().dir(), env.as_deref());
    let dir = PathBuf::from("/some/cache");
    assert_eq!(CodeCache::at(Some(dir.clone())).dir(), Some(dir.as_path()));
}

#[test]
fn a_bad_target_is_an_error_before_any_lookup() {
    let tmp = TempDir::new("hip-bad-target");
    let cache = CodeCache::at(Some(tmp.0.clone()));
    let err = cache
        .compile_cached(&kernel_source(5), "fill.hip", "sm_90")
        .expect_err("not an AMD target");
    assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
    assert!(err.to_string().contains("\"sm_90\""), "{err}");
    assert!(!tmp.0.exists());
}

#[test]
fn the_key_separates_every_input() {
    let gfx = |name| GfxTarget::parse(name).expect("a target");
    let base = cache_key("src", "p.hip", &gfx("gfx90a"), "file /lib/a 1 2");
    for other in [
        cache_key("src ", "p.hip", &gfx("gfx90a"), "file /lib/a 1 2"),
        cache_key("src", "q.hip", &gfx("gfx90a"), "file /lib/a 1 2"),
        cache_key("src", "p.hip", &gfx("gfx908"), "file /lib/a 1 2"),
        cache_key("src", "p.hip", &gfx("gfx90a:xnack+"), "file /lib/a 1 2"),
        cache_key("src", "p.hip", &gfx("gfx90a"), "file /lib/a 1 3"),
    ] {
        assert_ne!(base, other);
    }
    let text = String::from_utf8(base).expect("text");
    assert!(text.contains("\ntarget gfx90a\n"), "{text}");
    assert!(text.contains("--offload-arch=gfx90a -std=c++17"), "{text}");
    assert!(text.ends_with("\nsource 3\nsrc"), "{text}");
}

#[test]
fn hiprtc_is_identified_by_its_files_without_loading_it() {
    if !require_or_skip() {
        return;
    }
    let id = hiprtc_identity();
    let lines: Vec<&str> = id.lines().collect();
    assert_eq!(lines.len(), 3, "{id}");
    assert!(
        lines[0].starts_with("file /")
            && (lines[0].contains("hiprtc") || lines[0].contains("amdhip64")),
        "{id}"
    );
    assert!(lines[1].starts_with("builtins "), "{id}");
    assert!(lines[2].starts_with("comgr "), "{id}");
    assert_eq!(id, hiprtc_identity());
}
