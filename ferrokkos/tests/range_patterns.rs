//! Conformance tests for one-dimensional `RangePolicy` patterns: `parallel_for` and `parallel_reduce`
//! over every schedule (static blocks, static chunks, dynamic) and chunk size (1, 7, larger than the
//! range), non-zero and negative begins, every index type, ranges of more than 2^31 iterations,
//! bit-for-bit determinism of float sums, nested dispatch, and bad input (inverted bounds, zero chunk
//! sizes, borrow conflicts and out-of-bounds writes from kernels).

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

use ferrokkos::ReduceTarget;
use ferrokkos::prelude::*;
use ferrokkos::{BorrowKind, Error, HostExecutionSpace, IndexType, ReduceFunctor};

/// `parallel_reduce` of `kernel` over `policy` into `target`, unwrapped.
fn red<S, I, T, K>(policy: RangePolicy<S, I>, target: T, kernel: K) -> T::Output
where
    S: HostExecutionSpace,
    I: IndexType,
    T: ReduceTarget,
    K: ReduceFunctor<I, <T::Reducer as Reducer>::Value>,
{
    parallel_reduce("range_patterns", policy, kernel, target).unwrap()
}

fn counters(n: usize) -> Vec<AtomicU32> {
    (0..n).map(|_| AtomicU32::new(0)).collect()
}

/// Asserts that every counter is exactly 1.
fn assert_each_once(counts: &[AtomicU32], what: &str) {
    for (k, c) in counts.iter().enumerate() {
        assert_eq!(c.load(Ordering::Relaxed), 1, "{what}: slot {k}");
    }
}

fn visit_each_once<S: HostExecutionSpace>(exec: &S, begin: usize, end: usize) {
    for (what, policy) in common::policy_configs(exec, begin, end) {
        let counts = counters(end - begin);
        parallel_for("visit", policy, |i: usize| {
            counts[i - begin].fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
        assert_each_once(&counts, &what);
    }
}

#[test]
fn range_for_visits_every_index_exactly_once() {
    common::runtime();
    let threads = Threads::default_instance().unwrap();
    visit_each_once(&Serial::default_instance().unwrap(), 0, 1000);
    visit_each_once(&threads, 0, 1000);
    visit_each_once(&threads, 0, 1); // fewer iterations than threads
    visit_each_once(&threads, 0, 3);
    for part in partition_space(&threads, 2).unwrap() {
        visit_each_once(&part, 0, 333);
    }
}

#[test]
fn range_for_with_nonzero_begin_visits_begin_to_end() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        visit_each_once(exec, 17, 1017);
        for (what, policy) in common::policy_configs(exec, 40usize, 140) {
            let v = View::<u64, 1>::new("nonzero_begin", [100]).unwrap();
            {
                // SAFETY: iteration i writes element i - 40 only.
                let out = unsafe { v.parallel_mut().unwrap() };
                parallel_for("write", policy, |i: usize| out.set(i - 40, i as u64)).unwrap();
            }
            let expected: Vec<u64> = (40..140).collect();
            assert_eq!(v.to_vec().unwrap(), expected, "{what}");
        }
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}

#[test]
fn empty_range_runs_nothing() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        for (begin, end) in [(0usize, 0usize), (5, 5), (usize::MAX, usize::MAX)] {
            for (what, policy) in common::policy_configs(exec, begin, end) {
                assert!(policy.is_empty(), "{what}");
                assert_eq!(policy.len(), 0, "{what}");
                let calls = AtomicU32::new(0);
                parallel_for("empty", policy.clone(), |_: usize| {
                    calls.fetch_add(1, Ordering::Relaxed);
                })
                .unwrap();
                let sum = red(policy, Sum::new(), |_: usize, acc: &mut u64| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    *acc += 1;
                });
                assert_eq!((calls.load(Ordering::Relaxed), sum), (0, 0), "{what}");
            }
        }
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}

#[test]
fn signed_i64_range_with_negative_begin_visits_each_index_once() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        let (begin, end) = (-500i64, 250i64);
        for (what, policy) in common::policy_configs(exec, begin, end) {
            let counts = counters(750);
            parallel_for("neg", policy.clone(), |i: i64| {
                counts[(i - begin) as usize].fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
            assert_each_once(&counts, &what);
            let sum = red(policy, Sum::new(), |i: i64, a: &mut i64| *a += i);
            assert_eq!(sum, (begin..end).sum::<i64>(), "{what}");
        }
        // Entirely negative, and at the very bottom of the type.
        let bottom = RangePolicy::new(exec, i64::MIN, i64::MIN + 10).unwrap();
        let sum = red(bottom, Sum::new(), |i: i64, a: &mut i128| *a += i as i128);
        assert_eq!(sum, (0..10).map(|k| i64::MIN as i128 + k).sum());
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}

#[test]
fn i32_u32_and_isize_ranges_reach_the_ends_of_their_types() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        for (what, p) in common::policy_configs(exec, -50i32, 50) {
            let counts = counters(100);
            parallel_for("i32", p, |i: i32| {
                counts[(i + 50) as usize].fetch_add(1, Ordering::Relaxed);
            })
            .unwrap();
            assert_each_once(&counts, &what);
        }
        let hi = RangePolicy::new(exec, i32::MAX - 9, i32::MAX).unwrap();
        let seen = red(hi, Sum::new(), |i: i32, a: &mut i64| *a += i as i64);
        assert_eq!(seen, (i32::MAX - 9..i32::MAX).map(i64::from).sum());
        let lo = RangePolicy::new(exec, i32::MIN, i32::MIN + 3).unwrap();
        let min = red(lo, Min::new(), |i: i32, a: &mut i32| *a = (*a).min(i));
        assert_eq!(min, i32::MIN);
        let top = RangePolicy::new(exec, u32::MAX - 4, u32::MAX).unwrap();
        let max = red(top, Max::new(), |i: u32, a: &mut u32| *a = (*a).max(i));
        assert_eq!(max, u32::MAX - 1);
        let p = RangePolicy::new(exec, -3isize, 4).unwrap();
        let s = red(p, Sum::new(), |i: isize, a: &mut isize| *a += i * i);
        assert_eq!(s, 2 * (9 + 4 + 1));
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}

#[test]
fn range_reduce_is_exact_for_every_schedule_and_chunk_size() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        for (begin, end) in [(0u64, 10_000u64), (3, 4), (1_000_000_007, 1_000_001_000)] {
            let expected: u64 = (begin..end).map(|i| i * i % 1009).sum();
            for (what, p) in common::policy_configs(exec, begin, end) {
                let s = red(p, Sum::new(), |i: u64, a: &mut u64| *a += i * i % 1009);
                assert_eq!(s, expected, "{what} {begin}..{end}");
            }
        }
    }
    let threads = Threads::default_instance().unwrap();
    check(&Serial::default_instance().unwrap());
    check(&threads);
    let parts = partition_space(&threads, 2).unwrap();
    // The two partitions, dispatched from two threads at once.
    std::thread::scope(|s| {
        for part in &parts {
            s.spawn(|| check(part));
        }
    });
}

/// More iterations than `i32::MAX`: 2^31 + 5 (slow in unoptimized builds: about 6 to 12 s of wall
/// time each on two threads, depending on the machine's load; well under a millisecond in release).
const HUGE: u64 = (1 << 31) + 5;

#[test]
fn reduce_counts_more_than_2_pow_31_iterations_exactly() {
    common::runtime();
    let exec = Threads::default_instance().unwrap();
    let start = Instant::now();
    let policy = RangePolicy::new(&exec, 0u64, HUGE).unwrap();
    let count = red(policy, Sum::new(), |_: u64, acc: &mut u64| *acc += 1);
    assert_eq!(count, HUGE);
    eprintln!("counting 2^31+5 iterations took {:?}", start.elapsed());
}

#[test]
fn reduce_sums_indices_beyond_2_pow_31_exactly() {
    common::runtime();
    let exec = Threads::default_instance().unwrap();
    let start = Instant::now();
    // The dynamic schedule: chunks of about 2^26 iterations, joined in chunk order.
    let policy = RangePolicy::new(&exec, 0u64, HUGE)
        .unwrap()
        .schedule(Schedule::Dynamic);
    let sum = red(policy, Sum::new(), |i: u64, acc: &mut u64| *acc += i);
    // n (n - 1) / 2 < 2^62: no wrapping.
    assert_eq!(sum as u128, HUGE as u128 * (HUGE as u128 - 1) / 2);
    eprintln!("summing 2^31+5 indices took {:?}", start.elapsed());
}

/// Values of very different magnitudes, so that any change of summation order changes the result.
fn wild(i: usize) -> f64 {
    let mantissa = ((i * 7919) % 1000) as f64 + 0.123;
    let sign = if i.is_multiple_of(5) { -1.0 } else { 1.0 };
    sign * mantissa * 10f64.powi((i % 23) as i32 - 11)
}

#[test]
fn float_sums_are_bitwise_deterministic_across_runs() {
    common::runtime();
    let exec = Threads::default_instance().unwrap();
    let n = 100_003;
    let base = RangePolicy::new(&exec, 0, n).unwrap();
    let policies = [
        ("static", base.clone()),
        ("static chunk 7", base.clone().chunk_size(7).unwrap()),
        ("dynamic", base.clone().schedule(Schedule::Dynamic)),
        (
            "dynamic chunk 7",
            base.clone()
                .schedule(Schedule::Dynamic)
                .chunk_size(7)
                .unwrap(),
        ),
    ];
    for (what, policy) in policies {
        let run = || {
            let mut s = 0.0;
            red(policy.clone(), &mut s, |i: usize, a: &mut f64| {
                *a += wild(i)
            });
            s
        };
        let first = run();
        let sequential = (0..n).map(wild).sum::<f64>();
        assert!(
            (first - sequential).abs() <= 1e-9 * sequential.abs(),
            "{what}: {first} vs {sequential}"
        );
        for k in 1..20 {
            assert_eq!(run().to_bits(), first.to_bits(), "{what}: run {k} differs");
        }
    }
    // Serial with one block adds in index order: exactly the sequential sum.
    let serial = Serial::default_instance().unwrap();
    let mut s = 0.0;
    let p = RangePolicy::new(&serial, 0, n).unwrap();
    red(p, &mut s, |i: usize, a: &mut f64| *a += wild(i));
    assert_eq!(
        s.to_bits(),
        (0..n).map(wild).fold(0.0, |a, x| a + x).to_bits()
    );
}

#[test]
fn nested_parallel_patterns_inside_a_threads_kernel_run_inline() {
    common::runtime();
    let exec = Threads::default_instance().unwrap();
    let (rows, cols) = (37, 53);
    let sums = View::<u64, 1>::new("row_sums", [rows]).unwrap();
    let inner_calls = AtomicU64::new(0);
    {
        // SAFETY: outer iteration r writes sums[r] only.
        let out = unsafe { sums.parallel_mut().unwrap() };
        parallel_for(
            "outer",
            RangePolicy::new(&exec, 0, rows).unwrap(),
            |r: usize| {
                let inner = RangePolicy::new(&exec, 0, cols).unwrap();
                parallel_for("inner_for", inner.clone(), |_: usize| {
                    inner_calls.fetch_add(1, Ordering::Relaxed);
                })
                .unwrap();
                let inner = inner.schedule(Schedule::Dynamic).chunk_size(4).unwrap();
                let s = red(inner, Sum::new(), |c: usize, a: &mut u64| {
                    *a += (r * 1000 + c) as u64
                });
                out.set(r, s);
            },
        )
        .unwrap();
    }
    let expected: Vec<u64> = (0..rows)
        .map(|r| (0..cols).map(|c| (r * 1000 + c) as u64).sum())
        .collect();
    assert_eq!(sums.to_vec().unwrap(), expected);
    assert_eq!(inner_calls.load(Ordering::Relaxed), (rows * cols) as u64);
}

#[test]
fn threads_dispatch_inside_a_serial_kernel_runs_inline() {
    common::runtime();
    let (serial, threads) = (
        Serial::default_instance().unwrap(),
        Threads::default_instance().unwrap(),
    );
    let outer = RangePolicy::new(&serial, 0, 10).unwrap();
    let inner = RangePolicy::new(&threads, 0, 100).unwrap();
    let total = red(outer, Sum::new(), |r: usize, a: &mut u64| {
        let k = |c: usize, b: &mut u64| *b += (r * c) as u64;
        *a += red(inner.clone(), Sum::new(), k);
    });
    assert_eq!(total, 45 * 4950);
}

#[test]
fn move_kernels_release_their_guards_when_the_launch_ends() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        let x = View::<f64, 1>::new("move_x", [500]).unwrap();
        let y = View::<f64, 1>::new("move_y", [500]).unwrap();
        deep_copy(&x, 2.0).unwrap();
        // SAFETY: iteration i writes y[i] only.
        let (xr, yw) = (x.host().unwrap(), unsafe { y.parallel_mut().unwrap() });
        let p = RangePolicy::new(exec, 0, 500).unwrap();
        parallel_for("triad", p.clone(), move |i: usize| {
            yw.set(i, 3.0 * xr[i] + i as f64)
        })
        .unwrap();
        // The kernel owned both guards: both Views can be borrowed exclusively again.
        drop((x.host_mut().unwrap(), y.host_mut().unwrap()));
        let expected: Vec<f64> = (0..500).map(|i| 6.0 + i as f64).collect();
        assert_eq!(y.to_vec().unwrap(), expected);
        let yr = y.host().unwrap();
        let s = red(p, Sum::new(), move |i: usize, a: &mut f64| *a += yr[i]);
        assert_eq!(s, expected.iter().sum::<f64>());
        assert!(y.host_mut().is_ok());
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}

#[test]
fn concurrent_launches_on_overlapping_instances_from_several_threads_are_correct() {
    common::runtime();
    let exec = Threads::default_instance().unwrap();
    // One partition with every thread: a second instance over the same workers.
    let whole = ferrokkos::partition_space_with_weights(&exec, &[1.0]).unwrap();
    assert_eq!(whole[0].concurrency(), exec.concurrency());
    std::thread::scope(|s| {
        for t in 0..4u64 {
            let exec = [&exec, &whole[0]][t as usize % 2].clone();
            s.spawn(move || {
                for round in 0..50u64 {
                    let n = 1000 + t * 100 + round;
                    let schedule = [Schedule::Static, Schedule::Dynamic][round as usize % 2];
                    let p = RangePolicy::new(&exec, 0, n).unwrap().schedule(schedule);
                    let sum = red(p, Sum::new(), |i: u64, a: &mut u64| *a += i);
                    assert_eq!(sum, n * (n - 1) / 2, "thread {t} round {round}");
                }
            });
        }
    });
}

#[test]
fn inverted_range_is_an_error_with_the_kokkos_message() {
    common::runtime();
    let threads = Threads::default_instance().unwrap();
    let e = RangePolicy::new(&threads, 100, 90).unwrap_err();
    assert!(matches!(e, Error::Policy { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "invalid RangePolicy: lower bound (100) is greater than the upper bound (90)"
    );
    let e = RangePolicy::new(&Serial::default_instance().unwrap(), 3i64, -4).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid RangePolicy: lower bound (3) is greater than the upper bound (-4)"
    );
}

#[test]
fn zero_chunk_size_is_an_error_and_settings_are_reported() {
    common::runtime();
    let exec = Threads::default_instance().unwrap();
    let p = RangePolicy::new(&exec, 10, 20).unwrap();
    assert_eq!(
        (p.get_schedule(), p.get_chunk_size(), p.len()),
        (Schedule::Static, None, 10)
    );
    let e = p.clone().chunk_size(0).unwrap_err();
    assert!(matches!(e, Error::Policy { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "invalid RangePolicy: the chunk size must be at least 1"
    );
    let q = p.schedule(Schedule::Dynamic).chunk_size(3).unwrap();
    assert_eq!(
        (q.begin(), q.end(), q.get_schedule(), q.get_chunk_size()),
        (10, 20, Schedule::Dynamic, Some(3))
    );
}

#[test]
fn parallel_mut_while_a_host_guard_is_alive_is_a_borrow_error() {
    common::runtime();
    let v = View::<f64, 1>::new("guarded", [8]).unwrap();
    {
        let _reader = v.host().unwrap();
        // SAFETY: the accessor is never used.
        let r = unsafe { v.parallel_mut() };
        common::conflict(r, "guarded", BorrowKind::Exclusive, BorrowKind::Shared);
    }
    {
        let _writer = v.host_mut().unwrap();
        // SAFETY: the accessor is never used.
        let r = unsafe { v.parallel_mut() };
        common::conflict(r, "guarded", BorrowKind::Exclusive, BorrowKind::Exclusive);
    }
    // SAFETY: the accessor is never used.
    let pm = unsafe { v.parallel_mut() }.unwrap();
    common::conflict(
        v.host(),
        "guarded",
        BorrowKind::Shared,
        BorrowKind::Exclusive,
    );
    drop(pm);
    assert!(v.host().is_ok());
}

/// A kernel writing one past the end of View "oob" on `exec` panics with the label in the message.
fn out_of_bounds_panics<S: HostExecutionSpace>(exec: &S) {
    let v = View::<u32, 1>::new("oob", [10]).unwrap();
    let outcome = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: iteration i writes element i only.
        let out = unsafe { v.parallel_mut().unwrap() };
        parallel_for("oob", RangePolicy::new(exec, 0, 11).unwrap(), |i: usize| {
            out.set(i, 1)
        })
    }));
    let payload = outcome.expect_err("an out-of-bounds write must panic");
    let msg = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert_eq!(
        msg,
        "index [10] is out of bounds for View \"oob\" with extents [10]",
        "on {}",
        S::NAME
    );
    // The accessor's borrow was released while unwinding, and the in-bounds writes happened.
    assert_eq!(v.to_vec().unwrap(), vec![1; 10]);
}

#[test]
fn out_of_bounds_write_through_parallel_mut_panics_with_the_label() {
    common::runtime();
    out_of_bounds_panics(&Serial::default_instance().unwrap());
    out_of_bounds_panics(&Threads::default_instance().unwrap());
    // The pool still works after a kernel panicked.
    visit_each_once(&Threads::default_instance().unwrap(), 0, 100);
}

#[test]
#[should_panic(expected = "out of bounds for View \"oob2\"")]
fn out_of_bounds_read_through_parallel_mut_panics() {
    common::runtime();
    let v = View::<u32, 2>::new("oob2", [3, 4]).unwrap();
    // SAFETY: reads only.
    let a = unsafe { v.parallel_mut().unwrap() };
    let p = RangePolicy::new(&Threads::default_instance().unwrap(), 0, 4).unwrap();
    parallel_for("oob2", p, |i: usize| {
        let _ = a.get((i, i));
    })
    .unwrap();
}

#[test]
fn an_integer_policy_runs_zero_to_n_on_the_default_host_space() {
    common::runtime();
    let seen = std::sync::Mutex::new(Vec::new());
    parallel_for("integer for", 37, |i: usize| seen.lock().unwrap().push(i)).unwrap();
    let mut seen = seen.into_inner().unwrap();
    seen.sort();
    assert_eq!(seen, (0..37).collect::<Vec<_>>());

    let mut sum = 0u64;
    parallel_reduce(
        "integer reduce",
        101,
        |i: usize, acc: &mut u64| *acc += i as u64,
        &mut sum,
    )
    .unwrap();
    assert_eq!(sum, 5050);

    let total = parallel_scan("integer scan", 10, |i: usize, p: &mut usize, _: bool| {
        *p += i
    })
    .unwrap();
    assert_eq!(total, 45);
    parallel_for("integer empty", 0, |_: usize| panic!("no iteration")).unwrap();
}
