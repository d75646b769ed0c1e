//! The on-disk CUBIN cache: NVRTC compiles each program once per (source, device architecture,
//! NVRTC version, compile options, ferrokkos version), and later processes load the CUBIN from disk
//! without calling NVRTC's compiler (DESIGN.md decision 6).
//!
//! The directory, the file layout and the atomic writes are the GPU backends' shared disk cache
//! ([`crate::backend::gpu::disk_cache`]: `$FERROKKOS_CACHE_DIR`, XDG or HOME; `off` or `0` turn it
//! off); this file adds what is CUDA's: the key, the magic `FKCUBIN1`, the entries' directory
//! `sm_<arch>`, the check that an image is an ELF image (every CUBIN is one), and the compile with
//! NVRTC on a miss. An entry is `<dir>/sm_<arch>/<32 hex digits>.fkc`; its key holds the format
//! version, ferrokkos version, NVRTC's identity, architecture, options, program name and full source.
//!
//! The in-memory layer (loaded modules by kernel) belongs to the backend, not to this file.

use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use super::driver::{CudaDriver, DeviceInfo};
use super::nvrtc;
use crate::backend::gpu::disk_cache::{self, Store, library_identity};
use crate::backend::gpu::driver as gpu;
use crate::error::Result;

/// The compile options of [`nvrtc::compile_cubin`] as they enter the key, behind a format version.
/// It must change whenever the options in `nvrtc.rs` change, so that CUBINs compiled with the old
/// options are not loaded.
const OPTIONS_KEY: &str = "v1 -std=c++17 -default-device -lineinfo --fmad=false";

/// The first eight bytes of every CUBIN cache file.
const MAGIC: &[u8; 8] = b"FKCUBIN1";

/// The first bytes of an ELF image (every CUBIN is one).
const ELF_MAGIC: &[u8; 4] = b"\x7fELF";

/// The CUDA installation's library directories, searched for NVRTC after `LD_LIBRARY_PATH`.
const CUDA_LIBRARY_DIRS: [&str; 2] = [
    "/usr/local/cuda/lib64",
    "/usr/local/cuda/targets/x86_64-linux/lib",
];

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
    /// The directory and file format.
    store: Store,
    /// Which NVRTC compiles (see [`nvrtc_identity`]), found on the first lookup.
    nvrtc: OnceLock<String>,
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
        Self::at(disk_cache::cache_dir(var))
    }

    /// A cache in `dir` (`None`: no disk cache).
    pub(crate) fn at(dir: Option<PathBuf>) -> DiskCache {
        DiskCache {
            store: Store::at(dir, MAGIC),
            nvrtc: OnceLock::new(),
        }
    }

    /// The cache directory, or `None` when the disk cache is off.
    #[cfg_attr(not(test), allow(dead_code))] // used by the tests
    pub(crate) fn dir(&self) -> Option<&Path> {
        self.store.dir()
    }

    /// The entry for `source` (`None` when the disk cache is off).
    fn entry(&self, source: &str, program: &str, arch: u32) -> Option<disk_cache::Entry> {
        let nvrtc = self.nvrtc.get_or_init(nvrtc_identity);
        let key = cache_key(source, program, arch, nvrtc);
        self.store.entry(&format!("sm_{arch}"), key)
    }

    /// Whether the cache has an entry for `source` (see [`DiskCache::compile_cached`]; only its
    /// file is looked for: a stale or damaged one is found, and then compiled over, by the load).
    pub(crate) fn has(&self, source: &str, program: &str, arch: u32) -> bool {
        self.entry(source, program, arch)
            .is_some_and(|entry| entry.exists())
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
        let entry = self.entry(source, program, arch);
        if let Some(image) = entry.as_ref().and_then(|e| e.read(is_elf)) {
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
        if let Some(entry) = &entry {
            // The cache is an optimization: a failed write only means the next process compiles.
            let _ = entry.write(&cubin.image);
        }
        Ok(CachedCubin {
            image: cubin.image,
            from_disk: false,
            compile_time: Some(cubin.compile_time),
        })
    }
}

/// Whether `image` may be a CUBIN: it is an ELF image.
fn is_elf(image: &[u8]) -> bool {
    image.starts_with(ELF_MAGIC)
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
    disk_cache::key_bytes(&header, source)
}

/// Which NVRTC this process would compile with, without loading it: the first of cudarc's candidate
/// library names found, in the order the dynamic loader searches (`LD_LIBRARY_PATH`, then the usual
/// CUDA and system directories), as `file <path> <size> <mtime>`; an upgrade changes it. When no file
/// is found (a library the loader finds elsewhere), NVRTC's reported version (loading it).
fn nvrtc_identity() -> String {
    library_identity(
        cudarc::get_lib_name_candidates("nvrtc"),
        &CUDA_LIBRARY_DIRS,
        || {
            let (major, minor) = nvrtc::version().unwrap_or((0, 0));
            format!("version {major}.{minor}")
        },
    )
}

impl gpu::Compiler<CudaDriver> for DiskCache {
    fn from_env() -> Self {
        DiskCache::from_env()
    }

    fn has(&self, source: &str, program: &str, info: &DeviceInfo) -> bool {
        DiskCache::has(self, source, program, info.arch())
    }

    fn compile_cached(
        &self,
        source: &str,
        program: &str,
        info: &DeviceInfo,
        threads: u32,
    ) -> Result<(Vec<u8>, bool)> {
        let cubin = DiskCache::compile_cached(self, source, program, info.arch(), threads)?;
        Ok((cubin.image, cubin.from_disk))
    }
}

#[cfg(test)]
mod tests;
