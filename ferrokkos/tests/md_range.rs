//! Conformance tests for `MDRangePolicy` at ranks 2 to 6: every point of the box visited exactly
//! once (negative lower bounds, tiles that do not divide the extents, tiles larger than the box,
//! `Iterate::Left` and `Iterate::Right`) on Serial, Threads and a partition; the walk order on Serial;
//! MDRange reductions against sequential loops; empty boxes; and bad input (inverted bounds naming the
//! dimension, zero tile sizes, boxes of more than 2^64 points).

mod common;

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use ferrokkos::prelude::*;
use ferrokkos::{Error, HostExecutionSpace};

/// The number of points of the box `lower..upper`.
fn points<const R: usize>(lower: [i64; R], upper: [i64; R]) -> usize {
    (0..R).map(|r| (upper[r] - lower[r]) as usize).product()
}

/// The row-major position of `idx` in the box; panics if `idx` lies outside it.
fn flat<const R: usize>(idx: [i64; R], lower: [i64; R], upper: [i64; R]) -> usize {
    (0..R).fold(0, |acc, r| {
        assert!(
            lower[r] <= idx[r] && idx[r] < upper[r],
            "{idx:?} outside {lower:?}..{upper:?}"
        );
        acc * (upper[r] - lower[r]) as usize + (idx[r] - lower[r]) as usize
    })
}

/// A value per point, different for each dimension so that swapped indices would show.
fn weight<const R: usize>(idx: [i64; R]) -> i64 {
    idx.iter()
        .enumerate()
        .map(|(r, &x)| (x * 31 + r as i64 * 7) * (x - 3) * (r as i64 + 1))
        .sum::<i64>()
        + idx.iter().product::<i64>()
}

/// Every point of the box `lower..upper`, in row-major order.
fn all_points<const R: usize>(lower: [i64; R], upper: [i64; R]) -> Vec<[i64; R]> {
    let extents: [usize; R] = std::array::from_fn(|r| (upper[r] - lower[r]) as usize);
    common::indices(extents)
        .into_iter()
        .map(|o| std::array::from_fn(|r| lower[r] + o[r] as i64))
        .collect()
}

macro_rules! i64_of {
    ($v:ident) => {
        i64
    };
}

/// Checks, for both iteration orders and with default, given and oversized tiles, that every point
/// is visited once by `parallel_for` and that `parallel_reduce` sums `weight` exactly.
macro_rules! check_box {
    ($exec:expr, $lower:expr, $upper:expr, $tiles:expr, ($($v:ident),+)) => {{
        let (lower, upper) = ($lower, $upper);
        let n = points(lower, upper);
        let expected: i64 = all_points(lower, upper).into_iter().map(weight).sum();
        for order in [Iterate::Right, Iterate::Left] {
            for tiles in [None, Some($tiles), Some([100; { $lower.len() }])] {
                let what = format!("{:?} {lower:?}..{upper:?} {order:?} tiles {tiles:?}", $exec);
                let mut p = MDRangePolicy::new($exec, lower, upper).unwrap().iterate(order);
                if let Some(t) = tiles {
                    p = p.tile_sizes(t).unwrap();
                }
                assert_eq!(p.len(), n as u64, "{what}");
                let counts: Vec<AtomicU32> = (0..n).map(|_| AtomicU32::new(0)).collect();
                parallel_for("visit", p.clone(), |($($v),+): ($(i64_of!($v)),+)| {
                    counts[flat([$($v),+], lower, upper)].fetch_add(1, Ordering::Relaxed);
                })
                .unwrap();
                for (k, c) in counts.iter().enumerate() {
                    assert_eq!(c.load(Ordering::Relaxed), 1, "{what}: point {k}");
                }
                let sum = parallel_reduce(
                    "weights",
                    p,
                    |($($v),+): ($(i64_of!($v)),+), acc: &mut i64| *acc += weight([$($v),+]),
                    Sum::new(),
                )
                .unwrap();
                assert_eq!(sum, expected, "{what}");
            }
        }
    }};
}

fn every_rank<S: HostExecutionSpace>(exec: &S) {
    check_box!(exec, [-3i64, 2], [4, 9], [2, 3], (i, j));
    check_box!(exec, [-2i64, -5, 0], [3, 2, 3], [2, 3, 2], (i, j, k));
    check_box!(
        exec,
        [-1i64, 0, -2, 1],
        [2, 3, 1, 5],
        [2, 2, 2, 3],
        (i, j, k, l)
    );
    check_box!(
        exec,
        [-1i64, -1, 0, 0, -2],
        [1, 2, 2, 3, 1],
        [1, 2, 3, 2, 2],
        (i, j, k, l, m)
    );
    check_box!(
        exec,
        [-1i64, 0, -1, 0, -1, 0],
        [1, 2, 1, 3, 2, 2],
        [2, 1, 3, 2, 2, 1],
        (i, j, k, l, m, n)
    );
    // A single point, and a box with a unit extent.
    check_box!(exec, [7i64, -7], [8, -6], [3, 3], (i, j));
    check_box!(exec, [0i64, 0, 0], [1, 9, 2], [1, 4, 1], (i, j, k));
}

#[test]
fn md_range_for_and_reduce_visit_every_point_once_at_ranks_2_to_6() {
    common::runtime();
    let threads = Threads::default_instance().unwrap();
    every_rank(&Serial::default_instance().unwrap());
    every_rank(&threads);
    let parts = partition_space(&threads, 2).unwrap();
    std::thread::scope(|s| {
        for part in &parts {
            s.spawn(|| every_rank(part));
        }
    });
}

#[test]
fn md_range_tile_counts_follow_partial_tiles() {
    common::runtime();
    let exec = Serial::default_instance().unwrap();
    let p = MDRangePolicy::new(&exec, [-2i64, -5, 0], [3, 2, 3]).unwrap();
    assert_eq!(p.extents(), [5, 7, 3]);
    assert_eq!(
        (p.len(), p.get_tile_sizes(), p.tile_count()),
        (105, [1, 1, 3], 35)
    );
    let p = p.iterate(Iterate::Left);
    assert_eq!((p.get_tile_sizes(), p.tile_count()), ([5, 1, 1], 21));
    let p = p.tile_sizes([2, 3, 2]).unwrap();
    assert_eq!((p.get_tile_sizes(), p.tile_count()), ([2, 3, 2], 3 * 3 * 2));
    assert_eq!(
        (p.lower(), p.upper(), p.get_iterate()),
        ([-2, -5, 0], [3, 2, 3], Iterate::Left)
    );
}

/// The order in which Serial visits the points of `[0, 0]..[3, 4]`.
fn serial_order(order: Iterate, tiles: Option<[usize; 2]>) -> Vec<(i64, i64)> {
    let exec = Serial::default_instance().unwrap();
    let mut p = MDRangePolicy::new(&exec, [0i64, 0], [3, 4])
        .unwrap()
        .iterate(order);
    if let Some(t) = tiles {
        p = p.tile_sizes(t).unwrap();
    }
    let seen = Mutex::new(Vec::new());
    parallel_for("order", p, |(i, j): (i64, i64)| {
        seen.lock().unwrap().push((i, j))
    })
    .unwrap();
    seen.into_inner().unwrap()
}

#[test]
fn md_range_walks_right_last_index_fastest_and_left_first_index_fastest() {
    common::runtime();
    let row_major: Vec<(i64, i64)> = (0..3).flat_map(|i| (0..4).map(move |j| (i, j))).collect();
    let col_major: Vec<(i64, i64)> = (0..4).flat_map(|j| (0..3).map(move |i| (i, j))).collect();
    assert_eq!(serial_order(Iterate::Right, None), row_major);
    assert_eq!(serial_order(Iterate::Left, None), col_major);
    // Tiles of 2x2: tile by tile, each tile in the same order (partial tiles at the ends).
    let right_tiles = vec![
        (0, 0),
        (0, 1),
        (1, 0),
        (1, 1),
        (0, 2),
        (0, 3),
        (1, 2),
        (1, 3),
        (2, 0),
        (2, 1),
        (2, 2),
        (2, 3),
    ];
    assert_eq!(serial_order(Iterate::Right, Some([2, 2])), right_tiles);
    let left_tiles = vec![
        (0, 0),
        (1, 0),
        (0, 1),
        (1, 1),
        (2, 0),
        (2, 1),
        (0, 2),
        (1, 2),
        (0, 3),
        (1, 3),
        (2, 2),
        (2, 3),
    ];
    assert_eq!(serial_order(Iterate::Left, Some([2, 2])), left_tiles);
}

#[test]
fn md_range_with_other_index_types() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        let counts: Vec<AtomicU32> = (0..4 * 6).map(|_| AtomicU32::new(0)).collect();
        let p = MDRangePolicy::new(exec, [0usize, 0], [4, 6])
            .unwrap()
            .tile_sizes([3, 4])
            .unwrap();
        parallel_for("usize", p, |(i, j): (usize, usize)| {
            counts[i * 6 + j].fetch_add(1, Ordering::Relaxed);
        })
        .unwrap();
        assert!(counts.iter().all(|c| c.load(Ordering::Relaxed) == 1));
        let p = MDRangePolicy::new(exec, [-5i32, i32::MAX - 3], [-1, i32::MAX]).unwrap();
        let (lo, hi) = parallel_reduce(
            "i32",
            p.iterate(Iterate::Left),
            |(i, j): (i32, i32), a: &mut (i64, i32)| {
                a.0 += i as i64;
                a.1 = a.1.max(j);
            },
            (Sum::new(), Max::new()),
        )
        .unwrap();
        assert_eq!((lo, hi), (3 * (-5 - 4 - 3 - 2), i32::MAX - 1));
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}

#[test]
fn md_range_reductions_match_sequential_loops() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        let (lower, upper) = ([-4i64, -3, 1], [5, 6, 8]);
        let f = |i: i64, j: i64, k: i64| (i * 3 - j * j + 2 * k) as f64 * 0.5;
        let pts = all_points(lower, upper);
        let sum: f64 = pts.iter().map(|p| f(p[0], p[1], p[2])).sum();
        let loc = pts
            .iter()
            .enumerate()
            .min_by(|a, b| f(a.1[0], a.1[1], a.1[2]).total_cmp(&f(b.1[0], b.1[1], b.1[2])))
            .map(|(k, _)| k as i64)
            .unwrap();
        for order in [Iterate::Right, Iterate::Left] {
            let p = MDRangePolicy::new(exec, lower, upper)
                .unwrap()
                .tile_sizes([2, 4, 3])
                .unwrap();
            let p = p.iterate(order);
            let mut s = 0.0;
            parallel_reduce(
                "sum",
                p.clone(),
                |(i, j, k): (i64, i64, i64), a: &mut f64| *a += f(i, j, k),
                &mut s,
            )
            .unwrap();
            assert_eq!(s, sum, "{order:?}"); // halves of integers: exact in any order
            // The minimum with its row-major location; ties go to the smallest location.
            let m = parallel_reduce(
                "argmin",
                p,
                |(i, j, k): (i64, i64, i64), a: &mut ValLocScalar<f64, i64>| {
                    let at = flat([i, j, k], lower, upper) as i64;
                    let v = f(i, j, k);
                    if v < a.val || (v == a.val && at < a.loc) {
                        *a = ValLocScalar { val: v, loc: at };
                    }
                },
                MinLoc::new(),
            )
            .unwrap();
            assert_eq!(m.loc, loc, "{order:?}");
        }
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}

#[test]
fn empty_md_box_runs_nothing_and_reduces_to_the_identity() {
    common::runtime();
    fn check<S: HostExecutionSpace>(exec: &S) {
        for (lower, upper) in [
            ([0i64, 0, 0], [3, 0, 4]),
            ([-2, 5, -1], [1, 7, -1]),
            ([0, 0, 0], [0, 0, 0]),
        ] {
            for order in [Iterate::Right, Iterate::Left] {
                let p = MDRangePolicy::new(exec, lower, upper)
                    .unwrap()
                    .iterate(order);
                assert!(p.is_empty() && p.tile_count() == 0);
                let p = p.tile_sizes([2, 2, 2]).unwrap();
                assert_eq!(p.tile_count(), 0);
                let calls = AtomicU32::new(0);
                parallel_for("empty", p.clone(), |_: (i64, i64, i64)| {
                    calls.fetch_add(1, Ordering::Relaxed);
                })
                .unwrap();
                let (s, m) = parallel_reduce(
                    "empty",
                    p,
                    |_: (i64, i64, i64), a: &mut (f64, i32)| {
                        calls.fetch_add(1, Ordering::Relaxed);
                        a.0 += 1.0;
                    },
                    (Sum::new(), Min::new()),
                )
                .unwrap();
                assert_eq!((s, m, calls.load(Ordering::Relaxed)), (0.0, i32::MAX, 0));
            }
        }
    }
    check(&Serial::default_instance().unwrap());
    check(&Threads::default_instance().unwrap());
}

#[test]
fn md_range_with_lower_above_upper_is_an_error_naming_the_dimension() {
    common::runtime();
    let exec = Threads::default_instance().unwrap();
    let e = MDRangePolicy::new(&exec, [0i64, 5], [4, 3]).unwrap_err();
    assert!(matches!(e, Error::Policy { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "invalid MDRangePolicy<2>: lower bound (5) is greater than the upper bound (3) in dimension 1"
    );
    let e = MDRangePolicy::new(&exec, [0i64, 0, 0, 0, -1], [1, 1, 1, 1, -2]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid MDRangePolicy<5>: lower bound (-1) is greater than the upper bound (-2) in dimension 4"
    );
}

#[test]
fn md_range_zero_tile_size_is_an_error() {
    common::runtime();
    let exec = Serial::default_instance().unwrap();
    let p = MDRangePolicy::new(&exec, [0i64, 0, 0], [2, 2, 2]).unwrap();
    let e = p.tile_sizes([2, 0, 1]).unwrap_err();
    assert!(matches!(e, Error::Policy { .. }), "{e:?}");
    assert_eq!(
        e.to_string(),
        "invalid MDRangePolicy<3>: tile size in dimension 1 is 0; every tile size must be at least 1"
    );
}

#[test]
fn md_range_with_more_than_2_pow_64_points_is_an_error() {
    common::runtime();
    let exec = Serial::default_instance().unwrap();
    let e = MDRangePolicy::new(&exec, [0i64, 0], [i64::MAX, i64::MAX]).unwrap_err();
    assert!(matches!(e, Error::Policy { .. }), "{e:?}");
    assert!(
        e.to_string()
            .starts_with("invalid MDRangePolicy<2>: the box"),
        "{e}"
    );
    // 2^32 x 2^32 = 2^64 points does not fit either; (2^32 + 1) x (2^32 - 1) = 2^64 - 1 does.
    assert!(MDRangePolicy::new(&exec, [0i64, 0], [1 << 32, 1 << 32]).is_err());
    let p = MDRangePolicy::new(&exec, [0i64, 0], [(1 << 32) + 1, (1 << 32) - 1]).unwrap();
    assert_eq!(p.len(), u64::MAX);
}

#[test]
fn md_range_empty_box_with_huge_extents_is_valid() {
    common::runtime();
    let exec = Serial::default_instance().unwrap();
    // Zero points (the last extent is 0), however large the other extents are.
    let p = MDRangePolicy::new(&exec, [0i64, 0, 0], [i64::MAX, i64::MAX, 0]);
    let p = p.expect("an empty box has 0 points, which fits in 64 bits");
    assert!(p.is_empty());
    let calls = AtomicU32::new(0);
    parallel_for("empty", p, |_: (i64, i64, i64)| {
        calls.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap();
    assert_eq!(calls.load(Ordering::Relaxed), 0);
}
