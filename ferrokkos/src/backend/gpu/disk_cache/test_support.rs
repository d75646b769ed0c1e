//! For the disk caches' tests (this module's, CUDA's and HIP's): temporary cache directories and a
//! listing of the entries in one.

use std::fs;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

use super::EXTENSION;

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
