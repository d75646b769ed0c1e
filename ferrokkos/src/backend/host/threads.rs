//! [`Threads`]: runs work on the crate's own pool of persistent threads.

use std::ops::Range;
use std::sync::Arc;
use std::time::Duration;

use super::launch_lock::{self, LaunchLock, Listed, Owner};
use super::pool::{Busy, Part, Shared as PoolShared};
use super::{HostShared, HostSpace, host_execution_space};
use crate::error::{Error, Result};
use crate::runtime;
use crate::runtime::context;
use crate::runtime::started;
use crate::space::{DeviceType, ExecutionSpace};

/// The Threads execution space: work is split among the calling thread and a set of pool workers.
///
/// The default instance uses the whole pool (`InitSettings::num_threads`, else every core the process
/// may use). [`crate::partition_space`] splits an instance into instances over disjoint sets of workers,
/// which may run concurrently when dispatched from different threads (Kokkos' OpenMP semantics).
///
/// ```
/// use ferrokkos::{ExecutionSpace, InitSettings, Threads, partition_space_with_weights};
/// let _rt = ferrokkos::initialize(InitSettings::new().num_threads(4))?;
/// let all = Threads::default_instance()?;
/// assert_eq!(all.concurrency(), 4);
/// let parts = partition_space_with_weights(&all, &[1.0, 3.0])?;
/// assert_eq!((parts[0].concurrency(), parts[1].concurrency()), (1, 3));
/// assert_eq!(parts[1].device_id(), (6 << 24) | 3);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
#[derive(Clone)]
pub struct Threads {
    inner: Arc<ThreadsInstance>,
}

struct ThreadsInstance {
    id: u32,
    shared: Arc<HostShared>,
    pool: Arc<PoolShared>,
    /// The pool workers this instance uses besides the dispatching thread.
    workers: Range<usize>,
    /// Held while work runs, so that work on one instance runs in order and a fence waits for it.
    launch: LaunchLock,
}

impl Threads {
    /// Waits until the work other threads run on this instance has finished (the fence, without
    /// the tools' callbacks). Inside a kernel, or on a thread that a kernel this fence would wait
    /// for started (`launch_lock.rs`), it returns at once: that work is the caller's own.
    pub(crate) fn wait_idle(&self, label: &str) -> Result<()> {
        self.inner
            .shared
            .check_alive(|| format!("fence \"{label}\" on Threads"))?;
        if !context::in_kernel() {
            self.inner.launch.wait_idle(|me| self.owner_of_wait(me));
        }
        Ok(())
    }

    /// The running launch that thread `me`, about to wait for this instance, is a candidate of
    /// (`launch_lock.rs`): one on this instance, or one holding (or waiting for) workers that this
    /// instance's launches need.
    fn owner_of_wait(&self, me: u64) -> Option<Owner> {
        let inner = &self.inner;
        inner
            .shared
            .instances
            .owner_of_wait(me, &inner.launch, &inner.workers)
    }

    /// For the pool, while the workers this instance needs are held: whether the calling thread,
    /// having waited `waited`, is treated as part of the launch holding them (it then runs its
    /// work alone).
    fn adopted_by_holder(&self, waited: Duration) -> bool {
        launch_lock::adopted(self.owner_of_wait(started::register()), waited)
    }

    /// What the pool does when the workers are held: for a launch that took the launch lock
    /// (`launched`), wait unless the caller belongs to their holder; for one that found the lock
    /// held by a launch the caller belongs to, run alone.
    fn busy<'a>(
        &self,
        launched: bool,
        adopted_by_holder: &'a dyn Fn(Duration) -> bool,
    ) -> Busy<'a> {
        if launched {
            Busy::WaitUnless(adopted_by_holder)
        } else {
            Busy::RunAlone
        }
    }

    /// A new instance over `workers`, with the next instance number.
    pub(super) fn create(
        shared: &Arc<HostShared>,
        pool: &Arc<PoolShared>,
        workers: Range<usize>,
    ) -> Threads {
        let inner = shared.create(&shared.threads_ids, |id| ThreadsInstance {
            id,
            shared: Arc::clone(shared),
            pool: Arc::clone(pool),
            workers,
            launch: LaunchLock::default(),
        });
        Threads { inner }
    }

    /// Runs `f` once per participant (`Part::index` in `0..Part::count`, at most `concurrency()`), the
    /// calling thread being participant 0, and returns when all are done. From inside a host kernel it
    /// runs `f` once, inline, as the only participant. From a thread that a kernel this launch would
    /// wait for started (`launch_lock.rs`), every participant runs on the calling thread, in turn (the
    /// pool's "alone", which gives what the workers would have). `what` describes the work for the
    /// error returned after finalize.
    pub(crate) fn broadcast(
        &self,
        what: impl FnOnce() -> String,
        f: &(dyn Fn(Part) + Sync),
    ) -> Result<()> {
        self.launch(what, || {
            if context::in_kernel() {
                let _participant = context::ParticipantScope::enter(0, 1);
                f(Part { index: 0, count: 1 });
                return Ok(());
            }
            let launch = self.inner.launch.enter(|me| self.owner_of_wait(me));
            let adopted_by_holder = |waited| self.adopted_by_holder(waited);
            let busy = self.busy(launch.is_some(), &adopted_by_holder);
            self.inner
                .pool
                .broadcast_with(self.inner.workers.clone(), f, busy)
        })
    }

    /// [`Threads::broadcast`] (inline or alone where it is) where each participant returns a
    /// partial result; the partial results
    /// are joined with `join` along the pool's completion tree, in participant order (the grouping
    /// depends only on the number of participants, so the result does not depend on timing).
    /// `None` only if no participant returned (a panic, which is re-raised instead).
    pub(crate) fn broadcast_reduce<V: Send>(
        &self,
        what: impl FnOnce() -> String,
        part: &(dyn Fn(Part) -> V + Sync),
        join: &(dyn Fn(&mut V, &V) + Sync),
    ) -> Result<Option<V>> {
        self.launch(what, || {
            if context::in_kernel() {
                let _participant = context::ParticipantScope::enter(0, 1);
                return Ok(Some(part(Part { index: 0, count: 1 })));
            }
            let launch = self.inner.launch.enter(|me| self.owner_of_wait(me));
            let adopted_by_holder = |waited| self.adopted_by_holder(waited);
            let busy = self.busy(launch.is_some(), &adopted_by_holder);
            self.inner
                .pool
                .broadcast_reduce_with(self.inner.workers.clone(), part, join, busy)
        })
    }

    /// Runs `launch` if the backend is alive, naming the work with `what` in a finalized error.
    fn launch<T>(
        &self,
        what: impl FnOnce() -> String,
        launch: impl FnOnce() -> Result<T>,
    ) -> Result<T> {
        let outcome = self
            .inner
            .shared
            .check_alive(String::new)
            .and_then(|()| launch());
        outcome.map_err(|e| match e {
            Error::Finalized { .. } => Error::Finalized { what: what() },
            e => e,
        })
    }
}

impl std::fmt::Debug for Threads {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Threads")
            .field("instance", &self.inner.id)
            .field("concurrency", &self.concurrency())
            .finish()
    }
}

host_execution_space!(
    Threads,
    ThreadsInstance,
    threads,
    workers(instance) = instance.workers.clone(),
    {
        fn concurrency(&self) -> usize {
            self.inner.workers.len() + 1
        }

        /// Instances over disjoint sets of this instance's workers, sized by the weights. Each
        /// instance's work runs on the thread that dispatches it plus its workers, so `n` instances
        /// share `concurrency()` threads when dispatched from `n` threads. More parts than threads
        /// gives instances of concurrency 1 (they run on their callers).
        fn partition(&self, weights: &[f64]) -> Result<Vec<Self>> {
            self.inner
                .shared
                .check_alive(|| "partition_space on Threads".into())?;
            let shares = crate::space::split_concurrency(self.concurrency(), weights)?;
            let mut next = self.inner.workers.start;
            Ok(shares
                .iter()
                .map(|&share| {
                    let workers = next..next + (share - 1);
                    next = workers.end;
                    Threads::create(&self.inner.shared, &self.inner.pool, workers)
                })
                .collect())
        }
    }
);

impl crate::dispatch::HostExecutionSpace for Threads {
    #[inline]
    fn run_participants(
        &self,
        what: &dyn Fn() -> String,
        f: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<()> {
        self.broadcast(what, &|p| f(p.index, p.count))
    }
}

#[cfg(test)]
mod tests {
    use std::collections::HashSet;
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, AtomicU32};

    use super::*;
    use crate::backend::host::pool::Pool;

    fn backend(threads: usize) -> (Arc<HostShared>, Pool) {
        let shared = Arc::new(HostShared {
            alive: AtomicBool::new(true),
            serial_ids: AtomicU32::new(0),
            threads_ids: AtomicU32::new(0),
            instances: Default::default(),
        });
        (shared, Pool::start(threads, false).unwrap())
    }

    /// The pool threads that ran `exec`'s participants, over at least `rounds` broadcasts and until
    /// `want` of them were seen (or ten seconds passed: on a loaded machine a worker may miss many
    /// rounds, since a participant that no worker had started when its parent in the completion
    /// tree finished its own share is run by that parent; the dispatching thread is not counted).
    fn worker_threads(
        exec: &Threads,
        rounds: usize,
        want: usize,
    ) -> HashSet<std::thread::ThreadId> {
        let seen = Mutex::new(HashSet::new());
        let caller = std::thread::current().id();
        let start = std::time::Instant::now();
        let mut round = 0;
        while round < rounds
            || (seen.lock().unwrap().len() < want
                && start.elapsed() < std::time::Duration::from_secs(10))
        {
            exec.broadcast(String::new, &|p| {
                assert_eq!(p.count, exec.concurrency());
                // Give every worker the time to take its part before its parent takes it over.
                std::thread::sleep(std::time::Duration::from_micros(300));
                if std::thread::current().id() != caller {
                    seen.lock().unwrap().insert(std::thread::current().id());
                }
            })
            .unwrap();
            round += 1;
        }
        seen.into_inner().unwrap()
    }

    #[test]
    fn partitions_run_concurrently_on_disjoint_workers() {
        let (shared, pool) = backend(6);
        let all = Threads::create(&shared, pool.shared(), 0..pool.workers());
        let parts = all.partition(&[1.0, 2.0]).unwrap();
        assert_eq!((parts[0].concurrency(), parts[1].concurrency()), (2, 4));
        let (a, b) = std::thread::scope(|s| {
            let a = s.spawn(|| worker_threads(&parts[0], 200, 1));
            let b = s.spawn(|| worker_threads(&parts[1], 200, 3));
            (a.join().unwrap(), b.join().unwrap())
        });
        assert_eq!((a.len(), b.len()), (1, 3));
        assert!(a.is_disjoint(&b), "partitions shared a worker: {a:?} {b:?}");
        // The parent uses all five workers; the partitions' two callers stand in for the fifth.
        let parent = worker_threads(&all, 50, 5);
        assert_eq!(parent.len(), 5);
        assert!(parent.is_superset(&(&a | &b)));
    }

    #[test]
    fn a_nested_dispatch_runs_inline_instead_of_deadlocking() {
        let (shared, pool) = backend(3);
        let exec = Threads::create(&shared, pool.shared(), 0..pool.workers());
        let inner = AtomicU32::new(0);
        exec.broadcast(String::new, &|_| {
            exec.broadcast(String::new, &|p| {
                assert_eq!((p.index, p.count), (0, 1));
                inner.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            })
            .unwrap();
        })
        .unwrap();
        assert_eq!(inner.into_inner(), 3);
    }

    #[test]
    fn pinned_workers_start_and_run() {
        let pool = Pool::start(2, true).unwrap();
        let ran = AtomicU32::new(0);
        pool.shared()
            .broadcast(0..1, &|_| {
                ran.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            })
            .unwrap();
        assert_eq!(ran.into_inner(), 2);
    }
}
