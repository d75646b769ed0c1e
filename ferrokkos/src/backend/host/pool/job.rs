//! A job broadcast to the pool: one function, run once per participant, and its completion count.

use std::any::Any;
use std::sync::Mutex;
use std::sync::atomic::{AtomicUsize, Ordering};

/// The participant a job function is running as: `index` in `0..count`. Participant 0 is the thread that
/// dispatched the job; the others are pool workers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Part {
    /// This participant's index, `0..count`.
    pub index: usize,
    /// How many participants run the job.
    pub count: usize,
}

/// The function a job runs, with its lifetime erased (see [`Job::new`]).
type ErasedFn = *const (dyn Fn(Part) + Sync + 'static);

/// A job lives on the dispatching thread's stack for the duration of one broadcast.
pub(super) struct Job {
    f: ErasedFn,
    count: usize,
    pending: AtomicUsize,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

impl Job {
    /// A job for `count` participants, `count - 1` of which are workers.
    ///
    /// The caller must not let the job (and thus `f`) go out of scope before [`Job::wait`] has returned:
    /// workers dereference the erased pointer until they have called [`Job::finish`].
    pub(super) fn new<'f>(f: &'f (dyn Fn(Part) + Sync + 'f), count: usize) -> Self {
        let f: *const (dyn Fn(Part) + Sync + 'f) = f;
        // SAFETY: only the lifetime bound of the trait object changes (same fat-pointer layout). The
        // pointer is dereferenced only by participants of this job, all of which finish before the
        // dispatcher returns from `wait`, which it does before `f`'s borrow ends (see `Shared::broadcast`).
        let f: ErasedFn = unsafe { std::mem::transmute(f) };
        Job {
            f,
            count,
            pending: AtomicUsize::new(count - 1),
            panic: Mutex::new(None),
        }
    }

    /// Runs participant `index`, recording a panic instead of unwinding.
    pub(super) fn run(&self, index: usize) {
        // SAFETY: `f` is alive: the dispatcher keeps it borrowed until every participant has finished
        // (`pending` reaches 0), and this call happens before this participant's `finish`.
        let f = unsafe { &*self.f };
        let part = Part {
            index,
            count: self.count,
        };
        if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(part))) {
            let mut slot = self.panic.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(payload);
        }
    }

    /// Marks one worker participant of `job` as done. Takes a pointer, not `&self`: once the count
    /// drops, the dispatcher may return and the job's memory (on its stack) goes, so no reference to
    /// the job may be live past the decrement (rust-lang/rust#55005).
    ///
    /// # Safety
    /// `job` points to a live job whose participant this caller ran, and the caller does not touch
    /// the job afterwards.
    pub(super) unsafe fn finish(job: *const Job) {
        // SAFETY: the job is alive until the decrement below completes (the dispatcher waits for
        // it); the reference to the counter is the last use of the job.
        let pending = unsafe { &(*job).pending };
        pending.fetch_sub(1, Ordering::Release);
    }

    /// Waits until every worker participant has called [`Job::finish`].
    pub(super) fn wait(&self) {
        let mut spins = 0u32;
        while self.pending.load(Ordering::Acquire) != 0 {
            if spins < 1 << 12 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// The first panic of a worker participant, if any.
    pub(super) fn take_panic(&self) -> Option<Box<dyn Any + Send>> {
        self.panic.lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}
