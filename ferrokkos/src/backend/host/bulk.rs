//! Large host copies and fills ([`HostBulk`]): split over the threads of the host instance the
//! copy was given (the default Threads instance for a plain `deep_copy`, as Kokkos'
//! `hostspace_parallel_deepcopy` uses `DefaultHostExecutionSpace`), with streaming stores where the
//! destination is larger than the caches could hold (`nontemporal.rs`).
//!
//! The parts are cut at 64-byte boundaries of the destination, so no two threads write one cache
//! line. A copy or fill is idempotent, so when the instance cannot run it (after finalize) it is
//! simply done again, whole, on the calling thread.

use std::any::Any;
use std::sync::OnceLock;

use super::nontemporal::{self, LINE, Pattern};
use super::pool::Part;
use super::{HostBackend, Serial, Threads};
use crate::runtime::HostBulk;
use crate::space::ExecutionSpace;

/// Below this many bytes a copy runs on the calling thread (waking the pool costs more).
const PARALLEL_MIN: usize = 128 << 10;
/// The least a thread is given.
const PART_MIN: usize = 64 << 10;

/// Who runs a copy or fill.
enum Runner<'a> {
    Caller,
    Threads(&'a Threads),
}

impl HostBackend {
    /// The runner for `exec`: the calling thread for a Serial instance, the given Threads
    /// instance, or the default one.
    fn runner<'a>(&'a self, exec: Option<&'a dyn Any>) -> Runner<'a> {
        match exec {
            Some(e) if e.is::<Serial>() => Runner::Caller,
            Some(e) => Runner::Threads(e.downcast_ref::<Threads>().unwrap_or(&self.threads)),
            None => Runner::Threads(&self.threads),
        }
    }

    /// Runs `part(lo, hi)` over `[0, bytes)` of the destination at address `dst`, in parts.
    fn split(
        &self,
        exec: Option<&dyn Any>,
        dst: usize,
        bytes: usize,
        part: &(dyn Fn(usize, usize) + Sync),
    ) {
        let threads = match self.runner(exec) {
            Runner::Threads(t) if bytes >= PARALLEL_MIN && t.concurrency() > 1 => t,
            _ => return part(0, bytes),
        };
        let parts = threads.concurrency().min(bytes / PART_MIN).max(1);
        // Part k is [cut(k), cut(k + 1)): inner cuts rounded up to a line of the destination.
        let cut = |k: usize| -> usize {
            match k {
                0 => 0,
                k if k == parts => bytes,
                k => ((dst + bytes / parts * k).next_multiple_of(LINE) - dst).min(bytes),
            }
        };
        let run = |p: Part| {
            for k in (p.index..parts).step_by(p.count.max(1)) {
                part(cut(k), cut(k + 1));
            }
        };
        if threads
            .broadcast(|| "deep_copy on Threads".into(), &run)
            .is_err()
        {
            part(0, bytes);
        }
    }

    /// Whether a destination of `bytes` is written with streaming stores.
    fn streams(&self, bytes: usize) -> bool {
        self.streaming_stores && bytes >= last_level_cache() / 2
    }
}

impl HostBulk for HostBackend {
    unsafe fn copy(&self, exec: Option<&dyn Any>, dst: *mut u8, src: *const u8, bytes: usize) {
        let streaming = self.streams(bytes);
        let (d, s) = (dst as usize, src as usize);
        self.split(exec, d, bytes, &|lo, hi| {
            // SAFETY: `[lo, hi)` is inside `[0, bytes)`, which the caller made valid and exclusive
            // for this call; the parts are disjoint.
            unsafe {
                nontemporal::copy(
                    (d + lo) as *mut u8,
                    (s + lo) as *const u8,
                    hi - lo,
                    streaming,
                )
            }
        });
    }

    unsafe fn fill(&self, exec: Option<&dyn Any>, dst: *mut u8, value: &[u8], count: usize) {
        let bytes = count * value.len();
        if bytes == 0 {
            return;
        }
        let pattern = Pattern::new(value);
        let streaming = self.streams(bytes);
        let d = dst as usize;
        self.split(exec, d, bytes, &|lo, hi| {
            // SAFETY: as in `copy`; `lo` is the part's offset in the filled range.
            unsafe { nontemporal::fill((d + lo) as *mut u8, &pattern, lo, hi - lo, streaming) }
        });
    }

    fn participants(&self, exec: Option<&dyn Any>) -> usize {
        match self.runner(exec) {
            Runner::Caller => 1,
            Runner::Threads(t) => t.concurrency(),
        }
    }

    fn run_parts(&self, exec: Option<&dyn Any>, parts: usize, part: &(dyn Fn(usize) + Sync)) {
        let threads = match self.runner(exec) {
            Runner::Threads(t) if parts > 1 && t.concurrency() > 1 => t,
            _ => return (0..parts).for_each(part),
        };
        let run = |p: Part| {
            for k in (p.index..parts).step_by(p.count.max(1)) {
                part(k);
            }
        };
        if threads
            .broadcast(|| "sort on Threads".into(), &run)
            .is_err()
        {
            (0..parts).for_each(part);
        }
    }
}

/// The size in bytes of the largest cache of CPU 0 (Linux's sysfs), else 32 MiB.
fn last_level_cache() -> usize {
    static SIZE: OnceLock<usize> = OnceLock::new();
    *SIZE.get_or_init(|| {
        let dir = "/sys/devices/system/cpu/cpu0/cache";
        (0..8)
            .filter_map(|k| std::fs::read_to_string(format!("{dir}/index{k}/size")).ok())
            .filter_map(|s| parse_size(s.trim()))
            .max()
            .unwrap_or(32 << 20)
    })
}

/// `"48K"`, `"2048K"`, `"32M"` or a plain byte count.
fn parse_size(s: &str) -> Option<usize> {
    let (digits, unit) = match s.char_indices().find(|(_, c)| !c.is_ascii_digit()) {
        Some((at, _)) => s.split_at(at),
        None => (s, ""),
    };
    let n: usize = digits.parse().ok()?;
    let scale = match unit.trim() {
        "" => 1,
        "K" | "KB" | "KiB" => 1 << 10,
        "M" | "MB" | "MiB" => 1 << 20,
        "G" | "GB" | "GiB" => 1 << 30,
        _ => return None,
    };
    n.checked_mul(scale)
}

#[cfg(test)]
mod tests {
    use super::parse_size;

    #[test]
    fn cache_sizes_parse_as_sysfs_writes_them() {
        assert_eq!(parse_size("48K"), Some(48 << 10));
        assert_eq!(parse_size("32768K"), Some(32 << 20));
        assert_eq!(parse_size("105M"), Some(105 << 20));
        assert_eq!(parse_size("512"), Some(512));
        assert_eq!(parse_size("12Q"), None);
        assert_eq!(parse_size(""), None);
    }
}
