//! The pool's behaviour: every participant once, reductions in order, concurrent and overlapping
//! dispatchers, workers that are asleep or never start, panics, shutdown under load.

use super::*;
use std::collections::HashSet;
use std::sync::atomic::AtomicUsize;

/// Fails the test instead of hanging when `done` does not become true within a generous time.
fn wait_for(what: &str, done: impl Fn() -> bool) {
    let start = Instant::now();
    while !done() {
        assert!(
            start.elapsed() < Duration::from_secs(30),
            "timed out waiting for {what}"
        );
        std::thread::sleep(Duration::from_micros(200));
    }
}

/// A pool's shared state with no worker threads at all (they never start).
fn no_threads(workers: usize) -> Arc<Shared> {
    Arc::new(Shared::new(workers))
}

/// A worker gets the bell, the notice and the code of a default-instance job in one cache line.
#[test]
fn the_bell_and_the_first_post_fit_one_cache_line() {
    assert!(
        std::mem::size_of::<Head>() <= 64,
        "{}",
        std::mem::size_of::<Head>()
    );
}

#[test]
fn every_participant_runs_exactly_once_over_many_rounds() {
    for threads in [2, 4, 5, 8] {
        let pool = Pool::start(threads, false).unwrap();
        assert_eq!(pool.workers(), threads - 1);
        let hits: Vec<AtomicUsize> = (0..threads).map(|_| AtomicUsize::new(0)).collect();
        let rounds = 2000;
        for round in 0..rounds {
            pool.shared()
                .broadcast(0..threads - 1, &|p: Part| {
                    assert_eq!(p.count, threads);
                    // Every participant of this round sees the hit count of the rounds before it.
                    assert_eq!(hits[p.index].fetch_add(1, Ordering::Relaxed), round);
                })
                .unwrap();
        }
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == rounds));
    }
}

#[test]
fn a_sub_range_of_workers_runs_fewer_participants() {
    let pool = Pool::start(6, false).unwrap();
    for range in [1..3, 2..5, 4..5, 0..5] {
        let total = AtomicUsize::new(0);
        pool.shared()
            .broadcast(range.clone(), &|p: Part| {
                assert_eq!(p.count, range.len() + 1);
                total.fetch_add(1 << p.index, Ordering::Relaxed);
            })
            .unwrap();
        assert_eq!(total.into_inner(), (1 << (range.len() + 1)) - 1);
    }
}

/// A launch never waits for a thread that has not started: with no worker thread at all, the
/// dispatcher runs every participant itself (as the parent, or an ancestor, of each).
#[test]
fn a_launch_completes_when_no_worker_ever_starts() {
    let shared = no_threads(9);
    let caller = std::thread::current().id();
    let hits: Vec<AtomicUsize> = (0..10).map(|_| AtomicUsize::new(0)).collect();
    for _ in 0..3 {
        shared
            .broadcast(0..9, &|p| {
                assert_eq!(std::thread::current().id(), caller);
                hits[p.index].fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
    }
    assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 3));
    let sum = shared
        .broadcast_reduce(2..7, &|p| p.index * 10, &|a, b| *a += *b)
        .unwrap();
    assert_eq!(sum, Some(10 * (1 + 2 + 3 + 4 + 5)));
}

/// Only some workers run: the others' participants (and their subtrees) are taken over by their
/// parents, and the running workers still run their own.
#[test]
fn a_launch_completes_when_some_workers_never_start() {
    let shared = no_threads(15);
    // Workers 0, 5 and 11 (participants 1, 6 and 12) serve; the rest never start.
    let serving = [0usize, 5, 11];
    let handles: Vec<_> = serving
        .iter()
        .map(|&w| {
            let worker = Arc::clone(&shared);
            let handle = std::thread::spawn(move || {
                context::enter_forever();
                worker.serve(w);
            });
            shared.slots[w].set_thread(handle.thread().clone());
            handle
        })
        .collect();
    let caller = std::thread::current().id();
    // Which participants ever ran on a thread other than the caller (atomics rather than a locked
    // set, so that the test itself is clean under ThreadSanitizer with an uninstrumented std).
    let elsewhere: Vec<AtomicBool> = (0..16).map(|_| AtomicBool::new(false)).collect();
    let own_seen = || {
        [1, 6, 12]
            .iter()
            .all(|&i| elsewhere[i].load(Ordering::Relaxed))
    };
    let start = Instant::now();
    let mut round = 0;
    // At least 200 rounds, and until each serving worker ran its own participant at least once (a
    // loaded machine may not schedule a worker in time for many rounds: its parent then runs it).
    while round < 200 || (!own_seen() && start.elapsed() < Duration::from_secs(30)) {
        round += 1;
        let hits: Vec<AtomicUsize> = (0..16).map(|_| AtomicUsize::new(0)).collect();
        shared
            .broadcast(0..15, &|p| {
                // Give the serving workers time to claim their participants.
                std::thread::sleep(Duration::from_micros(200));
                hits[p.index].fetch_add(1, Ordering::Relaxed);
                if std::thread::current().id() != caller {
                    elsewhere[p.index].store(true, Ordering::Relaxed);
                }
            })
            .unwrap();
        assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
    }
    // Off the caller ran only the serving workers' own participants and, on worker 11
    // (participant 12), its children 13, 14 and 15, whose workers never started.
    let others: HashSet<usize> = (0..16)
        .filter(|&i| elsewhere[i].load(Ordering::Relaxed))
        .collect();
    assert!(others.is_subset(&HashSet::from([1, 6, 12, 13, 14, 15])));
    assert!(others.is_superset(&HashSet::from([1, 6, 12])));
    shared.stop.store(true, Ordering::SeqCst);
    for (h, &w) in handles.into_iter().zip(&serving) {
        shared.slots[w].unpark();
        h.join().unwrap();
    }
}

/// Workers that have parked are woken by the next launch that covers them (no lost wake-up), and the
/// launch does not wait for them to wake.
#[test]
fn parked_workers_are_woken_by_the_next_launch() {
    let pool = Pool::start(8, false).unwrap();
    let shared = pool.shared();
    wait_for("every worker to park", || {
        shared.sleepers.word(0, Ordering::SeqCst) == (1 << 7) - 1
    });
    let count = AtomicUsize::new(0);
    shared
        .broadcast(0..7, &|_| {
            count.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    assert_eq!(count.load(Ordering::Relaxed), 8);
    // Every worker was woken: each one now runs its own participant of a launch in which every
    // share takes long enough for the workers to claim their own before their parents finish.
    let caller = std::thread::current().id();
    let elsewhere: Vec<AtomicBool> = (0..8).map(|_| AtomicBool::new(false)).collect();
    let start = Instant::now();
    while start.elapsed() < Duration::from_secs(30) {
        shared
            .broadcast(0..7, &|p| {
                std::thread::sleep(Duration::from_millis(1));
                if std::thread::current().id() != caller {
                    elsewhere[p.index].store(true, Ordering::Relaxed);
                }
            })
            .unwrap();
        if elsewhere[1..].iter().all(|e| e.load(Ordering::Relaxed)) {
            return;
        }
    }
    panic!("some workers never woke up: {elsewhere:?}");
}

#[test]
fn nested_broadcasts_run_inline() {
    let pool = Pool::start(4, false).unwrap();
    let inner_total = AtomicUsize::new(0);
    let shared = pool.shared();
    shared
        .broadcast(0..3, &|_| {
            shared
                .broadcast(0..3, &|p| {
                    assert_eq!(p, Part { index: 0, count: 1 });
                    inner_total.fetch_add(1, Ordering::Relaxed);
                })
                .unwrap();
            let inner = shared
                .broadcast_reduce(0..3, &|p| p.count, &|a, b| *a += *b)
                .unwrap();
            assert_eq!(inner, Some(1));
        })
        .unwrap();
    assert_eq!(inner_total.load(Ordering::Relaxed), 4);
}

/// Partial results are joined in participant order (a non-commutative join shows the order), the
/// same way every time.
#[test]
fn reductions_join_in_participant_order() {
    for threads in [2, 3, 6, 8] {
        let pool = Pool::start(threads, false).unwrap();
        let want: Vec<usize> = (0..threads).collect();
        for _ in 0..500 {
            let got = pool
                .shared()
                .broadcast_reduce(0..threads - 1, &|p| vec![p.index], &|a, b| {
                    a.extend_from_slice(b)
                })
                .unwrap();
            assert_eq!(got.as_deref(), Some(&want[..]));
        }
    }
}

/// A floating-point sum gives the same bits every run for a given thread count.
#[test]
fn floating_point_reductions_are_deterministic() {
    let pool = Pool::start(8, false).unwrap();
    let part = |p: Part| {
        (1..=1000)
            .map(|k| 1.0 / (k * (p.index + 1)) as f64)
            .sum::<f64>()
    };
    let first = pool
        .shared()
        .broadcast_reduce(0..7, &part, &|a, b| *a += *b)
        .unwrap()
        .unwrap();
    for _ in 0..300 {
        let again = pool
            .shared()
            .broadcast_reduce(0..7, &part, &|a, b| *a += *b)
            .unwrap()
            .unwrap();
        assert_eq!(again.to_bits(), first.to_bits());
    }
}

#[test]
fn a_worker_panic_reaches_the_caller_after_everyone_finished() {
    let pool = Pool::start(5, false).unwrap();
    for panicking in [0, 2, 4] {
        let finished = AtomicUsize::new(0);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            pool.shared().broadcast(0..4, &|p| {
                if p.index == panicking {
                    panic!("participant failed");
                }
                std::thread::sleep(Duration::from_millis(20));
                finished.fetch_add(1, Ordering::Relaxed);
            })
        }));
        let payload = outcome.unwrap_err();
        assert_eq!(payload.downcast_ref::<&str>(), Some(&"participant failed"));
        assert_eq!(finished.load(Ordering::Relaxed), 4);
    }
    // A panicking join too.
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        pool.shared().broadcast_reduce(0..4, &|p| p.index, &|_, b| {
            if *b == 3 {
                panic!("join failed");
            }
        })
    }));
    assert_eq!(
        outcome.unwrap_err().downcast_ref::<&str>(),
        Some(&"join failed")
    );
    // The pool still works afterwards.
    let sum = pool
        .shared()
        .broadcast_reduce(0..4, &|p| p.index, &|a, b| *a += *b)
        .unwrap();
    assert_eq!(sum, Some(1 + 2 + 3 + 4));
}

/// Instances over overlapping ranges, used from several threads, take turns: a worker is never in
/// two jobs at once, and nobody deadlocks.
#[test]
fn overlapping_dispatchers_take_turns() {
    let pool = Pool::start(8, false).unwrap();
    let shared = Arc::clone(pool.shared());
    let busy: Arc<Vec<AtomicUsize>> = Arc::new((0..7).map(|_| AtomicUsize::new(0)).collect());
    let ranges = [0..7, 0..3, 2..6, 5..7, 3..4, 1..7];
    let rounds = 300;
    let threads: Vec<_> = ranges
        .iter()
        .cloned()
        .map(|range| {
            let (shared, busy) = (Arc::clone(&shared), Arc::clone(&busy));
            std::thread::spawn(move || {
                for _ in 0..rounds {
                    let sum = shared
                        .broadcast_reduce(
                            range.clone(),
                            &|p| {
                                if p.index > 0 {
                                    let worker = &busy[range.start + p.index - 1];
                                    assert_eq!(worker.fetch_add(1, Ordering::Relaxed), 0);
                                    std::hint::spin_loop();
                                    worker.fetch_sub(1, Ordering::Relaxed);
                                }
                                p.index
                            },
                            &|a, b| *a += *b,
                        )
                        .unwrap();
                    let n = range.len();
                    assert_eq!(sum, Some(n * (n + 1) / 2));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().unwrap();
    }
}

/// Instances over disjoint ranges dispatch concurrently: one launch waits (inside its own share) for
/// a launch on a disjoint range made from another thread, which would deadlock if the second had to
/// wait for the first.
#[test]
fn disjoint_dispatchers_do_not_wait_for_each_other() {
    let pool = Pool::start(7, false).unwrap();
    let shared = Arc::clone(pool.shared());
    let other_done = Arc::new(AtomicBool::new(false));
    let second = {
        let (shared, other_done) = (Arc::clone(&shared), Arc::clone(&other_done));
        std::thread::spawn(move || {
            // Let the first launch start and hold its range.
            std::thread::sleep(Duration::from_millis(20));
            let n = shared
                .broadcast_reduce(3..6, &|_| 1usize, &|a, b| *a += *b)
                .unwrap();
            other_done.store(true, Ordering::SeqCst);
            n
        })
    };
    let count = AtomicUsize::new(0);
    shared
        .broadcast(0..3, &|p| {
            if p.index == 1 {
                wait_for("the launch on the disjoint range", || {
                    other_done.load(Ordering::SeqCst)
                });
            }
            count.fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
    assert_eq!(count.into_inner(), 4);
    assert_eq!(second.join().unwrap(), Some(4));
}

#[test]
fn broadcast_after_shutdown_is_an_error() {
    let pool = Pool::start(3, false).unwrap();
    let shared = Arc::clone(pool.shared());
    pool.shutdown();
    pool.shutdown();
    let e = shared.broadcast(0..2, &|_| {}).unwrap_err();
    assert_eq!(
        e.to_string(),
        "running work on a Threads instance is not possible: ferrokkos has been finalized"
    );
    assert!(matches!(
        shared.broadcast_reduce(0..2, &|_| 1, &|a, b| *a += *b),
        Err(Error::Finalized { .. })
    ));
}

/// Shutdown while other threads dispatch in loops: every launch either runs completely or is
/// refused with `Finalized`; nobody hangs, and every worker thread exits.
#[test]
fn shutdown_races_with_dispatchers() {
    for round in 0..20 {
        let pool = Arc::new(Pool::start(6, false).unwrap());
        let shared = Arc::clone(pool.shared());
        let ranges = [0..5, 0..2, 2..5, 1..4];
        let dispatchers: Vec<_> = ranges
            .iter()
            .cloned()
            .map(|range| {
                let shared = Arc::clone(&shared);
                std::thread::spawn(move || {
                    let mut ran = 0usize;
                    loop {
                        let hits: Vec<AtomicUsize> =
                            (0..=range.len()).map(|_| AtomicUsize::new(0)).collect();
                        match shared.broadcast(range.clone(), &|p| {
                            hits[p.index].fetch_add(1, Ordering::Relaxed);
                        }) {
                            Ok(()) => {
                                assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 1));
                                ran += 1;
                            }
                            Err(Error::Finalized { .. }) => {
                                assert!(hits.iter().all(|h| h.load(Ordering::Relaxed) == 0));
                                return ran;
                            }
                            Err(e) => panic!("unexpected error {e}"),
                        }
                    }
                })
            })
            .collect();
        std::thread::sleep(Duration::from_micros(200 * (round % 5)));
        let stopper = {
            let pool = Arc::clone(&pool);
            std::thread::spawn(move || pool.shutdown())
        };
        pool.shutdown();
        stopper.join().unwrap();
        for d in dispatchers {
            d.join().unwrap();
        }
        assert!(pool.lock_handles().is_empty());
    }
}

/// A job run alone (its caller belongs to the job holding the workers) runs every participant on the
/// calling thread and groups its joins as the workers do, so a reduction gives the same result.
#[test]
fn a_job_run_alone_runs_every_participant_here_and_joins_as_the_workers_do() {
    let pool = Pool::start(7, false).unwrap();
    // The partial results record the grouping: each join appends `(` the child's list `)`.
    let part = |p: Part| vec![p.index as i64];
    let join = |into: &mut Vec<i64>, from: &Vec<i64>| {
        into.push(-1);
        into.extend(from);
        into.push(-2);
    };
    let by_workers = pool
        .shared()
        .broadcast_reduce(0..6, &part, &join)
        .unwrap()
        .unwrap();
    let here = std::thread::current().id();
    let seen = Mutex::new(Vec::new());
    let alone = pool
        .shared()
        .broadcast_reduce_with(
            0..6,
            &|p| {
                assert_eq!(std::thread::current().id(), here, "participant {}", p.index);
                seen.lock().unwrap().push((p.index, p.count));
                part(p)
            },
            &join,
            Busy::RunAlone,
        )
        .unwrap()
        .unwrap();
    assert_eq!(alone, by_workers);
    let mut seen = seen.into_inner().unwrap();
    seen.sort_unstable();
    assert_eq!(seen, (0..7).map(|i| (i, 7)).collect::<Vec<_>>());
}

/// Workers held by another dispatcher: `WaitUnless` asks when the wait begins and runs alone when
/// told to, and waits otherwise.
#[test]
fn a_dispatcher_that_belongs_to_the_holder_of_its_workers_runs_alone() {
    let pool = Arc::new(Pool::start(3, false).unwrap());
    let (holding, held) = std::sync::mpsc::channel();
    let (release, released) = std::sync::mpsc::channel::<()>();
    let holder = {
        let pool = Arc::clone(&pool);
        std::thread::spawn(move || {
            let released = Mutex::new(released);
            pool.shared()
                .broadcast(0..2, &|p| {
                    if p.index == 0 {
                        holding.send(()).unwrap();
                        released.lock().unwrap().recv().unwrap();
                    }
                })
                .unwrap();
        })
    };
    held.recv().unwrap();
    let asked = AtomicUsize::new(0);
    let ran = Mutex::new(Vec::new());
    pool.shared()
        .broadcast_with(
            0..2,
            &|p| ran.lock().unwrap().push((p.index, p.count)),
            Busy::WaitUnless(&|waited| {
                assert_eq!(waited, Duration::ZERO);
                asked.fetch_add(1, Ordering::Relaxed);
                true
            }),
        )
        .unwrap();
    assert_eq!(asked.into_inner(), 1);
    assert_eq!(ran.into_inner().unwrap(), [(0, 3), (1, 3), (2, 3)]);
    // Not told to: it waits until the holder is done.
    let waited = AtomicUsize::new(0);
    std::thread::scope(|s| {
        s.spawn(|| {
            std::thread::sleep(Duration::from_millis(30));
            assert_eq!(
                waited.load(Ordering::SeqCst),
                0,
                "did not wait for the holder"
            );
            release.send(()).unwrap();
        });
        pool.shared()
            .broadcast_with(
                0..2,
                &|_| {
                    waited.fetch_add(1, Ordering::SeqCst);
                },
                Busy::WaitUnless(&|_| false),
            )
            .unwrap();
    });
    assert_eq!(waited.into_inner(), 3);
    holder.join().unwrap();
}
