//! Tests of `jit_cache.rs`: they need NVRTC (no GPU) and are skipped without it, unless
//! `FERROKKOS_REQUIRE_NVRTC=1`; the key's checks need nothing. The behaviour CUDA's cache shares
//! with HIP's is checked once, in `gpu/disk_cache/test_support.rs` (the module `shared` here); what
//! is CUDA's is below.

use super::*;
use crate::backend::gpu::disk_cache::test_support::{
    CacheUnderTest, Compiled, TempDir, entries, kernel_source, shared_cache_tests,
};
use crate::backend::gpu::disk_cache::{fnv1a_64, mix_hash};
use crate::error::{BackendError, Error};
use crate::nvrtc::require_or_skip;
use std::fs;

impl CacheUnderTest for DiskCache {
    const MAGIC: &'static [u8; 8] = MAGIC;
    const SUFFIX: &'static str = ".cu";
    const TARGET: &'static str = "sm_90";
    const TARGET_DIR: &'static str = "sm_90";
    const OTHER_TARGETS: &'static [(&'static str, &'static str)] = &[("sm_80", "sm_80")];

    fn require_or_skip() -> bool {
        crate::nvrtc::require_or_skip()
    }

    fn open(dir: Option<PathBuf>) -> DiskCache {
        DiskCache::at(dir)
    }

    fn from_env() -> DiskCache {
        DiskCache::from_env()
    }

    fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> DiskCache {
        DiskCache::from_vars(var)
    }

    fn directory(&self) -> Option<&Path> {
        self.dir()
    }

    fn compile_for(&self, source: &str, program: &str, target: &str) -> Result<Compiled> {
        let arch = target
            .strip_prefix("sm_")
            .and_then(|a| a.parse().ok())
            .expect("an sm_<arch> target");
        let c = self.compile_cached(source, program, arch, 1)?;
        Ok(Compiled {
            image: c.image,
            from_disk: c.from_disk,
            compile_time: c.compile_time,
        })
    }

    fn is_image_for(image: &[u8], _target: &str) -> bool {
        is_elf(image)
    }

    fn is_compiler_error(err: &Error) -> bool {
        matches!(err, Error::Backend(BackendError::Nvrtc { .. }))
    }
}

shared_cache_tests!(DiskCache);

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
                        .compile_cached(&source, "race_fill.cu", 90, 1)
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
        .compile_cached(&source, "race_fill.cu", 90, 1)
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
        .compile_cached(&kernel_source(5), "unwritable_fill.cu", 90, 1)
        .expect("compiles");
    assert!(!c.from_disk);
    assert!(is_elf(&c.image));
    let _ = fs::remove_file(&tmp.0);
}

#[test]
fn nvrtc_is_identified_by_its_file_without_loading_it() {
    if !require_or_skip() {
        return;
    }
    // NVRTC is found through LD_LIBRARY_PATH (or the system directories) wherever it loads from.
    let id = nvrtc_identity();
    assert!(id.starts_with("file /") && id.contains("nvrtc"), "{id}");
    assert_eq!(id, nvrtc_identity());
}
