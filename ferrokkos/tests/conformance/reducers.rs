//! The built-in reducers of `parallel_reduce` on every space: sums, products, minima and maxima,
//! their locations (ties go to the smallest location, the most negative for signed locations,
//! whatever the schedule), min-max, logical and bitwise reducers on known data of several types,
//! tuples of reducers in one pass, the reduction targets (`&mut` scalar, rank-0 View,
//! `into_result`) and the identities of an empty range (Kokkos' `reduction_identity`).

use ferrokkos::Result;
use ferrokkos::prelude::*;

use crate::spaces::{SView, policies, upload};

/// Known data: values from a period-101 pattern with tied extremes far apart (the minimum at 3 and
/// at the last index, the maximum at 0, n / 2 and n - 3).
fn pattern(n: usize, offset: i64) -> Vec<i64> {
    let mut x: Vec<i64> = (0..n).map(|i| ((i * 37) % 101) as i64 - offset).collect();
    x[3] = -1000 + 1000 * (offset == 0) as i64;
    x[n - 1] = x[3];
    for i in [0, n / 2, n - 3] {
        x[i] = 1000;
    }
    x
}

/// The built-in reducers over the values of `$t` (made from [`pattern`] by `as`), against plain
/// Rust, for `n` in a small size (one block) and a large one (many blocks on a GPU).
macro_rules! reducers_on {
    ($name:ident, $t:ident, $offset:expr) => {
        fn $name<S: Launch>(exec: &S) -> Result<()> {
            for n in [100usize, 100_003] {
                let xs: Vec<$t> = pattern(n, $offset).into_iter().map(|v| v as $t).collect();
                let x = upload::<S, $t>("x", &xs)?;
                for (what, p) in policies(exec, 0, n)? {
                    let what = format!("{what} n {n} {}", stringify!($t));
                    // Sums of these values are exact in any order, floats included.
                    let sum: $t = parallel_reduce(
                        "sum",
                        p.clone(),
                        kernel!(|i, a: &mut $t| *a += x[i]),
                        Sum::new(),
                    )?;
                    assert_eq!(sum, xs.iter().fold(0 as $t, |a, v| a + v), "{what}");
                    let min: $t = parallel_reduce(
                        "min",
                        p.clone(),
                        kernel!(|i, a: &mut $t| *a = (*a).min(x[i])),
                        Min::new(),
                    )?;
                    let max: $t = parallel_reduce(
                        "max",
                        p.clone(),
                        kernel!(|i, a: &mut $t| *a = (*a).max(x[i])),
                        Max::new(),
                    )?;
                    let lo = xs
                        .iter()
                        .copied()
                        .fold(xs[0], |a, v| if v < a { v } else { a });
                    let hi = xs
                        .iter()
                        .copied()
                        .fold(xs[0], |a, v| if v > a { v } else { a });
                    assert_eq!((min, max), (lo, hi), "{what}");
                    let minloc = parallel_reduce(
                        "minloc",
                        p.clone(),
                        kernel!(|i, a: &mut ValLocScalar<$t, usize>| {
                            if x[i] < a.val {
                                a.val = x[i];
                                a.loc = i;
                            }
                        }),
                        MinLoc::<$t, usize>::new(),
                    )?;
                    let at_lo = xs.iter().position(|v| *v == lo).unwrap();
                    assert_eq!(
                        (minloc.val, minloc.loc),
                        (lo, at_lo),
                        "{what}: smallest location"
                    );
                    let maxloc = parallel_reduce(
                        "maxloc",
                        p.clone(),
                        kernel!(|i, a: &mut ValLocScalar<$t, usize>| {
                            if x[i] > a.val {
                                a.val = x[i];
                                a.loc = i;
                            }
                        }),
                        MaxLoc::<$t, usize>::new(),
                    )?;
                    let at_hi = xs.iter().position(|v| *v == hi).unwrap();
                    assert_eq!(
                        (maxloc.val, maxloc.loc),
                        (hi, at_hi),
                        "{what}: smallest location"
                    );
                    let mm = parallel_reduce(
                        "minmax",
                        p.clone(),
                        kernel!(|i, a: &mut MinMaxScalar<$t>| {
                            a.min_val = a.min_val.min(x[i]);
                            a.max_val = a.max_val.max(x[i]);
                        }),
                        MinMax::<$t>::new(),
                    )?;
                    assert_eq!((mm.min_val, mm.max_val), (lo, hi), "{what}");
                    let mml = parallel_reduce(
                        "minmaxloc",
                        p.clone(),
                        kernel!(|i, a: &mut MinMaxLocScalar<$t, usize>| {
                            if x[i] < a.min_val {
                                a.min_val = x[i];
                                a.min_loc = i;
                            }
                            if x[i] > a.max_val {
                                a.max_val = x[i];
                                a.max_loc = i;
                            }
                        }),
                        MinMaxLoc::<$t, usize>::new(),
                    )?;
                    assert_eq!(
                        (mml.min_val, mml.min_loc, mml.max_val, mml.max_loc),
                        (lo, at_lo, hi, at_hi),
                        "{what}"
                    );
                    let any = parallel_reduce(
                        "lor",
                        p.clone(),
                        kernel!(|i, a: &mut bool| *a = *a || x[i] == hi),
                        LOr,
                    )?;
                    let none = parallel_reduce(
                        "lor",
                        p.clone(),
                        kernel!(|i, a: &mut bool| *a = *a || x[i] > hi),
                        LOr,
                    )?;
                    let all = parallel_reduce(
                        "land",
                        p.clone(),
                        kernel!(|i, a: &mut bool| *a = *a && x[i] >= lo),
                        LAnd,
                    )?;
                    let not_all = parallel_reduce(
                        "land",
                        p.clone(),
                        kernel!(|i, a: &mut bool| *a = *a && x[i] < hi),
                        LAnd,
                    )?;
                    assert_eq!(
                        (any, none, all, not_all),
                        (true, false, true, false),
                        "{what}"
                    );
                    // Into a `&mut` scalar (overwritten, as in Kokkos) and through into_result.
                    let mut s = 77 as $t;
                    parallel_reduce(
                        "into",
                        p.clone(),
                        kernel!(|i, a: &mut $t| *a += x[i]),
                        &mut s,
                    )?;
                    assert_eq!(s, sum, "{what}: &mut target");
                    let mut m = 77 as $t;
                    parallel_reduce(
                        "into_result",
                        p.clone(),
                        kernel!(|i, a: &mut $t| *a = (*a).max(x[i])),
                        Max::new().into_result(&mut m),
                    )?;
                    assert_eq!(m, hi, "{what}: into_result");
                    // Into a rank-0 View of the space.
                    let v0 = SView::<S, $t, 0>::new("r", [])?;
                    deep_copy(&v0, 77 as $t)?;
                    parallel_reduce(
                        "into view",
                        p.clone(),
                        kernel!(|i, a: &mut $t| *a += x[i]),
                        &v0,
                    )?;
                    let mut back = 0 as $t;
                    deep_copy(&mut back, &v0)?;
                    assert_eq!(back, sum, "{what}: rank-0 View target");
                    // A tuple of reducers, in one pass.
                    let (ts, tm, tl, tb) = parallel_reduce(
                        "tuple",
                        p.clone(),
                        kernel!(|i,
                                 s: &mut $t,
                                 m: &mut $t,
                                 l: &mut ValLocScalar<$t, usize>,
                                 b: &mut bool| {
                            *s += x[i];
                            *m = (*m).max(x[i]);
                            if x[i] < l.val {
                                l.val = x[i];
                                l.loc = i;
                            }
                            *b = *b || x[i] == lo;
                        }),
                        (Sum::new(), Max::new(), MinLoc::new(), LOr),
                    )?;
                    assert_eq!(
                        (ts, tm, tl.val, tl.loc, tb),
                        (sum, hi, lo, at_lo, true),
                        "{what}"
                    );
                }
            }
            Ok(())
        }
        per_space!($name, $name);
    };
}

reducers_on!(reducers_on_i32, i32, 50);
reducers_on!(reducers_on_i64, i64, 50);
reducers_on!(reducers_on_u64, u64, 0);
reducers_on!(reducers_on_f32, f32, 50);
reducers_on!(reducers_on_f64, f64, 50);

fn products_and_bitwise_reducers<S: Launch>(exec: &S) -> Result<()> {
    let n = 100_003usize;
    for (what, p) in policies(exec, 0, n)? {
        // Powers of two multiply exactly in any order.
        let prod: f64 = parallel_reduce(
            "prod",
            p.clone(),
            kernel!(|i, a: &mut f64| {
                if i < 300 {
                    *a *= 2f64.powi((i % 5) as i32 - 1)
                }
            }),
            Prod::new(),
        )?;
        assert_eq!(prod, 2f64.powi(300), "{what}");
        let fprod: f32 = parallel_reduce(
            "prod f32",
            p.clone(),
            kernel!(|i, a: &mut f32| {
                if i % 1000 == 7 {
                    *a *= 0.5
                }
            }),
            Prod::new(),
        )?;
        assert_eq!(fprod, 0.5f32.powi(100), "{what}");
        let iprod: i64 = parallel_reduce(
            "prod i64",
            p.clone(),
            kernel!(|i, a: &mut i64| {
                if i < 20 {
                    *a *= (i % 3 + 1) as i64
                }
            }),
            Prod::new(),
        )?;
        assert_eq!(iprod, 2i64.pow(7) * 3i64.pow(6), "{what}");
        let uprod: u32 = parallel_reduce(
            "prod u32",
            p.clone(),
            kernel!(|i, a: &mut u32| {
                if i % 10_000 == 1 {
                    *a *= 3
                }
            }),
            Prod::new(),
        )?;
        let ones = (0..n).filter(|i| i % 10_000 == 1).count() as u32;
        assert_eq!(uprod, 3u32.pow(ones), "{what}");
        let band: u32 = parallel_reduce(
            "band",
            p.clone(),
            kernel!(|i, a: &mut u32| *a &= (i as u32).wrapping_mul(2_654_435_761) | 0x8000_0001),
            BAnd::new(),
        )?;
        let bor: u32 = parallel_reduce(
            "bor",
            p.clone(),
            kernel!(|i, a: &mut u32| *a |= ((i as u32) & 0x0f0f) << 4),
            BOr::new(),
        )?;
        let bits = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) | 0x8000_0001);
        assert_eq!(band, bits.fold(!0, |a, b| a & b), "{what}");
        assert_eq!(
            bor,
            (0..n as u32).fold(0, |a, i| a | ((i & 0x0f0f) << 4)),
            "{what}"
        );
        let band64: u64 = parallel_reduce(
            "band u64",
            p.clone(),
            kernel!(|i, a: &mut u64| *a &= !(1u64 << (i % 61) as u32) | (i % 7 == 0) as u64),
            BAnd::new(),
        )?;
        let want = (0..n as u64).fold(!0u64, |a, i| {
            a & (!(1u64 << (i % 61)) | (i % 7 == 0) as u64)
        });
        assert_eq!(band64, want, "{what}");
        let bor64: i64 = parallel_reduce(
            "bor i64",
            p.clone(),
            kernel!(|i, a: &mut i64| *a |= 1i64 << (i % 63) as u32),
            BOr::new(),
        )?;
        assert_eq!(bor64, i64::MAX, "{what}");
        // Six reducers, the most a tuple takes.
        type Six = (i64, i64, i64, i64, bool, u8);
        let six: Six = parallel_reduce(
            "six",
            p.clone(),
            kernel!(|i,
                     s: &mut i64,
                     pr: &mut i64,
                     lo: &mut i64,
                     hi: &mut i64,
                     all: &mut bool,
                     bits: &mut u8| {
                let v = (i % 7) as i64 - 3;
                *s += v;
                if i == 42 {
                    *pr *= 2;
                }
                *lo = (*lo).min(v);
                *hi = (*hi).max(v);
                *all = *all && v < 4;
                *bits |= 1u8 << (i % 8) as u32;
            }),
            (
                Sum::new(),
                Prod::new(),
                Min::new(),
                Max::new(),
                LAnd,
                BOr::new(),
            ),
        )?;
        let total: i64 = (0..n).map(|i| (i % 7) as i64 - 3).sum();
        assert_eq!(six, (total, 2, -3, 3, true, 0xff), "{what}");
    }
    Ok(())
}
per_space!(products_and_bitwise_reducers, products_and_bitwise_reducers);

fn empty_ranges_reduce_to_each_reducers_identity<S: Launch>(exec: &S) -> Result<()> {
    let p = RangePolicy::new(exec, 7usize, 7)?;
    let f = || RangePolicy::new(exec, 7usize, 7);
    let floats: (f64, f64, f64, f64) = parallel_reduce(
        "floats",
        p.clone(),
        kernel!(
            |_i, s: &mut f64, pr: &mut f64, lo: &mut f64, hi: &mut f64| {
                *s += 1.0;
                *pr *= 3.0;
                *lo = 0.0;
                *hi = 0.0;
            }
        ),
        (Sum::new(), Prod::new(), Min::new(), Max::new()),
    )?;
    assert_eq!(
        floats,
        (0.0, 1.0, f64::MAX, f64::MIN),
        "lowest finite, not -inf"
    );
    let ints: (i32, i32, u16, u16) = parallel_reduce(
        "ints",
        f()?,
        kernel!(
            |_i, lo: &mut i32, hi: &mut i32, and: &mut u16, or: &mut u16| {
                *lo = 0;
                *hi = 0;
                *and = 0;
                *or = 1;
            }
        ),
        (Min::new(), Max::new(), BAnd::new(), BOr::new()),
    )?;
    assert_eq!(ints, (i32::MAX, i32::MIN, u16::MAX, 0));
    let logic: (bool, bool) = parallel_reduce(
        "logic",
        f()?,
        kernel!(|_i, all: &mut bool, any: &mut bool| {
            *all = false;
            *any = true;
        }),
        (LAnd, LOr),
    )?;
    assert_eq!(logic, (true, false));
    let min = parallel_reduce(
        "minloc",
        f()?,
        kernel!(|i, a: &mut ValLocScalar<f64, usize>| {
            a.val = 0.0;
            a.loc = i;
        }),
        MinLoc::<f64, usize>::new(),
    )?;
    assert_eq!((min.val, min.loc), (f64::MAX, usize::MAX));
    let max = parallel_reduce(
        "maxloc",
        f()?,
        kernel!(|i, a: &mut ValLocScalar<i64, usize>| {
            a.val = 0;
            a.loc = i;
        }),
        MaxLoc::<i64, usize>::new(),
    )?;
    assert_eq!((max.val, max.loc), (i64::MIN, usize::MAX));
    let mm = parallel_reduce(
        "minmax",
        f()?,
        kernel!(|_i, a: &mut MinMaxScalar<f32>| a.min_val = 0.0),
        MinMax::<f32>::new(),
    )?;
    assert_eq!((mm.min_val, mm.max_val), (f32::MAX, f32::MIN));
    let mml = parallel_reduce(
        "minmaxloc",
        f()?,
        kernel!(|_i, a: &mut MinMaxLocScalar<i32, usize>| a.min_loc = 0),
        MinMaxLoc::<i32, usize>::new(),
    )?;
    assert_eq!(
        (mml.min_val, mml.min_loc, mml.max_val, mml.max_loc),
        (i32::MAX, usize::MAX, i32::MIN, usize::MAX)
    );
    let mut s = 42.0;
    parallel_reduce("into", f()?, kernel!(|_i, a: &mut f64| *a += 1.0), &mut s)?;
    assert_eq!(s, 0.0, "the result is overwritten, not added to");
    let v0 = SView::<S, f64, 0>::new("e0", [])?;
    deep_copy(&v0, 42.0)?;
    parallel_reduce("into view", f()?, kernel!(|_i, a: &mut f64| *a += 1.0), &v0)?;
    let mut back = 1.0;
    deep_copy(&mut back, &v0)?;
    assert_eq!(back, 0.0);
    let p = RangePolicy::new(exec, -3i32, -3)?;
    let m = parallel_reduce(
        "signed loc",
        p,
        kernel!(|i: i32, a: &mut ValLocScalar<u8, i32>| {
            a.val = 0;
            a.loc = i;
        }),
        MinLoc::<u8, i32>::new(),
    )?;
    assert_eq!((m.val, m.loc), (u8::MAX, i32::MAX));
    Ok(())
}
per_space!(
    empty_ranges_reduce_to_each_reducers_identity,
    empty_ranges_reduce_to_each_reducers_identity
);

fn signed_locations_break_ties_by_the_most_negative<S: Launch>(exec: &S) -> Result<()> {
    for (what, p) in policies(exec, -50_000i64, 50_000)? {
        let m = parallel_reduce(
            "minloc i64",
            p,
            kernel!(|i: i64, a: &mut ValLocScalar<i64, i64>| {
                let v = if i == -50_000 || i == 49_999 || i == 3 {
                    -9
                } else {
                    i.abs()
                };
                if v < a.val {
                    a.val = v;
                    a.loc = i;
                }
            }),
            MinLoc::<i64, i64>::new(),
        )?;
        assert_eq!((m.val, m.loc), (-9, -50_000), "{what}");
    }
    Ok(())
}
per_space!(
    signed_locations_break_ties_by_the_most_negative,
    signed_locations_break_ties_by_the_most_negative
);

fn location_ties_late_in_the_range_go_to_the_smallest_location<S: Launch>(exec: &S) -> Result<()> {
    // The extreme only in the later part of the range (the last threads' or blocks' shares), twice.
    for (what, p) in policies(exec, 0, 100_003usize)? {
        let max = parallel_reduce(
            "late maxloc",
            p.clone(),
            kernel!(|i, a: &mut ValLocScalar<i32, usize>| {
                let v = if i == 60_000 || i == 98_000 {
                    7
                } else {
                    (i % 5) as i32
                };
                if v > a.val {
                    a.val = v;
                    a.loc = i;
                }
            }),
            MaxLoc::<i32, usize>::new(),
        )?;
        assert_eq!((max.val, max.loc), (7, 60_000), "{what}");
        let min = parallel_reduce(
            "late minloc",
            p,
            kernel!(|i, a: &mut ValLocScalar<f64, usize>| {
                let v = if i == 99_999 || i == 70_001 {
                    -1.5
                } else {
                    (i % 7) as f64
                };
                if v < a.val {
                    a.val = v;
                    a.loc = i;
                }
            }),
            MinLoc::<f64, usize>::new(),
        )?;
        assert_eq!((min.val, min.loc), (-1.5, 70_001), "{what}");
    }
    Ok(())
}
per_space!(
    location_ties_late_in_the_range_go_to_the_smallest_location,
    location_ties_late_in_the_range_go_to_the_smallest_location
);
