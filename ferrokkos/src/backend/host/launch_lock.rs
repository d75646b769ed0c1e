//! A host instance's launch lock, and the rule for threads that a running kernel started.
//!
//! Work on a host instance runs under its launch lock, so that work on one instance is ordered and a
//! fence from another thread waits for it. A kernel body may start threads (`std::thread::scope`)
//! and wait for them; those threads have no in-kernel flag (`runtime/context.rs`), so a launch, a
//! fence or finalize from one of them would wait for the kernel that waits for it.
//!
//! The rule: a thread that would *wait* for a running launch (its instance's lock is taken, or, on
//! Threads, the workers it needs are held), and whose thread number is above the largest one
//! registered when that launch began (`runtime/started.rs`), started after the launch did. It is a
//! *candidate*: after a short grace ([`ADOPTION_GRACE`], for the many launches that end soon; once
//! per thread and launch) it is treated as part of that launch: a launch from it runs inline (on
//! Threads: alone, every participant on the calling thread, giving the workers' result), a fence
//! returns, finalize is deferred, as on the kernel's own thread. The checks run only where the
//! thread would otherwise wait; an uncontended launch pays one relaxed load and two relaxed stores
//! (the record, and its clearing at the end).
//!
//! A thread that unrelated code started while the launch runs, or one that first uses ferrokkos
//! then, is a candidate too: if that launch outlasts the grace, the thread loses the ordering with
//! it (its Views stay borrow-checked: one the kernel uses gives it a borrow error, never a race).
//!
//! [`Instances`] lists a backend's instances (weakly) for the checks that look past one instance: on
//! Threads, overlapping instances wait for each other's workers, and finalize looks at them all.

use std::cell::Cell;
use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, TryLockError, Weak};
use std::time::{Duration, Instant};

use crate::runtime::started;

/// How long a candidate waits for the launch it would belong to before it is treated as part of it
/// (once per thread and launch). Long enough that the launches of a busy test suite, run by many
/// threads at once, end within it (20 ms was not); short enough for a kernel that starts threads.
pub(super) const ADOPTION_GRACE: Duration = Duration::from_millis(100);

/// A running launch, as a candidate names it: its lock's address (compared, never dereferenced)
/// and the record the launch made when it began.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Owner {
    lock: usize,
    started_before: u64,
}

thread_local! {
    /// The launch this thread was last treated as part of: while it runs, no new grace is waited.
    static ADOPTED_BY: Cell<Option<Owner>> = const { Cell::new(None) };
}

/// Whether the calling thread, a candidate of the running launch `owner` (`None`: not a candidate)
/// that has waited `waited` so far, is now treated as part of it: at once when it already was,
/// otherwise once the grace has passed.
pub(super) fn adopted(owner: Option<Owner>, waited: Duration) -> bool {
    let Some(owner) = owner else { return false };
    let before = ADOPTED_BY.with(Cell::get);
    if before == Some(owner) || waited >= ADOPTION_GRACE {
        ADOPTED_BY.with(|a| a.set(Some(owner)));
        return true;
    }
    false
}

/// The lock held while work runs on an instance, with what the running launch recorded.
#[derive(Debug, Default)]
pub(super) struct LaunchLock {
    mutex: Mutex<()>,
    /// [`started::newest`] when the running launch began; 0 while none runs.
    started_before: AtomicU64,
}

/// A launch holding the lock; dropping it ends the launch.
pub(super) struct Launching<'a> {
    started_before: &'a AtomicU64,
    _guard: MutexGuard<'a, ()>,
}

impl Drop for Launching<'_> {
    #[inline]
    fn drop(&mut self) {
        // Cleared before the lock is released (the guard drops after this).
        self.started_before.store(0, Ordering::Relaxed);
    }
}

impl LaunchLock {
    /// Takes the lock for a launch, or returns `None` (run inline, as inside the kernel) when the
    /// lock is taken and the calling thread is treated as part of the launch `owner_of(thread
    /// number)` names (see the module's documentation).
    #[inline]
    pub(super) fn enter(&self, owner_of: impl Fn(u64) -> Option<Owner>) -> Option<Launching<'_>> {
        let me = started::register();
        let guard = match self.mutex.try_lock() {
            Ok(guard) => guard,
            Err(TryLockError::Poisoned(e)) => e.into_inner(),
            Err(TryLockError::WouldBlock) => self.contended(me, owner_of)?,
        };
        self.started_before
            .store(started::newest(), Ordering::Relaxed);
        Some(Launching {
            started_before: &self.started_before,
            _guard: guard,
        })
    }

    /// Waits for the lock, unless the calling thread (number `me`) is treated as part of the
    /// launch holding it (`None`).
    #[cold]
    #[inline(never)]
    fn contended(
        &self,
        me: u64,
        owner_of: impl Fn(u64) -> Option<Owner>,
    ) -> Option<MutexGuard<'_, ()>> {
        let start = Instant::now();
        let mut owner = owner_of(me);
        while owner.is_some() {
            if adopted(owner, start.elapsed()) {
                return None;
            }
            match self.mutex.try_lock() {
                Ok(guard) => return Some(guard),
                Err(TryLockError::Poisoned(e)) => return Some(e.into_inner()),
                Err(TryLockError::WouldBlock) => {}
            }
            std::thread::sleep(Duration::from_micros(200));
            owner = owner_of(me);
        }
        Some(self.mutex.lock().unwrap_or_else(|e| e.into_inner()))
    }

    /// Waits until no launch runs (a fence), except where the calling thread is treated as part of
    /// the launch `owner_of(thread number)` names (it would wait for itself).
    pub(super) fn wait_idle(&self, owner_of: impl Fn(u64) -> Option<Owner>) {
        let me = started::register();
        match self.mutex.try_lock() {
            Ok(_) | Err(TryLockError::Poisoned(_)) => {}
            Err(TryLockError::WouldBlock) => drop(self.contended(me, owner_of)),
        }
    }

    /// The launch running now, if it began before thread `me` registered (so that `me` is its
    /// candidate).
    pub(super) fn owner_for(&self, me: u64) -> Option<Owner> {
        let started_before = self.started_before.load(Ordering::Relaxed);
        (started_before != 0 && started_before < me).then_some(Owner {
            lock: self as *const LaunchLock as usize,
            started_before,
        })
    }

    /// Whether a launch runs now.
    fn running(&self) -> bool {
        self.started_before.load(Ordering::Relaxed) != 0
    }
}

/// What [`Instances`] needs of an instance.
pub(super) trait Listed: Send + Sync {
    /// The instance's launch lock.
    fn launch_lock(&self) -> &LaunchLock;
    /// The pool workers its launches hold (empty for Serial and for Threads instances of one
    /// thread).
    fn workers(&self) -> Range<usize>;
}

/// A backend's instances, held weakly (an instance is dropped as usual; its entry goes at the next
/// registration).
#[derive(Default)]
pub(super) struct Instances {
    entries: Mutex<Vec<Weak<dyn Listed>>>,
}

impl std::fmt::Debug for Instances {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Instances").finish_non_exhaustive()
    }
}

fn overlap(a: &Range<usize>, b: &Range<usize>) -> bool {
    a.start < b.end && b.start < a.end
}

impl Instances {
    fn lock(&self) -> MutexGuard<'_, Vec<Weak<dyn Listed>>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Lists `instance`.
    pub(super) fn add(&self, instance: Weak<dyn Listed>) {
        let mut entries = self.lock();
        entries.retain(|w| w.strong_count() > 0);
        entries.push(instance);
    }

    /// The listed instances that are alive.
    fn alive(&self) -> Vec<Arc<dyn Listed>> {
        self.lock().iter().filter_map(Weak::upgrade).collect()
    }

    /// Whether thread `me` is a candidate of a launch running on any listed instance.
    pub(super) fn any_owner_for(&self, me: u64) -> bool {
        self.alive()
            .iter()
            .any(|i| i.launch_lock().owner_for(me).is_some())
    }

    /// The running launch that thread `me`, about to wait for `target` (its lock, or the pool
    /// workers `workers`), is a candidate of, if any: one running on `target` itself or on an
    /// instance linked to `workers` through instances whose running launches hold or wait for
    /// overlapping workers (a launch waiting for workers holds its instance's lock while it waits,
    /// so a chain of them ends at the holder).
    pub(super) fn owner_of_wait(
        &self,
        me: u64,
        target: &LaunchLock,
        workers: &Range<usize>,
    ) -> Option<Owner> {
        if let Some(owner) = target.owner_for(me) {
            return Some(owner);
        }
        if workers.is_empty() {
            return None;
        }
        let mut running: Vec<(Range<usize>, Option<Owner>)> = self
            .alive()
            .iter()
            .map(|i| (i.workers(), i.launch_lock()))
            .filter(|(w, lock)| !w.is_empty() && lock.running())
            .map(|(w, lock)| (w, lock.owner_for(me)))
            .collect();
        // The instances reachable from `workers` by overlaps, one at a time.
        let mut reached = vec![workers.clone()];
        while let Some(k) = running
            .iter()
            .position(|(w, _)| reached.iter().any(|r| overlap(r, w)))
        {
            let (w, owner) = running.swap_remove(k);
            if owner.is_some() {
                return owner;
            }
            reached.push(w);
        }
        None
    }
}

#[cfg(test)]
mod tests;
