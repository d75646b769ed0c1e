//! Tests of `code_cache.rs`: they need hiprtc (no GPU) and are skipped without it, unless
//! `FERROKKOS_REQUIRE_HIPRTC=1`; the key's and the target's checks need nothing. The behaviour
//! HIP's cache shares with CUDA's is checked once, in `gpu/disk_cache/test_support.rs` (the module
//! `shared` here); what is HIP's is below.

use super::*;
use crate::backend::gpu::disk_cache::encode_entry;
use crate::backend::gpu::disk_cache::test_support::{
    self as checks, CacheUnderTest, Compiled, TempDir, kernel_source, shared_cache_tests,
};
use crate::error::Error;
use std::fs;

impl CacheUnderTest for CodeCache {
    const MAGIC: &'static [u8; 8] = MAGIC;
    const SUFFIX: &'static str = ".hip";
    const TARGET: &'static str = "gfx90a";
    const TARGET_DIR: &'static str = "gfx90a";
    const OTHER_TARGETS: &'static [(&'static str, &'static str)] =
        &[("gfx1030", "gfx1030"), ("gfx90a:xnack+", "gfx90a_xnack+")];

    fn require_or_skip() -> bool {
        crate::hiprtc::require_or_skip()
    }

    fn open(dir: Option<PathBuf>) -> CodeCache {
        CodeCache::at(dir)
    }

    fn from_env() -> CodeCache {
        CodeCache::from_env()
    }

    fn directory(&self) -> Option<&Path> {
        self.dir()
    }

    fn compile_for(&self, source: &str, program: &str, target: &str) -> Result<Compiled> {
        let c = self.compile_cached(source, program, target)?;
        Ok(Compiled {
            image: c.image,
            from_disk: c.from_disk,
            compile_time: c.compile_time,
        })
    }

    fn is_image_for(image: &[u8], target: &str) -> bool {
        let gfx = GfxTarget::parse(target).expect("a target");
        codegen::check_code_object(image, gfx.processor()).is_ok()
    }

    fn is_compiler_error(err: &Error) -> bool {
        matches!(err, Error::Backend(crate::BackendError::Hiprtc { .. }))
    }
}

shared_cache_tests!(CodeCache);

#[test]
fn an_entry_holding_another_processors_code_object_misses_and_is_rewritten() {
    let source = kernel_source(3);
    let program = "misplaced_fill.hip";
    // A well-formed entry with gfx90a's key that holds a gfx1030 code object.
    checks::a_damaged_entry_misses_and_is_rewritten::<CodeCache>(&source, program, |file| {
        let rdna2 = hiprtc::compile_code_object(&source, program, "gfx1030").expect("compiles");
        let gfx90a = GfxTarget::parse("gfx90a").expect("a target");
        let key = cache_key(&source, program, &gfx90a, &hiprtc_identity());
        fs::write(file, encode_entry(MAGIC, &key, &rdna2.image)).expect("misplace an object");
    });
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
    if !crate::hiprtc::require_or_skip() {
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
