//! A job broadcast to the pool: one function run once per participant, an optional join of each
//! participant's results into its parent's, and the first panic.

use std::any::Any;
use std::sync::Mutex;

/// The participant a job function is running as: `index` in `0..count`. Participant 0 is the thread that
/// dispatched the job; participant `k > 0` is the `k`-th worker of the instance (or, if that worker
/// had not started it in time, a thread that runs it in its place).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct Part {
    /// This participant's index, `0..count`.
    pub index: usize,
    /// How many participants run the job.
    pub count: usize,
}

/// The function a job runs, with its lifetime erased (see [`Job::new`]).
type ErasedFn = *const (dyn Fn(Part) + Sync + 'static);
/// The join a job runs, `join(into, from)`, with its lifetime erased.
type ErasedJoin = *const (dyn Fn(usize, usize) + Sync + 'static);

/// A job lives on the dispatching thread's stack for the duration of one broadcast; workers reach it
/// through its post (`post.rs`) once they have claimed one of its participants (`slot.rs`).
pub(super) struct Job {
    f: ErasedFn,
    join: Option<ErasedJoin>,
    /// The number of participants.
    pub(super) count: usize,
    /// The job's ticket (unique in the pool, see `slot.rs`).
    pub(super) ticket: u64,
    /// The worker that runs participant 1; participant `k > 0` belongs to worker `first + k - 1`.
    pub(super) first: usize,
    panic: Mutex<Option<Box<dyn Any + Send>>>,
}

// SAFETY: a Job is shared by the participants of one broadcast. `f` and `join` point to `Sync`
// closures (calling them from several threads at once is what they are for), the other fields are
// plain values or a Mutex. The raw pointers are what keeps Job from being Sync automatically; their
// targets outlive every use (see `Job::new`).
unsafe impl Sync for Job {}

impl Job {
    /// A job for `count` participants, the workers from `first` on running participants `1..count`.
    ///
    /// The caller must not let the job (and thus `f` and `join`) go out of scope before every
    /// participant has finished: workers dereference the erased pointers until they mark their
    /// participant finished (`Slot::finish`), and the dispatcher waits for that (the completion
    /// tree, `Shared::complete`).
    pub(super) fn new<'f>(
        f: &'f (dyn Fn(Part) + Sync + 'f),
        join: Option<&'f (dyn Fn(usize, usize) + Sync + 'f)>,
        count: usize,
        ticket: u64,
        first: usize,
    ) -> Self {
        let f: *const (dyn Fn(Part) + Sync + 'f) = f;
        // SAFETY: only the lifetime bound of the trait object changes (same fat-pointer layout). The
        // pointer is dereferenced only by participants of this job, all of which finish before the
        // dispatcher's broadcast returns, which is before `f`'s borrow ends.
        let f: ErasedFn = unsafe { std::mem::transmute(f) };
        let join = join.map(|join| {
            let join: *const (dyn Fn(usize, usize) + Sync + 'f) = join;
            // SAFETY: as for `f`.
            let join: ErasedJoin = unsafe { std::mem::transmute(join) };
            join
        });
        Job {
            f,
            join,
            count,
            ticket,
            first,
            panic: Mutex::new(None),
        }
    }

    /// Runs participant `index`, recording a panic instead of unwinding.
    pub(super) fn run(&self, index: usize) {
        // SAFETY: `f` is alive: the dispatcher keeps it borrowed until every participant has
        // finished, and this call is part of participant `index`.
        let f = unsafe { &*self.f };
        let part = Part {
            index,
            count: self.count,
        };
        self.catching(|| f(part));
    }

    /// Joins participant `from`'s results into participant `into`'s (its parent in the completion
    /// tree), recording a panic instead of unwinding. Does nothing for a job without a join.
    pub(super) fn join(&self, into: usize, from: usize) {
        if let Some(join) = self.join {
            // SAFETY: as in `run`: this call is part of participant `into`, which has not finished.
            let join = unsafe { &*join };
            self.catching(|| join(into, from));
        }
    }

    fn catching(&self, f: impl FnOnce()) {
        if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
            let mut slot = self.panic.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(payload);
        }
    }

    /// The first panic of a participant or join, if any (once every participant has finished).
    pub(super) fn into_panic(self) -> Option<Box<dyn Any + Send>> {
        self.panic.into_inner().unwrap_or_else(|e| e.into_inner())
    }
}
