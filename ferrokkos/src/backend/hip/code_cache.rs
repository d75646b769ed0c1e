//! The on-disk cache of AMD GPU code objects: hiprtc compiles each program once per (source,
//! target, hiprtc, compile options, ferrokkos version), and later processes load the code object
//! from disk without calling hiprtc (DESIGN.md decision 6, as for CUBINs).
//!
//! The directory, the file layout and the atomic writes are the GPU backends' shared disk cache
//! ([`crate::backend::gpu::disk_cache`]: `$FERROKKOS_CACHE_DIR`, XDG or HOME; `off` or `0` turn it
//! off). What is HIP's is here: the key, the magic `FKHIPCO1`, the entries' directory (the target,
//! `gfx90a`; `gfx90a:xnack+` is `gfx90a_xnack+`), and the check that a stored image is an AMD GPU
//! code object for the target's processor and feature modes ([`codegen::check_for_target`]), so
//! that a damaged or misplaced entry is a miss and is compiled over.
//!
//! The HIP runtime, which will load these code objects, waits for hardware (docs/hip.md).

#![cfg_attr(not(test), allow(dead_code))]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;
use std::time::Duration;

use super::codegen::{self, GfxTarget};
use super::hiprtc;
use crate::backend::gpu::disk_cache::{self, Store, library_identity};
use crate::error::Result;

/// The first eight bytes of every code-object cache file.
const MAGIC: &[u8; 8] = b"FKHIPCO1";

/// ROCm's library directory, searched after `LD_LIBRARY_PATH` (its installer also registers it
/// with the dynamic loader).
const ROCM_LIBRARY_DIRS: [&str; 1] = ["/opt/rocm/lib"];

/// The libraries besides hiprtc's own ([`hiprtc::LIBRARIES`]) whose files identify the compiler,
/// since either may be upgraded alone: hiprtc's builtins (the HIP headers it compiles against) and
/// AMD's code object manager (comgr, LLVM inside, which hiprtc calls to compile).
const COMPILER_PARTS: [(&str, &[&str]); 2] = [
    (
        "builtins",
        &[
            "libhiprtc-builtins.so",
            "libhiprtc-builtins.so.6",
            "libhiprtc-builtins.so.5",
        ],
    ),
    (
        "comgr",
        &["libamd_comgr.so", "libamd_comgr.so.3", "libamd_comgr.so.2"],
    ),
];

/// A code object from [`CodeCache::compile_cached`].
#[derive(Clone, Debug)]
pub(crate) struct CachedCodeObject {
    /// The code object, ready for `hipModuleLoadData`.
    pub image: Vec<u8>,
    /// Whether the image was loaded from the disk cache (hiprtc did not compile it).
    pub from_disk: bool,
    /// How long hiprtc took; `None` when the image came from disk.
    pub compile_time: Option<Duration>,
}

/// The on-disk code-object cache: a directory, or none when the disk cache is off.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct CodeCache {
    /// The directory and file format.
    store: Store,
    /// Which hiprtc compiles (see [`hiprtc_identity`]), found on the first lookup.
    hiprtc: OnceLock<String>,
}

impl CodeCache {
    /// The cache the environment asks for (see [`disk_cache::cache_dir`]); the directory is
    /// created on the first write, not here.
    pub(crate) fn from_env() -> CodeCache {
        CodeCache::at(disk_cache::cache_dir(|name| std::env::var_os(name)))
    }

    /// A cache in `dir` (`None`: no disk cache).
    pub(crate) fn at(dir: Option<PathBuf>) -> CodeCache {
        CodeCache {
            store: Store::at(dir, MAGIC),
            hiprtc: OnceLock::new(),
        }
    }

    /// The cache directory, or `None` when the disk cache is off.
    pub(crate) fn dir(&self) -> Option<&Path> {
        self.store.dir()
    }

    /// The code object of the HIP C++ `source` for the AMD GPU architecture `target` (`gfx90a`,
    /// `gfx90a:xnack+`), named `program` in hiprtc's messages: loaded from the disk cache when an
    /// entry with the same key holds a code object for `target`'s processor, otherwise compiled
    /// with [`hiprtc::compile_code_object`] and written to the cache (write failures are ignored).
    ///
    /// The key identifies hiprtc by its library files (path, size, modification time), found
    /// without loading them, so that a warm start neither compiles nor loads hiprtc; when hiprtc's
    /// file is not found, by the release hiprtc reports (which loads it), `0.0` when it is missing
    /// (then the lookup misses and the compile reports [`crate::BackendError::LibraryMissing`]).
    ///
    /// Errors: [`crate::Error::InvalidArgument`] when `target` is not an AMD GPU architecture's
    /// name (before any lookup); those of [`hiprtc::compile_code_object`], on a miss.
    pub(crate) fn compile_cached(
        &self,
        source: &str,
        program: &str,
        target: &str,
    ) -> Result<CachedCodeObject> {
        let gfx = GfxTarget::parse(target)?;
        let hiprtc = self.hiprtc.get_or_init(hiprtc_identity);
        let entry = self
            .store
            .entry(gfx.name(), cache_key(source, program, &gfx, hiprtc));
        let for_target = |image: &[u8]| codegen::check_for_target(image, &gfx).is_ok();
        if let Some(image) = entry.as_ref().and_then(|e| e.read(for_target)) {
            return Ok(CachedCodeObject {
                image,
                from_disk: true,
                compile_time: None,
            });
        }
        let compiling = crate::tools::compiling(program, gfx.name());
        let object = hiprtc::compile_code_object(source, program, gfx.name());
        compiling.finish(object.is_ok());
        let object = object?;
        if let Some(entry) = &entry {
            // The cache is an optimization: a failed write only means the next process compiles.
            let _ = entry.write(&object.image);
        }
        Ok(CachedCodeObject {
            image: object.image,
            from_disk: false,
            compile_time: Some(object.compile_time),
        })
    }
}

/// The cache key: every input that determines the code object, the source last and in full.
fn cache_key(source: &str, program: &str, target: &GfxTarget, hiprtc: &str) -> Vec<u8> {
    let header = format!(
        "ferrokkos hip code cache 1\nferrokkos {}\nhiprtc {hiprtc}\ntarget {}\noptions {}\n\
         program {} {program}\nsource {}\n",
        env!("CARGO_PKG_VERSION"),
        target.name(),
        codegen::compile_options(target).join(" "),
        program.len(),
        source.len(),
    );
    disk_cache::key_bytes(&header, source)
}

/// Which hiprtc this process would compile with, without loading it: the first of
/// [`hiprtc::LIBRARIES`] found (as `file <path> <size> <mtime>`; else the release hiprtc reports,
/// which loads it), then each of [`COMPILER_PARTS`] (`none` when not found), one per line.
fn hiprtc_identity() -> String {
    let mut id = library_identity(hiprtc::LIBRARIES, &ROCM_LIBRARY_DIRS, || {
        let (major, minor) = hiprtc::version().unwrap_or((0, 0));
        format!("version {major}.{minor}")
    });
    for (part, candidates) in COMPILER_PARTS {
        let found = library_identity(candidates, &ROCM_LIBRARY_DIRS, || "none".to_string());
        id.push_str(&format!("\n{part} {found}"));
    }
    id
}

#[cfg(test)]
mod tests;
