//! What kernels reach beyond the core language: Views of every rank and layout, MDRange indices,
//! device functions (defined once), captured arrays and constants, reductions with one and several
//! accumulators, MDRange reductions, scans and atomics.
//!
//! Each runs on Threads with Rust's results, and its generated C++ compiles with NVRTC (sm_80 and
//! sm_90).

// The reference computations mirror the kernel bodies, which are written to exercise each construct.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::manual_is_multiple_of,
    clippy::nonminimal_bool
)]

use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Result, device, kernel};

use crate::common::{check_device_code, runtime, threads as exec, view_from};

/// The kernel of [`views_of_every_rank_and_layout`] (and of its differential case): from `base[i]`,
/// `v1` to `v8` (Views of ranks 1 to 8, `v2`'s extent read in a loop bound) each written from the
/// previous rank, and `strided` (a strided subview) from `v1` and an extent.
macro_rules! every_rank_kernel {
    (
        $base:ident,
        $v1:ident,
        $v2:ident,
        $v3:ident,
        $v4:ident,
        $v5:ident,
        $v6:ident,
        $v7:ident,
        $v8:ident,
        $strided:ident
    ) => {
        ::ferrokkos::kernel!(|i| {
            let f = $base[i];
            $v1[i] = f;
            for a in 0..$v2.extent(1) {
                $v2[(i, a)] = f + a as f64;
                for c in 0..2 {
                    $v3[(i, a, c)] = f * 10.0 + (a * 2 + c) as f64;
                    $v4[(i, a, 0, c)] = $v3[(i, a, c)] + 1.0;
                    $v5[(i, 0, a, 0, c)] = $v4[(i, a, 0, c)] + 1.0;
                    $v6[(i, 0, 0, a, 0, c)] = $v5[(i, 0, a, 0, c)] + 1.0;
                    $v7[(i, 0, 0, 0, a, 0, c)] = $v6[(i, 0, 0, a, 0, c)] + 1.0;
                    $v8[(i, 0, 0, 0, 0, a, 0, c)] = $v7[(i, 0, 0, 0, a, 0, c)] + 1.0;
                }
            }
            $strided[i] = $v1[i] * 2.0 + $v2.extent(0) as f64;
        })
    };
}
pub(crate) use every_rank_kernel;

#[test]
fn views_of_every_rank_and_layout() -> Result<()> {
    runtime();
    let e = exec();
    let v1 = View::<f64, 1>::new("v1", [3])?;
    let v2 = View::<f64, 2, LayoutLeft>::new("v2", [3, 2])?;
    let v3 = View::<f64, 3>::new("v3", [3, 2, 2])?;
    let v4 = View::<f64, 4, LayoutLeft>::new("v4", [3, 2, 1, 2])?;
    let v5 = View::<f64, 5>::new("v5", [3, 1, 2, 1, 2])?;
    let v6 = View::<f64, 6>::new("v6", [3, 1, 1, 2, 1, 2])?;
    let v7 = View::<f64, 7, LayoutLeft>::new("v7", [3, 1, 1, 1, 2, 1, 2])?;
    let v8 = View::<f64, 8>::new("v8", [3, 1, 1, 1, 1, 2, 1, 2])?;
    let parent = View::<f64, 2>::new("parent", [3, 4])?;
    let strided = subview(&parent, (ALL, 1))?;
    let base = view_from("base", &[0.0, 1.0, 2.0])?;
    let k = every_rank_kernel!(base, v1, v2, v3, v4, v5, v6, v7, v8, strided);
    parallel_for("ranks", RangePolicy::new(&e, 0, 3)?, &k)?;
    assert_eq!(v1.to_vec()?, vec![0.0, 1.0, 2.0]);
    assert_eq!(v2.get((2, 1))?, 3.0);
    assert_eq!(v8.get((2, 0, 0, 0, 0, 1, 0, 1))?, 20.0 + 3.0 + 5.0);
    assert_eq!(parent.get((2, 1))?, 4.0 + 3.0);
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    assert!(
        tu.generated()
            .contains("fk::View<f64, 8, fk::LayoutRight> v8"),
        "{}",
        tu.generated()
    );
    assert!(
        tu.generated()
            .contains("fk::View<f64, 1, fk::LayoutStride> strided"),
        "{}",
        tu.generated()
    );
    check_device_code(&tu);
    Ok(())
}

/// The kernel of [`md_range_indices_destructure_as_tuples`] (and of the differential case of views):
/// `a[(i, j)] = i * 100 + j`.
macro_rules! md_indices_kernel {
    ($a:ident) => {
        ::ferrokkos::kernel!(|(i, j)| $a[(i, j)] = (i * 100 + j) as f64)
    };
}
pub(crate) use md_indices_kernel;

/// The rank-3 kernel of [`md_range_indices_destructure_as_tuples`] (and of the differential case
/// of views): annotated `usize` indices, `b[(i, j, l)] = i * 10000 + j * 100 + l`.
macro_rules! md3_indices_kernel {
    ($b:ident) => {
        ::ferrokkos::kernel!(|(i, j, l): (usize, usize, usize)| {
            $b[(i, j, l)] = (i * 10000 + j * 100 + l) as i64
        })
    };
}
pub(crate) use md3_indices_kernel;

#[test]
fn md_range_indices_destructure_as_tuples() -> Result<()> {
    runtime();
    let (n, m) = (5, 7);
    let a = View::<f64, 2>::new("a", [n, m])?;
    let k = md_indices_kernel!(a);
    parallel_for(
        "fill",
        MDRangePolicy::new(&exec(), [0, 0], [n as i64, m as i64])?,
        &k,
    )?;
    assert_eq!(a.get((4, 6))?, 406.0);
    let b = View::<i64, 3>::new("b", [2, 3, 4])?;
    let k3 = md3_indices_kernel!(b);
    parallel_for(
        "fill3",
        MDRangePolicy::new(&exec(), [0, 0, 0], [2, 3, 4])?,
        &k3,
    )?;
    assert_eq!(b.get((1, 2, 3))?, 10203);
    for tu in [
        TranslationUnit::for_kernel(&k, Iterate::Right),
        TranslationUnit::for_kernel(&k, Iterate::Left),
        TranslationUnit::for_kernel(&k3, Iterate::Right),
    ] {
        check_device_code(&tu);
    }
    assert!(
        TranslationUnit::for_kernel(&k, Iterate::Right)
            .generated()
            .contains("[&](const i64 i, const i64 j)")
    );
    Ok(())
}

/// The smoothing weight of a stencil.
#[device]
fn weight(d: i32) -> f64 {
    if d == 0 { 0.5 } else { 0.25 }
}

/// A weighted neighbour, calling another device function.
#[device]
pub(crate) fn weighted(v: f64, d: i32) -> f64 {
    weight(d) * v
}

/// Integer square root by bisection (loops and early return in a device function).
#[device]
pub(crate) fn isqrt(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut lo = 1u64;
    let mut hi = n;
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if mid <= n / mid {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

/// The kernel of [`device_functions_are_callable_and_defined_once`] (and of its differential case):
/// a smoothing of `x` through `weighted` (which calls `weight`) into `y`, and `isqrt` of `k` into
/// `r`. The caller has the marker types that `#[device]` generates next to [`weighted`] and
/// [`isqrt`] in scope (`__fk_device_weighted`, `__fk_device_isqrt`): kernels call device
/// functions through them.
macro_rules! device_calls_kernel {
    ($x:ident, $k:ident, $y:ident, $r:ident) => {
        ::ferrokkos::kernel!(|i| {
            let l = if i > 0 { i - 1 } else { i };
            let h = if i + 1 < $x.extent(0) { i + 1 } else { i };
            $y[i] = weighted($x[l], -1) + weighted($x[i], 0) + weighted($x[h], 1);
            $r[i] = isqrt($k[i]);
        })
    };
}
pub(crate) use device_calls_kernel;

#[test]
fn device_functions_are_callable_and_defined_once() -> Result<()> {
    let x = view_from("x", &(0..20).map(|k| (k * k) as f64).collect::<Vec<_>>())?;
    let radicands = view_from(
        "radicands",
        &(0..20).map(|i| i * 1000).collect::<Vec<u64>>(),
    )?;
    let y = View::<f64, 1>::new("y", [20])?;
    let r = View::<u64, 1>::new("r", [20])?;
    let k = device_calls_kernel!(x, radicands, y, r);
    parallel_for("stencil", RangePolicy::new(&exec(), 0, 20)?, &k)?;
    for i in 0..20usize {
        let f = |k: usize| (k * k) as f64;
        let (l, h) = (i.saturating_sub(1), (i + 1).min(19));
        assert_eq!(y.get(i)?, 0.25 * f(l) + 0.5 * f(i) + 0.25 * f(h));
        assert_eq!(r.get(i)?, (i as f64 * 1000.0).sqrt().floor() as u64);
    }
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let g = tu.generated();
    assert_eq!(
        g.matches("static __device__ f64 weight_fn(").count(),
        1,
        "{g}"
    );
    assert!(
        g.find("weight_fn(").unwrap() < g.find("weighted_fn(").unwrap(),
        "callee first: {g}"
    );
    check_device_code(&tu);
    Ok(())
}

/// The 5-point Laplacian of `u` at an interior point (a device function reading a View).
#[device]
fn laplacian(u: &View<f64, 2>, i: usize, j: usize) -> f64 {
    u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)] - 4.0 * u[(i, j)]
}

/// The Laplacian inside, zero on the boundary (reads the extents, passes the View on).
#[device]
fn interior_laplacian(u: &View<f64, 2>, i: usize, j: usize) -> f64 {
    if i == 0 || j == 0 || i + 1 == u.extent(0) || j + 1 == u.extent(1) {
        0.0
    } else {
        laplacian(u, i, j)
    }
}

/// Moves `cell` a quarter of the way toward `toward`.
#[device]
fn relax(cell: &mut f64, toward: f64) {
    *cell += 0.25 * (toward - *cell);
}

#[test]
fn device_functions_take_views_and_elements() -> Result<()> {
    let (n, m) = (5usize, 4usize);
    let u = View::<f64, 2>::new("u", [n, m])?;
    let w = View::<f64, 2, LayoutLeft>::new("w", [n, m])?;
    let y = View::<f64, 2>::new("y", [n, m])?;
    parallel_for(
        "fill",
        RangePolicy::new(&exec(), 0, n)?,
        kernel!(|i| for j in 0..m {
            u[(i, j)] = (i * i + 3 * j) as f64;
            w[(i, j)] = (i * j) as f64;
            y[(i, j)] = 1.0;
        }),
    )?;
    let k = kernel!(|i| for j in 0..m {
        let l = interior_laplacian(&u, i, j) + interior_laplacian(&w, i, j);
        relax(&mut y[(i, j)], l);
    });
    parallel_for("apply", RangePolicy::new(&exec(), 0, n)?, &k)?;
    let g = u.host()?;
    for i in 0..n {
        for j in 0..m {
            // u = i^2 + 3j has Laplacian 2 inside; w = ij has Laplacian 0.
            let l = if i == 0 || j == 0 || i + 1 == n || j + 1 == m {
                0.0
            } else {
                2.0
            };
            assert_eq!(y.get((i, j))?, 1.0 + 0.25 * (l - 1.0), "y({i}, {j})");
            // The host form reads a guard.
            assert_eq!(interior_laplacian(&g, i, j), l);
        }
    }
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let c = tu.generated();
    // One definition per layout of the View parameter, each reading through a const reference.
    assert_eq!(
        c.matches("static __device__ f64 interior_laplacian_fn")
            .count(),
        2,
        "{c}"
    );
    assert!(
        c.contains("const fk::View<const f64, 2, fk::LayoutLeft>& u"),
        "{c}"
    );
    assert!(
        c.contains("const fk::View<const f64, 2, fk::LayoutRight>& u"),
        "{c}"
    );
    // The element is passed by reference.
    assert!(
        c.contains("static __device__ void relax_fn(f64& cell"),
        "{c}"
    );
    check_device_code(&tu);
    Ok(())
}

/// The sum of the two neighbours of `i`, for a View of any number type.
#[device]
fn neighbour_total<T: std::ops::Add<Output = T>>(u: &View<T, 1>, i: usize) -> T {
    u[i - 1] + u[i + 1]
}

/// `a + (b - a) * t` in any number type.
#[device]
fn lerp<T>(a: T, b: T, t: T) -> T
where
    T: std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<Output = T>,
{
    a + (b - a) * t
}

#[test]
fn generic_device_functions_are_defined_per_type() -> Result<()> {
    let n = 6usize;
    let a = view_from("a", &[1.0f32, 2.0, 4.0, 8.0, 16.0, 32.0])?;
    let b = View::<i64, 1>::new("b", [n])?;
    let fa = View::<f32, 1>::new("fa", [n])?;
    let fb = View::<i64, 1>::new("fb", [n])?;
    let g = View::<f64, 1>::new("g", [n])?;
    parallel_for("fill", n, kernel!(|i| b[i] = (i * i) as i64))?;
    let k = kernel!(|i| {
        if i > 0 && i + 1 < n {
            fa[i] = neighbour_total(&a, i);
            fb[i] = neighbour_total(&b, i);
        }
        g[i] = lerp(1.0, 3.0, i as f64 / 4.0) + lerp(2, 10, i as i64) as f64;
    });
    parallel_for("generic", RangePolicy::new(&exec(), 0, n)?, &k)?;
    assert_eq!(fa.to_vec()?, [0.0, 5.0, 10.0, 20.0, 40.0, 0.0]);
    assert_eq!(fb.to_vec()?, [0, 4, 10, 20, 34, 0]);
    for i in 0..n {
        let want = 1.0 + 2.0 * (i as f64 / 4.0) + (2 + 8 * i as i64) as f64;
        assert_eq!(g.get(i)?, want, "g[{i}]");
    }
    assert_eq!(lerp(0.5f32, 1.5, 0.5), 1.0);
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let c = tu.generated();
    // One definition per instantiation.
    assert_eq!(
        c.matches("static __device__ f32 neighbour_total_fn")
            .count(),
        1,
        "{c}"
    );
    assert_eq!(
        c.matches("static __device__ i64 neighbour_total_fn")
            .count(),
        1,
        "{c}"
    );
    assert_eq!(c.matches("static __device__ f64 lerp_fn").count(), 1, "{c}");
    assert_eq!(c.matches("static __device__ i64 lerp_fn").count(), 1, "{c}");
    check_device_code(&tu);
    Ok(())
}

/// The first kernel of [`reductions_with_one_and_several_accumulators`] (and of its differential
/// case): the sum of the squares of `x`.
macro_rules! sum_of_squares_kernel {
    ($x:ident) => {
        ::ferrokkos::kernel!(|i, acc| *acc += $x[i] * $x[i])
    };
}
pub(crate) use sum_of_squares_kernel;

/// The second kernel of [`reductions_with_one_and_several_accumulators`] (and of its differential
/// case): three accumulators, the minimum (`if`), the maximum (a method on an annotated
/// accumulator) and the count of the positive values of `x`.
macro_rules! min_max_count_kernel {
    ($x:ident) => {
        ::ferrokkos::kernel!(|i, lo, hi: &mut f64, count| {
            let v = $x[i];
            if v < *lo {
                *lo = v;
            }
            *hi = hi.max(v);
            if v > 0.0 {
                *count += 1;
            }
        })
    };
}
pub(crate) use min_max_count_kernel;

/// The third kernel of [`reductions_with_one_and_several_accumulators`] (and of its differential
/// case): the minimum of `x` and its index, in the fields of a `ValLocScalar`.
macro_rules! min_loc_kernel {
    ($x:ident) => {
        ::ferrokkos::kernel!(|i, best: &mut ValLocScalar<f64, usize>| {
            if $x[i] < best.val {
                best.val = $x[i];
                best.loc = i;
            }
        })
    };
}
pub(crate) use min_loc_kernel;

#[test]
fn reductions_with_one_and_several_accumulators() -> Result<()> {
    let e = exec();
    let values: Vec<f64> = (0..1000)
        .map(|k| ((k * 7919) % 1009) as f64 - 500.0)
        .collect();
    let x = view_from("x", &values)?;
    let p = RangePolicy::new(&e, 0, values.len())?;
    let mut sum = 0.0;
    let k = sum_of_squares_kernel!(x);
    parallel_reduce("sumsq", p.clone(), &k, &mut sum)?;
    assert_eq!(sum, values.iter().map(|v| v * v).sum::<f64>());
    check_device_code(&TranslationUnit::reduce_kernel::<Sum<f64>, _>(
        &k,
        Iterate::Right,
    ));

    let k2 = min_max_count_kernel!(x);
    let (lo, hi, count) = parallel_reduce(
        "stats",
        p.clone(),
        &k2,
        (Min::new(), Max::new(), Sum::<u32>::new()),
    )?;
    assert_eq!(lo, values.iter().cloned().fold(f64::MAX, f64::min));
    assert_eq!(hi, values.iter().cloned().fold(f64::MIN, f64::max));
    assert_eq!(count, values.iter().filter(|v| **v > 0.0).count() as u32);
    let tu =
        TranslationUnit::reduce_kernel::<(Min<f64>, Max<f64>, Sum<u32>), _>(&k2, Iterate::Right);
    assert!(
        tu.generated().contains("struct FkTupleValue"),
        "{}",
        tu.generated()
    );
    check_device_code(&tu);

    let k3 = min_loc_kernel!(x);
    let m = parallel_reduce("minloc", p, &k3, MinLoc::<f64, usize>::new())?;
    let want = values.iter().cloned().fold(f64::MAX, f64::min);
    assert_eq!(
        (m.val, m.loc),
        (want, values.iter().position(|v| *v == want).unwrap())
    );
    check_device_code(&TranslationUnit::reduce_kernel::<MinLoc<f64, usize>, _>(
        &k3,
        Iterate::Right,
    ));
    Ok(())
}

/// The first kernel of [`md_range_reduction`] (and of its differential case): `a[(i, j)] = i * j -
/// 7 * j` over an MDRange of i64 indices.
macro_rules! md_fill_kernel {
    ($a:ident) => {
        ::ferrokkos::kernel!(|(i, j)| $a[(i, j)] = i * j - 7 * j)
    };
}
pub(crate) use md_fill_kernel;

/// The second kernel of [`md_range_reduction`] (and of its differential case): the sum of `a` over
/// an MDRange.
macro_rules! md_sum_kernel {
    ($a:ident) => {
        ::ferrokkos::kernel!(|(i, j), acc| *acc += $a[(i, j)])
    };
}
pub(crate) use md_sum_kernel;

#[test]
fn md_range_reduction() -> Result<()> {
    runtime();
    let a = View::<i64, 2>::new("a", [6, 9])?;
    parallel_for(
        "fill",
        MDRangePolicy::new(&exec(), [0, 0], [6, 9])?,
        md_fill_kernel!(a),
    )?;
    let k = md_sum_kernel!(a);
    let s: i64 = parallel_reduce(
        "sum2d",
        MDRangePolicy::new(&exec(), [0, 0], [6, 9])?,
        &k,
        Sum::new(),
    )?;
    assert_eq!(
        s,
        (0..6i64)
            .flat_map(|i| (0..9i64).map(move |j| i * j - 7 * j))
            .sum::<i64>()
    );
    check_device_code(&TranslationUnit::reduce_kernel::<Sum<i64>, _>(
        &k,
        Iterate::Left,
    ));
    Ok(())
}

/// The first kernel of [`scans_exclusive_and_inclusive`] (and of its differential case): the
/// exclusive and the inclusive prefix sums of `counts` into `excl` and `incl`.
macro_rules! exclusive_inclusive_scan_kernel {
    ($counts:ident, $excl:ident, $incl:ident) => {
        ::ferrokkos::kernel!(|i, partial, is_final| {
            if is_final {
                $excl[i] = *partial;
            }
            *partial += $counts[i];
            if is_final {
                $incl[i] = *partial;
            }
        })
    };
}
pub(crate) use exclusive_inclusive_scan_kernel;

/// The second kernel of [`scans_exclusive_and_inclusive`] (and of its differential case): the
/// running maximum of `counts` into `m`, with an annotated accumulator and flag.
macro_rules! running_max_scan_kernel {
    ($counts:ident, $m:ident) => {
        ::ferrokkos::kernel!(|i, run: &mut u32, last: bool| {
            *run = run.max($counts[i]);
            if last {
                $m[i] = *run;
            }
        })
    };
}
pub(crate) use running_max_scan_kernel;

#[test]
fn scans_exclusive_and_inclusive() -> Result<()> {
    let counts = view_from("counts", &[3u32, 1, 4, 1, 5, 9, 2, 6])?;
    let excl = View::<u32, 1>::new("excl", [8])?;
    let incl = View::<u32, 1>::new("incl", [8])?;
    let k = exclusive_inclusive_scan_kernel!(counts, excl, incl);
    let total: u32 = parallel_scan("offsets", RangePolicy::new(&exec(), 0, 8)?, &k)?;
    assert_eq!(total, 31);
    assert_eq!(excl.to_vec()?, vec![0, 3, 4, 8, 9, 14, 23, 25]);
    assert_eq!(incl.to_vec()?, vec![3, 4, 8, 9, 14, 23, 25, 31]);
    let tu = TranslationUnit::scan_kernel::<Sum<u32>, _>(&k);
    assert!(tu.generated().contains("_prefix("), "{}", tu.generated());
    check_device_code(&tu);
    // A running maximum with an annotated flag.
    let m = View::<u32, 1>::new("m", [8])?;
    let k2 = running_max_scan_kernel!(counts, m);
    let top =
        ferrokkos::parallel_scan_with("runmax", RangePolicy::new(&exec(), 0, 8)?, &k2, Max::new())?;
    assert_eq!((top, m.to_vec()?), (9, vec![3, 3, 4, 4, 5, 9, 9, 9]));
    check_device_code(&TranslationUnit::scan_kernel::<Max<u32>, _>(&k2));
    Ok(())
}

/// The kernel of [`atomics_update_shared_elements`] (and of its differential case): per element `v`
/// of `x`, an atomic add into a histogram of `v % 10`, an atomic min into `lo`, an atomic max of an
/// f64 into `hi`, an atomic f64 add into four bins of `fsum` and an atomic max into a rank-2 `umax`.
macro_rules! atomics_kernel {
    ($x:ident, $hist:ident, $lo:ident, $hi:ident, $fsum:ident, $umax:ident) => {
        ::ferrokkos::kernel!(|i| {
            let v = $x[i];
            $hist.atomic_add(v % 10, 1);
            $lo.atomic_min(0, v as i64 - 50);
            $hi.atomic_max(0, v as f64 * 0.5);
            $fsum.atomic_add(v % 4, 1.0 / (1.0 + v as f64));
            $umax.atomic_max((v % 3, i % 2), v as u64 * 3);
        })
    };
}
pub(crate) use atomics_kernel;

#[test]
fn atomics_update_shared_elements() -> Result<()> {
    let values: Vec<u32> = (0..5000).map(|k| (k * 37 % 101) as u32).collect();
    let x = view_from("x", &values)?;
    let hist = View::<u32, 1>::new("hist", [10])?;
    let lo = View::<i64, 1>::new("lo", [1])?;
    let hi = View::<f64, 1>::new("hi", [1])?;
    let fsum = View::<f64, 1>::new("fsum", [4])?;
    let umax = View::<u64, 2>::new("umax", [3, 2])?;
    deep_copy(&lo, i64::MAX)?;
    deep_copy(&hi, f64::MIN)?;
    let k = atomics_kernel!(x, hist, lo, hi, fsum, umax);
    parallel_for("histogram", RangePolicy::new(&exec(), 0, values.len())?, &k)?;
    let mut want = vec![0u32; 10];
    let mut want_fsum = vec![0.0f64; 4];
    let mut want_umax = vec![0u64; 6];
    for (i, v) in values.iter().enumerate() {
        want[(v % 10) as usize] += 1;
        want_fsum[(v % 4) as usize] += 1.0 / (1.0 + *v as f64);
        let at = (v % 3) as usize * 2 + i % 2;
        want_umax[at] = want_umax[at].max(*v as u64 * 3);
    }
    assert_eq!(hist.to_vec()?, want);
    assert_eq!(lo.get(0)?, *values.iter().min().unwrap() as i64 - 50);
    assert_eq!(hi.get(0)?, *values.iter().max().unwrap() as f64 * 0.5);
    // Threads adds in any order: each bin within 1e-12 of the sum of all the terms.
    let scale: f64 = values.iter().map(|v| 1.0 / (1.0 + *v as f64)).sum();
    for (b, (g, w)) in fsum.to_vec()?.iter().zip(&want_fsum).enumerate() {
        assert!((g - w).abs() <= 1e-12 * scale, "fsum[{b}]: {g} vs {w}");
    }
    assert_eq!(umax.to_vec()?, want_umax);
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    assert!(
        tu.generated()
            .contains("fk::atomic_add(&hist(fk::rem(v, 10U)), 1U);"),
        "{}",
        tu.generated()
    );
    check_device_code(&tu);
    Ok(())
}

/// The kernel of [`captured_arrays_are_read_by_index`] (and of its differential case): `y[i]` is the
/// sum of `weights[j] * x[i + j]` (around the end) for `j` below `n`, the length of the captured
/// array `weights` (a const generic of the caller).
macro_rules! weighted_sum_kernel {
    ($weights:ident, $n:ident, $x:ident, $y:ident) => {
        ::ferrokkos::kernel!(|i| {
            let mut s = 0.0;
            for j in 0..$n {
                s += $weights[j] * $x[(i + j) % $x.extent(0)];
            }
            $y[i] = s;
        })
    };
}
pub(crate) use weighted_sum_kernel;

/// A weighted sum with weights from a captured array (generic length, as Kokkos functors carry).
fn smooth<const N: usize>(
    weights: [f64; N],
) -> Result<(Vec<f64>, ferrokkos::codegen::TranslationUnit)> {
    let n = 50;
    let x = view_from(
        "x",
        &(0..n).map(|k| (k * k % 17) as f64).collect::<Vec<_>>(),
    )?;
    let y = View::<f64, 1>::new("y", [n])?;
    let k = weighted_sum_kernel!(weights, N, x, y);
    parallel_for("smooth", RangePolicy::new(&exec(), 0, n)?, &k)?;
    Ok((y.to_vec()?, TranslationUnit::for_kernel(&k, Iterate::Right)))
}

#[test]
fn captured_arrays_are_read_by_index() -> Result<()> {
    let (three, tu3) = smooth([0.25, 0.5, 0.25])?;
    let (one, tu1) = smooth([2.0])?;
    let x = |k: usize| (k * k % 17) as f64;
    for i in 0..50 {
        assert_eq!(
            three[i],
            0.25 * x(i) + 0.5 * x((i + 1) % 50) + 0.25 * x((i + 2) % 50)
        );
        assert_eq!(one[i], 2.0 * x(i));
    }
    assert!(
        tu3.generated().contains("const fk::Array<f64, 3> weights"),
        "{}",
        tu3.generated()
    );
    assert!(
        tu3.generated().contains("weights[j] * x("),
        "{}",
        tu3.generated()
    );
    check_device_code(&tu3);
    check_device_code(&tu1);
    // An index past the end panics, naming the length.
    let w = [1.0f64, 2.0];
    let y = View::<f64, 1>::new("y", [3])?;
    let k = kernel!(|i| y[i] = w[i]);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        parallel_for(
            "past",
            RangePolicy::new(&Serial::default_instance().unwrap(), 0, 3).unwrap(),
            &k,
        )
    }));
    let msg = r
        .err()
        .and_then(|p| p.downcast_ref::<String>().cloned())
        .unwrap_or_default();
    assert!(
        msg.contains("out of bounds for a captured array of length 2"),
        "{msg}"
    );
    Ok(())
}

/// A constant of the program, used by name in a kernel and a device function.
pub(crate) const SCALE: f64 = 1.5;

/// Scales by [`SCALE`] (a device function may use constants).
#[device]
pub(crate) fn scaled(v: f64) -> f64 {
    v * SCALE
}

/// The kernel of [`constants_are_used_by_value`] (and of its differential case): `x` through
/// `scaled`, plus [`SCALE`], the caller's i32 constant `offset` and `f64::EPSILON`, into `y`. The
/// caller has [`SCALE`] and the marker type of [`scaled`] (`__fk_device_scaled`) in scope.
macro_rules! constants_kernel {
    ($x:ident, $y:ident, $offset:ident) => {
        ::ferrokkos::kernel!(|i| $y[i] = scaled($x[i]) + SCALE + $offset as f64 + f64::EPSILON)
    };
}
pub(crate) use constants_kernel;

#[test]
fn constants_are_used_by_value() -> Result<()> {
    const OFFSET: i32 = -7;
    let x = view_from("x", &[1.0, 2.0, 3.0])?;
    let y = View::<f64, 1>::new("y", [3])?;
    let k = constants_kernel!(x, y, OFFSET);
    parallel_for("constants", RangePolicy::new(&exec(), 0, 3)?, &k)?;
    assert_eq!(
        y.to_vec()?,
        (1..=3)
            .map(|v| v as f64 * 1.5 + 1.5 - 7.0 + f64::EPSILON)
            .collect::<Vec<_>>()
    );
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let g = tu.generated();
    assert!(
        g.contains("scaled_fn(x(fk_proven, i)) + 1.5 + f64(-7)"),
        "{g}"
    );
    assert!(g.contains("return v * 1.5;"), "{g}");
    check_device_code(&tu);
    Ok(())
}
