//! Tests of `jit_cache.rs`.

use super::*;
use crate::backend::gpu::disk_cache::test_support::{TempDir, entries};
use crate::backend::gpu::disk_cache::{CACHE_DIR_VAR, fnv1a_64, mix_hash};
use crate::error::{BackendError, Error};
use crate::nvrtc::require_or_skip;
use std::collections::HashMap;
use std::fs;
use std::time::Instant;

/// A small kernel; `value` makes variants with different sources.
fn kernel_source(value: u32) -> String {
    format!(
        "extern \"C\" __global__ void fill(unsigned* out, unsigned long long n) {{\n\
         \x20   for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n\
         \x20        i < n; i += (unsigned long long)gridDim.x * blockDim.x)\n\
         \x20       out[i] = {value}u;\n}}\n"
    )
}

/// `from_vars` over a fixed map of variables.
fn cache_for(vars: &[(&str, &str)]) -> DiskCache {
    let map: HashMap<String, OsString> = vars
        .iter()
        .map(|(k, v)| (k.to_string(), OsString::from(v)))
        .collect();
    DiskCache::from_vars(|name| map.get(name).cloned())
}

#[test]
fn the_key_separates_every_input() {
    let base = cache_key("src", "p.cu", 90, "v13.0");
    for other in [
        cache_key("src ", "p.cu", 90, "v13.0"),
        cache_key("src", "q.cu", 90, "v13.0"),
        cache_key("src", "p.cu", 80, "v13.0"),
        cache_key("src", "p.cu", 90, "v13.1"),
        cache_key("src", "p.cu", 90, "v12.0"),
    ] {
        assert_ne!(base, other);
        assert_ne!(fnv1a_64(&base), fnv1a_64(&other));
        assert_ne!(mix_hash(&base), mix_hash(&other));
    }
    assert!(base.ends_with(b"\nsrc"));
}

#[test]
fn a_warm_start_loads_from_disk() {
    if !require_or_skip() {
        return;
    }
    let tmp = TempDir::new("warm");
    let source = kernel_source(7);

    let cold = DiskCache::at(Some(tmp.0.clone()));
    let start = Instant::now();
    let first = cold
        .compile_cached(&source, "fill.cu", 90, 1)
        .expect("cold compile");
    let cold_time = start.elapsed();
    assert!(!first.from_disk);
    assert!(first.compile_time.is_some());
    assert!(first.image.starts_with(ELF_MAGIC));
    let (files, tmp_left) = entries(&tmp.0);
    assert_eq!(files.len(), 1, "one entry written: {files:?}");
    assert!(!tmp_left, "no temporary file is left behind");
    assert_eq!(
        files[0].parent().and_then(Path::file_name),
        Some("sm_90".as_ref())
    );
    let stem = files[0].file_stem().and_then(|s| s.to_str()).unwrap_or("");
    assert!(
        stem.len() == 32 && stem.chars().all(|c| c.is_ascii_hexdigit()),
        "{stem}"
    );

    let warm = DiskCache::at(Some(tmp.0.clone()));
    let start = Instant::now();
    let second = warm
        .compile_cached(&source, "fill.cu", 90, 1)
        .expect("warm load");
    let warm_time = start.elapsed();
    assert!(second.from_disk);
    assert!(second.compile_time.is_none());
    assert_eq!(second.image, first.image);
    eprintln!(
        "fill.cu for sm_90 ({} bytes): cold compile {:.2?} (NVRTC {:.2?}), warm disk load {:.2?}",
        first.image.len(),
        cold_time,
        first.compile_time.unwrap_or_default(),
        warm_time
    );

    // Another architecture is another entry.
    let other_arch = warm
        .compile_cached(&source, "fill.cu", 80, 1)
        .expect("sm_80 compile");
    assert!(!other_arch.from_disk);
    assert_eq!(entries(&tmp.0).0.len(), 2);
}

#[test]
fn a_changed_source_misses() {
    if !require_or_skip() {
        return;
    }
    let tmp = TempDir::new("changed");
    let cache = DiskCache::at(Some(tmp.0.clone()));
    let a = cache
        .compile_cached(&kernel_source(1), "fill.cu", 90, 1)
        .expect("compiles");
    let b = cache
        .compile_cached(&kernel_source(2), "fill.cu", 90, 1)
        .expect("compiles");
    assert!(!a.from_disk);
    assert!(!b.from_disk, "a changed source must not hit the old entry");
    assert_ne!(a.image, b.image);
    assert_eq!(entries(&tmp.0).0.len(), 2);
    let again = cache
        .compile_cached(&kernel_source(1), "fill.cu", 90, 1)
        .expect("loads");
    assert!(again.from_disk);
    assert_eq!(again.image, a.image);
}

#[test]
fn a_corrupt_entry_misses_and_is_rewritten() {
    if !require_or_skip() {
        return;
    }
    let tmp = TempDir::new("corrupt");
    let cache = DiskCache::at(Some(tmp.0.clone()));
    let source = kernel_source(3);
    let first = cache
        .compile_cached(&source, "fill.cu", 90, 1)
        .expect("compiles");
    let (files, _) = entries(&tmp.0);
    assert_eq!(files.len(), 1);
    let full = fs::read(&files[0]).expect("entry readable");
    fs::write(&files[0], &full[..full.len() / 2]).expect("truncate the entry");

    let second = cache
        .compile_cached(&source, "fill.cu", 90, 1)
        .expect("recompiles");
    assert!(!second.from_disk, "a truncated entry is a miss");
    assert_eq!(second.image, first.image);
    assert_eq!(
        fs::read(&files[0]).expect("entry readable"),
        full,
        "the entry is rewritten in full"
    );
    let third = cache
        .compile_cached(&source, "fill.cu", 90, 1)
        .expect("loads");
    assert!(third.from_disk);
    assert_eq!(entries(&tmp.0).0.len(), 1);
}

#[test]
fn off_writes_nothing() {
    if !require_or_skip() {
        return;
    }
    let tmp = TempDir::new("off");
    let cache = cache_for(&[(CACHE_DIR_VAR, "off"), ("HOME", &tmp.0.to_string_lossy())]);
    assert_eq!(cache.dir(), None);
    for _ in 0..2 {
        let c = cache
            .compile_cached(&kernel_source(4), "fill.cu", 90, 1)
            .expect("compiles");
        assert!(!c.from_disk);
    }
    assert!(!tmp.0.exists(), "nothing was written under HOME");
}

#[test]
fn racing_threads_agree_on_one_entry() {
    if !require_or_skip() {
        return;
    }
    let tmp = TempDir::new("race");
    let source = kernel_source(6);
    let images: Vec<Vec<u8>> = std::thread::scope(|s| {
        let handles: Vec<_> = (0..4)
            .map(|_| {
                s.spawn(|| {
                    DiskCache::at(Some(tmp.0.clone()))
                        .compile_cached(&source, "fill.cu", 90, 1)
                        .expect("compiles")
                        .image
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("no panic"))
            .collect()
    });
    assert!(images.windows(2).all(|w| w[0] == w[1]));
    let (files, tmp_left) = entries(&tmp.0);
    assert_eq!(files.len(), 1);
    assert!(!tmp_left, "no temporary file is left behind");
    let warm = DiskCache::at(Some(tmp.0.clone()))
        .compile_cached(&source, "fill.cu", 90, 1)
        .expect("loads");
    assert!(warm.from_disk);
    assert_eq!(warm.image, images[0]);
}

#[test]
fn an_unwritable_directory_is_not_an_error() {
    if !require_or_skip() {
        return;
    }
    let tmp = TempDir::new("unwritable");
    // A regular file where the cache directory should be: every write fails.
    fs::write(&tmp.0, b"not a directory").expect("create the blocking file");
    let cache = DiskCache::at(Some(tmp.0.clone()));
    let c = cache
        .compile_cached(&kernel_source(5), "fill.cu", 90, 1)
        .expect("compiles");
    assert!(!c.from_disk);
    let _ = fs::remove_file(&tmp.0);
}

#[test]
fn a_compile_error_is_returned_and_not_cached() {
    if !require_or_skip() {
        return;
    }
    let tmp = TempDir::new("error");
    let cache = DiskCache::at(Some(tmp.0.clone()));
    let err = cache
        .compile_cached("extern \"C\" __global__ void k() { x; }", "bad.cu", 90, 1)
        .expect_err("does not compile");
    assert!(
        matches!(err, Error::Backend(BackendError::Nvrtc { .. })),
        "{err:?}"
    );
    assert!(entries(&tmp.0).0.is_empty());
}

#[test]
fn nvrtc_is_identified_by_its_file_without_loading_it() {
    if !crate::nvrtc::require_or_skip() {
        return;
    }
    // NVRTC is found through LD_LIBRARY_PATH (or the system directories) wherever it loads from.
    let id = nvrtc_identity();
    assert!(id.starts_with("file /") && id.contains("nvrtc"), "{id}");
    assert_eq!(id, nvrtc_identity());
}

#[test]
fn compilations_report_their_start_and_end_and_disk_hits_report_nothing() {
    use crate::profiling::{CompileStage, compile_events};
    if !require_or_skip() {
        return;
    }
    let tmp = TempDir::new("events");
    let events = compile_events();
    let cache = DiskCache::at(Some(tmp.0.clone()));
    let source = kernel_source(8);
    cache
        .compile_cached(&source, "events_fill.cu", 90, 1)
        .expect("cold compile");
    let hit = cache
        .compile_cached(&source, "events_fill.cu", 90, 1)
        .expect("warm load");
    assert!(hit.from_disk);
    let bad = "extern \"C\" __global__ void k() { x; }";
    assert!(cache.compile_cached(bad, "events_bad.cu", 90, 1).is_err());
    // Other tests compile at the same time: only this test's programs count.
    let seen: Vec<(String, String, CompileStage)> = events
        .try_iter()
        .filter(|e| e.program.starts_with("events_"))
        .map(|e| (e.program, e.target, e.stage))
        .collect();
    assert_eq!(seen.len(), 4, "{seen:?}");
    let names: Vec<&str> = seen.iter().map(|(p, _, _)| p.as_str()).collect();
    assert_eq!(
        names,
        [
            "events_fill.cu",
            "events_fill.cu",
            "events_bad.cu",
            "events_bad.cu"
        ]
    );
    assert!(seen.iter().all(|(_, target, _)| target == "sm_90"));
    assert_eq!(seen[0].2, CompileStage::Started);
    assert!(matches!(seen[1].2, CompileStage::Finished { elapsed } if elapsed.as_nanos() > 0));
    assert_eq!(seen[2].2, CompileStage::Started);
    assert!(matches!(seen[3].2, CompileStage::Failed { .. }));
}
