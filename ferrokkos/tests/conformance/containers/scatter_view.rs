//! ScatterView: many iterations update the same elements with one operation; the result is the
//! plain fold of the contributions into the View's values, on every space and in both modes.

use crate::spaces::{SView, download, upload};
use ferrokkos::prelude::*;
use ferrokkos::{
    Result, ScatterMax, ScatterMin, ScatterMode, ScatterProd, ScatterSum, ScatterView, kernel,
};

/// A histogram of `n` keys into `bins` bins: `(i * 7 + i / 3) % bins`, counted in plain Rust.
fn histogram_want(n: usize, bins: usize) -> Vec<u32> {
    let mut want = vec![0u32; bins];
    for i in 0..n {
        want[(i * 7 + i / 3) % bins] += 1;
    }
    want
}

fn a_histogram_counts_every_key<S: Launch>(exec: &S) -> Result<()> {
    let (n, bins) = (100_000usize, 37usize);
    let counts = SView::<S, u32, 1>::new("counts", [bins])?;
    let scatter = ScatterView::new(&counts)?;
    let host_reach = <S::MemorySpace as MemorySpace>::HOST_ACCESSIBLE;
    let want_mode = if host_reach {
        ScatterMode::Duplicated
    } else {
        ScatterMode::Atomic
    };
    assert_eq!(scatter.mode(), want_mode);
    // Kokkos' spelling: `auto access = scatter.access(); access(k) += 1;`.
    let k = kernel!(|i| {
        let access = scatter.access();
        access[(i * 7 + i / 3) % bins] += 1;
    });
    parallel_for("histogram", RangePolicy::new(exec, 0, n)?, &k)?;
    scatter.contribute()?;
    assert_eq!(download(&counts)?, histogram_want(n, bins));
    // A second launch adds to the counts; contributing twice adds nothing twice.
    parallel_for("histogram again", RangePolicy::new(exec, 0, n)?, &k)?;
    scatter.contribute()?;
    scatter.contribute()?;
    let twice: Vec<u32> = histogram_want(n, bins).iter().map(|c| 2 * c).collect();
    assert_eq!(download(&counts)?, twice);
    Ok(())
}

per_space!(a_histogram_counts_every_key, a_histogram_counts_every_key);

/// Particles deposit charge on a 2-D grid (each on four cells around it, `+=` and `-=`), on top of
/// the grid's values; an MDRange of cells then reads the grid.
fn deposition_adds_to_the_grids_values<S: Launch>(exec: &S) -> Result<()> {
    let (n, m) = (5000usize, 16usize);
    let xs: Vec<f64> = (0..n)
        .map(|p| ((p * 37) % 1000) as f64 / 1000.0 * (m - 1) as f64)
        .collect();
    let ys: Vec<f64> = (0..n)
        .map(|p| ((p * 91) % 1000) as f64 / 1000.0 * (m - 1) as f64)
        .collect();
    let x = upload::<S, f64>("x", &xs)?;
    let y = upload::<S, f64>("y", &ys)?;
    let grid = SView::<S, f64, 2>::new("grid", [m, m])?;
    deep_copy(&grid, 0.5)?;
    let rho = ScatterView::new(&grid)?;
    parallel_for(
        "deposit",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|p| {
            let (i, j) = (x[p] as usize, y[p] as usize);
            let (fx, fy) = (x[p] - i as f64, y[p] - j as f64);
            rho[(i, j)] += (1.0 - fx) * (1.0 - fy);
            rho[(i + 1, j)] += fx * (1.0 - fy);
            rho[(i, j + 1)] += (1.0 - fx) * fy;
            rho[(i + 1, j + 1)] += fx * fy;
            rho[(0, 0)] -= 0.25;
        }),
    )?;
    rho.contribute()?;
    let mut want = vec![0.5f64; m * m];
    for p in 0..n {
        let (i, j) = (xs[p] as usize, ys[p] as usize);
        let (fx, fy) = (xs[p] - i as f64, ys[p] - j as f64);
        want[i * m + j] += (1.0 - fx) * (1.0 - fy);
        want[(i + 1) * m + j] += fx * (1.0 - fy);
        want[i * m + j + 1] += (1.0 - fx) * fy;
        want[(i + 1) * m + j + 1] += fx * fy;
        want[0] -= 0.25;
    }
    let got = download(&grid)?;
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        assert!((g - w).abs() < 1e-9, "cell {k}: {g} against {w}");
    }
    let total: f64 = got.iter().sum();
    assert!((total - (0.5 * (m * m) as f64 + n as f64 * 0.75)).abs() < 1e-6);
    Ok(())
}

per_space!(
    deposition_adds_to_the_grids_values,
    deposition_adds_to_the_grids_values
);

/// Products, minimums and maximums, each combined with the View's values.
fn products_minimums_and_maximums<S: Launch>(exec: &S) -> Result<()> {
    let (n, bins) = (3000usize, 5usize);
    let prod = SView::<S, f64, 1>::new("prod", [bins])?;
    let low = SView::<S, i64, 1>::new("low", [bins])?;
    let high = SView::<S, i64, 1>::new("high", [bins])?;
    deep_copy(&prod, 2.0)?;
    deep_copy(&low, 100)?;
    deep_copy(&high, -100)?;
    let p = ScatterView::with_op(&prod, ScatterProd)?;
    let lo = ScatterView::with_op(&low, ScatterMin)?;
    let hi = ScatterView::with_op(&high, ScatterMax)?;
    parallel_for(
        "prod_min_max",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let b = i % bins;
            if i % 100 == 3 {
                p[b] *= 1.5;
            }
            let v = ((i * 7919) % 1001) as i64 - 500;
            lo.atomic_min(b, v);
            hi.atomic_max(b, v);
        }),
    )?;
    p.contribute()?;
    lo.contribute()?;
    hi.contribute()?;
    let mut want_p = vec![2.0f64; bins];
    let mut want_lo = vec![100i64; bins];
    let mut want_hi = vec![-100i64; bins];
    for i in 0..n {
        let b = i % bins;
        if i % 100 == 3 {
            want_p[b] *= 1.5;
        }
        let v = ((i * 7919) % 1001) as i64 - 500;
        want_lo[b] = want_lo[b].min(v);
        want_hi[b] = want_hi[b].max(v);
    }
    let got_p = download(&prod)?;
    for (g, w) in got_p.iter().zip(&want_p) {
        assert!((g / w - 1.0).abs() < 1e-12, "{g} against {w}");
    }
    assert_eq!(download(&low)?, want_lo);
    assert_eq!(download(&high)?, want_hi);
    Ok(())
}

per_space!(
    products_minimums_and_maximums,
    products_minimums_and_maximums
);

/// Atomic mode on the host, `reset` and `reset_except_view`.
fn atomic_mode_and_resets<S: Launch>(exec: &S) -> Result<()> {
    let bins = 4usize;
    let counts = SView::<S, u64, 1>::new("counts", [bins])?;
    deep_copy(&counts, 10u64)?;
    let atomic = ScatterView::with_mode(&counts, ScatterSum, ScatterMode::Atomic)?;
    assert_eq!(atomic.mode(), ScatterMode::Atomic);
    let k = kernel!(|i| atomic[i % bins] += 1);
    parallel_for("atomic", RangePolicy::new(exec, 0, 400)?, &k)?;
    atomic.contribute()?;
    assert_eq!(download(&counts)?, vec![110; bins]);
    atomic.reset()?;
    assert_eq!(download(&counts)?, vec![0; bins]);
    let scatter = ScatterView::new(&counts)?;
    let k = kernel!(|i| scatter[i % bins] += 2);
    parallel_for("scatter", RangePolicy::new(exec, 0, 400)?, &k)?;
    // Dropping the copies' contributions keeps only what the first participant put in the View.
    scatter.reset_except_view()?;
    scatter.contribute()?;
    let kept: u64 = download(&counts)?.iter().sum();
    assert!(kept <= 800 && kept % 2 == 0, "{kept}");
    scatter.reset()?;
    parallel_for("scatter", RangePolicy::new(exec, 0, 400)?, &k)?;
    scatter.contribute()?;
    assert_eq!(download(&counts)?, vec![200; bins]);
    Ok(())
}

per_space!(atomic_mode_and_resets, atomic_mode_and_resets);

/// A strided View cannot be duplicated: `new` takes the atomic mode and `duplicated` says why.
#[test]
fn strided_views_are_scattered_atomically() -> Result<()> {
    crate::common::runtime();
    let grid = View::<f64, 2>::new("grid", [4, 6])?;
    let column = subview(&grid, (ALL, 2))?;
    assert_eq!(ScatterView::new(&column)?.mode(), ScatterMode::Atomic);
    let e = ScatterView::with_mode(&column, ScatterSum, ScatterMode::Duplicated)
        .err()
        .expect("a strided View has no copies");
    assert!(e.to_string().contains("strided"), "{e}");
    Ok(())
}

/// On the GPU every update of a ScatterView is the atomic of its operation, and NVRTC and hiprtc
/// compile it.
#[test]
fn scatter_views_are_device_atomics() -> Result<()> {
    crate::common::runtime();
    let (sum, prod, low) = (
        View::<f64, 1>::new("sum", [8])?,
        View::<f32, 1>::new("prod", [8])?,
        View::<i32, 1>::new("low", [8])?,
    );
    let s = ScatterView::new(&sum)?;
    let p = ScatterView::with_op(&prod, ScatterProd)?;
    let lo = ScatterView::with_op(&low, ScatterMin)?;
    let k = kernel!(|i| {
        s[i % 8] += 1.0;
        s[i % 8] -= 0.5;
        p[i % 8] *= 2.0;
        lo.atomic_min(i % 8, i as i32);
    });
    let tu = ferrokkos::codegen::TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    for want in ["atomic_add", "atomic_sub", "atomic_mul", "atomic_min"] {
        assert!(text.contains(want), "missing {want} in\n{text}");
    }
    crate::common::check_device_code(&tu);
    Ok(())
}
