//! The Threads space's own pool of persistent worker threads (DESIGN.md decision 10).
//!
//! A pool of `n` threads is the dispatching thread plus `n - 1` workers. Instances (`Threads`, its
//! partitions) own contiguous worker ranges, disjoint or overlapping. One broadcast:
//!
//! 1. *Reserve* the range's workers (`reserve.rs`: bits that only dispatchers touch, taken in
//!    ascending order, so overlapping instances used from several threads take turns and cannot
//!    deadlock, and disjoint ones never wait for each other).
//! 2. *Announce* the job (its number of workers and its code) in the pool-owned post of the range's
//!    first worker (`post.rs`), ring the pool's one *bell*, a counter that every idle worker spins on
//!    (one cache line, read-shared), then open the notice under a fresh ticket: waking all workers
//!    costs one write, whatever their number. The bell and worker 0's post (the default instance's)
//!    share one cache line, so a worker gets all it needs to start in one transfer.
//! 3. Every worker that sees the bell looks up the post of the range covering it and *claims* its own
//!    participant (`slot.rs`: a compare-exchange on the worker's own cache line, so workers never
//!    contend with each other). A claim from an older ticket proves that the job still waits for
//!    the participant, so a worker that read a stale notice never touches a finished job. Worker `k`
//!    of the range is participant `k`, launch after launch, so each thread keeps its share of the
//!    data in its cache.
//! 4. Participants join through a fixed radix-4 *completion tree* (`tree.rs`): each runs its share,
//!    then for each child in ascending order either waits for it to finish or, if no thread has
//!    claimed it yet (its worker is asleep, descheduled or slower), claims and runs it itself, and
//!    joins the child's results into its own. The dispatcher is the root: it returns when its
//!    children have, so a launch never waits for a thread to wake up, only for threads that have
//!    started, and the join is `log4(P)` levels deep with no contended counter. A reduction joins
//!    partial results along the same tree (`reduce.rs`), in index order.
//!
//! Idle workers spin on the bell for a while after each job (back-to-back launches cost well under
//! a microsecond), then yield, then park. A parked worker is woken by the participant that is its
//! parent in the tree of the next job covering it, before that parent runs its own share (a
//! sleeper flag and the bell form a sequentially consistent handshake: every participant has seen
//! the job's bell rung before it looks at the flags, so no wake-up is lost), so waking spreads down
//! the tree instead of costing the dispatcher one system call per worker.
//!
//! Every instance, partitions included, takes this path; only the default instance (and the first
//! partition, which starts at worker 0) has its post in the bell's cache line.
//!
//! A broadcast made from inside a job (a nested parallel dispatch) runs inline on the calling thread
//! with one participant, as Kokkos runs nested parallel regions on host backends. A broadcast whose
//! caller belongs to a running job (a thread that job started, which it may be waiting for: the
//! Threads space says which, `launch_lock.rs`) runs *alone*: every participant, in turn, on the
//! calling thread, joined along the same completion tree, so that the result (a reduction's bits,
//! a scan's chunks) is the one the workers would have given. A panic in any participant is
//! re-raised on the dispatcher once all participants have finished.

mod job;
mod post;
mod reduce;
mod reserve;
mod slot;
mod tree;

use std::ops::Range;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

use crate::error::{Error, Result};
use crate::runtime::context::{self, KernelScope};
pub(crate) use job::Part;
use job::{Code, Job, Panic};
use post::{Notice, Post};
use reserve::Reservations;
use slot::Slot;

/// How long an idle worker spins on the bell before yielding, and then before parking.
const SPIN: Duration = Duration::from_micros(50);
const YIELD: Duration = Duration::from_micros(150);

/// One bit per worker, 64 to a cache-padded word.
struct BitSet {
    words: Box<[CachePadded<AtomicU64>]>,
}

impl BitSet {
    fn new(bits: usize) -> Self {
        BitSet {
            words: (0..bits.div_ceil(64))
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
        }
    }

    fn word(&self, k: usize, order: Ordering) -> u64 {
        self.words[k].load(order)
    }

    fn contains(&self, i: usize, order: Ordering) -> bool {
        self.word(i / 64, order) & 1 << (i % 64) != 0
    }

    fn insert(&self, i: usize, order: Ordering) {
        self.words[i / 64].fetch_or(1 << (i % 64), order);
    }

    fn remove(&self, i: usize, order: Ordering) {
        self.words[i / 64].fetch_and(!(1 << (i % 64)), order);
    }
}

/// The bell and the post of worker 0 (the whole pool's instance and the first partition start
/// there), in one cache line (64 bytes): announcing a job of the default instance and ringing the
/// bell move one line to the workers, which find there all they need to start.
struct Head {
    /// Rung (incremented) once a job is announced; idle workers spin on it.
    bell: AtomicU64,
    post: Post,
}

/// The part of the pool that instances share.
pub(crate) struct Shared {
    head: CachePadded<Head>,
    /// The source of job tickets.
    tickets: CachePadded<AtomicU64>,
    /// Each worker's participant state, in its own cache line.
    slots: Box<[CachePadded<Slot>]>,
    /// Post `a` announces the jobs whose range starts at worker `a` (post 0 is in `head`; this is
    /// posts 1 and up).
    posts: Box<[CachePadded<Post>]>,
    /// The workers whose post has ever been used (never cleared): where workers look for jobs.
    starts: BitSet,
    /// Which dispatcher holds which workers.
    reservations: Reservations,
    /// The workers that are parked or about to park.
    sleepers: BitSet,
    alive: AtomicBool,
    /// Tells idle workers to exit.
    stop: AtomicBool,
}

/// The pool: its shared part and the worker threads' handles, owned by the runtime.
pub(crate) struct Pool {
    shared: Arc<Shared>,
    handles: Mutex<Vec<JoinHandle<()>>>,
}

impl Pool {
    /// Starts `threads - 1` workers (the dispatching thread is the first of the `threads`). With `pin`,
    /// worker `k` is pinned to core `k + 1` (modulo the cores the process may use).
    pub(crate) fn start(threads: usize, pin: bool) -> Result<Pool> {
        let workers = threads.saturating_sub(1);
        let shared = Arc::new(Shared::new(workers));
        let pool = Pool {
            shared,
            handles: Mutex::new(Vec::with_capacity(workers)),
        };
        let cores = if pin {
            let cores = core_affinity::get_core_ids().unwrap_or_default();
            if cores.is_empty() {
                return Err(Error::ThreadPool {
                    reason:
                        "thread pinning was requested but the cores of this process are unknown"
                            .into(),
                });
            }
            cores
        } else {
            Vec::new()
        };
        let (report, reports) = std::sync::mpsc::channel::<Result<()>>();
        for w in 0..workers {
            let shared = Arc::clone(&pool.shared);
            let core = (!cores.is_empty()).then(|| cores[(w + 1) % cores.len()]);
            let report = report.clone();
            let spawned = std::thread::Builder::new()
                .name(format!("ferrokkos-worker-{}", w + 1))
                .spawn(move || {
                    if let Some(core) = core {
                        let pinned = core_affinity::set_for_current(core);
                        let _ = report.send(if pinned {
                            Ok(())
                        } else {
                            Err(Error::ThreadPool {
                                reason: format!(
                                    "could not pin worker {} to core {}",
                                    w + 1,
                                    core.id
                                ),
                            })
                        });
                    }
                    drop(report);
                    context::enter_forever();
                    shared.serve(w);
                });
            match spawned {
                Ok(handle) => {
                    pool.shared.slots[w].set_thread(handle.thread().clone());
                    pool.lock_handles().push(handle);
                }
                Err(e) => {
                    pool.shutdown();
                    return Err(Error::ThreadPool {
                        reason: format!(
                            "could not start worker thread {} of {workers}: {e}",
                            w + 1
                        ),
                    });
                }
            }
        }
        drop(report);
        if pin {
            for _ in 0..workers {
                let outcome = reports.recv().unwrap_or_else(|_| {
                    Err(Error::ThreadPool {
                        reason: "a worker exited while being pinned".into(),
                    })
                });
                if let Err(e) = outcome {
                    pool.shutdown();
                    return Err(e);
                }
            }
        }
        Ok(pool)
    }

    /// The number of worker threads (not counting dispatching threads).
    pub(crate) fn workers(&self) -> usize {
        self.shared.slots.len()
    }

    /// The part instances hold.
    pub(crate) fn shared(&self) -> &Arc<Shared> {
        &self.shared
    }

    /// Waits for in-flight broadcasts, stops and joins every worker. Later broadcasts fail with
    /// [`Error::Finalized`]. Idempotent.
    pub(crate) fn shutdown(&self) {
        let shared = &self.shared;
        let all = 0..shared.slots.len();
        // Holding every worker: no broadcast is in flight, and none starts before `alive` is false.
        shared.reservations.acquire(all.clone());
        shared.alive.store(false, Ordering::SeqCst);
        shared.stop.store(true, Ordering::SeqCst);
        shared.bell().fetch_add(1, Ordering::SeqCst);
        for slot in shared.slots.iter() {
            slot.unpark();
        }
        shared.reservations.release(all);
        let handles = std::mem::take(&mut *self.lock_handles());
        for handle in handles {
            // A worker never panics (jobs run under catch_unwind); a join error would only repeat that.
            let _ = handle.join();
        }
    }

    fn lock_handles(&self) -> std::sync::MutexGuard<'_, Vec<JoinHandle<()>>> {
        self.handles.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.shutdown();
    }
}

/// What a dispatcher does when workers it needs are held by another dispatcher.
#[derive(Clone, Copy)]
pub(crate) enum Busy<'a> {
    /// Waits for them.
    #[cfg_attr(not(test), allow(dead_code))] // the Threads space always asks
    Wait,
    /// Waits, asking the function (when the wait begins, then about every millisecond, with the
    /// time waited) whether the calling thread belongs to the job holding them (which may be
    /// waiting for it): once it says so, runs alone (see the module's documentation).
    WaitUnless(&'a dyn Fn(Duration) -> bool),
    /// Runs alone at once: the caller is known to belong to a running job.
    RunAlone,
}

/// Holds a range of workers; gives them back when dropped (also when unwinding).
struct Held<'a> {
    shared: &'a Shared,
    workers: Range<usize>,
}

impl<'a> Held<'a> {
    /// Takes `workers`, waiting for their holders, unless `give_up` says so (asked with the time
    /// waited, while some are held).
    #[inline]
    fn new(
        shared: &'a Shared,
        workers: Range<usize>,
        give_up: &dyn Fn(Duration) -> bool,
    ) -> Option<Self> {
        shared
            .reservations
            .acquire_unless(workers.clone(), give_up)
            // Lazily: a `Held` dropped unused would give back workers that others hold.
            .then(|| Held { shared, workers })
    }
}

impl Drop for Held<'_> {
    fn drop(&mut self) {
        self.shared.reservations.release(self.workers.clone());
    }
}

/// Aborts the process if dropped while unwinding: guards the stretch in which a job on this stack is
/// announced to workers, which must not end before they have finished with it. Nothing in that
/// stretch unwinds (participants' panics are caught); this is the last line of defence.
struct NoUnwind;

impl Drop for NoUnwind {
    fn drop(&mut self) {
        use std::io::Write;
        let _ = writeln!(
            std::io::stderr(),
            "ferrokkos: the thread pool's dispatcher unwound while workers used its job"
        );
        std::process::abort();
    }
}

/// Runs the `count` participants of a job on the calling thread, in the completion tree's order (a
/// participant, then each child's subtree, each joined into it as it completes), so that joins group
/// as they do when workers run the job. Nested dispatches from the participants run inline, as from
/// a worker.
fn run_alone(
    count: usize,
    f: &(dyn Fn(Part) + Sync),
    join: Option<&(dyn Fn(usize, usize) + Sync)>,
) {
    fn subtree(
        i: usize,
        count: usize,
        f: &(dyn Fn(Part) + Sync),
        join: Option<&(dyn Fn(usize, usize) + Sync)>,
    ) {
        {
            let _participant = context::ParticipantScope::enter(i, count);
            f(Part { index: i, count });
        }
        for c in tree::children(i, count) {
            subtree(c, count, f, join);
            if let Some(join) = join {
                join(i, c);
            }
        }
    }
    let _scope = KernelScope::enter();
    subtree(0, count, f, join);
}

impl Shared {
    /// The shared state of a pool of `workers` workers (whose threads are started separately).
    fn new(workers: usize) -> Shared {
        Shared {
            head: CachePadded::new(Head {
                bell: AtomicU64::new(0),
                post: Post::new(),
            }),
            tickets: CachePadded::new(AtomicU64::new(0)),
            slots: (0..workers)
                .map(|_| CachePadded::new(Slot::new()))
                .collect(),
            posts: (1..workers)
                .map(|_| CachePadded::new(Post::new()))
                .collect(),
            starts: BitSet::new(workers),
            reservations: Reservations::new(workers),
            sleepers: BitSet::new(workers),
            alive: AtomicBool::new(true),
            stop: AtomicBool::new(false),
        }
    }

    fn bell(&self) -> &AtomicU64 {
        &self.head.bell
    }

    /// The post of the jobs whose range starts at worker `first`.
    fn post(&self, first: usize) -> &Post {
        match first.checked_sub(1) {
            None => &self.head.post,
            Some(k) => &self.posts[k],
        }
    }

    /// Runs `f` once per participant: participant 0 on the calling thread, participant `k` on worker
    /// `workers.start + k - 1` (or on a thread that ran it in its place), and returns when all have
    /// finished. A panic in any participant is re-raised here after all have finished. Called from
    /// inside a job, it runs `f` inline as the only participant.
    #[cfg(test)]
    pub(crate) fn broadcast(&self, workers: Range<usize>, f: &(dyn Fn(Part) + Sync)) -> Result<()> {
        self.run(workers, f, None, Busy::Wait)
    }

    /// [`Shared::broadcast`], doing `busy` when some of the workers are held by another dispatcher.
    pub(crate) fn broadcast_with(
        &self,
        workers: Range<usize>,
        f: &(dyn Fn(Part) + Sync),
        busy: Busy<'_>,
    ) -> Result<()> {
        self.run(workers, f, None, busy)
    }

    /// [`Shared::broadcast`], and `join(into, from)` folds participant `from`'s results into
    /// participant `into`'s, along the completion tree (`tree.rs`), so that participant 0 ends up with
    /// everyone's, joined in index order. The pool guarantees: `f(Part { index: i, .. })` runs once for
    /// every `i`; `join(into, from)` runs once for every `from > 0`, with `into` the parent of `from`,
    /// on the thread that ran `f` for `into`, after `f` for `into` and after everything that ran for
    /// `from` (its `f` and the joins into it; a happens-before edge); nothing runs for `from` after
    /// that, and everything happens before this function returns. With one participant (inline or an
    /// instance without workers) there is no join. `busy` says what to do when some of the workers
    /// are held; running alone keeps every guarantee above but the threads.
    fn run(
        &self,
        workers: Range<usize>,
        f: &(dyn Fn(Part) + Sync),
        join: Option<&(dyn Fn(usize, usize) + Sync)>,
        busy: Busy<'_>,
    ) -> Result<()> {
        let finalized = || Error::Finalized {
            what: "running work on a Threads instance".into(),
        };
        if !self.alive.load(Ordering::Acquire) {
            return Err(finalized());
        }
        if context::in_kernel() {
            let _participant = context::ParticipantScope::enter(0, 1);
            f(Part { index: 0, count: 1 });
            return Ok(());
        }
        if workers.is_empty() {
            let _scope = KernelScope::enter();
            let _participant = context::ParticipantScope::enter(0, 1);
            f(Part { index: 0, count: 1 });
            return Ok(());
        }
        assert!(
            workers.end <= self.slots.len(),
            "workers {workers:?} of a pool of {}",
            self.slots.len()
        );
        let held = match busy {
            Busy::Wait => Held::new(self, workers.clone(), &|_| false),
            Busy::WaitUnless(started_by_holder) => {
                Held::new(self, workers.clone(), started_by_holder)
            }
            Busy::RunAlone => None,
        };
        let Some(held) = held else {
            run_alone(workers.len() + 1, f, join);
            return Ok(());
        };
        if !self.alive.load(Ordering::Acquire) {
            return Err(finalized());
        }
        let ticket = self.tickets.fetch_add(1, Ordering::Relaxed) + 1;
        if ticket > slot::MAX_TICKET {
            return Err(Error::ThreadPool {
                reason: "the pool has run out of job tickets".into(),
            });
        }
        let first = workers.start;
        let panic = Panic::default();
        let code = Code::new(f, join, &panic);
        let job = Job::new(code, workers.len() + 1, ticket, first);
        // Bits only ever get set, so a set bit was set by an earlier holder of worker `first`, whose
        // release of it happens before our reservation: the workers that see our bell see the bit.
        if !self.starts.contains(first, Ordering::Relaxed) {
            self.starts.insert(first, Ordering::Release);
        }
        let guard = NoUnwind;
        let notice = Notice {
            ticket,
            workers: workers.len(),
        };
        // SAFETY: we hold worker `first` (`held`), so nobody else writes its post, and its previous
        // job completed before its holder released the worker; tickets grow.
        unsafe {
            self.post(first).publish(notice, code, || {
                self.bell().fetch_add(1, Ordering::SeqCst);
            })
        };
        {
            let _scope = KernelScope::enter();
            self.complete(&job, 0);
        }
        // Every participant has finished (the root's children have, and each after its own): no
        // worker touches `f`, `join` or `panic` any more.
        std::mem::forget(guard);
        drop(held);
        if let Some(payload) = panic.into_inner().unwrap_or_else(|e| e.into_inner()) {
            std::panic::resume_unwind(payload);
        }
        Ok(())
    }

    /// Runs participant `i` of `job` and its subtree: wakes its children's workers if they sleep,
    /// runs its own share, then for each child in order waits for it (or runs it, if nobody has
    /// claimed it) and joins it. Returns when the whole subtree has finished.
    fn complete(&self, job: &Job, i: usize) {
        for c in tree::children(i, job.count) {
            let w = job.first + c - 1;
            // SeqCst, and after the bell was rung (by this thread, or before the notice this thread
            // read: `post.rs`): pairs with a sleeper's SeqCst mark-then-check of the bell, so a
            // worker that parked without seeing this job's bell has its mark seen here.
            if self.sleepers.contains(w, Ordering::SeqCst) {
                self.slots[w].unpark();
            }
        }
        job.run(i);
        for c in tree::children(i, job.count) {
            let slot = &self.slots[job.first + c - 1];
            if slot.claim_or_wait(job.ticket) {
                self.complete(job, c);
                slot.finish(job.ticket);
            }
            job.join(i, c);
        }
    }

    /// A worker's life: find a job covering it, claim and run its participant, repeat; between
    /// jobs, wait for the bell. Returns at shutdown.
    fn serve(&self, w: usize) {
        let slot = &self.slots[w];
        // The newest ticket this worker has dealt with.
        let mut seen = 0u64;
        loop {
            let bell = self.bell().load(Ordering::SeqCst);
            if let Some((first, notice)) = self.find(w, seen) {
                seen = notice.ticket;
                if slot.claim(notice.ticket) {
                    // SAFETY: we read the notice from this post, then won a participant of its job
                    // from an older ticket, so the job has not completed and cannot before we call
                    // `finish` (`slot.rs`); until then the post keeps this job's code.
                    let code = unsafe { self.post(first).code() };
                    // The code's borrows are alive until we call `finish` (`Code::new`).
                    let job = Job::new(code, notice.workers + 1, notice.ticket, first);
                    self.complete(&job, w - first + 1);
                    slot.finish(notice.ticket);
                }
                continue;
            }
            if !self.idle(w, bell) {
                return;
            }
        }
    }

    /// The announcement of the newest job covering worker `w` with a ticket above `seen`, and the
    /// first worker of its range. Jobs covering a worker never overlap in time, so at most one such
    /// job is in flight; posts of finished jobs may also match (their tickets are then below the
    /// worker's state and the claim fails).
    fn find(&self, w: usize, seen: u64) -> Option<(usize, Notice)> {
        let mut k = w / 64;
        let below = w % 64;
        let mut bits = self.starts.word(k, Ordering::Acquire) & (u64::MAX >> (63 - below));
        loop {
            while bits != 0 {
                let bit = 63 - bits.leading_zeros() as usize;
                bits &= !(1u64 << bit);
                let first = k * 64 + bit;
                if let Some(notice) = self.post(first).read()
                    && w < first + notice.workers
                    && notice.ticket > seen
                {
                    return Some((first, notice));
                }
            }
            if k == 0 {
                return None;
            }
            k -= 1;
            bits = self.starts.word(k, Ordering::Acquire);
        }
    }

    /// Waits until the bell differs from `bell` (returns `true`) or the pool stops (`false`). Spins
    /// first, then yields, then parks.
    fn idle(&self, w: usize, bell: u64) -> bool {
        let start = Instant::now();
        let mut i = 0u32;
        loop {
            if self.bell().load(Ordering::Acquire) != bell {
                return true;
            }
            if self.stop.load(Ordering::Acquire) {
                return false;
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
                // Mark, then check (both SeqCst): a participant that wakes us loads the mark after
                // ringing or seeing the bell, so either it sees the mark or we see the bell.
                self.sleepers.insert(w, Ordering::SeqCst);
                if self.bell().load(Ordering::SeqCst) == bell && !self.stop.load(Ordering::SeqCst) {
                    std::thread::park();
                }
                self.sleepers.remove(w, Ordering::Relaxed);
            }
        }
    }
}

#[cfg(test)]
mod tests;
