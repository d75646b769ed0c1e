//! OffsetView: index ranges that start anywhere (Fortran's `u(-1:n, 0:m)`). Kernels index it with
//! its own indices of any integer type, write it at the iteration index, and its affine reads are
//! proved in range from zero up; out-of-range indices panic naming the ranges. On every space,
//! against plain Rust.

use crate::common::{check_device_code, panic_message};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Error, OffsetView, Result, kernel};

type SOffset<S, const R: usize, L = LayoutRight> =
    OffsetView<f64, R, L, <S as ExecutionSpace>::MemorySpace>;

/// The value the first kernel stores at `(i, j)`.
fn g(i: i64, j: i64) -> f64 {
    (3 * i - 2 * j + i * j) as f64 + 0.5
}

/// A Fortran-style port: `u(-1:n, -1:m)` (LayoutLeft) filled over its whole range with a halo,
/// then a five-point Laplacian into `f(0:n-1, 0:m-1)` over the interior, and a sum of `f` by a
/// reduction; every value against plain Rust, read back through a host mirror by its own indices.
fn a_fortran_style_stencil_matches_plain_rust<S: Launch>(exec: &S) -> Result<()> {
    let (n, m) = (9i64, 6i64);
    let u = SOffset::<S, 2, LayoutLeft>::new("u", [-1..=n, -1..=m])?;
    let f = SOffset::<S, 2, LayoutLeft>::new("f", [0..n, 0..m])?;
    assert_eq!(
        (u.begins(), u.ends(), u.extents()),
        ([-1, -1], [n + 1, m + 1], [11, 8])
    );
    parallel_for(
        "fill",
        MDRangePolicy::new(exec, [-1i64, -1], [n + 1, m + 1])?,
        kernel!(|(i, j)| u[(i, j)] = (3 * i - 2 * j + i * j) as f64 + 0.5),
    )?;
    parallel_for(
        "laplace",
        MDRangePolicy::new(exec, [0i64, 0], [n, m])?,
        kernel!(|(i, j)| {
            f[(i, j)] =
                u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)] - 4.0 * u[(i, j)]
        }),
    )?;
    let total: f64 = parallel_reduce(
        "sum",
        MDRangePolicy::new(exec, [0i64, 0], [n, m])?,
        kernel!(|(i, j), acc: &mut f64| *acc += f[(i, j)]),
        Sum::new(),
    )?;
    let lap =
        |i: i64, j: i64| g(i - 1, j) + g(i + 1, j) + g(i, j - 1) + g(i, j + 1) - 4.0 * g(i, j);
    let hf = f.create_mirror_view()?;
    hf.deep_copy_from(&f)?;
    let hu = u.create_mirror_view()?;
    hu.deep_copy_from(&u)?;
    let mut want_total = 0.0;
    for i in 0..n {
        for j in 0..m {
            assert_eq!(hf.get([i, j])?, lap(i, j), "f({i}, {j})");
            want_total += lap(i, j);
        }
    }
    assert_eq!(total, want_total);
    for (i, j) in [(-1, -1), (n, m), (-1, m), (4, 2)] {
        assert_eq!(hu.get([i, j])?, g(i, j), "u({i}, {j})");
    }
    // The View underneath is indexed from 0, in LayoutLeft order.
    let first = ferrokkos::create_mirror_view(u.view())?;
    ferrokkos::deep_copy(&first, u.view())?;
    assert_eq!(first.get((0, 0))?, g(-1, -1));
    assert_eq!(first.get((1, 0))?, g(0, -1));
    Ok(())
}

per_space!(
    a_fortran_style_stencil_matches_plain_rust,
    a_fortran_style_stencil_matches_plain_rust
);

/// A range that starts above zero, iterated with `usize` and read with `u32` and `i8` indices;
/// `extent`, `begin` and `end` in a kernel; a host write seen by the next kernel.
fn begins_above_zero_and_other_index_types<S: Launch>(exec: &S) -> Result<()> {
    let o = SOffset::<S, 1>::new("o", [5..=14])?;
    let shape = ferrokkos::View::<i64, 1, LayoutRight, S::MemorySpace>::new("shape", [3])?;
    parallel_for(
        "own",
        RangePolicy::new(exec, 5usize, 15)?,
        kernel!(|i| o[i] = i as f64),
    )?;
    parallel_for(
        "shape",
        RangePolicy::new(exec, 0usize, 1)?,
        kernel!(|k| {
            shape[k] = o.begin(0);
            shape[k + 1] = o.end(0);
            shape[k + 2] = o.extent(0) as i64;
        }),
    )?;
    let sum: f64 = parallel_reduce(
        "narrow",
        RangePolicy::new(exec, 5u32, 15)?,
        kernel!(|i: u32, acc: &mut f64| *acc += o[i] + o[(i - 5) as i8 + 5]),
        Sum::new(),
    )?;
    assert_eq!(sum, 2.0 * (5..15).sum::<i64>() as f64);
    let h = ferrokkos::create_mirror_view(&shape)?;
    ferrokkos::deep_copy(&h, &shape)?;
    assert_eq!(h.to_vec()?, [5, 15, 10]);
    let m = o.create_mirror_view()?;
    m.deep_copy_from(&o)?;
    assert_eq!((m.get([5])?, m.get([14])?), (5.0, 14.0));
    m.set([7], -1.0)?;
    o.deep_copy_from(&m)?;
    let last: f64 = parallel_reduce(
        "read",
        RangePolicy::new(exec, 7i64, 8)?,
        kernel!(|i: i64, acc: &mut f64| *acc += o[i]),
        Sum::new(),
    )?;
    assert_eq!(last, -1.0);
    Ok(())
}

per_space!(
    begins_above_zero_and_other_index_types,
    begins_above_zero_and_other_index_types
);

/// On the host, an index below or above the ranges panics naming the OffsetView, the index and the
/// ranges, in the checked body and in the proven one's remainder alike; a huge unsigned index is
/// out of range, not wrapped into it.
#[test]
fn out_of_range_indices_panic_naming_the_ranges() -> Result<()> {
    crate::common::runtime();
    let exec = Serial::default_instance()?;
    let u = OffsetView::<f64, 1>::new("u", [-1..=8])?;
    let y = View::<f64, 1>::new("y", [10])?;
    let msg = panic_message(|| {
        parallel_for(
            "below",
            RangePolicy::new(&exec, -1i64, 9)?,
            kernel!(|i: i64| y[(i + 1) as usize] = u[i - 1]),
        )
    });
    assert_eq!(
        msg,
        "index [-2] is out of bounds for OffsetView \"u\" with index ranges [-1..9]"
    );
    let msg = panic_message(|| {
        parallel_for(
            "huge",
            RangePolicy::new(&exec, 0usize, 1)?,
            kernel!(|i| y[i] = u[i + usize::MAX]),
        )
    });
    assert!(msg.contains(&format!("index [{}]", usize::MAX)), "{msg}");
    let v = OffsetView::<f64, 2>::new("v", [-2..2, 3..5])?;
    let msg = panic_message(|| {
        parallel_for(
            "column",
            RangePolicy::new(&exec, -2i64, 2)?,
            kernel!(|i: i64| y[(i + 2) as usize] = v[(i, 2)]),
        )
    });
    assert_eq!(
        msg,
        "index [-2, 2] is out of bounds for OffsetView \"v\" with index ranges [-2..2, 3..5]"
    );
    Ok(())
}

/// The launch's bounds proof uses the OffsetView's ranges: a stencil over `-1..11` of
/// `u(-1:10)` is proved on `1..10` (from zero up, and where `i + 1` stays in range), and an
/// OffsetView whose range lies below zero is proved nowhere.
#[test]
fn the_bounds_proof_uses_the_ranges_from_zero_up() -> Result<()> {
    crate::common::runtime();
    let u = OffsetView::<f64, 1>::new("u", [-1..=10])?;
    let f = OffsetView::<f64, 1>::new("f", [-1..=10])?;
    let k = kernel!(|i: i64| f[i] = u[i - 1] + u[i + 1]);
    assert_eq!(k.proven_box_over(&[(-1, 11)], 64), Some(vec![(1, 10)]));
    let low = OffsetView::<f64, 1>::new("low", [-10..=-6])?;
    let k = kernel!(|i: i64| f[i + 6] = low[i]);
    assert_eq!(k.proven_box_over(&[(-10, -5)], 64), None);
    Ok(())
}

/// Bad ranges, copies between different ranges and host indices outside the ranges are `Err`s
/// naming the OffsetView; `from_view` shares a View's elements.
#[test]
fn errors_name_the_offset_view_and_its_ranges() -> Result<()> {
    crate::common::runtime();
    #[allow(clippy::reversed_empty_ranges)]
    let e = OffsetView::<f64, 1>::new("rev", [3..=1]).unwrap_err();
    assert!(
        e.to_string()
            .contains("\"rev\": the index range of dimension 0"),
        "{e}"
    );
    assert!(OffsetView::<f64, 1>::new("max", [0..=i64::MAX]).is_err());
    let e = OffsetView::<f64, 0>::new("scalar", [0..0i64; 0]).unwrap_err();
    assert!(e.to_string().contains("at least one dimension"), "{e}");
    let a = OffsetView::<f64, 1>::new("a", [0..=3])?;
    let b = OffsetView::<f64, 1>::new("b", [1..=4])?;
    let e = b.deep_copy_from(&a).unwrap_err();
    assert!(
        e.to_string()
            .contains("destination \"b\" has index ranges [1..5], source \"a\" has [0..4]"),
        "{e}"
    );
    let e = a.get([4]).unwrap_err();
    assert!(matches!(e, Error::OffsetOutOfBounds { .. }), "{e}");
    let w = View::<i32, 2>::new("w", [2, 3])?;
    w.set((1, 2), 7)?;
    let o = OffsetView::from_view(&w, [-1, 10])?;
    assert_eq!((o.get([0, 12])?, o.label(), o.end(1)), (7, "w", 13));
    assert!(OffsetView::from_view(&w, [0, i64::MAX - 1]).is_err());
    Ok(())
}

/// The kernel's OffsetView becomes an `fk::OffsetView` parameter (its begins travel with it),
/// which NVRTC and hiprtc compile, `begin`/`end` with a run-time dimension included.
#[test]
fn offset_view_kernels_compile_for_the_gpu() -> Result<()> {
    crate::common::runtime();
    let u = OffsetView::<f64, 2, LayoutLeft>::new("u", [-1..=8, 0..=3])?;
    let f = OffsetView::<f32, 1>::new("f", [-1..=8])?;
    let r = 1usize;
    let k = kernel!(|i: i64| {
        f[i] = (u[(i, 0)] + u[(i, 3)]) as f32 + (u.begin(r) + u.end(r) + f.begin(0)) as f32
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(
        text.contains("fk::OffsetView<const f64, 2, fk::LayoutLeft> u"),
        "{text}"
    );
    assert!(
        text.contains("fk::OffsetView<f32, 1, fk::LayoutRight> f"),
        "{text}"
    );
    assert!(text.contains("fk::offset_begin(u, r)"), "{text}");
    assert!(text.contains("f.begin[0]"), "{text}");
    check_device_code(&tu);
    Ok(())
}

/// An OffsetView and its own View captured under two names, one of them written, are one
/// allocation: the launch refuses them (`Error::KernelAlias`) as it refuses two Views of it.
#[test]
fn an_offset_view_and_its_view_in_one_kernel_are_refused() -> Result<()> {
    crate::common::runtime();
    let exec = Serial::default_instance()?;
    let o = OffsetView::<f64, 1>::new("o", [-1..=8])?;
    let v = o.view().clone();
    let e = parallel_for(
        "alias",
        RangePolicy::new(&exec, 0i64, 9)?,
        kernel!(|i: i64| o[i] = v[(i + 1) as usize]),
    )
    .unwrap_err();
    assert!(matches!(e, Error::KernelAlias { .. }), "{e}");
    Ok(())
}
