//! Reducers beyond the built-in ones, on the host spaces: tuples of reducers (one pass, up to six,
//! each finalized), `Custom` reducers (init, join and final step; values that are not `Copy`) and a
//! `Reducer` implemented by the test (through `ByValue`).

use std::sync::atomic::{AtomicU32, Ordering};

use ferrokkos::ByValue;
use ferrokkos::prelude::*;
use ferrokkos::traits::HostExecutionSpace;

use crate::common;
use crate::reduce_targets::{N, data, red, vl};

#[test]
fn tuple_of_reducers_runs_several_reductions_in_one_pass() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        let x = data();
        for (what, p) in common::policy_configs(exec, 0, N) {
            let calls = AtomicU32::new(0);
            let target = (Sum::new(), Max::new(), MinLoc::new());
            let (s, m, l) = red(
                &p,
                target,
                |i: usize, a: &mut (f64, f64, ValLocScalar<f64, usize>)| {
                    calls.fetch_add(1, Ordering::Relaxed);
                    a.0 += x[i];
                    a.1 = a.1.max(x[i]);
                    if x[i] < a.2.val {
                        a.2 = vl(x[i], i);
                    }
                },
            );
            assert_eq!(calls.load(Ordering::Relaxed), N as u32, "{what}: one pass");
            assert!((s - x.iter().sum::<f64>()).abs() < 1e-9, "{what}");
            assert_eq!((m, l), (1000.0, vl(-1000.0, 3)), "{what}");
            // Six reducers, the most a tuple takes.
            let six = (
                Sum::new(),
                Prod::new(),
                Min::new(),
                Max::new(),
                LAnd,
                BOr::new(),
            );
            type Six = (i64, i64, i64, i64, bool, u8);
            let r = red(&p, six, |i: usize, a: &mut Six| {
                let v = (i % 7) as i64 - 3;
                (a.0, a.1, a.2, a.3) = (
                    a.0 + v,
                    a.1 * (1 + (i == 42) as i64),
                    a.2.min(v),
                    a.3.max(v),
                );
                (a.4, a.5) = (a.4 && v < 4, a.5 | (1 << (i % 8)));
            });
            let total: i64 = (0..N).map(|i| (i % 7) as i64 - 3).sum();
            assert_eq!(r, (total, 2, -3, 3, true, 0xff), "{what}");
            // A tuple finalizes each element: the Custom mean inside is divided once.
            let target = (Sum::new(), mean_reducer());
            let (count, mean) = red(&p, target, |i: usize, a: &mut (u32, (f64, u32))| {
                a.0 += 1;
                a.1.0 += i as f64;
                a.1.1 += 1;
            });
            assert_eq!((count, mean), (N as u32, (49.5, N as u32)), "{what}");
        }
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}

type MeanValue = (f64, u32);

/// A Custom reducer made of plain functions (an opaque `impl Reducer` return type would hide the
/// `ReduceTarget` associated types).
type MeanCustom = Custom<fn() -> MeanValue, fn(&mut MeanValue, &MeanValue), fn(&mut MeanValue)>;

/// A Custom reducer: (sum, count), the sum divided by the count at the end.
fn mean_reducer() -> MeanCustom {
    Custom::new(
        (|| (0.0, 0)) as fn() -> MeanValue,
        (|d: &mut MeanValue, s: &MeanValue| {
            d.0 += s.0;
            d.1 += s.1;
        }) as fn(&mut MeanValue, &MeanValue),
    )
    .with_final((|v: &mut MeanValue| v.0 /= v.1 as f64) as fn(&mut MeanValue))
}

#[test]
fn custom_reducer_uses_init_join_and_final() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        for (what, p) in common::policy_configs(exec, 1, 101) {
            let kernel = |i: usize, a: &mut (f64, u32)| {
                a.0 += i as f64;
                a.1 += 1;
            };
            assert_eq!(red(&p, mean_reducer(), kernel), (50.5, 100), "{what}");
            // No final step: the two largest values, a join that is not a plain arithmetic op.
            let top2 = Custom::new(
                || (i64::MIN, i64::MIN),
                |d: &mut (i64, i64), s: &(i64, i64)| {
                    let mut all = [d.0, d.1, s.0, s.1];
                    all.sort_unstable();
                    *d = (all[3], all[2]);
                },
            );
            let best = red(&p, top2, |i: usize, a: &mut (i64, i64)| {
                let v = ((i * 37) % 101) as i64;
                if v > a.0 {
                    *a = (v, a.0);
                } else if v > a.1 {
                    a.1 = v;
                }
            });
            assert_eq!(best, (100, 99), "{what}");
        }
        // A value that is not Copy: a histogram in a Vec.
        let hist = Custom::new(
            || vec![0u64; 10],
            |d: &mut Vec<u64>, s: &Vec<u64>| d.iter_mut().zip(s).for_each(|(d, s)| *d += s),
        );
        for (what, p) in common::policy_configs(exec, 0, 1000) {
            let h = red(&p, hist.clone(), |i: usize, h: &mut Vec<u64>| {
                h[i % 10] += 1
            });
            assert_eq!(h, vec![100; 10], "{what}");
        }
        let empty = RangePolicy::new(exec, 0, 0).unwrap();
        let top = Custom::new(|| -1i32, |d: &mut i32, s: &i32| *d = (*d).max(*s));
        assert_eq!(red(&empty, top, |_: usize, _: &mut i32| {}), -1);
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}

/// A reducer implemented by the test: a histogram of four buckets.
struct Histogram;

impl Reducer for Histogram {
    type Value = [u32; 4];
    fn init(&self) -> [u32; 4] {
        [0; 4]
    }
    fn join(&self, dst: &mut [u32; 4], src: &[u32; 4]) {
        for (d, s) in dst.iter_mut().zip(src) {
            *d += s;
        }
    }
}

/// A reducer implemented by the test, with a final step: (count, sum) turned into (count, mean).
struct Mean;

impl Reducer for Mean {
    type Value = (u64, f64);
    fn init(&self) -> (u64, f64) {
        (0, 0.0)
    }
    fn join(&self, dst: &mut (u64, f64), src: &(u64, f64)) {
        dst.0 += src.0;
        dst.1 += src.1;
    }
    fn finalize(&self, v: &mut (u64, f64)) {
        v.1 /= v.0 as f64;
    }
}

#[test]
fn by_value_runs_a_reducer_implemented_by_the_user() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        for (what, p) in common::policy_configs(exec, 0, 1000) {
            let bucket = |i: usize, h: &mut [u32; 4]| h[(i * i) % 4] += 1;
            let h = red(&p, ByValue(Histogram), bucket);
            assert_eq!(h, [500, 500, 0, 0], "{what}"); // squares are 0 or 1 mod 4
            let count_and_sum = |i: usize, a: &mut (u64, f64)| *a = (a.0 + 1, a.1 + i as f64);
            assert_eq!(
                red(&p, ByValue(Mean), count_and_sum),
                (1000, 499.5),
                "{what}"
            );
            let mut into = (0, 0.0);
            red(&p, Mean.into_result(&mut into), count_and_sum);
            assert_eq!(into, (1000, 499.5), "{what}");
        }
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}

/// A non-commutative join: the polynomial hash of a sequence, as (B^len, hash), all wrapping.
fn hash_join(d: &mut (u64, u64), s: &(u64, u64)) {
    *d = (
        d.0.wrapping_mul(s.0),
        d.1.wrapping_mul(s.0).wrapping_add(s.1),
    );
}

const HASH_B: u64 = 1_000_003;

/// On Threads, the proven runs of a `kernel!` reduction go in chunks whose contributions are
/// regrouped (so that the body vectorizes), never reordered: a join that is associative but not
/// commutative still gives the sequential fold, over runs of every length around the chunk and
/// block sizes, in one and two dimensions, and on Serial too.
#[test]
fn kernel_reductions_regroup_but_never_reorder_contributions() {
    common::runtime();
    fn check<S: HostExecutionSpace + Launch>(exec: &S) {
        let n = 1100;
        let x = View::<u64, 1>::new("x", [n]).unwrap();
        let grid = View::<u64, 2>::new("grid", [7, 300]).unwrap();
        {
            let mut h = x.host_mut().unwrap();
            for i in 0..n {
                h[i] = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 7;
            }
            let mut g = grid.host_mut().unwrap();
            for r in 0..7 {
                for c in 0..300 {
                    g[(r, c)] = (r * 1000 + c) as u64 ^ 0x5555;
                }
            }
        }
        let (xs, gs) = (x.to_vec().unwrap(), grid.to_vec().unwrap());
        let fold = |values: &mut dyn Iterator<Item = u64>| {
            let mut h = (1, 0);
            for v in values {
                hash_join(&mut h, &(HASH_B, v));
            }
            h
        };
        let b = HASH_B;
        for len in [0, 1, 7, 8, 15, 16, 17, 127, 128, 129, 255, 256, 1000, 1100] {
            for begin in [0, 3] {
                let end = len.max(begin);
                let p = RangePolicy::new(exec, begin, end).unwrap();
                let got = parallel_reduce(
                    "hash",
                    p,
                    kernel!(|i, m: &mut u64, h: &mut u64| {
                        *h = h.wrapping_mul(b).wrapping_add(x[i]);
                        *m = m.wrapping_mul(b);
                    }),
                    Custom::new(|| (1u64, 0u64), hash_join),
                )
                .unwrap();
                let want = fold(&mut xs[begin..end].iter().copied());
                assert_eq!(got, want, "{} over {begin}..{end}", S::NAME);
            }
        }
        for (lo, hi) in [([0, 0], [7, 300]), ([1, 5], [6, 290]), ([2, 0], [3, 17])] {
            for iterate in [Iterate::Right, Iterate::Left] {
                let p = MDRangePolicy::new(exec, lo, hi).unwrap().iterate(iterate);
                let got = parallel_reduce(
                    "hash2",
                    p,
                    kernel!(|(r, c), m: &mut u64, h: &mut u64| {
                        *h = h.wrapping_mul(b).wrapping_add(grid[(r, c)]);
                        *m = m.wrapping_mul(b);
                    }),
                    Custom::new(|| (1u64, 0u64), hash_join),
                )
                .unwrap();
                let (rows, cols) = (
                    lo[0] as usize..hi[0] as usize,
                    lo[1] as usize..hi[1] as usize,
                );
                let want = match iterate {
                    Iterate::Right => fold(
                        &mut rows
                            .clone()
                            .flat_map(|r| cols.clone().map(move |c| (r, c)))
                            .map(|(r, c)| gs[r * 300 + c]),
                    ),
                    Iterate::Left => fold(
                        &mut cols
                            .clone()
                            .flat_map(|c| rows.clone().map(move |r| (r, c)))
                            .map(|(r, c)| gs[r * 300 + c]),
                    ),
                };
                assert_eq!(got, want, "{} over {lo:?}..{hi:?} {iterate:?}", S::NAME);
            }
        }
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}
