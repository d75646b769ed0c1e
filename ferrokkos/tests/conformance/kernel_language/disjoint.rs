//! Disjoint access without `unsafe` (beyond Kokkos): a written View may be written at any index
//! that follows the iteration index one to one (shifted, reversed, strided by launch constants) and
//! read at other affine maps when the launch proves the images apart over its iterations: shifted
//! copies, halo updates, boundary kernels and red-black sweeps run on every space against plain
//! Rust; the same kernels over a range where the images meet are an `Err` naming both accesses, and
//! nothing runs.

use crate::spaces::{SView, download, upload};
use ferrokkos::prelude::*;
use ferrokkos::{Error, Result};

fn shifted_copies_and_reversals<S: Launch>(exec: &S) -> Result<()> {
    let n = 1000usize;
    let start: Vec<f64> = (0..2 * n).map(|k| k as f64).collect();
    let y = upload::<S, f64>("y", &start)?;
    // The second half becomes twice the first: writes [n, 2n), reads [0, n).
    parallel_for(
        "shift",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| y[i + n] = 2.0 * y[i]),
    )?;
    let mut want = start.clone();
    for i in 0..n {
        want[i + n] = 2.0 * want[i];
    }
    assert_eq!(download(&y)?, want);

    // Reversed into the other half: y[2n - 1 - i] = y[i] for i < n.
    let last = 2 * n - 1;
    parallel_for(
        "mirror",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| y[last - i] = y[i] + 0.5),
    )?;
    for i in 0..n {
        want[last - i] = want[i] + 0.5;
    }
    assert_eq!(download(&y)?, want);

    // One iteration more and iteration n would read what iteration 0 writes: refused, and nothing
    // ran (the View is unchanged).
    let before = download(&y)?;
    let err = parallel_for(
        "overlap",
        RangePolicy::new(exec, 0, n + 1)?,
        kernel!(|i| y[i + n - 1] = 2.0 * y[i]),
    )
    .unwrap_err();
    match &err {
        Error::KernelOverlap {
            view,
            first,
            second,
            ..
        } => assert_eq!((*view, *first, *second), ("y", "y[i + n - 1]", "y[i]")),
        e => panic!("expected KernelOverlap, got {e}"),
    }
    assert!(
        err.to_string()
            .starts_with(&format!("parallel_for \"overlap\" on {}", S::NAME)),
        "{err}"
    );
    assert_eq!(download(&y)?, before);
    Ok(())
}
per_space!(shifted_copies_and_reversals, shifted_copies_and_reversals);

fn halo_updates_and_boundaries<S: Launch>(exec: &S) -> Result<()> {
    let (rows, cols) = (20usize, 30usize);
    let start: Vec<f64> = (0..rows * cols).map(|k| (k % 97) as f64).collect();
    let f = crate::spaces::upload_nd::<S, f64, 2, LayoutRight>("f", [rows, cols], &start)?;
    let (first, last) = (1usize, cols - 2);
    // Periodic halo columns: each row's iteration writes its halo cells from its interior cells.
    parallel_for(
        "halo x",
        RangePolicy::new(exec, 0, rows)?,
        kernel!(|i| {
            f[(i, 0)] = f[(i, last)];
            f[(i, last + 1)] = f[(i, first)];
        }),
    )?;
    // Halo rows from the interior rows next to them, one iteration per column.
    let top = rows - 1;
    parallel_for(
        "halo y",
        RangePolicy::new(exec, 0, cols)?,
        kernel!(|j| {
            f[(0, j)] = f[(1, j)];
            f[(top, j)] = f[(top - 1, j)];
        }),
    )?;
    // A boundary kernel over an MDRange of the last column, reading the column before it.
    let edge = cols as i64 - 1;
    let g = SView::<S, f64, 2>::new("g", [rows, cols])?;
    deep_copy(&g, 1.0)?;
    parallel_for(
        "edge",
        MDRangePolicy::new(exec, [0, edge], [rows as i64, edge + 1])?,
        kernel!(|(i, j)| g[(i, j)] = 3.0 * g[(i, j - 1)]),
    )?;
    let gv = download(&g)?;
    for i in 0..rows {
        for j in 0..cols {
            let want = if j == cols - 1 { 3.0 } else { 1.0 };
            assert_eq!(gv[i * cols + j], want, "({i}, {j})");
        }
    }
    let mut want = start;
    let at = |i: usize, j: usize| i * cols + j;
    for i in 0..rows {
        want[at(i, 0)] = want[at(i, last)];
        want[at(i, last + 1)] = want[at(i, first)];
    }
    for j in 0..cols {
        want[at(0, j)] = want[at(1, j)];
        want[at(top, j)] = want[at(top - 1, j)];
    }
    assert_eq!(download(&f)?, want);
    Ok(())
}
per_space!(halo_updates_and_boundaries, halo_updates_and_boundaries);

fn red_black_sweeps<S: Launch>(exec: &S) -> Result<()> {
    // 1D Gauss-Seidel, red then black: each color writes its lattice and reads the other's.
    let n = 2001usize;
    let start: Vec<f64> = (0..n).map(|k| ((k * 31) % 17) as f64).collect();
    let u = upload::<S, f64>("u", &start)?;
    let half = (n - 1) / 2;
    for color in [0usize, 1] {
        // Interior points 2k + color in 1..n-1.
        let (lo, hi) = if color == 0 { (1, half) } else { (0, half) };
        parallel_for(
            "red-black",
            RangePolicy::new(exec, lo, hi)?,
            kernel!(|k| {
                u[2 * k + color] = 0.5 * (u[2 * k + color - 1] + u[2 * k + color + 1]);
            }),
        )?;
    }
    let mut want = start;
    for color in [0usize, 1] {
        let (lo, hi) = if color == 0 { (1, half) } else { (0, half) };
        for k in lo..hi {
            let p = 2 * k + color;
            want[p] = 0.5 * (want[p - 1] + want[p + 1]);
        }
    }
    assert_eq!(download(&u)?, want);
    Ok(())
}
per_space!(red_black_sweeps, red_black_sweeps);

/// Two writes at maps that meet on a square but not on a rectangle apart from the diagonal.
fn transposed_writes_are_checked_per_launch<S: Launch>(exec: &S) -> Result<()> {
    let a = SView::<S, f64, 2>::new("a", [8, 8])?;
    let square = MDRangePolicy::new(exec, [0, 0], [4, 4])?;
    let kernel = |p: MDRangePolicy<S, 2>| {
        parallel_for(
            "transpose",
            p,
            kernel!(|(i, j)| {
                a[(i, j)] = 1.0;
                a[(j, i)] = 2.0;
            }),
        )
    };
    let err = kernel(square).unwrap_err();
    assert!(
        matches!(&err, Error::KernelOverlap { first, second, .. }
        if *first == "a[(i, j)]" && *second == "a[(j, i)]"),
        "{err}"
    );
    assert_eq!(download(&a)?, vec![0.0; 64]);
    kernel(MDRangePolicy::new(exec, [0, 4], [4, 8])?)?;
    let got = download(&a)?;
    for i in 0..8 {
        for j in 0..8 {
            let want = if i < 4 && j >= 4 {
                1.0
            } else if j < 4 && i >= 4 {
                2.0
            } else {
                0.0
            };
            assert_eq!(got[i * 8 + j], want, "({i}, {j})");
        }
    }
    Ok(())
}
per_space!(
    transposed_writes_are_checked_per_launch,
    transposed_writes_are_checked_per_launch
);

/// A flat index over an MDRange (`a[j * m + i]` with the row length `m` captured, Kokkos codes'
/// 1-D storage of 2-D data) is one to one while each row's `i`s fit in `m`: the launch checks it,
/// and an inner range longer than `m` is refused before anything runs.
fn flat_indices_over_an_md_range<S: Launch>(exec: &S) -> Result<()> {
    let (n, m) = (7usize, 9usize);
    let a = SView::<S, f64, 1>::new("a", [n * m])?;
    let x = upload::<S, f64>("x", &(0..n * m).map(|k| k as f64).collect::<Vec<_>>())?;
    let (n64, m64) = (n as i64, m as i64);
    let flat = ferrokkos::kernel!(|(j, i)| {
        let k = (j * m64 + i) as usize;
        a[(j * m64 + i) as usize] = 2.0 * x[k] + 1.0;
    });
    parallel_for("flat", MDRangePolicy::new(exec, [0, 0], [n64, m64])?, &flat)?;
    assert_eq!(
        download(&a)?,
        (0..n * m).map(|k| 2.0 * k as f64 + 1.0).collect::<Vec<_>>()
    );
    // usize indices, the row length first: `m * j + i`, and an update of the own element.
    let (nu, mu) = (n, m);
    parallel_for(
        "flat_update",
        MDRangePolicy::<_, 2, usize>::new(exec, [0, 0], [nu, mu])?,
        ferrokkos::kernel!(|(j, i): (usize, usize)| {
            a[mu * j + i] = a[mu * j + i] - x[mu * j + i];
        }),
    )?;
    assert_eq!(
        download(&a)?,
        (0..n * m).map(|k| k as f64 + 1.0).collect::<Vec<_>>()
    );
    // One `i` too many: (j, m) would write what (j + 1, 0) writes.
    let e = parallel_for(
        "flat_wide",
        MDRangePolicy::new(exec, [0, 0], [n64 - 1, m64 + 1])?,
        &flat,
    )
    .unwrap_err();
    assert!(
        matches!(&e, Error::KernelOverlap { view: "a", .. })
            && e.to_string()
                .contains("needs `m` at least the number of `i`s"),
        "{e}"
    );
    assert_eq!(
        download(&a)?,
        (0..n * m).map(|k| k as f64 + 1.0).collect::<Vec<_>>()
    );
    Ok(())
}

per_space!(flat_indices_over_an_md_range, flat_indices_over_an_md_range);
