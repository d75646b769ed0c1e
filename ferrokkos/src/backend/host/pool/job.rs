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

/// The function a job runs, with its lifetime erased (see [`Code::new`]).
type ErasedFn = *const (dyn Fn(Part) + Sync + 'static);
/// The join a job runs, `join(into, from)`, with its lifetime erased.
type ErasedJoin = *const (dyn Fn(usize, usize) + Sync + 'static);

/// Where a job keeps its first panic: on the dispatcher's stack.
pub(super) type Panic = Mutex<Option<Box<dyn Any + Send>>>;

/// A job's code: its function, its join and where its first panic goes, borrowed from the
/// dispatcher's stack with their lifetimes erased. The dispatcher writes it into the job's post; a
/// thread that claims one of the job's participants copies it out (`post.rs`).
#[derive(Clone, Copy)]
pub(super) struct Code {
    f: ErasedFn,
    join: Option<ErasedJoin>,
    panic: *const Panic,
}

impl Code {
    /// The code of a job.
    ///
    /// The caller must keep `f`, `join` and `panic` alive (borrowed) until every participant has
    /// finished: participants dereference the erased pointers until they mark their participant
    /// finished (`Slot::finish`), and the dispatcher waits for that (the completion tree,
    /// `Shared::complete`) before its borrows end.
    pub(super) fn new<'f>(
        f: &'f (dyn Fn(Part) + Sync + 'f),
        join: Option<&'f (dyn Fn(usize, usize) + Sync + 'f)>,
        panic: &'f Panic,
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
        Code { f, join, panic }
    }
}

/// What a participant needs to run its part of a job: the code, and where the job sits. Each thread
/// that runs participants of the job has its own copy.
pub(super) struct Job {
    code: Code,
    /// The number of participants.
    pub(super) count: usize,
    /// The job's ticket (unique in the pool, see `slot.rs`).
    pub(super) ticket: u64,
    /// The worker that runs participant 1; participant `k > 0` belongs to worker `first + k - 1`.
    pub(super) first: usize,
}

impl Job {
    /// Job `ticket` of `count` participants, the workers from `first` on running participants
    /// `1..count`. Its `code` must be alive as long as the caller runs participants of it (see
    /// [`Code::new`]).
    pub(super) fn new(code: Code, count: usize, ticket: u64, first: usize) -> Self {
        Job {
            code,
            count,
            ticket,
            first,
        }
    }

    /// Runs participant `index`, recording a panic instead of unwinding.
    pub(super) fn run(&self, index: usize) {
        // SAFETY: `f` is alive: the dispatcher keeps it borrowed until every participant has
        // finished, and this call is part of participant `index`, which has not.
        let f = unsafe { &*self.code.f };
        let part = Part {
            index,
            count: self.count,
        };
        let _participant = crate::runtime::context::ParticipantScope::enter(index, self.count);
        self.catching(|| f(part));
    }

    /// Joins participant `from`'s results into participant `into`'s (its parent in the completion
    /// tree), recording a panic instead of unwinding. Does nothing for a job without a join.
    pub(super) fn join(&self, into: usize, from: usize) {
        if let Some(join) = self.code.join {
            // SAFETY: as in `run`: this call is part of participant `into`, which has not finished.
            let join = unsafe { &*join };
            self.catching(|| join(into, from));
        }
    }

    fn catching(&self, f: impl FnOnce()) {
        if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
            // SAFETY: as in `run`: the dispatcher keeps the panic slot alive until every participant
            // has finished, and the caller is part of one that has not.
            let panic = unsafe { &*self.code.panic };
            let mut slot = panic.lock().unwrap_or_else(|e| e.into_inner());
            slot.get_or_insert(payload);
        }
    }
}
