//! The on-disk CUBIN cache: NVRTC compiles each program once per (source, device architecture,
//! NVRTC version, compile options, ferrokkos version), and later processes load the CUBIN from disk
//! without calling NVRTC's compiler (DESIGN.md decision 6).
//!
//! # Where
//!
//! [`DiskCache::from_env`] picks the directory: `$FERROKKOS_CACHE_DIR` when it is set and not empty
//! (`off` or `0` turn the disk cache off), else `$XDG_CACHE_HOME/ferrokkos` (when that is an
//! absolute path, as the XDG specification asks), else `$HOME/.cache/ferrokkos`, else no disk cache.
//!
//! # Layout
//!
//! An entry is `<dir>/sm_<arch>/<name>.fkc`, where `<name>` is 32 hex digits: two independent
//! 64-bit hashes of the key (FNV-1a 64 and [`mix_hash`], a multiply–rotate hash with a SplitMix64
//! finalizer). The file holds
//!
//! | bytes | content |
//! |---|---|
//! | 8 | the magic `FKCUBIN1` |
//! | 8 | the key's length, little-endian `u64` |
//! | key length | the key: format version, ferrokkos version, NVRTC version, architecture, options, program name, full source |
//! | 8 | the image's length, little-endian `u64` |
//! | image length | the CUBIN |
//!
//! and nothing after it. A lookup compares the stored key with the wanted key byte for byte, so a
//! hash collision is a miss, never a wrong kernel; a file that is truncated, has another magic or
//! trailing bytes, or whose image is not an ELF image, is a miss too, and the fresh compile
//! overwrites it.
//!
//! # Writes
//!
//! An entry is written to `<name>.fkc.tmp.<pid>.<counter>` in the same directory and renamed into
//! place, so readers never see a half-written entry; when processes or threads race to write the
//! same entry, either one wins and both contents are equal. The cache is only an optimization: a
//! failure to create the directory or write the entry is ignored (the next process compiles again).
//!
//! The in-memory layer (loaded modules by kernel) belongs to the backend, not to this file.

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use super::nvrtc;
use crate::error::Result;

/// The environment variable that names the cache directory (or `off` / `0`).
pub(crate) const CACHE_DIR_VAR: &str = "FERROKKOS_CACHE_DIR";

/// The compile options of [`nvrtc::compile_cubin`] as they enter the key, behind a format version.
/// It must change whenever the options in `nvrtc.rs` change, so that CUBINs compiled with the old
/// options are not loaded.
const OPTIONS_KEY: &str = "v1 -std=c++17 -default-device -lineinfo --fmad=false";

/// The first eight bytes of every cache file.
const MAGIC: &[u8; 8] = b"FKCUBIN1";

/// The extension of cache files.
const EXTENSION: &str = "fkc";

/// The first bytes of an ELF image (every CUBIN is one).
const ELF_MAGIC: &[u8; 4] = b"\x7fELF";

/// A CUBIN from [`DiskCache::compile_cached`].
#[derive(Clone, Debug)]
pub(crate) struct CachedCubin {
    /// The CUBIN bytes, ready for `cuModuleLoadData`.
    pub image: Vec<u8>,
    /// Whether the image was loaded from the disk cache (NVRTC did not compile it).
    pub from_disk: bool,
    /// How long NVRTC took; `None` when the image came from disk.
    #[cfg_attr(not(test), allow(dead_code))] // used by the tests
    pub compile_time: Option<Duration>,
}

/// The on-disk CUBIN cache: a directory, or none when the disk cache is off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DiskCache {
    /// The cache directory; `None` when the disk cache is off.
    dir: Option<PathBuf>,
    /// Which NVRTC compiles (see [`nvrtc_identity`]), found on the first lookup.
    nvrtc: std::sync::OnceLock<String>,
}

impl DiskCache {
    /// The cache the environment asks for: `$FERROKKOS_CACHE_DIR` (`off` or `0`: no disk cache),
    /// else `$XDG_CACHE_HOME/ferrokkos`, else `$HOME/.cache/ferrokkos`, else no disk cache. Empty
    /// variables count as unset. The directory is created on the first write, not here.
    pub(crate) fn from_env() -> DiskCache {
        Self::from_vars(|name| std::env::var_os(name))
    }

    /// [`DiskCache::from_env`] with the variables read through `var` (tests pass a map instead of
    /// changing the process environment).
    fn from_vars(var: impl Fn(&str) -> Option<OsString>) -> DiskCache {
        let set = |name: &str| var(name).filter(|v| !v.is_empty());
        if let Some(dir) = set(CACHE_DIR_VAR) {
            let off = dir
                .to_str()
                .is_some_and(|v| matches!(v.trim(), "off" | "0"));
            return DiskCache {
                dir: (!off).then(|| PathBuf::from(dir)),
                nvrtc: std::sync::OnceLock::new(),
            };
        }
        if let Some(xdg) = set("XDG_CACHE_HOME").map(PathBuf::from)
            && xdg.is_absolute()
        {
            return DiskCache {
                dir: Some(xdg.join("ferrokkos")),
                nvrtc: std::sync::OnceLock::new(),
            };
        }
        DiskCache {
            dir: set("HOME").map(|home| PathBuf::from(home).join(".cache").join("ferrokkos")),
            nvrtc: std::sync::OnceLock::new(),
        }
    }

    /// A cache in `dir` (`None`: no disk cache).
    #[cfg_attr(not(test), allow(dead_code))] // used by the tests
    pub(crate) fn at(dir: Option<PathBuf>) -> DiskCache {
        DiskCache {
            dir,
            nvrtc: std::sync::OnceLock::new(),
        }
    }

    /// The cache directory, or `None` when the disk cache is off.
    #[cfg_attr(not(test), allow(dead_code))] // used by the tests
    pub(crate) fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The CUBIN of the CUDA C++ `source` for `sm_{arch}`, named `program` in NVRTC's messages:
    /// loaded from the disk cache when an entry with the same key is there, otherwise compiled with
    /// [`nvrtc::compile_cubin`] and written to the cache (write failures are ignored).
    ///
    /// The key identifies NVRTC by its library file (path, size, modification time), found without
    /// loading it, so that a warm start neither compiles nor even loads NVRTC; when the file is not
    /// found, by the version NVRTC reports (which loads it), `(0, 0)` when it is missing (then the
    /// lookup misses and the compile reports [`crate::BackendError::LibraryMissing`]).
    ///
    /// Errors: those of [`nvrtc::compile_cubin`], on a miss.
    pub(crate) fn compile_cached(
        &self,
        source: &str,
        program: &str,
        arch: u32,
    ) -> Result<CachedCubin> {
        let nvrtc = self.nvrtc.get_or_init(nvrtc_identity);
        let key = cache_key(source, program, arch, nvrtc);
        let path = self.dir.as_deref().map(|dir| entry_path(dir, arch, &key));
        if let Some(image) = path.as_deref().and_then(|p| read_entry(p, &key)) {
            return Ok(CachedCubin {
                image,
                from_disk: true,
                compile_time: None,
            });
        }
        let cubin = nvrtc::compile_cubin(source, program, arch)?;
        if let Some(path) = &path {
            // The cache is an optimization: a failed write only means the next process compiles.
            let _ = write_entry(path, &key, &cubin.image);
        }
        Ok(CachedCubin {
            image: cubin.image,
            from_disk: false,
            compile_time: Some(cubin.compile_time),
        })
    }
}

/// The cache key: every input that determines the CUBIN, the source last and in full.
fn cache_key(source: &str, program: &str, arch: u32, nvrtc: &str) -> Vec<u8> {
    let header = format!(
        "ferrokkos jit cache 1\nferrokkos {}\nnvrtc {nvrtc}\narch sm_{arch}\n\
         options {OPTIONS_KEY}\nprogram {} {program}\nsource {}\n",
        env!("CARGO_PKG_VERSION"),
        program.len(),
        source.len(),
    );
    let mut key = Vec::with_capacity(header.len() + source.len());
    key.extend_from_slice(header.as_bytes());
    key.extend_from_slice(source.as_bytes());
    key
}

/// Which NVRTC this process would compile with, without loading it: the first of cudarc's candidate
/// library names found, in the order the dynamic loader searches (`LD_LIBRARY_PATH`, then the usual
/// CUDA and system directories), as `file <path> <size> <mtime>`; an upgrade changes it. When no file
/// is found (a library the loader finds elsewhere), NVRTC's reported version (loading it).
fn nvrtc_identity() -> String {
    let mut dirs: Vec<PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    for d in [
        "/usr/local/cuda/lib64",
        "/usr/local/cuda/targets/x86_64-linux/lib",
        "/usr/lib/x86_64-linux-gnu",
        "/lib/x86_64-linux-gnu",
        "/usr/lib64",
        "/usr/lib",
    ] {
        dirs.push(PathBuf::from(d));
    }
    for name in cudarc::get_lib_name_candidates("nvrtc") {
        for dir in &dirs {
            let path = dir.join(&name);
            let Ok(meta) = fs::metadata(&path) else {
                continue;
            };
            if !meta.is_file() {
                continue;
            }
            let real = fs::canonicalize(&path).unwrap_or(path);
            let mtime = meta
                .modified()
                .ok()
                .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
                .map_or(0, |d| d.as_nanos());
            return format!("file {} {} {mtime}", real.display(), meta.len());
        }
    }
    let (major, minor) = nvrtc::version().unwrap_or((0, 0));
    format!("version {major}.{minor}")
}

/// FNV-1a, 64 bits, over `bytes`.
fn fnv1a_64(bytes: &[u8]) -> u64 {
    const OFFSET_BASIS: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;
    bytes
        .iter()
        .fold(OFFSET_BASIS, |h, &b| (h ^ u64::from(b)).wrapping_mul(PRIME))
}

/// The SplitMix64 finalizer: a bijection of `u64` that spreads every input bit over the output.
fn splitmix64_finalize(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// A second 64-bit hash, unrelated to FNV-1a: the bytes are read as little-endian 64-bit words
/// (the last one zero-padded), each word is scrambled by the SplitMix64 finalizer and folded in with
/// a rotate and a multiply by the golden-ratio constant; the length and a final SplitMix64 round
/// finish it.
fn mix_hash(bytes: &[u8]) -> u64 {
    const GOLDEN: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut h: u64 = 0x243f_6a88_85a3_08d3; // The first digits of pi: any constant unlike FNV's.
    for chunk in bytes.chunks(8) {
        let mut word = [0u8; 8];
        word[..chunk.len()].copy_from_slice(chunk);
        let w = splitmix64_finalize(u64::from_le_bytes(word));
        h = (h ^ w).rotate_left(29).wrapping_mul(GOLDEN);
    }
    splitmix64_finalize(h ^ bytes.len() as u64)
}

/// `<dir>/sm_<arch>/<32 hex digits>.fkc` for `key`.
fn entry_path(dir: &Path, arch: u32, key: &[u8]) -> PathBuf {
    dir.join(format!("sm_{arch}")).join(format!(
        "{:016x}{:016x}.{EXTENSION}",
        fnv1a_64(key),
        mix_hash(key)
    ))
}

/// The bytes of a cache file holding `image` under `key`.
fn encode_entry(key: &[u8], image: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(MAGIC.len() + 16 + key.len() + image.len());
    bytes.extend_from_slice(MAGIC);
    bytes.extend_from_slice(&(key.len() as u64).to_le_bytes());
    bytes.extend_from_slice(key);
    bytes.extend_from_slice(&(image.len() as u64).to_le_bytes());
    bytes.extend_from_slice(image);
    bytes
}

/// The image of the cache file `bytes` if it is well formed and holds exactly `key`; `None`
/// otherwise (another key, a truncated or corrupt file, trailing bytes, an image that is not ELF).
fn decode_entry<'a>(bytes: &'a [u8], key: &[u8]) -> Option<&'a [u8]> {
    /// Splits `n` bytes off the front of `rest`.
    fn take<'b>(rest: &mut &'b [u8], n: usize) -> Option<&'b [u8]> {
        if rest.len() < n {
            return None;
        }
        let (head, tail) = rest.split_at(n);
        *rest = tail;
        Some(head)
    }
    /// Reads a little-endian `u64` length off the front of `rest`.
    fn take_len(rest: &mut &[u8]) -> Option<usize> {
        let raw: [u8; 8] = take(rest, 8)?.try_into().ok()?;
        usize::try_from(u64::from_le_bytes(raw)).ok()
    }
    let mut rest = bytes;
    if take(&mut rest, MAGIC.len())? != MAGIC {
        return None;
    }
    let key_len = take_len(&mut rest)?;
    if key_len != key.len() || take(&mut rest, key_len)? != key {
        return None;
    }
    let image_len = take_len(&mut rest)?;
    let image = take(&mut rest, image_len)?;
    (rest.is_empty() && image.starts_with(ELF_MAGIC)).then_some(image)
}

/// The image stored under `key` at `path`, or `None` when the file is missing, unreadable or does
/// not hold exactly `key`.
fn read_entry(path: &Path, key: &[u8]) -> Option<Vec<u8>> {
    let bytes = fs::read(path).ok()?;
    decode_entry(&bytes, key).map(<[u8]>::to_vec)
}

/// Writes `image` under `key` to `path` atomically: to a temporary file in the same directory
/// (created as needed), then renamed over `path`. The temporary file is removed on failure.
fn write_entry(path: &Path, key: &[u8], image: &[u8]) -> std::io::Result<()> {
    /// Distinguishes the temporary files of the threads of one process.
    static COUNTER: AtomicU64 = AtomicU64::new(0);
    let dir = path.parent().ok_or(std::io::ErrorKind::InvalidInput)?;
    fs::create_dir_all(dir)?;
    let mut tmp_name = path.file_name().unwrap_or_default().to_os_string();
    tmp_name.push(format!(
        ".tmp.{}.{}",
        std::process::id(),
        COUNTER.fetch_add(1, Ordering::Relaxed)
    ));
    let tmp = dir.join(tmp_name);
    let written = fs::File::create(&tmp)
        .and_then(|mut file| file.write_all(&encode_entry(key, image)))
        .and_then(|()| fs::rename(&tmp, path));
    if written.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    written
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::{BackendError, Error};
    use crate::nvrtc::require_or_skip;
    use std::collections::HashMap;
    use std::time::Instant;

    /// A directory under the system's temporary directory, unique to this process and `tag`,
    /// removed (with its contents) when dropped.
    struct TempDir(PathBuf);

    impl TempDir {
        /// A fresh (not yet created) directory path for `tag`.
        fn new(tag: &str) -> TempDir {
            let nanos = std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .map_or(0, |d| d.as_nanos());
            let dir = std::env::temp_dir().join(format!(
                "ferrokkos-jit-cache-test-{tag}-{}-{nanos}",
                std::process::id()
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

    /// A small kernel; `value` makes variants with different sources.
    fn kernel_source(value: u32) -> String {
        format!(
            "extern \"C\" __global__ void fill(unsigned* out, unsigned long long n) {{\n\
             \x20   for (unsigned long long i = (unsigned long long)blockIdx.x * blockDim.x + threadIdx.x;\n\
             \x20        i < n; i += (unsigned long long)gridDim.x * blockDim.x)\n\
             \x20       out[i] = {value}u;\n}}\n"
        )
    }

    /// The `.fkc` files under `dir`, recursively, and whether any temporary file was left behind.
    fn entries(dir: &Path) -> (Vec<PathBuf>, bool) {
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

    /// `from_vars` over a fixed map of variables.
    fn cache_for(vars: &[(&str, &str)]) -> DiskCache {
        let map: HashMap<String, OsString> = vars
            .iter()
            .map(|(k, v)| (k.to_string(), OsString::from(v)))
            .collect();
        DiskCache::from_vars(|name| map.get(name).cloned())
    }

    #[test]
    fn the_directory_follows_the_environment() {
        let all = [
            (CACHE_DIR_VAR, "/c/fk"),
            ("XDG_CACHE_HOME", "/x"),
            ("HOME", "/h"),
        ];
        assert_eq!(cache_for(&all).dir(), Some(Path::new("/c/fk")));
        assert_eq!(cache_for(&all[1..]).dir(), Some(Path::new("/x/ferrokkos")));
        assert_eq!(
            cache_for(&all[2..]).dir(),
            Some(Path::new("/h/.cache/ferrokkos"))
        );
        assert_eq!(cache_for(&[]).dir(), None);
        // Empty variables count as unset; a relative XDG_CACHE_HOME is ignored.
        assert_eq!(
            cache_for(&[(CACHE_DIR_VAR, ""), ("XDG_CACHE_HOME", ""), ("HOME", "/h")]).dir(),
            Some(Path::new("/h/.cache/ferrokkos"))
        );
        assert_eq!(
            cache_for(&[("XDG_CACHE_HOME", "rel"), ("HOME", "/h")]).dir(),
            Some(Path::new("/h/.cache/ferrokkos"))
        );
        // `off` and `0` turn the disk cache off, whatever else is set.
        for off in ["off", "0"] {
            assert_eq!(
                cache_for(&[(CACHE_DIR_VAR, off), all[1], all[2]]).dir(),
                None
            );
        }
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
    fn the_hashes_match_known_values() {
        // FNV-1a 64 reference values (from the FNV specification's test vectors).
        assert_eq!(fnv1a_64(b""), 0xcbf2_9ce4_8422_2325);
        assert_eq!(fnv1a_64(b"a"), 0xaf63_dc4c_8601_ec8c);
        assert_eq!(fnv1a_64(b"foobar"), 0x8594_4171_f739_67e8);
        // The second hash differs on inputs that differ only in zero padding or length.
        assert_ne!(mix_hash(b""), mix_hash(b"\0"));
        assert_ne!(mix_hash(b"abc"), mix_hash(b"abc\0"));
        assert_ne!(mix_hash(b"abcdefgh"), mix_hash(b"abcdefgi"));
    }

    #[test]
    fn entries_decode_only_with_their_exact_key() {
        let image = b"\x7fELF and the rest of a cubin".to_vec();
        let key = cache_key("source", "p.cu", 90, "v13.0");
        let bytes = encode_entry(&key, &image);
        assert_eq!(decode_entry(&bytes, &key), Some(&image[..]));
        // Another key (as after a hash collision) is a miss.
        let other = cache_key("sourcf", "p.cu", 90, "v13.0");
        assert_eq!(decode_entry(&bytes, &other), None);
        // Every truncation is a miss, and so are trailing bytes and a wrong magic.
        for len in 0..bytes.len() {
            assert_eq!(
                decode_entry(&bytes[..len], &key),
                None,
                "truncated to {len}"
            );
        }
        let mut longer = bytes.clone();
        longer.push(0);
        assert_eq!(decode_entry(&longer, &key), None);
        let mut magic = bytes.clone();
        magic[7] = b'2';
        assert_eq!(decode_entry(&magic, &key), None);
        // A huge length field is a miss, not an allocation.
        let mut huge = bytes.clone();
        let at = MAGIC.len() + 8 + key.len();
        huge[at..at + 8].copy_from_slice(&u64::MAX.to_le_bytes());
        assert_eq!(decode_entry(&huge, &key), None);
        // A non-ELF image is a miss.
        assert_eq!(decode_entry(&encode_entry(&key, b"junk"), &key), None);
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
            .compile_cached(&source, "fill.cu", 90)
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
            .compile_cached(&source, "fill.cu", 90)
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
            .compile_cached(&source, "fill.cu", 80)
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
            .compile_cached(&kernel_source(1), "fill.cu", 90)
            .expect("compiles");
        let b = cache
            .compile_cached(&kernel_source(2), "fill.cu", 90)
            .expect("compiles");
        assert!(!a.from_disk);
        assert!(!b.from_disk, "a changed source must not hit the old entry");
        assert_ne!(a.image, b.image);
        assert_eq!(entries(&tmp.0).0.len(), 2);
        let again = cache
            .compile_cached(&kernel_source(1), "fill.cu", 90)
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
            .compile_cached(&source, "fill.cu", 90)
            .expect("compiles");
        let (files, _) = entries(&tmp.0);
        assert_eq!(files.len(), 1);
        let full = fs::read(&files[0]).expect("entry readable");
        fs::write(&files[0], &full[..full.len() / 2]).expect("truncate the entry");

        let second = cache
            .compile_cached(&source, "fill.cu", 90)
            .expect("recompiles");
        assert!(!second.from_disk, "a truncated entry is a miss");
        assert_eq!(second.image, first.image);
        assert_eq!(
            fs::read(&files[0]).expect("entry readable"),
            full,
            "the entry is rewritten in full"
        );
        let third = cache.compile_cached(&source, "fill.cu", 90).expect("loads");
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
                .compile_cached(&kernel_source(4), "fill.cu", 90)
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
                            .compile_cached(&source, "fill.cu", 90)
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
            .compile_cached(&source, "fill.cu", 90)
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
            .compile_cached(&kernel_source(5), "fill.cu", 90)
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
            .compile_cached("extern \"C\" __global__ void k() { x; }", "bad.cu", 90)
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
}
