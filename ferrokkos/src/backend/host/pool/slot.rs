//! One worker's mailbox: the claim flag, the job it is handed, and spin-then-park waiting.

use std::cell::UnsafeCell;
use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU8, AtomicU64, Ordering};
use std::thread::Thread;
use std::time::{Duration, Instant};

use super::job::Job;

/// How long an idle worker spins on its mailbox before yielding, and then before parking.
const SPIN: Duration = Duration::from_micros(50);
const YIELD: Duration = Duration::from_micros(150);

/// No task is waiting: none was posted, or the last one was revoked or taken.
const IDLE: u8 = 0;
/// A task is posted and nobody has started it yet.
const POSTED: u8 = 1;
/// The worker took the posted task (it runs it, or has run it).
const TAKEN: u8 = 2;

/// What a worker is asked to run: a job and its participant index.
#[derive(Clone, Copy)]
struct Task {
    job: *const Job,
    part: usize,
}

/// A worker's mailbox. One dispatcher at a time owns it (the claim), writes a task, marks it `POSTED`,
/// then bumps `epoch`; the worker sees the new epoch, takes the task (`POSTED -> TAKEN`) and runs it. A
/// dispatcher that finished its own share while the task is still `POSTED` (the worker is asleep,
/// descheduled, or just slower to notice) revokes it (`POSTED -> IDLE`) and runs it itself, so a launch
/// never waits for a thread that has not started.
pub(super) struct Slot {
    claimed: AtomicBool,
    state: AtomicU8,
    epoch: AtomicU64,
    sleeping: AtomicBool,
    shutdown: AtomicBool,
    task: UnsafeCell<Task>,
    thread: OnceLock<Thread>,
}

// SAFETY: `task` is written only by the dispatcher that holds the claim, before it publishes the write by
// storing `POSTED` (Release); the worker reads it only after its `POSTED -> TAKEN` exchange (Acquire)
// succeeded. The dispatcher does not write it again before the worker has finished the job (the job's
// `pending` count, which the dispatcher waits on while still holding the claim) or before it revoked the
// task (then the worker's exchange fails and it never reads it). All other fields are atomics or
// thread-safe types.
unsafe impl Sync for Slot {}
// SAFETY: the raw job pointer in `task` is only dereferenced under the protocol above; a Slot owns nothing
// that is tied to a thread.
unsafe impl Send for Slot {}

impl Slot {
    pub(super) fn new() -> Self {
        Slot {
            claimed: AtomicBool::new(false),
            state: AtomicU8::new(IDLE),
            epoch: AtomicU64::new(0),
            sleeping: AtomicBool::new(false),
            shutdown: AtomicBool::new(false),
            task: UnsafeCell::new(Task {
                job: std::ptr::null(),
                part: 0,
            }),
            thread: OnceLock::new(),
        }
    }

    /// Records the worker thread, so that it can be woken.
    pub(super) fn set_thread(&self, thread: Thread) {
        let _ = self.thread.set(thread);
    }

    /// Takes ownership of the mailbox, waiting while another dispatcher holds it.
    pub(super) fn claim(&self) {
        let mut spins = 0u32;
        while self
            .claimed
            .compare_exchange_weak(false, true, Ordering::Acquire, Ordering::Relaxed)
            .is_err()
        {
            if spins < 1 << 10 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }

    /// Gives the mailbox back.
    pub(super) fn release(&self) {
        self.claimed.store(false, Ordering::Release);
    }

    /// Hands `job` (as participant `part`) to the worker and wakes it if it sleeps.
    ///
    /// # Safety
    /// The caller holds the claim, and no earlier task of this slot is still running (the caller waited
    /// for its job, or revoked it). `job` stays alive until the worker has called `Job::finish` or the
    /// task was revoked.
    pub(super) unsafe fn post(&self, job: &Job, part: usize) {
        // SAFETY: the caller holds the claim and the worker is not using `task` (see the function's
        // contract), so nobody else reads or writes it now.
        unsafe { *self.task.get() = Task { job, part } };
        self.state.store(POSTED, Ordering::Release);
        self.epoch.fetch_add(1, Ordering::SeqCst);
        if self.sleeping.load(Ordering::SeqCst) {
            self.wake();
        }
    }

    /// Takes back the posted task if the worker has not started it. Returns whether it did: the caller
    /// then runs the task itself, and the worker will not touch it.
    pub(super) fn revoke(&self) -> bool {
        self.state
            .compare_exchange(POSTED, IDLE, Ordering::AcqRel, Ordering::Relaxed)
            .is_ok()
    }

    /// Asks the worker to exit once it is idle.
    pub(super) fn request_shutdown(&self) {
        self.shutdown.store(true, Ordering::SeqCst);
        self.wake();
    }

    fn wake(&self) {
        if let Some(thread) = self.thread.get() {
            thread.unpark();
        }
    }

    /// The worker's loop: wait for a task, run it, repeat until shutdown.
    pub(super) fn serve(&self) {
        let mut seen = 0u64;
        while let Some(epoch) = self.wait(seen) {
            seen = epoch;
            if self
                .state
                .compare_exchange(POSTED, TAKEN, Ordering::Acquire, Ordering::Relaxed)
                .is_err()
            {
                // The dispatcher revoked the task and ran it itself.
                continue;
            }
            // SAFETY: our exchange from POSTED (Acquire) synchronizes with the dispatcher's Release store
            // of POSTED, which follows its write of `task`; the dispatcher does not write `task` again
            // until we call `finish`.
            let task = unsafe { *self.task.get() };
            // SAFETY: the dispatcher keeps the job alive until we have called `finish` (`Slot::post`).
            unsafe { &*task.job }.run(task.part);
            // SAFETY: we ran this participant of the posted job; nothing here touches it afterwards.
            unsafe { Job::finish(task.job) };
        }
    }

    /// Waits until the epoch differs from `seen` (returns it) or shutdown is requested (returns `None`).
    /// Spins first, then yields, then parks; a posted task always wins over shutdown.
    fn wait(&self, seen: u64) -> Option<u64> {
        let start = Instant::now();
        let mut i = 0u32;
        loop {
            let epoch = self.epoch.load(Ordering::Acquire);
            if epoch != seen {
                return Some(epoch);
            }
            if self.shutdown.load(Ordering::Acquire) {
                return None;
            }
            i = i.wrapping_add(1);
            if !i.is_multiple_of(64) {
                std::hint::spin_loop();
                continue;
            }
            let idle = start.elapsed();
            if idle < SPIN {
                std::hint::spin_loop();
            } else if idle < SPIN + YIELD {
                std::thread::yield_now();
            } else {
                self.sleeping.store(true, Ordering::SeqCst);
                if self.epoch.load(Ordering::SeqCst) == seen
                    && !self.shutdown.load(Ordering::SeqCst)
                {
                    std::thread::park();
                }
                self.sleeping.store(false, Ordering::SeqCst);
            }
        }
    }
}
