//! The on-disk cache of compiled GPU images, shared by the backends: CUBINs from NVRTC
//! (`backend/cuda/jit_cache.rs`) and AMD code objects from hiprtc (`backend/hip/code_cache.rs`).
//! Each backend builds its own key (every input that determines the image) and says what a valid
//! image looks like; this file keeps the files (DESIGN.md decision 6).
//!
//! # Where
//!
//! [`cache_dir`] picks the directory: `$FERROKKOS_CACHE_DIR` when it is set and not empty
//! (`off` or `0` turn the disk cache off), else `$XDG_CACHE_HOME/ferrokkos` (when that is an
//! absolute path, as the XDG specification asks), else `$HOME/.cache/ferrokkos`, else no disk cache.
//!
//! # Layout
//!
//! An entry is `<dir>/<target>/<name>.fkc`, where `<target>` is the architecture compiled for
//! (`sm_90`, `gfx90a`; [`target_dir_name`] makes it a safe directory name: `gfx90a:xnack+` is
//! `gfx90a_xnack+`) and `<name>` is 32 hex digits: two independent 64-bit hashes of the key
//! (FNV-1a 64 and [`mix_hash`], a multiply–rotate hash with a SplitMix64 finalizer). The file holds
//!
//! | bytes | content |
//! |---|---|
//! | 8 | the backend's magic: `FKCUBIN1` (CUDA), `FKHIPCO1` (HIP) |
//! | 8 | the key's length, little-endian `u64` |
//! | key length | the key |
//! | 8 | the image's length, little-endian `u64` |
//! | image length | the image |
//!
//! and nothing after it. A lookup compares the stored key with the wanted key byte for byte, so a
//! hash collision (or two targets that share a directory name) is a miss, never a wrong kernel; a
//! file that is truncated, has another magic or trailing bytes, or whose image the backend's check
//! refuses, is a miss too, and the fresh compile overwrites it.
//!
//! # Writes
//!
//! An entry is written to `<name>.fkc.tmp.<pid>.<counter>` in the same directory and renamed into
//! place, so readers never see a half-written entry; when processes or threads race to write the
//! same entry, either one wins and both contents are equal. The cache is only an optimization:
//! callers ignore a failure to create the directory or write the entry (the next process compiles
//! again).

use std::ffi::OsString;
use std::fs;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

mod hash;
mod library;
#[cfg(test)]
pub(crate) mod test_support;

pub(crate) use hash::{fnv1a_64, mix_hash};
pub(crate) use library::library_identity;

/// The environment variable that names the cache directory (or `off` / `0`).
pub(crate) const CACHE_DIR_VAR: &str = "FERROKKOS_CACHE_DIR";

/// The extension of cache files.
pub(crate) const EXTENSION: &str = "fkc";

/// The cache directory the variables read through `var` ask for: `$FERROKKOS_CACHE_DIR` (`off` or
/// `0`: none), else `$XDG_CACHE_HOME/ferrokkos` (absolute paths only), else
/// `$HOME/.cache/ferrokkos`, else none. Empty variables count as unset. (Tests pass a map instead
/// of changing the process environment.)
pub(crate) fn cache_dir(var: impl Fn(&str) -> Option<OsString>) -> Option<PathBuf> {
    let set = |name: &str| var(name).filter(|v| !v.is_empty());
    if let Some(dir) = set(CACHE_DIR_VAR) {
        let off = dir
            .to_str()
            .is_some_and(|v| matches!(v.trim(), "off" | "0"));
        return (!off).then(|| PathBuf::from(dir));
    }
    if let Some(xdg) = set("XDG_CACHE_HOME").map(PathBuf::from)
        && xdg.is_absolute()
    {
        return Some(xdg.join("ferrokkos"));
    }
    set("HOME").map(|home| PathBuf::from(home).join(".cache").join("ferrokkos"))
}

/// `target` (`sm_90`, `gfx90a:xnack+`) as one safe path component: every character other than an
/// ASCII letter, digit, `_`, `-` or `+` becomes `_` (`gfx90a_xnack+`); an empty name is `_`. Two
/// targets may share a directory; their keys still differ.
pub(crate) fn target_dir_name(target: &str) -> String {
    let safe = |c: char| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '+');
    let name: String = target
        .chars()
        .map(|c| if safe(c) { c } else { '_' })
        .collect();
    if name.is_empty() { "_".into() } else { name }
}

/// `<dir>/<target_dir_name(target)>/<32 hex digits>.fkc` for `key`.
pub(crate) fn entry_path(dir: &Path, target: &str, key: &[u8]) -> PathBuf {
    dir.join(target_dir_name(target)).join(format!(
        "{:016x}{:016x}.{EXTENSION}",
        fnv1a_64(key),
        mix_hash(key)
    ))
}

/// A cache directory, or none when the disk cache is off, holding files that start with `magic`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Store {
    /// The cache directory; `None` when the disk cache is off.
    dir: Option<PathBuf>,
    /// The first eight bytes of this backend's files.
    magic: [u8; 8],
}

impl Store {
    /// A store in `dir` (`None`: no disk cache; [`cache_dir`] is the one the environment asks
    /// for). The directory is created on the first write, not here.
    pub(crate) fn at(dir: Option<PathBuf>, magic: &[u8; 8]) -> Store {
        Store { dir, magic: *magic }
    }

    /// The cache directory, or `None` when the disk cache is off.
    pub(crate) fn dir(&self) -> Option<&Path> {
        self.dir.as_deref()
    }

    /// The entry for `key` under `target`'s directory; `None` when the disk cache is off.
    pub(crate) fn entry(&self, target: &str, key: Vec<u8>) -> Option<Entry> {
        let path = entry_path(self.dir.as_deref()?, target, &key);
        Some(Entry {
            path,
            magic: self.magic,
            key,
        })
    }
}

/// One entry of a [`Store`]: its file and the key it must hold.
#[derive(Clone, Debug)]
pub(crate) struct Entry {
    /// The entry's file.
    path: PathBuf,
    /// The store's magic.
    magic: [u8; 8],
    /// The full key.
    key: Vec<u8>,
}

impl Entry {
    /// The entry's file.
    #[cfg_attr(not(test), allow(dead_code))] // used by the tests
    pub(crate) fn path(&self) -> &Path {
        &self.path
    }

    /// Whether the entry's file exists (it may still be stale or damaged: [`Entry::read`] decides).
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))] // only the runtime (built with CUDA) calls it
    pub(crate) fn exists(&self) -> bool {
        self.path.is_file()
    }

    /// The image stored under the key, when the file exists, is well formed, holds exactly the key
    /// and `valid` accepts its image; `None` otherwise.
    pub(crate) fn read(&self, valid: impl Fn(&[u8]) -> bool) -> Option<Vec<u8>> {
        let bytes = fs::read(&self.path).ok()?;
        decode_entry(&bytes, &self.magic, &self.key, valid).map(<[u8]>::to_vec)
    }

    /// Writes `image` under the key atomically: to a temporary file in the same directory (created
    /// as needed), then renamed over the entry's file. The temporary file is removed on failure.
    pub(crate) fn write(&self, image: &[u8]) -> std::io::Result<()> {
        /// Distinguishes the temporary files of the threads of one process.
        static COUNTER: AtomicU64 = AtomicU64::new(0);
        let dir = self.path.parent().ok_or(std::io::ErrorKind::InvalidInput)?;
        fs::create_dir_all(dir)?;
        let mut tmp_name = self.path.file_name().unwrap_or_default().to_os_string();
        tmp_name.push(format!(
            ".tmp.{}.{}",
            std::process::id(),
            COUNTER.fetch_add(1, Ordering::Relaxed)
        ));
        let tmp = dir.join(tmp_name);
        let written = fs::File::create(&tmp)
            .and_then(|mut file| file.write_all(&encode_entry(&self.magic, &self.key, image)))
            .and_then(|()| fs::rename(&tmp, &self.path));
        if written.is_err() {
            let _ = fs::remove_file(&tmp);
        }
        written
    }
}

/// A cache key: `header` (every input that determines the image but the source, one per line,
/// ending with the source's length) followed by the full source.
pub(crate) fn key_bytes(header: &str, source: &str) -> Vec<u8> {
    let mut key = Vec::with_capacity(header.len() + source.len());
    key.extend_from_slice(header.as_bytes());
    key.extend_from_slice(source.as_bytes());
    key
}

/// The bytes of a cache file with `magic` holding `image` under `key`.
pub(crate) fn encode_entry(magic: &[u8; 8], key: &[u8], image: &[u8]) -> Vec<u8> {
    let mut bytes = Vec::with_capacity(magic.len() + 16 + key.len() + image.len());
    bytes.extend_from_slice(magic);
    bytes.extend_from_slice(&(key.len() as u64).to_le_bytes());
    bytes.extend_from_slice(key);
    bytes.extend_from_slice(&(image.len() as u64).to_le_bytes());
    bytes.extend_from_slice(image);
    bytes
}

/// The image of the cache file `bytes` if it is well formed, starts with `magic`, holds exactly
/// `key` and `valid` accepts the image; `None` otherwise (another key, a truncated or corrupt
/// file, trailing bytes, an image of another kind or target).
pub(crate) fn decode_entry<'a>(
    bytes: &'a [u8],
    magic: &[u8; 8],
    key: &[u8],
    valid: impl Fn(&[u8]) -> bool,
) -> Option<&'a [u8]> {
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
    if take(&mut rest, magic.len())? != magic {
        return None;
    }
    let key_len = take_len(&mut rest)?;
    if key_len != key.len() || take(&mut rest, key_len)? != key {
        return None;
    }
    let image_len = take_len(&mut rest)?;
    let image = take(&mut rest, image_len)?;
    (rest.is_empty() && valid(image)).then_some(image)
}

#[cfg(test)]
mod tests;
