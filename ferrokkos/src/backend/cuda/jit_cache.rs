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

    /// Whether the cache has an entry for `source` (see [`DiskCache::compile_cached`]; only its
    /// file is looked for: a stale or damaged one is found, and then compiled over, by the load).
    pub(crate) fn has(&self, source: &str, program: &str, arch: u32) -> bool {
        let nvrtc = self.nvrtc.get_or_init(nvrtc_identity);
        let key = cache_key(source, program, arch, nvrtc);
        self.dir
            .as_deref()
            .is_some_and(|dir| entry_path(dir, arch, &key).is_file())
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
    /// Errors: those of [`nvrtc::compile_cubin`], on a miss. A miss compiles on up to `threads`
    /// threads ([`nvrtc::compile_cubin_split`]; the CUBIN does the same either way, so the key
    /// leaves them out).
    pub(crate) fn compile_cached(
        &self,
        source: &str,
        program: &str,
        arch: u32,
        threads: u32,
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
        let compiling = crate::tools::compiling(program, &format!("sm_{arch}"));
        let cubin = nvrtc::compile_cubin_split(source, program, arch, threads);
        compiling.finish(cubin.is_ok());
        let cubin = cubin?;
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
mod tests;
