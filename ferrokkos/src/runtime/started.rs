//! The order in which threads started, so that a thread that a running host kernel started (and that
//! the kernel may be waiting for: `std::thread::scope` in a kernel body joins its threads) can be told
//! from a thread that existed before the kernel began.
//!
//! Stable Rust has no hook on thread spawn, so the kernel's in-kernel flag (`context.rs`) cannot be
//! handed to the threads it starts. What std does give: every thread it spawns gets a `ThreadId`
//! from one increasing counter, allocated at spawn, in the spawning thread. So a thread numbered
//! above every thread that had used ferrokkos when a launch began was started after that launch
//! began. Each thread registers its number once, on its first launch, fence or call into the
//! runtime ([`register`]); [`newest`] is the largest registered number, which a host launch records
//! in its instance when it starts.
//!
//! The rule is an approximation on one side only: a thread whose first use of ferrokkos comes while
//! a kernel runs, and whose number is above every thread that used ferrokkos before the kernel
//! began (a thread started by unrelated code during the kernel, or long before it but idle until
//! then), looks started by that kernel too. The host backend waits a grace period before acting on
//! it (`backend/host/launch_lock.rs`); past it, all such a thread loses is the ordering with that
//! one kernel (its own Views stay borrow-checked, so it gets a borrow error, never a race).

use std::cell::Cell;
use std::sync::atomic::{AtomicU64, Ordering};

/// The largest number of a thread that has used ferrokkos.
static NEWEST: AtomicU64 = AtomicU64::new(0);

thread_local! {
    /// This thread's number once registered (0 before).
    static NUMBER: Cell<u64> = const { Cell::new(0) };
}

/// This thread's number, registering the thread as one that uses ferrokkos on its first call (one
/// thread-local load afterwards).
#[inline]
pub(crate) fn register() -> u64 {
    let number = NUMBER.with(Cell::get);
    if number != 0 {
        return number;
    }
    register_slow()
}

#[cold]
#[inline(never)]
fn register_slow() -> u64 {
    let number = thread_number(std::thread::current().id());
    // SeqCst, once per thread: a launch that begins after this (in any thread's view of the
    // sequentially consistent order) records a maximum that covers this thread.
    NEWEST.fetch_max(number, Ordering::SeqCst);
    NUMBER.with(|n| n.set(number));
    number
}

/// The largest number of a thread that has registered so far.
#[inline]
pub(crate) fn newest() -> u64 {
    NEWEST.load(Ordering::Relaxed)
}

/// A `ThreadId` as its number: std prints it as `ThreadId(N)`. Should that form ever change, every
/// thread gets number 1, which makes no thread count as started by a kernel (the behaviour before
/// this rule existed) instead of every thread.
fn thread_number(id: std::thread::ThreadId) -> u64 {
    format!("{id:?}")
        .strip_prefix("ThreadId(")
        .and_then(|rest| rest.strip_suffix(')'))
        .and_then(|n| n.parse::<u64>().ok())
        .filter(|&n| n > 0)
        .unwrap_or(1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn thread_numbers_grow_in_spawn_order() {
        let first = register();
        assert_eq!(register(), first, "cached");
        assert!(newest() >= first);
        // Spawned one after the other: each number is larger than the previous, whatever order
        // the threads then run in.
        let handles: Vec<_> = (0..4).map(|_| std::thread::spawn(register)).collect();
        let ids: Vec<u64> = handles
            .iter()
            .map(|h| thread_number(h.thread().id()))
            .collect();
        let numbers: Vec<u64> = handles.into_iter().map(|h| h.join().unwrap()).collect();
        assert_eq!(numbers, ids);
        assert!(numbers.windows(2).all(|w| w[0] < w[1]), "{numbers:?}");
        assert!(numbers[0] > first, "{numbers:?} after {first}");
        assert!(newest() >= numbers[3]);
    }

    #[test]
    fn std_prints_thread_ids_as_this_module_reads_them() {
        let shown = format!("{:?}", std::thread::current().id());
        assert!(
            shown.starts_with("ThreadId(") && shown.ends_with(')'),
            "{shown}"
        );
        let later = std::thread::spawn(|| {});
        assert!(thread_number(later.thread().id()) > thread_number(std::thread::current().id()));
        later.join().unwrap();
    }
}
