//! Which run-time compiler library a process would load, found by its file without loading it, so
//! that a warm start neither compiles nor even loads the compiler: the cache key names the file
//! (path, size, modification time), and an upgrade of the library changes the key.

use std::fs;
use std::path::{Path, PathBuf};

/// The system library directories, searched after `LD_LIBRARY_PATH` and the caller's directories.
const SYSTEM_DIRS: [&str; 4] = [
    "/usr/lib/x86_64-linux-gnu",
    "/lib/x86_64-linux-gnu",
    "/usr/lib64",
    "/usr/lib",
];

/// The library a process would load from `candidates` (file names such as `libnvrtc.so.13`, tried
/// in order, or absolute paths), without loading it: the first candidate found in the order the
/// dynamic loader searches (`LD_LIBRARY_PATH`, then `vendor_dirs` such as `/opt/rocm/lib`, then the
/// system directories), as `file <path> <size> <mtime>` with the path resolved through symbolic
/// links. When no candidate is found (a library the loader finds elsewhere), `fallback()`, which
/// may load the library to ask its version.
pub(crate) fn library_identity(
    candidates: impl IntoIterator<Item = impl AsRef<Path>>,
    vendor_dirs: &[&str],
    fallback: impl FnOnce() -> String,
) -> String {
    let mut dirs: Vec<PathBuf> = std::env::var_os("LD_LIBRARY_PATH")
        .map(|v| std::env::split_paths(&v).collect())
        .unwrap_or_default();
    dirs.extend(vendor_dirs.iter().chain(&SYSTEM_DIRS).map(PathBuf::from));
    find_in(candidates, &dirs).unwrap_or_else(fallback)
}

/// The identity of the first of `candidates` found: an absolute candidate as it is, a file name in
/// each of `dirs` in turn.
pub(super) fn find_in(
    candidates: impl IntoIterator<Item = impl AsRef<Path>>,
    dirs: &[PathBuf],
) -> Option<String> {
    candidates.into_iter().find_map(|name| {
        let name = name.as_ref();
        if name.is_absolute() {
            file_identity(name)
        } else {
            dirs.iter().find_map(|dir| file_identity(&dir.join(name)))
        }
    })
}

/// `file <real path> <size> <mtime in ns>` of the regular file at `path` (following symbolic
/// links), or `None` when there is none.
fn file_identity(path: &Path) -> Option<String> {
    let meta = fs::metadata(path).ok().filter(fs::Metadata::is_file)?;
    let real = fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mtime = meta
        .modified()
        .ok()
        .and_then(|t| t.duration_since(std::time::UNIX_EPOCH).ok())
        .map_or(0, |d| d.as_nanos());
    Some(format!("file {} {} {mtime}", real.display(), meta.len()))
}
