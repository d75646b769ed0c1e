//! Subviews inside kernels (Kokkos' `auto row = subview(A, j, ALL)`): `subview(&a, (j, ALL))` and
//! `a.subview((j, ALL))?` name part of a captured View; indexing, `extent` and atomics on them are
//! the View's own accesses (the race rules see `row[i]` as `a[(j, i)]`), on every space, with the
//! values plain Rust gives; the C++ compiles with NVRTC and hiprtc.

use crate::common::check_device_code;
use crate::spaces::{SView, download, upload_nd};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Result, kernel};

/// Rows and columns of a matrix, planes of a cube and single elements, read and written through
/// subviews made in the kernel.
fn rows_columns_planes_and_elements<S: Launch>(exec: &S) -> Result<()> {
    let (n, m) = (6usize, 5usize);
    let x: Vec<f64> = (0..n * m).map(|k| (k * 7 % 11) as f64).collect();
    let a = upload_nd::<S, f64, 2, LayoutRight>("a", [n, m], &x)?;
    let b = SView::<S, f64, 2>::new("b", [n, m])?;
    let c = SView::<S, f64, 3>::new("c", [2, n, m])?;
    let diag = SView::<S, f64, 1>::new("diag", [n])?;
    parallel_for(
        "rows",
        MDRangePolicy::<_, 2, usize>::new(exec, [0, 0], [n, m])?,
        kernel!(|(j, i): (usize, usize)| {
            let row = subview(&a, (j, ALL));
            let out = b.subview((j, ALL))?;
            out[i] = 2.0 * row[i] + row.extent(0) as f64;
            let plane = subview(&c, (1, ALL, ALL));
            plane[(j, i)] = row[m - 1 - i];
            let cell = subview(&c, (0, j, i));
            cell[()] = -row[i];
        }),
    )?;
    parallel_for(
        "columns",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|j| {
            let col = subview(&a, (ALL, j % m));
            diag[j] = col[j] + col.extent(0) as f64;
        }),
    )?;
    let (bv, cv, dv) = (download(&b)?, download(&c)?, download(&diag)?);
    for j in 0..n {
        for i in 0..m {
            assert_eq!(bv[j * m + i], 2.0 * x[j * m + i] + m as f64);
            assert_eq!(cv[n * m + j * m + i], x[j * m + m - 1 - i]);
            assert_eq!(cv[j * m + i], -x[j * m + i]);
        }
        assert_eq!(dv[j], x[j * m + j % m] + n as f64);
    }
    Ok(())
}

per_space!(
    rows_columns_planes_and_elements,
    rows_columns_planes_and_elements
);

/// Atomics through a subview update the View: a histogram per row.
fn atomics_through_a_subview<S: Launch>(exec: &S) -> Result<()> {
    let (rows, n) = (3usize, 1000usize);
    let hist = SView::<S, u32, 2>::new("hist", [rows, 4])?;
    parallel_for(
        "hist",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let h = subview(&hist, (i % rows, ALL));
            h.atomic_add(i % 4, 1);
        }),
    )?;
    let got = download(&hist)?;
    let mut want = vec![0u32; rows * 4];
    for i in 0..n {
        want[(i % rows) * 4 + i % 4] += 1;
    }
    assert_eq!(got, want);
    Ok(())
}

per_space!(atomics_through_a_subview, atomics_through_a_subview);

#[test]
fn a_subview_access_is_the_views_access_in_cxx() -> Result<()> {
    crate::common::runtime();
    let a = View::<f64, 2>::new("a", [4, 4])?;
    let y = View::<f64, 1>::new("y", [4])?;
    let k = kernel!(|j| {
        let row = subview(&a, (j, ALL));
        y[j] = row[2] + row.extent(0) as f64;
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(
        text.contains("y(fk_proven, j) = a(fk_proven, j, 2) + f64(a.extent[1]);"),
        "{text}"
    );
    check_device_code(&tu);
    Ok(())
}
