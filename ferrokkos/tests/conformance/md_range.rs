//! `MDRangePolicy`: every point of the box visited exactly once (negative lower bounds, tiles that
//! do not divide the extents, tiles larger than the box, boxes of more points than a GPU has
//! threads, `Iterate::Left` and `Iterate::Right`) at
//! ranks 2 to 4 on every space and 2 to 6 with host closures (on a partition too); other index types;
//! MDRange reductions against sequential loops; empty boxes; tile counts; the walk order on Serial;
//! boxes of more than 2^64 points.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, Ordering};

use ferrokkos::prelude::*;
use ferrokkos::traits::HostExecutionSpace;
use ferrokkos::traits::IndexTuple;
use ferrokkos::{Error, Result, device};

use crate::common::{self, indices};
use crate::spaces::{SView, download, each_once};

/// A value per point, different for each dimension so that swapped indices would show.
#[device]
fn weight4(i: i64, j: i64, k: i64, l: i64) -> i64 {
    (i * 31 + 7) * (i - 3)
        + (j * 31 + 14) * (j - 3) * 2
        + (k * 31 + 21) * (k - 3) * 3
        + (l * 31 + 28) * (l - 3) * 4
        + i * j * (k + 1) * (l + 2)
}

/// The weights of the points of `lower..upper` in row-major order, their sum and their maximum.
fn md_reference<const R: usize>(
    lower: [i64; R],
    upper: [i64; R],
    w: impl Fn([i64; R]) -> i64,
) -> (Vec<i64>, i64, i64) {
    let ext: [usize; R] = std::array::from_fn(|r| (upper[r] - lower[r]) as usize);
    let weights: Vec<i64> = indices(ext)
        .into_iter()
        .map(|o| w(std::array::from_fn(|r| lower[r] + o[r] as i64)))
        .collect();
    let sum = weights.iter().sum();
    let max = *weights.iter().max().unwrap();
    (weights, sum, max)
}

/// MDRange policies over `lower..upper` in both iteration orders, with default, given and oversized
/// tiles, each with a description.
fn md_policies<S: Launch, const R: usize>(
    exec: &S,
    lower: [i64; R],
    upper: [i64; R],
    tiles: [usize; R],
) -> Result<Vec<(String, MDRangePolicy<S, R, i64>)>>
where
    [i64; R]: IndexTuple<i64>,
{
    let mut out = Vec::new();
    for order in [Iterate::Right, Iterate::Left] {
        for t in [None, Some(tiles), Some([100; R])] {
            let what = format!("{} {lower:?}..{upper:?} {order:?} tiles {t:?}", S::NAME);
            let mut p = MDRangePolicy::new(exec, lower, upper)?.iterate(order);
            if let Some(t) = t {
                p = p.tile_sizes(t)?;
            }
            let points: usize = (0..R).map(|r| (upper[r] - lower[r]) as usize).product();
            assert_eq!(p.len(), points as u64, "{what}");
            out.push((what, p));
        }
    }
    Ok(out)
}

/// A rank-2 MDRange visits each point of `lower..upper` once (counted atomically) and writes its
/// weight at its offset from the lower corner; a reduction sums and maximizes the weights.
fn md_box_2<S: Launch>(
    exec: &S,
    lower: [i64; 2],
    upper: [i64; 2],
    tiles: [usize; 2],
) -> Result<()> {
    let (weights, sum, max) = md_reference(lower, upper, |[i, j]| weight4(i, j, 0, 7));
    let ext = [0, 1].map(|r| (upper[r] - lower[r]) as usize);
    for (what, p) in md_policies(exec, lower, upper, tiles)? {
        let out = SView::<S, i64, 2>::new("out", ext)?;
        let counts = SView::<S, u32, 2>::new("counts", ext)?;
        let lo = lower;
        parallel_for(
            "visit",
            p.clone(),
            kernel!(|(i, j)| {
                counts.atomic_add((i - lo[0], j - lo[1]), 1u32);
                unsafe {
                    out[(i - lo[0], j - lo[1])] = weight4(i, j, 0, 7);
                }
            }),
        )?;
        each_once(&download(&counts)?, &what);
        assert_eq!(download(&out)?, weights, "{what}");
        let (s, m) = parallel_reduce(
            "weights",
            p,
            kernel!(|(i, j), s: &mut i64, m: &mut i64| {
                let w = weight4(i, j, 0, 7);
                *s += w;
                *m = (*m).max(w);
            }),
            (Sum::new(), Max::new()),
        )?;
        assert_eq!((s, m), (sum, max), "{what}");
    }
    Ok(())
}

/// [`md_box_2`] at rank 3.
fn md_box_3<S: Launch>(
    exec: &S,
    lower: [i64; 3],
    upper: [i64; 3],
    tiles: [usize; 3],
) -> Result<()> {
    let (weights, sum, max) = md_reference(lower, upper, |[i, j, k]| weight4(i, j, k, -1));
    let ext = [0, 1, 2].map(|r| (upper[r] - lower[r]) as usize);
    for (what, p) in md_policies(exec, lower, upper, tiles)? {
        let out = SView::<S, i64, 3, LayoutLeft>::new("out", ext)?;
        let counts = SView::<S, u32, 3>::new("counts", ext)?;
        let lo = lower;
        parallel_for(
            "visit",
            p.clone(),
            kernel!(|(i, j, k)| {
                counts.atomic_add((i - lo[0], j - lo[1], k - lo[2]), 1u32);
                unsafe {
                    out[(i - lo[0], j - lo[1], k - lo[2])] = weight4(i, j, k, -1);
                }
            }),
        )?;
        each_once(&download(&counts)?, &what);
        assert_eq!(download(&out)?, weights, "{what}");
        let (s, m) = parallel_reduce(
            "weights",
            p,
            kernel!(|(i, j, k), s: &mut i64, m: &mut i64| {
                let w = weight4(i, j, k, -1);
                *s += w;
                *m = (*m).max(w);
            }),
            (Sum::new(), Max::new()),
        )?;
        assert_eq!((s, m), (sum, max), "{what}");
    }
    Ok(())
}

/// [`md_box_2`] at rank 4.
fn md_box_4<S: Launch>(
    exec: &S,
    lower: [i64; 4],
    upper: [i64; 4],
    tiles: [usize; 4],
) -> Result<()> {
    let (weights, sum, max) = md_reference(lower, upper, |[i, j, k, l]| weight4(i, j, k, l));
    let ext = [0, 1, 2, 3].map(|r| (upper[r] - lower[r]) as usize);
    for (what, p) in md_policies(exec, lower, upper, tiles)? {
        let out = SView::<S, i64, 4>::new("out", ext)?;
        let counts = SView::<S, u32, 4, LayoutLeft>::new("counts", ext)?;
        let lo = lower;
        parallel_for(
            "visit",
            p.clone(),
            kernel!(|(i, j, k, l)| {
                counts.atomic_add((i - lo[0], j - lo[1], k - lo[2], l - lo[3]), 1u32);
                unsafe {
                    out[(i - lo[0], j - lo[1], k - lo[2], l - lo[3])] = weight4(i, j, k, l);
                }
            }),
        )?;
        each_once(&download(&counts)?, &what);
        assert_eq!(download(&out)?, weights, "{what}");
        let (s, m) = parallel_reduce(
            "weights",
            p,
            kernel!(|(i, j, k, l), s: &mut i64, m: &mut i64| {
                let w = weight4(i, j, k, l);
                *s += w;
                *m = (*m).max(w);
            }),
            (Sum::new(), Max::new()),
        )?;
        assert_eq!((s, m), (sum, max), "{what}");
    }
    Ok(())
}

fn md_range_visits_every_point_once_at_ranks_2_to_4<S: Launch>(exec: &S) -> Result<()> {
    md_box_2(exec, [-3, 2], [4, 9], [2, 3])?;
    md_box_2(exec, [-20, -45], [41, 30], [8, 16])?;
    md_box_2(exec, [7, -7], [8, -6], [3, 3])?; // a single point
    md_box_3(exec, [-2, -5, 0], [3, 2, 3], [2, 3, 2])?;
    md_box_3(exec, [-9, 3, -17], [8, 20, 12], [4, 4, 4])?;
    md_box_3(exec, [0, 0, 0], [1, 9, 2], [1, 4, 1])?; // unit extents
    md_box_4(exec, [-1, 0, -2, 1], [2, 3, 1, 5], [2, 2, 2, 3])?;
    md_box_4(exec, [-4, -3, -2, -6], [5, 7, 6, 3], [3, 2, 4, 2])?;
    // More points than a GPU runs threads, with odd extents: each thread of a grid-stride loop
    // walks several points, its index digits carrying across every dimension.
    md_box_2(exec, [-300, -7], [301, 990], [16, 32])?;
    md_box_3(exec, [-70, 5, -3], [79, 132, 28], [4, 8, 8])?;
    md_box_4(exec, [0, -9, 2, -10], [23, 22, 31, 13], [2, 4, 4, 8])?;
    Ok(())
}
per_space!(
    md_range_visits_every_point_once_at_ranks_2_to_4,
    md_range_visits_every_point_once_at_ranks_2_to_4
);

fn md_range_with_other_index_types_and_empty_boxes<S: Launch>(exec: &S) -> Result<()> {
    // usize indices.
    let counts = SView::<S, u32, 2>::new("counts", [4, 6])?;
    let p = MDRangePolicy::new(exec, [0usize, 0], [4, 6])?.tile_sizes([3, 4])?;
    parallel_for(
        "usize",
        p,
        kernel!(|(i, j): (usize, usize)| counts.atomic_add((i, j), 1u32)),
    )?;
    each_once(&download(&counts)?, "usize");
    // i32 indices at the top of the type.
    let p = MDRangePolicy::new(exec, [-5i32, i32::MAX - 3], [-1, i32::MAX])?;
    let (lo, hi) = parallel_reduce(
        "i32",
        p.iterate(Iterate::Left),
        kernel!(|(i, j): (i32, i32), s: &mut i64, m: &mut i32| {
            *s += i as i64;
            *m = (*m).max(j);
        }),
        (Sum::new(), Max::new()),
    )?;
    assert_eq!((lo, hi), (3 * (-5 - 4 - 3 - 2), i32::MAX - 1));
    // Empty boxes run nothing and reduce to the identities.
    let calls = SView::<S, u32, 1>::new("calls", [1])?;
    for (lower, upper) in [
        ([0i64, 0, 0], [3, 0, 4]),
        ([-2, 5, -1], [1, 7, -1]),
        ([0, 0, 0], [0, 0, 0]),
    ] {
        for order in [Iterate::Right, Iterate::Left] {
            let p = MDRangePolicy::new(exec, lower, upper)?.iterate(order);
            assert!(p.is_empty() && p.tile_count() == 0);
            let p = p.tile_sizes([2, 2, 2])?;
            assert_eq!(p.tile_count(), 0);
            parallel_for(
                "empty",
                p.clone(),
                kernel!(|(_i, _j, _k)| calls.atomic_add(0, 1u32)),
            )?;
            let (s, m) = parallel_reduce(
                "empty",
                p,
                kernel!(|(_i, _j, _k), s: &mut f64, m: &mut i32| {
                    *s += 1.0;
                    *m = (*m).min(0);
                }),
                (Sum::new(), Min::new()),
            )?;
            assert_eq!((s, m), (0.0, i32::MAX));
        }
    }
    assert_eq!(download(&calls)?, [0]);
    Ok(())
}
per_space!(
    md_range_with_other_index_types_and_empty_boxes,
    md_range_with_other_index_types_and_empty_boxes
);

fn md_range_float_reductions_match_sequential_loops<S: Launch>(exec: &S) -> Result<()> {
    let (lower, upper) = ([-40i64, -30, 1], [50, 60, 28]);
    let mut sum = 0.0;
    let mut best = (f64::MAX, i64::MAX);
    let mut flat = 0i64;
    for i in lower[0]..upper[0] {
        for j in lower[1]..upper[1] {
            for k in lower[2]..upper[2] {
                let v = (i * 3 - j * j + 2 * k) as f64 * 0.5;
                sum += v;
                if v < best.0 {
                    best = (v, flat);
                }
                flat += 1;
            }
        }
    }
    let (n1, n2) = ((upper[1] - lower[1]), (upper[2] - lower[2]));
    for order in [Iterate::Right, Iterate::Left] {
        let p = MDRangePolicy::new(exec, lower, upper)?
            .tile_sizes([2, 4, 3])?
            .iterate(order);
        let mut s = 0.0;
        parallel_reduce(
            "sum",
            p.clone(),
            kernel!(|(i, j, k), a: &mut f64| *a += (i * 3 - j * j + 2 * k) as f64 * 0.5),
            &mut s,
        )?;
        assert_eq!(
            s, sum,
            "{order:?}: halves of integers add exactly in any order"
        );
        let m = parallel_reduce(
            "argmin",
            p,
            kernel!(|(i, j, k), a: &mut ValLocScalar<f64, i64>| {
                let at = ((i - lower[0]) * n1 + j - lower[1]) * n2 + k - lower[2];
                let v = (i * 3 - j * j + 2 * k) as f64 * 0.5;
                if v < a.val || (v == a.val && at < a.loc) {
                    a.val = v;
                    a.loc = at;
                }
            }),
            MinLoc::new(),
        )?;
        assert_eq!((m.val, m.loc), best, "{order:?}");
    }
    Ok(())
}
per_space!(
    md_range_float_reductions_match_sequential_loops,
    md_range_float_reductions_match_sequential_loops
);

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

/// Checks, for both iteration orders, both schedules and with default, given and oversized tiles,
/// that every point is visited once by `parallel_for` and that `parallel_reduce` sums `weight` exactly.
macro_rules! check_box {
    ($exec:expr, $lower:expr, $upper:expr, $tiles:expr, ($($v:ident),+)) => {{
        let (lower, upper) = ($lower, $upper);
        let n = points(lower, upper);
        let expected: i64 = all_points(lower, upper).into_iter().map(weight).sum();
        for (order, schedule) in [
            (Iterate::Right, Schedule::Static),
            (Iterate::Left, Schedule::Static),
            (Iterate::Right, Schedule::Dynamic),
        ] {
            for tiles in [None, Some($tiles), Some([100; { $lower.len() }])] {
                let what = format!(
                    "{:?} {lower:?}..{upper:?} {order:?} {schedule:?} tiles {tiles:?}",
                    $exec
                );
                let mut p = MDRangePolicy::new($exec, lower, upper)
                    .unwrap()
                    .iterate(order)
                    .schedule(schedule);
                assert_eq!(p.get_schedule(), schedule);
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
