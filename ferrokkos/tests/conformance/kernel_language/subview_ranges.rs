//! Subviews of a range of a dimension inside kernels (Kokkos' `subview(A, j, make_pair(lo, hi))`):
//! `subview(&a, (j, lo..hi))`, `(lo.., k)`, `(..hi, ALL)`. `row[i]` is the View's `a[(j, lo + i)]`
//! for `i < hi - lo`, `row.extent(0)` is `hi - lo`; reads, writes and atomics through rows,
//! columns and a rank-3 View's range give what plain Rust gives, on every space. An index past the
//! range panics on the host naming the subview's extent, in the checked and in the proven body
//! alike, and so does any use of a range not within its dimension. The C++ compiles with NVRTC
//! and hiprtc.

use std::panic::{AssertUnwindSafe, catch_unwind};

use crate::common::check_device_code;
use crate::spaces::{SView, download, upload_nd};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Result, kernel};

/// Rows and columns of a matrix and a range of a cube's last dimension, read and written through
/// range subviews made in the kernel; the range ends are literals, captures and the iteration
/// index, open at either end.
fn rows_columns_and_cubes_through_ranges<S: Launch>(exec: &S) -> Result<()> {
    let (n, m) = (6usize, 7usize);
    let x: Vec<i64> = (0..n * m).map(|k| (k * 7 % 11) as i64).collect();
    let a = upload_nd::<S, i64, 2, LayoutRight>("a", [n, m], &x)?;
    let b = SView::<S, i64, 2>::new("b", [n, m])?;
    let c = SView::<S, i64, 3>::new("c", [2, n, m])?;
    let (lo, hi) = (2usize, 5usize);
    parallel_for(
        "rows",
        MDRangePolicy::<_, 2, usize>::new(exec, [0, 0], [n, 3])?,
        kernel!(|(j, i): (usize, usize)| {
            let row = subview(&a, (j, 1..4));
            let out = b.subview((j, lo..hi))?;
            out[i] = 10 * row[i] + row.extent(0) as i64 + out.extent(0) as i64;
            let tail = subview(&c, (1, j, m - 3..));
            tail[i] = row[i] - 1;
        }),
    )?;
    let (bv, cv) = (download(&b)?, download(&c)?);
    for j in 0..n {
        for i in 0..m {
            let want_b = if (2..5).contains(&i) {
                10 * x[j * m + i - 1] + 6
            } else {
                0
            };
            assert_eq!(bv[j * m + i], want_b, "b at ({j}, {i})");
            let want_c = if i >= m - 3 {
                x[j * m + i - (m - 3) + 1] - 1
            } else {
                0
            };
            assert_eq!(cv[n * m + j * m + i], want_c, "c at (1, {j}, {i})");
        }
    }
    // A column range written at the iteration index: column k of `b`, rows 1 to n - 1.
    let k = 3usize;
    parallel_for(
        "columns",
        RangePolicy::new(exec, 0, n - 1)?,
        kernel!(|i| {
            let col = subview(&b, (1.., k));
            let src = subview(&a, (..n - 1, ALL));
            col[i] = src[(i, k)] + col.extent(0) as i64;
        }),
    )?;
    let bv = download(&b)?;
    for i in 0..n - 1 {
        assert_eq!(bv[(i + 1) * m + k], x[i * m + k] + (n - 1) as i64);
    }
    Ok(())
}

per_space!(
    rows_columns_and_cubes_through_ranges,
    rows_columns_and_cubes_through_ranges
);

/// Atomics through a range subview update the View at the offset coordinate: a histogram of the
/// middle four bins of each row.
fn atomics_through_a_range<S: Launch>(exec: &S) -> Result<()> {
    let (rows, n) = (3usize, 1000usize);
    let hist = SView::<S, u32, 2>::new("hist", [rows, 8])?;
    parallel_for(
        "hist",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let h = subview(&hist, (i % rows, 2..6));
            h.atomic_add(i % h.extent(0), 1);
        }),
    )?;
    let got = download(&hist)?;
    let mut want = vec![0u32; rows * 8];
    for i in 0..n {
        want[(i % rows) * 8 + 2 + i % 4] += 1;
    }
    assert_eq!(got, want);
    Ok(())
}

per_space!(atomics_through_a_range, atomics_through_a_range);

/// The panic message of `f`, which must panic.
fn panic_message(f: impl FnOnce() -> Result<()>) -> String {
    let payload = catch_unwind(AssertUnwindSafe(f)).expect_err("the launch must panic");
    payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default()
}

/// An index past a range panics naming the subview's extent, though the View's own bounds hold
/// it: in a write and a read at the iteration index (which the launch proves inside the View, so
/// the proven body runs) and at a computed index (the checked body).
fn an_index_past_the_range_panics<S: Launch + ferrokkos::traits::HostExecutionSpace>(
    exec: &S,
) -> Result<()> {
    let a = View::<f64, 2>::new("a", [4, 8])?;
    let y = View::<f64, 1>::new("y", [4])?;
    let want = "index [3] is out of bounds for View \"the subview of the range 1..4 of a \
                dimension\" with extents [3]";
    let write = kernel!(|(j, i): (usize, usize)| {
        let row = subview(&a, (j, 1..4));
        row[i] = 1.0;
    });
    // The launch proves `a[(j, i + 1)]` inside `a` over the whole box: the proven body runs.
    let whole = vec![(0, 4), (0, 4)];
    assert_eq!(write.proven_box_over(&whole, 64), Some(whole.clone()));
    let message = panic_message(|| {
        parallel_for(
            "proven write",
            MDRangePolicy::<_, 2, usize>::new(exec, [0, 0], [4, 4])?,
            write,
        )
    });
    assert!(message.contains(want), "{message}");
    let message = panic_message(|| {
        parallel_for(
            "proven read",
            RangePolicy::new(exec, 0, 4)?,
            kernel!(|i| {
                let col = subview(&a, (ALL, 1..4));
                y[i] = col[(0, i)];
            }),
        )
    });
    assert!(message.contains(want), "{message}");
    let message = panic_message(|| {
        parallel_for(
            "checked read",
            RangePolicy::new(exec, 0, 4)?,
            kernel!(|j| {
                let row = subview(&a, (j, 1..4));
                y[j] = row[j * 3 % 4];
            }),
        )
    });
    assert!(message.contains(want), "{message}");
    Ok(())
}

#[test]
fn an_index_past_the_range_panics_on_serial() -> Result<()> {
    crate::common::runtime();
    an_index_past_the_range_panics(&Serial::default_instance()?)
}

#[test]
fn an_index_past_the_range_panics_on_threads() -> Result<()> {
    crate::common::runtime();
    an_index_past_the_range_panics(&Threads::default_instance()?)
}

/// A range past its dimension's extent, or reversed, has no element: its first use panics,
/// whatever the index, and so does its extent.
#[test]
fn a_range_not_within_its_dimension_has_no_element() -> Result<()> {
    crate::common::runtime();
    let exec = Serial::default_instance()?;
    let a = View::<f64, 2>::new("a", [4, 8])?;
    let y = View::<f64, 1>::new("y", [4])?;
    let (lo, hi) = (6usize, 9usize);
    let message = panic_message(|| {
        parallel_for(
            "past the end",
            RangePolicy::new(&exec, 0, 4)?,
            kernel!(|j| {
                let row = subview(&a, (j, lo..hi));
                row[0] = 1.0;
            }),
        )
    });
    assert!(
        message.contains("the range 6..9, not within its dimension of extent 8"),
        "{message}"
    );
    let message = panic_message(|| {
        parallel_for(
            "reversed",
            RangePolicy::new(&exec, 0, 4)?,
            kernel!(|j| {
                let row = subview(&a, (j, hi..lo));
                y[j] = row.extent(0) as f64;
            }),
        )
    });
    assert!(message.contains("the range 9..6"), "{message}");
    Ok(())
}

#[test]
fn a_range_access_is_a_checked_offset_in_cxx() -> Result<()> {
    crate::common::runtime();
    let a = View::<f64, 2>::new("a", [4, 8])?;
    let y = View::<f64, 1>::new("y", [4])?;
    let h = View::<u32, 2>::new("h", [4, 8])?;
    let k = kernel!(|j| {
        let row = subview(&a, (j, 2..6));
        let bins = subview(&h, (j, 1..));
        bins.atomic_add(j, 1);
        y[j] = row[3] + row.extent(0) as f64 + bins.extent(0) as f64;
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(
        text.contains("a(j, fk::subview_range(3, 2, 6, a.extent[1]))"),
        "{text}"
    );
    assert!(
        text.contains("fk::subview_extent(2, 6, a.extent[1])"),
        "{text}"
    );
    check_device_code(&tu);
    Ok(())
}

/// A team writes its league rank's row through a range subview, one element per thread and lane:
/// the team race rules see `row[i]` as `b[(lr, i + 1)]`.
fn a_team_writes_a_row_range<S: Launch>(exec: &S) -> Result<()> {
    let (league, m) = (5usize, 9usize);
    let b = SView::<S, u64, 2>::new("b", [league, m])?;
    parallel_for(
        "team rows",
        TeamPolicy::new(exec, league, AUTO)?,
        kernel!(|team: &TeamMember| {
            let lr = team.league_rank();
            let row = subview(&b, (lr, 1..));
            TeamVectorRange::new(team, 0, m - 1).parallel_for(|i| {
                row[i] = (lr * 100 + i + row.extent(0)) as u64;
            });
        }),
    )?;
    let got = download(&b)?;
    for lr in 0..league {
        assert_eq!(got[lr * m], 0);
        for i in 0..m - 1 {
            assert_eq!(got[lr * m + i + 1], (lr * 100 + i + m - 1) as u64);
        }
    }
    Ok(())
}

per_space!(a_team_writes_a_row_range, a_team_writes_a_row_range);
