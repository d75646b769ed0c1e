//! For the disk caches' tests (this module's, CUDA's and HIP's): temporary cache directories, a
//! listing of the entries in one, and the behaviour every backend's cache shares, written once.
//!
//! A backend's tests implement [`CacheUnderTest`] for its cache (`DiskCache` for CUBINs,
//! `CodeCache` for AMD code objects) and expand [`shared_cache_tests!`] with it, which makes a
//! module `shared` with one `#[test]` per shared check below, named as the check. The checks
//! compile with the backend's run-time compiler and return early (skip) when
//! [`CacheUnderTest::require_or_skip`] says it is not usable.

use std::ffi::OsString;
use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::Receiver;
use std::time::{Duration, Instant};

use super::{CACHE_DIR_VAR, EXTENSION, cache_dir};
use crate::error::{Error, Result};
use crate::profiling::{CompileEvent, CompileStage, compile_events};

/// A directory under the system's temporary directory, unique to this process, `tag` and call,
/// removed (with its contents) when dropped.
pub(crate) struct TempDir(pub(crate) PathBuf);

impl TempDir {
    /// A fresh (not yet created) directory path for `tag`.
    pub(crate) fn new(tag: &str) -> TempDir {
        /// Distinguishes the directories of one process.
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let nanos = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_nanos());
        let dir = std::env::temp_dir().join(format!(
            "ferrokkos-disk-cache-test-{tag}-{}-{nanos}-{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let _ = fs::remove_dir_all(&dir);
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = fs::remove_dir_all(&self.0);
    }
}

/// The `.fkc` files under `dir`, recursively, and whether any temporary file was left behind.
pub(crate) fn entries(dir: &Path) -> (Vec<PathBuf>, bool) {
    let mut found = Vec::new();
    let mut tmp_left = false;
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        let Ok(read) = fs::read_dir(&d) else { continue };
        for entry in read.flatten() {
            let p = entry.path();
            if p.is_dir() {
                stack.push(p);
            } else if p.extension().is_some_and(|e| e == EXTENSION) {
                found.push(p);
            } else if p.to_string_lossy().contains(".tmp.") {
                tmp_left = true;
            }
        }
    }
    (found, tmp_left)
}

/// The names of the directories that hold the entries under `dir`, sorted (one per entry).
pub(crate) fn entry_dirs(dir: &Path) -> Vec<String> {
    let mut dirs: Vec<String> = entries(dir)
        .0
        .iter()
        .filter_map(|f| f.parent()?.file_name()?.to_str().map(str::to_owned))
        .collect();
    dirs.sort_unstable();
    dirs
}

/// A small kernel, in the language CUDA and HIP share; `value` makes variants with different
/// sources.
pub(crate) fn kernel_source(value: u32) -> String {
    format!(
        "extern \"C\" __global__ void fill(unsigned* out, unsigned long long n) {{\n\
         \x20   for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n\
         \x20        i < n; i += (unsigned long long)gridDim.x * blockDim.x)\n\
         \x20       out[i] = {value}u;\n}}\n"
    )
}

/// A kernel that neither compiler accepts (`x` is not declared).
pub(crate) const BROKEN_SOURCE: &str = "extern \"C\" __global__ void k() { x; }";

/// What a backend's `compile_cached` returned, in one shape for the shared checks.
#[derive(Clone, Debug)]
pub(crate) struct Compiled {
    /// The image (CUBIN, code object).
    pub(crate) image: Vec<u8>,
    /// Whether it was loaded from the disk cache.
    pub(crate) from_disk: bool,
    /// How long the compiler took; `None` when the image came from disk.
    pub(crate) compile_time: Option<Duration>,
}

/// A backend's disk cache, as the shared checks drive it.
pub(crate) trait CacheUnderTest: Sized {
    /// The first eight bytes of the backend's cache files.
    const MAGIC: &'static [u8; 8];
    /// The extension of the backend's program names (`.cu`, `.hip`).
    const SUFFIX: &'static str;
    /// The target the checks compile for (`sm_90`, `gfx90a`), as compile events name it.
    const TARGET: &'static str;
    /// The directory that holds [`CacheUnderTest::TARGET`]'s entries.
    const TARGET_DIR: &'static str;
    /// Other targets, each with the directory that holds its entries; the first one's images
    /// differ from [`CacheUnderTest::TARGET`]'s.
    const OTHER_TARGETS: &'static [(&'static str, &'static str)];

    /// Whether the compiler is usable; `false` skips the check (the backend's `require_or_skip`,
    /// which panics instead when its `FERROKKOS_REQUIRE_*` variable is set).
    fn require_or_skip() -> bool;
    /// A cache in `dir` (`None`: no disk cache).
    fn open(dir: Option<PathBuf>) -> Self;
    /// The cache the environment asks for.
    fn from_env() -> Self;
    /// The cache the variables read through `var` ask for.
    fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> Self {
        Self::open(cache_dir(var))
    }
    /// The cache's directory; `None` when the disk cache is off.
    fn directory(&self) -> Option<&Path>;
    /// `compile_cached` for `target` (one of the targets above).
    fn compile_for(&self, source: &str, program: &str, target: &str) -> Result<Compiled>;
    /// Whether `image` is an image the backend accepts for `target`.
    fn is_image_for(image: &[u8], target: &str) -> bool;
    /// Whether `err` is the compiler's error (NVRTC's, hiprtc's).
    fn is_compiler_error(err: &Error) -> bool;

    /// `compile_cached` for [`CacheUnderTest::TARGET`].
    fn compile(&self, source: &str, program: &str) -> Result<Compiled> {
        self.compile_for(source, program, Self::TARGET)
    }
    /// The program name `name` with the backend's extension.
    fn program(name: &str) -> String {
        format!("disk_cache_{name}{}", Self::SUFFIX)
    }
}

/// The events for `program` received so far, as (program, target, stage).
fn events_of(
    events: &Receiver<CompileEvent>,
    program: &str,
) -> Vec<(String, String, CompileStage)> {
    // Other tests compile at the same time: only this check's program counts.
    events
        .try_iter()
        .filter(|e| e.program == program)
        .map(|e| (e.program, e.target, e.stage))
        .collect()
}

/// Asserts that `file` is an entry named by 32 hex digits in the directory `dir_name`.
fn assert_entry_name(file: &Path, dir_name: &str) {
    assert_eq!(
        file.parent().and_then(Path::file_name),
        Some(dir_name.as_ref()),
        "{file:?}"
    );
    let stem = file.file_stem().and_then(|s| s.to_str()).unwrap_or("");
    assert!(
        stem.len() == 32 && stem.chars().all(|c| c.is_ascii_hexdigit()),
        "{stem}"
    );
}

/// A miss compiles (reporting Started, then Finished), returns a valid image with its compile time
/// and writes exactly one entry (`<TARGET_DIR>/<32 hex>.fkc`, starting with the magic, holding the
/// image, no temporary file left); a new cache on the same directory loads the identical bytes
/// from disk, without compiling (no compile time, no event).
pub(crate) fn a_warm_start_loads_from_disk_without_compiling<C: CacheUnderTest>() {
    if !C::require_or_skip() {
        return;
    }
    let tmp = TempDir::new("warm");
    let source = kernel_source(7);
    let program = C::program("warm");
    let events = compile_events();

    let start = Instant::now();
    let first = C::open(Some(tmp.0.clone()))
        .compile(&source, &program)
        .expect("cold compile");
    let cold_time = start.elapsed();
    assert!(!first.from_disk);
    assert!(first.compile_time.is_some_and(|t| t.as_nanos() > 0));
    assert!(C::is_image_for(&first.image, C::TARGET));
    let (files, tmp_left) = entries(&tmp.0);
    assert_eq!(files.len(), 1, "one entry written: {files:?}");
    assert!(!tmp_left, "no temporary file is left behind");
    assert_entry_name(&files[0], C::TARGET_DIR);
    let stored = fs::read(&files[0]).expect("entry readable");
    assert_eq!(&stored[..8], C::MAGIC);
    assert!(stored.ends_with(&first.image));
    let seen = events_of(&events, &program);
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert_eq!(
        (seen[0].0.as_str(), seen[0].1.as_str(), seen[0].2),
        (program.as_str(), C::TARGET, CompileStage::Started)
    );
    assert_eq!(seen[1].1, C::TARGET);
    assert!(matches!(seen[1].2, CompileStage::Finished { elapsed } if elapsed.as_nanos() > 0));

    let start = Instant::now();
    let second = C::open(Some(tmp.0.clone()))
        .compile(&source, &program)
        .expect("warm load");
    let warm_time = start.elapsed();
    assert!(second.from_disk);
    assert!(second.compile_time.is_none());
    assert_eq!(second.image, first.image);
    assert_eq!(
        events_of(&events, &program),
        [],
        "a disk hit reports no compile"
    );
    assert_eq!(entries(&tmp.0).0.len(), 1);
    eprintln!(
        "{program} for {} ({} bytes): cold compile {cold_time:.2?} (compiler {:.2?}), \
         warm disk load {warm_time:.2?}",
        C::TARGET,
        first.image.len(),
        first.compile_time.unwrap_or_default(),
    );
}

/// A changed source misses the old entry and gets its own (two images, two entries); the first
/// source still loads its own image from disk.
pub(crate) fn a_changed_source_misses<C: CacheUnderTest>() {
    if !C::require_or_skip() {
        return;
    }
    let tmp = TempDir::new("changed");
    let cache = C::open(Some(tmp.0.clone()));
    let program = C::program("changed");
    let a = cache
        .compile(&kernel_source(1), &program)
        .expect("compiles");
    let b = cache
        .compile(&kernel_source(2), &program)
        .expect("compiles");
    assert!(!a.from_disk);
    assert!(!b.from_disk, "a changed source must not hit the old entry");
    assert_ne!(a.image, b.image);
    assert_eq!(entry_dirs(&tmp.0), [C::TARGET_DIR; 2]);
    let again = cache.compile(&kernel_source(1), &program).expect("loads");
    assert!(again.from_disk);
    assert_eq!(again.image, a.image);
}

/// Each other target misses [`CacheUnderTest::TARGET`]'s entry, compiles a valid image for itself
/// into its own directory, and later loads that image from disk.
pub(crate) fn another_target_misses_and_gets_its_own_directory<C: CacheUnderTest>() {
    if !C::require_or_skip() {
        return;
    }
    let tmp = TempDir::new("targets");
    let cache = C::open(Some(tmp.0.clone()));
    let source = kernel_source(1);
    let program = C::program("targets");
    let targets: Vec<(&str, &str)> = [(C::TARGET, C::TARGET_DIR)]
        .into_iter()
        .chain(C::OTHER_TARGETS.iter().copied())
        .collect();
    let images: Vec<Vec<u8>> = targets
        .iter()
        .map(|&(target, _)| {
            let c = cache
                .compile_for(&source, &program, target)
                .expect("compiles");
            assert!(!c.from_disk, "{target} must not hit another target's entry");
            assert!(C::is_image_for(&c.image, target), "{target}");
            c.image
        })
        .collect();
    assert_ne!(images[0], images[1]);
    let mut dirs: Vec<&str> = targets.iter().map(|&(_, dir)| dir).collect();
    dirs.sort_unstable();
    assert_eq!(entry_dirs(&tmp.0), dirs);
    for (&(target, _), image) in targets.iter().zip(&images) {
        let again = cache.compile_for(&source, &program, target).expect("loads");
        assert!(again.from_disk, "{target}");
        assert_eq!(&again.image, image, "{target}");
    }
}

/// After `damage` changes the entry's file (its path is passed), the lookup misses, compiles the
/// same image again and rewrites the entry in full; the next lookup loads it, and there is still
/// one entry.
pub(crate) fn a_damaged_entry_misses_and_is_rewritten<C: CacheUnderTest>(
    source: &str,
    program: &str,
    damage: impl FnOnce(&Path),
) {
    if !C::require_or_skip() {
        return;
    }
    let tmp = TempDir::new("damaged");
    let cache = C::open(Some(tmp.0.clone()));
    let first = cache.compile(source, program).expect("compiles");
    let (files, _) = entries(&tmp.0);
    assert_eq!(files.len(), 1);
    let full = fs::read(&files[0]).expect("entry readable");
    damage(&files[0]);
    assert_ne!(
        fs::read(&files[0]).expect("entry readable"),
        full,
        "damaged"
    );

    let second = cache.compile(source, program).expect("recompiles");
    assert!(!second.from_disk, "a damaged entry is a miss");
    assert!(C::is_image_for(&second.image, C::TARGET));
    assert_eq!(second.image, first.image);
    assert_eq!(
        fs::read(&files[0]).expect("entry readable"),
        full,
        "the entry is rewritten in full"
    );
    let third = cache.compile(source, program).expect("loads");
    assert!(third.from_disk);
    assert_eq!(third.image, first.image);
    assert_eq!(entries(&tmp.0).0.len(), 1);
}

/// A truncated entry (its first half) misses and is rewritten in full.
pub(crate) fn a_truncated_entry_misses_and_is_rewritten<C: CacheUnderTest>() {
    let program = C::program("truncated");
    a_damaged_entry_misses_and_is_rewritten::<C>(&kernel_source(3), &program, |file| {
        let full = fs::read(file).expect("entry readable");
        fs::write(file, &full[..full.len() / 2]).expect("truncate the entry");
    });
}

/// With the cache off (`FERROKKOS_CACHE_DIR=off`) there is no directory; every lookup compiles a
/// valid image and nothing is written, not even under `HOME`.
pub(crate) fn the_cache_off_writes_nothing<C: CacheUnderTest>() {
    if !C::require_or_skip() {
        return;
    }
    let tmp = TempDir::new("off");
    let home = OsString::from(&tmp.0);
    let cache = C::from_vars(|name| match name {
        CACHE_DIR_VAR => Some(OsString::from("off")),
        "HOME" => Some(home.clone()),
        _ => None,
    });
    assert_eq!(cache.directory(), None);
    for _ in 0..2 {
        let c = cache
            .compile(&kernel_source(4), &C::program("off"))
            .expect("compiles");
        assert!(!c.from_disk);
        assert!(C::is_image_for(&c.image, C::TARGET));
    }
    assert!(!tmp.0.exists(), "nothing was written under HOME");
}

/// A source that does not compile returns the compiler's error, reports Started then Failed, and
/// writes no entry.
pub(crate) fn a_compile_error_is_returned_reported_and_not_cached<C: CacheUnderTest>() {
    if !C::require_or_skip() {
        return;
    }
    let tmp = TempDir::new("error");
    let program = C::program("error");
    let events = compile_events();
    let err = C::open(Some(tmp.0.clone()))
        .compile(BROKEN_SOURCE, &program)
        .expect_err("does not compile");
    assert!(C::is_compiler_error(&err), "{err:?}");
    assert!(entries(&tmp.0).0.is_empty());
    let seen = events_of(&events, &program);
    assert_eq!(seen.len(), 2, "{seen:?}");
    assert!(
        seen.iter().all(|(_, target, _)| target == C::TARGET),
        "{seen:?}"
    );
    assert_eq!(seen[0].2, CompileStage::Started);
    assert!(matches!(seen[1].2, CompileStage::Failed { .. }));
}

/// The cache from the environment uses the shared directory choice ([`cache_dir`]); a cache made
/// on a directory uses that one. (Needs no compiler.)
pub(crate) fn the_environment_chooses_the_shared_directory<C: CacheUnderTest>() {
    let env = cache_dir(|name| std::env::var_os(name));
    assert_eq!(C::from_env().directory(), env.as_deref());
    let dir = PathBuf::from("/some/cache");
    assert_eq!(C::open(Some(dir.clone())).directory(), Some(dir.as_path()));
}

/// A module `shared` with one `#[test]` per shared check above, named as the check, for the cache
/// type `$cache` (which implements [`CacheUnderTest`] and is in scope where this is expanded).
macro_rules! shared_cache_tests {
    ($cache:ident) => {
        $crate::backend::gpu::disk_cache::test_support::shared_cache_tests!(
            $cache:
            a_warm_start_loads_from_disk_without_compiling,
            a_changed_source_misses,
            another_target_misses_and_gets_its_own_directory,
            a_truncated_entry_misses_and_is_rewritten,
            the_cache_off_writes_nothing,
            a_compile_error_is_returned_reported_and_not_cached,
            the_environment_chooses_the_shared_directory,
        );
    };
    ($cache:ident: $($check:ident,)*) => {
        /// The behaviour every backend's disk cache shares, checked on this backend's cache (the
        /// checks are in `backend/gpu/disk_cache/test_support.rs`).
        mod shared {
            use super::$cache as Cache;
            use $crate::backend::gpu::disk_cache::test_support as checks;
            $(
                #[test]
                fn $check() {
                    checks::$check::<Cache>();
                }
            )*
        }
    };
}
pub(crate) use shared_cache_tests;
