//! Conformance tests for the reducers of `parallel_reduce`: every built-in reducer on known data,
//! the location reducers' tie-breaking (smallest location wins, whatever the schedule), the identities
//! of an empty range (Kokkos' `reduction_identity`), the reduction targets (`&mut` scalar, rank-0 View,
//! `into_result`), tuples of reducers, `Custom` reducers and a `Reducer` implemented by the test
//! (through `ByValue`).

mod common;

use std::sync::atomic::{AtomicU32, Ordering};

use ferrokkos::prelude::*;
use ferrokkos::{BorrowKind, HostExecutionSpace, ReduceFunctor};
use ferrokkos::{ByValue, ReduceTarget};

const N: usize = 100;

/// Known data with tied extremes in different threads' shares: the minimum -1000 at 3 and 99 (the
/// last index), the maximum 1000 at 0, 50 and 77.
fn data() -> Vec<f64> {
    let mut x: Vec<f64> = (0..N).map(|i| ((i * 37) % 101) as f64 - 50.5).collect();
    x[3] = -1000.0;
    x[99] = -1000.0;
    for i in [0, 50, 77] {
        x[i] = 1000.0;
    }
    x
}

/// `parallel_reduce` over a clone of `p` into `target`, unwrapped.
fn red<S, T, K>(p: &RangePolicy<S>, target: T, kernel: K) -> T::Output
where
    S: HostExecutionSpace,
    T: ReduceTarget,
    K: ReduceFunctor<usize, <T::Reducer as Reducer>::Value>,
{
    parallel_reduce("reducers", p.clone(), kernel, target).unwrap()
}

/// A value and its location.
fn vl<T, I>(val: T, loc: I) -> ValLocScalar<T, I> {
    ValLocScalar { val, loc }
}

fn arithmetic_and_logical<S: HostExecutionSpace>(exec: &S) {
    let x = data();
    let bits: Vec<u32> = (0..N as u32)
        .map(|i| i.wrapping_mul(2_654_435_761) | 0x8000_0001)
        .collect();
    let sum_x: f64 = x.iter().sum();
    for (what, p) in common::policy_configs(exec, 0, N) {
        let sum = red(&p, Sum::new(), |i: usize, a: &mut f64| *a += x[i]);
        assert!((sum - sum_x).abs() < 1e-9, "{what}");
        let isum = red(&p, Sum::new(), |i: usize, a: &mut i64| *a += i as i64);
        assert_eq!(isum, 4950, "{what}");
        // Powers of two multiply exactly in any order.
        let prod = red(&p, Prod::new(), |i: usize, a: &mut f64| {
            *a *= 2f64.powi((i % 5) as i32 - 1)
        });
        assert_eq!(prod, 2f64.powi(100), "{what}");
        let iprod = red(&p, Prod::new(), |i: usize, a: &mut i64| {
            *a *= if i < 20 { (i % 3 + 1) as i64 } else { 1 }
        });
        assert_eq!(iprod, 2i64.pow(7) * 3i64.pow(6), "{what}");
        let min = red(&p, Min::new(), |i: usize, a: &mut f64| *a = a.min(x[i]));
        let max = red(&p, Max::new(), |i: usize, a: &mut f64| *a = a.max(x[i]));
        assert_eq!((min, max), (-1000.0, 1000.0), "{what}");
        let all = red(&p, LAnd, |i: usize, a: &mut bool| *a = *a && x[i] > -1e4);
        let not_all = red(&p, LAnd, |i: usize, a: &mut bool| *a = *a && x[i] < 999.0);
        assert_eq!((all, not_all), (true, false), "{what}");
        let any = red(&p, LOr, |i: usize, a: &mut bool| *a = *a || x[i] == -1000.0);
        let none = red(&p, LOr, |i: usize, a: &mut bool| *a = *a || x[i] > 1e4);
        assert_eq!((any, none), (true, false), "{what}");
        let band = red(&p, BAnd::new(), |i: usize, a: &mut u32| *a &= bits[i]);
        let bor = red(&p, BOr::new(), |i: usize, a: &mut u32| *a |= bits[i]);
        assert_eq!(band, bits.iter().fold(!0, |a, b| a & b), "{what}");
        assert_eq!(bor, bits.iter().fold(0, |a, b| a | b), "{what}");
        let mm = red(&p, MinMax::new(), |i: usize, a: &mut MinMaxScalar<f64>| {
            a.min_val = a.min_val.min(x[i]);
            a.max_val = a.max_val.max(x[i]);
        });
        assert_eq!((mm.min_val, mm.max_val), (-1000.0, 1000.0), "{what}");
    }
}

#[test]
fn arithmetic_and_logical_reducers_give_known_results() {
    common::runtime();
    let threads = Threads::default_instance().unwrap();
    arithmetic_and_logical(&Serial::default_instance().unwrap());
    arithmetic_and_logical(&threads);
    arithmetic_and_logical(&partition_space(&threads, 2).unwrap()[1]);
}

fn location_ties<S: HostExecutionSpace>(exec: &S) {
    let x = data();
    for (what, p) in common::policy_configs(exec, 0, N) {
        let min = red(
            &p,
            MinLoc::new(),
            |i: usize, a: &mut ValLocScalar<f64, usize>| {
                if x[i] < a.val {
                    *a = vl(x[i], i);
                }
            },
        );
        assert_eq!(min, vl(-1000.0, 3), "{what}");
        let max = red(
            &p,
            MaxLoc::new(),
            |i: usize, a: &mut ValLocScalar<f64, usize>| {
                if x[i] > a.val {
                    *a = vl(x[i], i);
                }
            },
        );
        assert_eq!(max, vl(1000.0, 0), "{what}");
        let both = red(
            &p,
            MinMaxLoc::new(),
            |i: usize, a: &mut MinMaxLocScalar<f64, usize>| {
                if x[i] < a.min_val {
                    (a.min_val, a.min_loc) = (x[i], i);
                }
                if x[i] > a.max_val {
                    (a.max_val, a.max_loc) = (x[i], i);
                }
            },
        );
        let found = (both.min_val, both.min_loc, both.max_val, both.max_loc);
        assert_eq!(found, (-1000.0, 3, 1000.0, 0), "{what}");
        // Only the later share holds the extreme, twice: still the smaller location.
        let late = red(
            &p,
            MaxLoc::new(),
            |i: usize, a: &mut ValLocScalar<i32, usize>| {
                let v = if i == 60 || i == 98 {
                    7
                } else {
                    (i % 5) as i32
                };
                if v > a.val {
                    *a = vl(v, i);
                }
            },
        );
        assert_eq!(late, vl(7, 60), "{what}");
    }
    // Signed locations: the most negative tied location wins.
    for (what, p) in common::policy_configs(exec, -50i64, 50) {
        let m = parallel_reduce(
            "minloc_i64",
            p,
            |i: i64, a: &mut ValLocScalar<i64, i64>| {
                let v = if i == -50 || i == 49 { -9 } else { i.abs() };
                if v < a.val {
                    *a = vl(v, i);
                }
            },
            MinLoc::new(),
        );
        assert_eq!(m.unwrap(), vl(-9, -50), "{what}");
    }
}

#[test]
fn location_reducers_break_ties_by_the_smallest_location() {
    common::runtime();
    location_ties(&Serial::default_instance().unwrap());
    location_ties(&Threads::default_instance().unwrap());
}

/// Called by kernels that must not run.
fn never(what: &str) {
    panic!("{what}: a kernel ran on an empty range")
}

fn identities<S: HostExecutionSpace>(exec: &S) {
    for (what, p) in common::policy_configs(exec, 7usize, 7) {
        let f = |_: usize, _: &mut f64| never(&what);
        let floats = (red(&p, Sum::new(), f), red(&p, Prod::new(), f));
        assert_eq!(floats, (0.0, 1.0), "{what}");
        let floats = (red(&p, Min::new(), f), red(&p, Max::new(), f));
        assert_eq!(
            floats,
            (f64::MAX, f64::MIN),
            "{what}: lowest finite, not -inf"
        );
        let i = |_: usize, _: &mut i32| never(&what);
        let ints = (red(&p, Min::new(), i), red(&p, Max::new(), i));
        assert_eq!(ints, (i32::MAX, i32::MIN), "{what}");
        let u = |_: usize, _: &mut u16| never(&what);
        let bits = (red(&p, BAnd::new(), u), red(&p, BOr::new(), u));
        assert_eq!(bits, (u16::MAX, 0), "{what}");
        let b = |_: usize, _: &mut bool| never(&what);
        assert_eq!((red(&p, LAnd, b), red(&p, LOr, b)), (true, false), "{what}");
        let loc = |_: usize, _: &mut ValLocScalar<f64, usize>| never(&what);
        let min = red(&p, MinLoc::new(), loc);
        let max = red(&p, MaxLoc::new(), loc);
        assert_eq!(min, vl(f64::MAX, usize::MAX), "{what}");
        assert_eq!(max, vl(f64::MIN, usize::MAX), "{what}");
        let mm = red(&p, MinMax::new(), |_: usize, _: &mut MinMaxScalar<f32>| {
            never(&what)
        });
        assert_eq!((mm.min_val, mm.max_val), (f32::MAX, f32::MIN), "{what}");
        let mml = |_: usize, _: &mut MinMaxLocScalar<i8, usize>| never(&what);
        let mml = red(&p, MinMaxLoc::new(), mml);
        let found = (mml.min_val, mml.min_loc, mml.max_val, mml.max_loc);
        assert_eq!(found, (i8::MAX, usize::MAX, i8::MIN, usize::MAX), "{what}");
        let mut s = 42.0;
        red(&p, &mut s, f);
        assert_eq!(s, 0.0, "{what}: the result is overwritten, not added to");
        let v0 = View::<f64, 0>::new("e0", []).unwrap();
        v0.set((), 42.0).unwrap();
        red(&p, &v0, f);
        assert_eq!(v0.get(()).unwrap(), 0.0, "{what}");
        red(&p, Min::new().into_result(&v0), f);
        assert_eq!(v0.get(()).unwrap(), f64::MAX, "{what}");
    }
    let p = RangePolicy::new(exec, -3i32, -3).unwrap();
    let m = parallel_reduce(
        "e",
        p,
        |_: i32, _: &mut ValLocScalar<u8, i32>| {},
        MinLoc::new(),
    );
    assert_eq!(m.unwrap(), vl(u8::MAX, i32::MAX));
}

#[test]
fn empty_range_reduces_to_each_reducers_identity() {
    common::runtime();
    identities(&Serial::default_instance().unwrap());
    identities(&Threads::default_instance().unwrap());
}

#[test]
fn reduce_into_scalar_and_rank0_view_and_result_places() {
    common::runtime();
    let threads = Threads::default_instance().unwrap();
    let x = data();
    let sum_x: f64 = x.iter().sum();
    let base = RangePolicy::new(&threads, 0, N).unwrap();
    let dynamic = base
        .clone()
        .schedule(Schedule::Dynamic)
        .chunk_size(7)
        .unwrap();
    for p in [base, dynamic] {
        let mut s = 1e6; // overwritten, as in Kokkos
        red(&p, &mut s, |i: usize, a: &mut f64| *a += x[i]);
        assert!((s - sum_x).abs() < 1e-9);
        let v0 = View::<f64, 0>::new("r", []).unwrap();
        v0.set((), 1e6).unwrap();
        red(&p, &v0, |i: usize, a: &mut f64| *a += x[i]);
        assert!((v0.get(()).unwrap() - sum_x).abs() < 1e-9);
        let mut m = 0.0;
        red(
            &p,
            Max::new().into_result(&mut m),
            |i: usize, a: &mut f64| *a = a.max(x[i]),
        );
        assert_eq!(m, 1000.0);
        let best = View::<f64, 0>::new("best", []).unwrap();
        red(
            &p,
            Min::new().into_result(&best),
            |i: usize, a: &mut f64| *a = a.min(x[i]),
        );
        assert_eq!(best.get(()).unwrap(), -1000.0);
        let mut loc = vl(0.0, 0);
        let kernel = |i: usize, a: &mut ValLocScalar<f64, usize>| {
            if x[i] < a.val {
                *a = vl(x[i], i);
            }
        };
        red(&p, MinLoc::new().into_result(&mut loc), kernel);
        assert_eq!(loc, vl(-1000.0, 3));
    }
}

#[test]
fn reduce_into_a_borrowed_rank0_view_is_a_borrow_error() {
    common::runtime();
    let exec = Serial::default_instance().unwrap();
    let v0 = View::<i64, 0>::new("busy", []).unwrap();
    let _reader = v0.host().unwrap();
    let p = RangePolicy::new(&exec, 0, 10).unwrap();
    let k = |i: usize, a: &mut i64| *a += i as i64;
    let r = parallel_reduce("busy", p.clone(), k, &v0);
    common::conflict(r, "busy", BorrowKind::Exclusive, BorrowKind::Shared);
    let r = parallel_reduce("busy", p, k, Max::new().into_result(&v0));
    common::conflict(r, "busy", BorrowKind::Exclusive, BorrowKind::Shared);
}

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
