//! The Threads space's own pool of persistent worker threads (DESIGN.md decision 10).
//!
//! A pool of `n` threads is the dispatching thread plus `n - 1` workers. A broadcast hands one job to a
//! contiguous range of workers and runs participant 0 on the calling thread; then it takes back and runs
//! itself every participant that no worker has started yet, and waits for the others.
//! Workers spin on their mailbox for a while after each job (so back-to-back launches cost about a
//! microsecond), then yield, then park. Instances (`Threads`, its partitions) own disjoint or nested
//! worker ranges; a dispatcher claims its workers in ascending order, so overlapping instances used from
//! several threads take turns instead of racing, and cannot deadlock.
//!
//! A broadcast made from inside a job (a nested parallel dispatch) runs inline on the calling thread with
//! one participant, as Kokkos runs nested parallel regions on host backends.

mod job;
mod slot;

use std::ops::Range;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use crossbeam_utils::CachePadded;

use crate::error::{Error, Result};
use crate::runtime::context::{self, KernelScope};
use job::Job;
pub(crate) use job::Part;
use slot::Slot;

/// The part of the pool that instances share: the workers' mailboxes.
pub(crate) struct Shared {
    slots: Box<[CachePadded<Slot>]>,
    alive: AtomicBool,
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
        let shared = Arc::new(Shared {
            slots: (0..workers)
                .map(|_| CachePadded::new(Slot::new()))
                .collect(),
            alive: AtomicBool::new(true),
        });
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
                    shared.slots[w].serve();
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
        for slot in self.shared.slots.iter() {
            slot.claim();
        }
        self.shared.alive.store(false, Ordering::SeqCst);
        for slot in self.shared.slots.iter() {
            slot.request_shutdown();
            slot.release();
        }
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

/// Releases claimed slots when dropped (also when a participant's panic unwinds).
struct Claims<'a>(&'a [CachePadded<Slot>]);

impl Drop for Claims<'_> {
    fn drop(&mut self) {
        for slot in self.0 {
            slot.release();
        }
    }
}

impl Shared {
    /// Runs `f` once per participant: participant 0 on the calling thread, participants `1..` on the
    /// workers `workers`, and returns when all have finished. A panic in any participant is re-raised
    /// here after all have finished. Called from inside a job, it runs `f` inline as the only
    /// participant.
    pub(crate) fn broadcast(&self, workers: Range<usize>, f: &(dyn Fn(Part) + Sync)) -> Result<()> {
        if !self.alive.load(Ordering::Acquire) {
            return Err(Error::Finalized {
                what: "running work on a Threads instance".into(),
            });
        }
        if context::in_kernel() {
            f(Part { index: 0, count: 1 });
            return Ok(());
        }
        if workers.is_empty() {
            let _scope = KernelScope::enter();
            f(Part { index: 0, count: 1 });
            return Ok(());
        }
        let slots = &self.slots[workers];
        for slot in slots {
            slot.claim();
        }
        let claims = Claims(slots);
        if !self.alive.load(Ordering::Acquire) {
            return Err(Error::Finalized {
                what: "running work on a Threads instance".into(),
            });
        }
        let job = Job::new(f, slots.len() + 1);
        for (k, slot) in slots.iter().enumerate() {
            // SAFETY: we hold the claim; the slot's previous job finished before its claim was released;
            // `job` outlives the workers' use of it because we wait for it below before returning.
            unsafe { slot.post(&job, k + 1) };
        }
        let scope = KernelScope::enter();
        let own = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            f(Part {
                index: 0,
                count: slots.len() + 1,
            })
        }));
        // Tasks that no worker has started yet (asleep, descheduled, or slower than our own share) are
        // taken back and run here, so the launch never waits for a thread to wake up.
        for (k, slot) in slots.iter().enumerate() {
            if slot.revoke() {
                job.run(k + 1);
                // SAFETY: our own job, whose participant we just ran.
                unsafe { Job::finish(&job) };
            }
        }
        drop(scope);
        job.wait();
        drop(claims);
        if let Err(payload) = own {
            std::panic::resume_unwind(payload);
        }
        if let Some(payload) = job.take_panic() {
            std::panic::resume_unwind(payload);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn every_participant_runs_exactly_once() {
        let pool = Pool::start(4, false).unwrap();
        assert_eq!(pool.workers(), 3);
        for _ in 0..1000 {
            let hits: Vec<AtomicUsize> = (0..4).map(|_| AtomicUsize::new(0)).collect();
            pool.shared()
                .broadcast(0..3, &|p: Part| {
                    assert_eq!(p.count, 4);
                    hits[p.index].fetch_add(1, Ordering::Relaxed);
                })
                .unwrap();
            assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
        }
    }

    #[test]
    fn a_sub_range_of_workers_runs_fewer_participants() {
        let pool = Pool::start(4, false).unwrap();
        let total = AtomicUsize::new(0);
        pool.shared()
            .broadcast(1..3, &|p: Part| {
                assert_eq!(p.count, 3);
                total.fetch_add(p.index + 1, Ordering::Relaxed);
            })
            .unwrap();
        assert_eq!(total.load(Ordering::Relaxed), 1 + 2 + 3);
    }

    #[test]
    fn nested_broadcasts_run_inline() {
        let pool = Pool::start(3, false).unwrap();
        let inner_total = AtomicUsize::new(0);
        let shared = pool.shared();
        shared
            .broadcast(0..2, &|_| {
                shared
                    .broadcast(0..2, &|p| {
                        assert_eq!(p, Part { index: 0, count: 1 });
                        inner_total.fetch_add(1, Ordering::Relaxed);
                    })
                    .unwrap();
            })
            .unwrap();
        assert_eq!(inner_total.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn a_worker_panic_reaches_the_caller_after_everyone_finished() {
        let pool = Pool::start(3, false).unwrap();
        let finished = AtomicUsize::new(0);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.shared().broadcast(0..2, &|p| {
                if p.index == 2 {
                    panic!("participant two failed");
                }
                std::thread::sleep(std::time::Duration::from_millis(20));
                finished.fetch_add(1, Ordering::Relaxed);
            })
        }));
        let payload = outcome.unwrap_err();
        assert_eq!(
            payload.downcast_ref::<&str>(),
            Some(&"participant two failed")
        );
        assert_eq!(finished.load(Ordering::Relaxed), 2);
        // The pool still works afterwards.
        let count = AtomicUsize::new(0);
        pool.shared()
            .broadcast(0..2, &|_| {
                count.fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
        assert_eq!(count.load(Ordering::Relaxed), 3);
    }

    #[test]
    fn overlapping_dispatchers_take_turns() {
        let pool = Pool::start(3, false).unwrap();
        let shared = Arc::clone(pool.shared());
        let sum = Arc::new(AtomicUsize::new(0));
        let threads: Vec<_> = (0..4)
            .map(|t| {
                let shared = Arc::clone(&shared);
                let sum = Arc::clone(&sum);
                std::thread::spawn(move || {
                    let range = if t % 2 == 0 { 0..2 } else { 1..2 };
                    for _ in 0..500 {
                        shared
                            .broadcast(range.clone(), &|_| {
                                sum.fetch_add(1, Ordering::Relaxed);
                            })
                            .unwrap();
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert_eq!(sum.load(Ordering::Relaxed), 2 * 500 * 3 + 2 * 500 * 2);
    }

    #[test]
    fn workers_wake_up_after_parking() {
        let pool = Pool::start(2, false).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(5));
        let count = AtomicUsize::new(0);
        pool.shared()
            .broadcast(0..1, &|_| {
                count.fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
        assert_eq!(count.load(Ordering::Relaxed), 2);
    }

    #[test]
    fn broadcast_after_shutdown_is_an_error() {
        let pool = Pool::start(2, false).unwrap();
        let shared = Arc::clone(pool.shared());
        pool.shutdown();
        let e = shared.broadcast(0..1, &|_| {}).unwrap_err();
        assert_eq!(
            e.to_string(),
            "running work on a Threads instance is not possible: ferrokkos has been finalized"
        );
    }
}
