//! `parallel_scan` and `parallel_scan_with`: exclusive scans (store before adding) and inclusive
//! scans (store after adding) compared with a sequential prefix sum, the returned totals, empty
//! ranges, non-zero and negative begins, every schedule and chunk size, large ranges of `u64` and
//! `f64`, and scans with other reducers (a running maximum) on every space; on the host, each index
//! seen exactly once by the final pass (on partitions too), many more chunks than partial results,
//! `Custom` reducers (a final step, a join that does not commute) and scans nested in a kernel.

use std::sync::atomic::{AtomicU32, Ordering};

use ferrokkos::prelude::*;
use ferrokkos::traits::HostExecutionSpace;
use ferrokkos::{Result, parallel_scan_with};

use crate::common;
use crate::spaces::{SView, download, policies};

/// The contribution of iteration `i`: small, of both signs.
fn value(i: usize) -> i64 {
    ((i * 7919) % 13) as i64 - 4
}

fn scans_match_a_sequential_prefix_sum<S: Launch>(exec: &S) -> Result<()> {
    for (begin, end) in [
        (0usize, 0usize),
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 1000),
        (0, 4099),
        (100, 1100),
        (12345, 12346),
        (0, 3_000_017),
    ] {
        let n = end - begin;
        let (mut exclusive, mut inclusive, mut running) = (Vec::new(), Vec::new(), 0i64);
        for i in begin..end {
            exclusive.push(running);
            running += value(i);
            inclusive.push(running);
        }
        let configs = if n > 100_000 {
            vec![(S::NAME.to_string(), RangePolicy::new(exec, begin, end)?)]
        } else {
            policies(exec, begin, end)?
        };
        for (what, p) in configs {
            let what = format!("{what} {begin}..{end}");
            let ex = SView::<S, i64, 1>::new("exclusive", [n])?;
            let inc = SView::<S, i64, 1>::new("inclusive", [n])?;
            let t1: i64 = parallel_scan(
                "both",
                p.clone(),
                kernel!(|i, partial: &mut i64, is_final: bool| {
                    if is_final {
                        unsafe {
                            ex[i - begin] = *partial;
                        }
                    }
                    *partial += ((i * 7919) % 13) as i64 - 4;
                    if is_final {
                        unsafe {
                            inc[i - begin] = *partial;
                        }
                    }
                }),
            )?;
            assert_eq!(download(&ex)?, exclusive, "{what}: exclusive");
            assert_eq!(download(&inc)?, inclusive, "{what}: inclusive");
            let t2: i64 = parallel_scan(
                "total",
                p,
                kernel!(|i, partial: &mut i64, _last: bool| {
                    *partial += ((i * 7919) % 13) as i64 - 4
                }),
            )?;
            assert_eq!((t1, t2), (running, running), "{what}: totals");
        }
    }
    Ok(())
}
per_space!(
    scans_match_a_sequential_prefix_sum,
    scans_match_a_sequential_prefix_sum
);

fn u64_and_f64_scans_of_large_ranges<S: Launch>(exec: &S) -> Result<()> {
    for n in [1usize, 7, 1000, 1 << 20, 3_000_017] {
        let v = SView::<S, u64, 1>::new("v", [n])?;
        let out = SView::<S, u64, 1>::new("out", [n])?;
        let fout = SView::<S, f64, 1>::new("fout", [n])?;
        parallel_for(
            "init",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| v[i] = (i % 13) as u64 + (1u64 << 40)),
        )?;
        let total: u64 = parallel_scan(
            "u64",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i, partial: &mut u64, last: bool| {
                if last {
                    out[i] = *partial;
                }
                *partial += v[i];
            }),
        )?;
        let ftotal: f64 = parallel_scan(
            "f64",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i, partial: &mut f64, last: bool| {
                *partial += 1.0 / (1.0 + (i % 1000) as f64);
                if last {
                    fout[i] = *partial;
                }
            }),
        )?;
        let got = download(&out)?;
        let fgot = download(&fout)?;
        let (mut run, mut frun, mut carry) = (0u64, 0.0f64, 0.0f64);
        for i in 0..n {
            assert_eq!(got[i], run, "n {n} at {i}");
            run += (i % 13) as u64 + (1 << 40);
            // The reference is summed with compensation (Neumaier), so that it is accurate to a few
            // ulp: a plain sequential sum of 3 million terms is itself off by more than 1e-12.
            let term = 1.0 / (1.0 + (i % 1000) as f64);
            let t = frun + term;
            carry += if frun.abs() >= term.abs() {
                (frun - t) + term
            } else {
                (term - t) + frun
            };
            frun = t;
            let exact = frun + carry;
            // Positive terms: any summation order of k terms is within k * eps of the exact prefix
            // (relative; the classic bound), which for millions of terms exceeds 1e-12: Serial's
            // plain running sum needs it, the device's blocked sums are closer.
            let bound = (1e-12f64).max((i + 1) as f64 * f64::EPSILON) * exact;
            let frun = exact;
            assert!(
                (fgot[i] - frun).abs() <= bound,
                "n {n} at {i}: {} vs {frun}",
                fgot[i]
            );
        }
        assert_eq!(total, run, "n {n}");
        let exact = frun + carry;
        let bound = (1e-12f64).max(n as f64 * f64::EPSILON);
        assert!(
            (ftotal - exact).abs() <= bound * exact,
            "f64 total, n {n}: {ftotal} vs {exact}"
        );
    }
    Ok(())
}
per_space!(
    u64_and_f64_scans_of_large_ranges,
    u64_and_f64_scans_of_large_ranges
);

fn scans_over_signed_indices_and_with_max<S: Launch>(exec: &S) -> Result<()> {
    let (begin, end) = (-300i64, 301i64);
    let mut running = 0;
    let expected: Vec<i64> = (begin..end)
        .map(|i| {
            running += i * i;
            running
        })
        .collect();
    for (what, p) in policies(exec, begin, end)? {
        let out = SView::<S, i64, 1>::new("signed_scan", [601])?;
        let total: i64 = parallel_scan(
            "signed",
            p,
            kernel!(|i: i64, s: &mut i64, fin: bool| {
                *s += i * i;
                if fin {
                    unsafe {
                        out[i - begin] = *s;
                    }
                }
            }),
        )?;
        assert_eq!(total, running, "{what}");
        assert_eq!(download(&out)?, expected, "{what}");
    }
    // A running maximum (parallel_scan_with Max), inclusive and exclusive.
    let n = 100_000usize;
    let wave = |i: usize| ((i * 7919) % 100_003) as i64 - if i > 60_000 { 200_000 } else { 0 };
    let (mut inclusive, mut exclusive, mut m) = (Vec::new(), Vec::new(), i64::MIN);
    for i in 0..n {
        exclusive.push(m);
        m = m.max(wave(i));
        inclusive.push(m);
    }
    for (what, p) in policies(exec, 0, n)? {
        let inc = SView::<S, i64, 1>::new("running_max", [n])?;
        let ex = SView::<S, i64, 1>::new("max_before", [n])?;
        let t: i64 = parallel_scan_with(
            "running_max",
            p,
            kernel!(|i, s: &mut i64, fin: bool| {
                if fin {
                    ex[i] = *s;
                }
                let drop = if i > 60_000 { 200_000 } else { 0 };
                *s = (*s).max(((i * 7919) % 100_003) as i64 - drop);
                if fin {
                    inc[i] = *s;
                }
            }),
            Max::new(),
        )?;
        assert_eq!(t, m, "{what}: total");
        assert_eq!(download(&inc)?, inclusive, "{what}: inclusive");
        assert_eq!(download(&ex)?, exclusive, "{what}: exclusive");
    }
    Ok(())
}
per_space!(
    scans_over_signed_indices_and_with_max,
    scans_over_signed_indices_and_with_max
);

/// Sequential exclusive and inclusive prefix sums of `value` over `begin..end`, and the total.
fn sequential(begin: usize, end: usize) -> (Vec<i64>, Vec<i64>, i64) {
    let (mut exclusive, mut inclusive, mut running) = (Vec::new(), Vec::new(), 0);
    for i in begin..end {
        exclusive.push(running);
        running += value(i);
        inclusive.push(running);
    }
    (exclusive, inclusive, running)
}

/// Runs an exclusive and an inclusive scan of `value` over `begin..end` in every configuration.
fn scan_matches_sequential<S: HostExecutionSpace>(exec: &S, begin: usize, end: usize) {
    let (exclusive, inclusive, total) = sequential(begin, end);
    for (what, policy) in common::policy_configs(exec, begin, end) {
        let what = format!("{what} {begin}..{end}");
        let ex = View::<i64, 1>::new("exclusive", [end - begin]).unwrap();
        let inc = View::<i64, 1>::new("inclusive", [end - begin]).unwrap();
        let finals = (begin..end).map(|_| AtomicU32::new(0)).collect::<Vec<_>>();
        let (t1, t2) = {
            // SAFETY: the final pass of iteration i writes element i - begin only.
            let (ex_out, inc_out) =
                unsafe { (ex.parallel_mut().unwrap(), inc.parallel_mut().unwrap()) };
            let t1 = parallel_scan(
                "ex",
                policy.clone(),
                |i: usize, partial: &mut i64, is_final: bool| {
                    if is_final {
                        ex_out.set(i - begin, *partial);
                        finals[i - begin].fetch_add(1, Ordering::Relaxed);
                    }
                    *partial += value(i);
                },
            )
            .unwrap();
            let t2 = parallel_scan(
                "inc",
                policy,
                |i: usize, partial: &mut i64, is_final: bool| {
                    *partial += value(i);
                    if is_final {
                        inc_out.set(i - begin, *partial);
                    }
                },
            )
            .unwrap();
            (t1, t2)
        };
        assert_eq!(ex.to_vec().unwrap(), exclusive, "{what}: exclusive");
        assert_eq!(inc.to_vec().unwrap(), inclusive, "{what}: inclusive");
        assert_eq!((t1, t2), (total, total), "{what}: totals");
        for (k, c) in finals.iter().enumerate() {
            assert_eq!(
                c.load(Ordering::Relaxed),
                1,
                "{what}: final pass of {}",
                begin + k
            );
        }
    }
}

#[test]
fn exclusive_and_inclusive_scans_match_a_sequential_prefix_sum() {
    common::runtime();
    let threads = Threads::default_instance().unwrap();
    for (begin, end) in [(0, 1000), (0, 1), (0, 2), (0, 3), (0, 4099)] {
        scan_matches_sequential(&Serial::default_instance().unwrap(), begin, end);
        scan_matches_sequential(&threads, begin, end);
    }
    for part in partition_space(&threads, 2).unwrap() {
        scan_matches_sequential(&part, 0, 777);
    }
}

#[test]
fn scan_over_many_chunks_is_exact() {
    common::runtime();
    // Chunk size 1 over 100 000 iterations: far more chunks than partial results are kept.
    let exec = Threads::default_instance().unwrap();
    let n = 100_000;
    let (exclusive, _, total) = sequential(0, n);
    for schedule in [Schedule::Static, Schedule::Dynamic] {
        let out = View::<i64, 1>::new("many", [n]).unwrap();
        let policy = RangePolicy::new(&exec, 0, n)
            .unwrap()
            .schedule(schedule)
            .chunk_size(1)
            .unwrap();
        let t = {
            // SAFETY: the final pass of iteration i writes element i only.
            let o = unsafe { out.parallel_mut().unwrap() };
            parallel_scan("many", policy, |i: usize, p: &mut i64, fin: bool| {
                if fin {
                    o.set(i, *p);
                }
                *p += value(i);
            })
            .unwrap()
        };
        assert_eq!(
            (out.to_vec().unwrap(), t),
            (exclusive.clone(), total),
            "{schedule:?}"
        );
    }
}

#[test]
fn scan_over_an_empty_range_returns_zero_and_runs_nothing() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        for (what, p) in common::policy_configs(exec, 9usize, 9) {
            let calls = AtomicU32::new(0);
            let total = parallel_scan("empty", p.clone(), |_: usize, s: &mut u64, _: bool| {
                calls.fetch_add(1, Ordering::Relaxed);
                *s += 1;
            });
            assert_eq!(
                (total.unwrap(), calls.load(Ordering::Relaxed)),
                (0, 0),
                "{what}"
            );
            let max = parallel_scan_with(
                "empty",
                p,
                |_: usize, s: &mut f64, _: bool| *s = 1.0,
                Max::new(),
            );
            assert_eq!(max.unwrap(), f64::MIN, "{what}: the identity of Max");
        }
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}

#[test]
fn scan_with_a_custom_reducer_applies_its_final_step_to_the_total() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        // A running (count, sum) whose total becomes (count, mean).
        let mean = Custom::new(
            || (0u32, 0.0f64),
            |d: &mut (u32, f64), s: &(u32, f64)| {
                d.0 += s.0;
                d.1 += s.1;
            },
        )
        .with_final(|v: &mut (u32, f64)| v.1 /= v.0 as f64);
        for (what, p) in common::policy_configs(exec, 1usize, 101) {
            let prefix = View::<u32, 1>::new("counts", [100]).unwrap();
            let total = {
                // SAFETY: the final pass of iteration i writes element i - 1 only.
                let o = unsafe { prefix.parallel_mut().unwrap() };
                parallel_scan_with(
                    "mean",
                    p,
                    |i: usize, s: &mut (u32, f64), fin: bool| {
                        if fin {
                            o.set(i - 1, s.0);
                        }
                        *s = (s.0 + 1, s.1 + i as f64);
                    },
                    mean.clone(),
                )
                .unwrap()
            };
            assert_eq!(total, (100, 50.5), "{what}");
            assert_eq!(
                prefix.to_vec().unwrap(),
                (0..100).collect::<Vec<u32>>(),
                "{what}"
            );
        }
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}

#[test]
fn nested_scan_inside_a_threads_kernel_runs_inline() {
    common::runtime();
    let exec = Threads::default_instance().unwrap();
    let totals = View::<i64, 1>::new("nested_totals", [20]).unwrap();
    {
        // SAFETY: outer iteration r writes totals[r] only.
        let out = unsafe { totals.parallel_mut().unwrap() };
        parallel_for(
            "outer",
            RangePolicy::new(&exec, 0, 20).unwrap(),
            |r: usize| {
                let inner = RangePolicy::new(&exec, 0, 50 + r)
                    .unwrap()
                    .chunk_size(3)
                    .unwrap();
                let t = parallel_scan("inner", inner, |i: usize, s: &mut i64, _: bool| {
                    *s += value(i)
                })
                .unwrap();
                out.set(r, t);
            },
        )
        .unwrap();
    }
    let expected: Vec<i64> = (0..20).map(|r| sequential(0, 50 + r).2).collect();
    assert_eq!(totals.to_vec().unwrap(), expected);
}

/// A non-commutative join: the polynomial hash of a sequence, as (B^len, hash), all wrapping.
type Hash = (u64, u64);
const B: u64 = 1_000_003;

fn hash_join(d: &mut Hash, s: &Hash) {
    *d = (
        d.0.wrapping_mul(s.0),
        d.1.wrapping_mul(s.0).wrapping_add(s.1),
    );
}

#[test]
fn scan_joins_partial_results_in_iteration_order() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        let n = 2000;
        let mut running = (1, 0);
        let expected: Vec<u64> = (0..n)
            .map(|i| {
                hash_join(&mut running, &(B, value(i) as u64));
                running.1
            })
            .collect();
        let reducer = Custom::new(|| (1u64, 0u64), hash_join);
        for (what, p) in common::policy_configs(exec, 0, n) {
            let out = View::<u64, 1>::new("hashes", [n]).unwrap();
            let total = {
                // SAFETY: the final pass of iteration i writes element i only.
                let o = unsafe { out.parallel_mut().unwrap() };
                parallel_scan_with(
                    "hash",
                    p,
                    |i: usize, s: &mut Hash, fin: bool| {
                        hash_join(s, &(B, value(i) as u64));
                        if fin {
                            o.set(i, s.1);
                        }
                    },
                    reducer.clone(),
                )
                .unwrap()
            };
            assert_eq!(out.to_vec().unwrap(), expected, "{what}");
            assert_eq!(total, running, "{what}");
        }
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}
