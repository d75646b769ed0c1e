//! One-dimensional `RangePolicy` patterns: `parallel_for`, `parallel_reduce` and `parallel_scan` over
//! every schedule (static blocks, static chunks, dynamic) and chunk size (1, 7, larger than the
//! range), non-zero and negative begins, empty ranges, every index type up to the ends of its type,
//! large reductions (more than 2^31 iterations on Threads), determinism of float sums, the policy's
//! settings and bad input (inverted bounds, zero chunk and tile sizes). The partitions of Threads and
//! the integer policy of the default host space run here too.

use std::sync::atomic::{AtomicU32, Ordering};
use std::time::Instant;

use ferrokkos::prelude::*;
use ferrokkos::traits::ReduceTarget;
use ferrokkos::traits::{HostExecutionSpace, IndexType, ReduceFunctor};
use ferrokkos::{Error, Result};

use crate::common;
use crate::spaces::{SView, assert_sum_close, download, each_once, policies, upload};

/// `parallel_reduce` of `kernel` over `policy` into `target`, unwrapped.
pub fn red<S, I, T, K>(policy: RangePolicy<S, I>, target: T, kernel: K) -> T::Output
where
    S: HostExecutionSpace,
    I: IndexType,
    T: ReduceTarget,
    K: ReduceFunctor<I, <T::Reducer as Reducer>::Value>,
{
    parallel_reduce("range", policy, kernel, target).unwrap()
}

pub fn counters(n: usize) -> Vec<AtomicU32> {
    (0..n).map(|_| AtomicU32::new(0)).collect()
}

/// Asserts that every counter is exactly 1.
pub fn assert_each_once(counts: &[AtomicU32], what: &str) {
    for (k, c) in counts.iter().enumerate() {
        assert_eq!(c.load(Ordering::Relaxed), 1, "{what}: slot {k}");
    }
}

pub fn visit_each_once<S: HostExecutionSpace>(exec: &S, begin: usize, end: usize) {
    for (what, policy) in common::policy_configs(exec, begin, end) {
        let counts = counters(end - begin);
        parallel_for("visit", policy, |i: usize| {
            counts[i - begin].fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
        assert_each_once(&counts, &what);
    }
}

fn range_for_with_nonzero_begin_visits_begin_to_end<S: Launch>(exec: &S) -> Result<()> {
    for (begin, end) in [(0usize, 1000usize), (40, 140), (17, 18), (1, 100_003)] {
        for (what, p) in policies(exec, begin, end)? {
            let v = SView::<S, u64, 1>::new("nonzero_begin", [end - begin])?;
            let counts = SView::<S, u32, 1>::new("counts", [end])?;
            parallel_for(
                "write",
                p,
                kernel!(|i| {
                    unsafe {
                        v[i - begin] = i as u64;
                    }
                    counts.atomic_add(i, 1u32);
                }),
            )?;
            let want: Vec<u64> = (begin as u64..end as u64).collect();
            assert_eq!(download(&v)?, want, "{what} {begin}..{end}");
            let c = download(&counts)?;
            assert!(c[..begin].iter().all(|x| *x == 0), "{what}: before begin");
            each_once(&c[begin..], &format!("{what} {begin}..{end}"));
        }
    }
    Ok(())
}
per_space!(
    range_for_with_nonzero_begin_visits_begin_to_end,
    range_for_with_nonzero_begin_visits_begin_to_end
);

fn empty_ranges_run_nothing<S: Launch>(exec: &S) -> Result<()> {
    let calls = SView::<S, u32, 1>::new("calls", [1])?;
    for (begin, end) in [(0usize, 0usize), (5, 5), (usize::MAX, usize::MAX)] {
        for (what, p) in policies(exec, begin, end)? {
            assert!(p.is_empty(), "{what}");
            assert_eq!(p.len(), 0, "{what}");
            parallel_for("empty", p.clone(), kernel!(|_i| calls.atomic_add(0, 1u32)))?;
            let sum: u64 = parallel_reduce(
                "empty",
                p.clone(),
                kernel!(|_i, acc: &mut u64| *acc += 1),
                Sum::new(),
            )?;
            let total: u64 = parallel_scan(
                "empty",
                p,
                kernel!(|_i, partial: &mut u64, _last: bool| *partial += 1),
            )?;
            assert_eq!((sum, total), (0, 0), "{what}");
        }
    }
    let mut c = 0;
    deep_copy(&mut c, &subview(&calls, 0)?)?;
    assert_eq!(c, 0, "a kernel ran on an empty range");
    // Signed empty ranges.
    let p = RangePolicy::new(exec, -3i64, -3)?;
    let s: i64 = parallel_reduce(
        "empty",
        p,
        kernel!(|i: i64, acc: &mut i64| *acc += i),
        Sum::new(),
    )?;
    assert_eq!(s, 0);
    Ok(())
}
per_space!(empty_ranges_run_nothing, empty_ranges_run_nothing);

fn every_index_type_reaches_the_ends_of_its_type<S: Launch>(exec: &S) -> Result<()> {
    // i32 with a negative begin: each index once.
    for (what, p) in policies(exec, -50i32, 50)? {
        let counts = SView::<S, u32, 1>::new("counts", [100])?;
        parallel_for(
            "i32",
            p,
            kernel!(|i: i32| counts.atomic_add((i + 50) as usize, 1u32)),
        )?;
        each_once(&download(&counts)?, &what);
    }
    // i64 with a negative begin, for and reduce.
    let (begin, end) = (-500i64, 250i64);
    for (what, p) in policies(exec, begin, end)? {
        let counts = SView::<S, u32, 1>::new("counts", [750])?;
        parallel_for(
            "i64",
            p.clone(),
            kernel!(|i: i64| counts.atomic_add(i - begin, 1u32)),
        )?;
        each_once(&download(&counts)?, &what);
        let s: i64 = parallel_reduce("i64", p, kernel!(|i: i64, a: &mut i64| *a += i), Sum::new())?;
        assert_eq!(s, (begin..end).sum::<i64>(), "{what}");
    }
    // The ends of each type.
    let p = RangePolicy::new(exec, i64::MIN, i64::MIN + 10)?;
    let s: i64 = parallel_reduce(
        "i64 bottom",
        p,
        kernel!(|i: i64, a: &mut i64| *a += i.wrapping_sub(i64::MIN)),
        Sum::new(),
    )?;
    assert_eq!(s, 45);
    let p = RangePolicy::new(exec, i64::MAX - 10, i64::MAX)?;
    let s: i64 = parallel_reduce(
        "i64 top",
        p,
        kernel!(|i: i64, a: &mut i64| *a += i64::MAX - i),
        Sum::new(),
    )?;
    assert_eq!(s, 55);
    let p = RangePolicy::new(exec, i32::MAX - 9, i32::MAX)?;
    let s: i64 = parallel_reduce(
        "i32 top",
        p,
        kernel!(|i: i32, a: &mut i64| *a += i as i64),
        Sum::new(),
    )?;
    assert_eq!(s, (i32::MAX - 9..i32::MAX).map(i64::from).sum::<i64>());
    let p = RangePolicy::new(exec, i32::MIN, i32::MIN + 3)?;
    let m: i32 = parallel_reduce(
        "i32 bottom",
        p,
        kernel!(|i: i32, a: &mut i32| *a = (*a).min(i)),
        Min::new(),
    )?;
    assert_eq!(m, i32::MIN);
    let p = RangePolicy::new(exec, u32::MAX - 4, u32::MAX)?;
    let m: u32 = parallel_reduce(
        "u32 top",
        p,
        kernel!(|i: u32, a: &mut u32| *a = (*a).max(i)),
        Max::new(),
    )?;
    assert_eq!(m, u32::MAX - 1);
    for (what, p) in policies(exec, 0u32, 1000)? {
        let s: u64 = parallel_reduce(
            "u32",
            p,
            kernel!(|i: u32, a: &mut u64| *a += i as u64),
            Sum::new(),
        )?;
        assert_eq!(s, 499_500, "{what}");
    }
    let p = RangePolicy::new(exec, usize::MAX - 5, usize::MAX)?;
    let s: u64 = parallel_reduce(
        "usize top",
        p,
        kernel!(|i, a: &mut u64| *a += (usize::MAX - i) as u64),
        Sum::new(),
    )?;
    assert_eq!(s, 15);
    for (begin, end) in [(0u64, 10_000u64), (3, 4), (1_000_000_007, 1_000_001_000)] {
        let want: u64 = (begin..end).map(|i| i * i % 1009).sum();
        for (what, p) in policies(exec, begin, end)? {
            let s: u64 = parallel_reduce(
                "u64",
                p,
                kernel!(|i: u64, a: &mut u64| *a += i * i % 1009),
                Sum::new(),
            )?;
            assert_eq!(s, want, "{what} {begin}..{end}");
        }
    }
    let p = RangePolicy::new(exec, -3isize, 4)?;
    let s: isize = parallel_reduce(
        "isize",
        p,
        kernel!(|i: isize, a: &mut isize| *a += i * i),
        Sum::new(),
    )?;
    assert_eq!(s, 2 * (9 + 4 + 1));
    Ok(())
}
per_space!(
    every_index_type_reaches_the_ends_of_its_type,
    every_index_type_reaches_the_ends_of_its_type
);

/// Values of very different magnitudes, so that a change of summation order changes the result.
fn wild(i: usize) -> f64 {
    let mantissa = ((i * 7919) % 1000) as f64 + 0.123;
    let sign = if i % 5 == 0 { -1.0 } else { 1.0 };
    sign * mantissa * 10f64.powi((i % 23) as i32 - 11)
}

fn large_reductions_are_exact_for_integers_and_close_for_floats<S: Launch>(exec: &S) -> Result<()> {
    let n = 3_000_017usize;
    let s: u64 = parallel_reduce(
        "count",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i, a: &mut u64| *a += (i * i % 1009) as u64),
        Sum::new(),
    )?;
    assert_eq!(s, (0..n).map(|i| (i * i % 1009) as u64).sum::<u64>());
    let m = 100_003;
    let data: Vec<f64> = (0..m).map(wild).collect();
    let x = upload::<S, f64>("wild", &data)?;
    let run = || -> Result<f64> {
        let mut s = 0.0;
        parallel_reduce(
            "wild",
            RangePolicy::new(exec, 0, m)?,
            kernel!(|i, a: &mut f64| *a += x[i]),
            &mut s,
        )?;
        Ok(s)
    };
    let first = run()?;
    let sequential = data.iter().fold(0.0, |a, x| a + x);
    let scale: f64 = data.iter().map(|x| x.abs()).sum();
    assert_sum_close(first, sequential, scale, S::NAME);
    for k in 1..5 {
        assert_eq!(run()?.to_bits(), first.to_bits(), "run {k} differs");
    }
    // Positive terms: 1e-12 relative to the sum itself.
    let h: f64 = parallel_reduce(
        "harmonic",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i, a: &mut f64| *a += 1.0 / (1.0 + i as f64)),
        Sum::new(),
    )?;
    let want = (0..n).fold(0.0, |a, i| a + 1.0 / (1.0 + i as f64));
    assert_sum_close(h, want, want, S::NAME);
    Ok(())
}
per_space!(
    large_reductions_are_exact_for_integers_and_close_for_floats,
    large_reductions_are_exact_for_integers_and_close_for_floats
);

fn policies_with_bad_input_are_errors<S: Launch>(exec: &S) -> Result<()> {
    let policy_error = |e: Error, want: &str| {
        assert_eq!(e.to_string(), want);
        assert!(matches!(e, Error::Policy { .. }), "{e:?}");
    };
    policy_error(
        RangePolicy::new(exec, 100, 90).unwrap_err(),
        "invalid RangePolicy: lower bound (100) is greater than the upper bound (90)",
    );
    policy_error(
        RangePolicy::new(exec, 3i64, -4).unwrap_err(),
        "invalid RangePolicy: lower bound (3) is greater than the upper bound (-4)",
    );
    policy_error(
        RangePolicy::new(exec, 10, 20)?.chunk_size(0).unwrap_err(),
        "invalid RangePolicy: the chunk size must be at least 1",
    );
    policy_error(
        MDRangePolicy::new(exec, [0i64, 5], [4, 3]).unwrap_err(),
        "invalid MDRangePolicy<2>: lower bound (5) is greater than the upper bound (3) in dimension 1",
    );
    policy_error(
        MDRangePolicy::new(exec, [0i64, 0, 0, 0, -1], [1, 1, 1, 1, -2]).unwrap_err(),
        "invalid MDRangePolicy<5>: lower bound (-1) is greater than the upper bound (-2) in dimension 4",
    );
    policy_error(
        MDRangePolicy::new(exec, [0i64, 0, 0], [2, 2, 2])?
            .tile_sizes([2, 0, 1])
            .unwrap_err(),
        "invalid MDRangePolicy<3>: tile size in dimension 1 is 0; every tile size must be at least 1",
    );
    Ok(())
}
per_space!(
    policies_with_bad_input_are_errors,
    policies_with_bad_input_are_errors
);

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
