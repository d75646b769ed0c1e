//! Race freedom at launch (DESIGN.md decisions 4 and 5): a `kernel!` borrows its captured Views for
//! the launch, refuses a written View that shares its allocation with another capture (unless the
//! kernel says `unsafe`), and refuses Views on which host guards are held.

use crate::common::{self, check_device_code, runtime, threads as exec};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{BorrowKind, Error, Result, kernel};

#[test]
fn a_written_view_sharing_its_allocation_with_another_capture_is_refused() -> Result<()> {
    runtime();
    let x = View::<f64, 1>::new("field", [8])?;
    let y = x.clone();
    let err = parallel_for(
        "alias",
        RangePolicy::new(&exec(), 0, 8)?,
        kernel!(|i| y[i] = x[i] + 1.0),
    )
    .unwrap_err();
    match &err {
        Error::KernelAlias {
            launch,
            written,
            other,
            label,
        } => {
            assert_eq!(
                (
                    launch.as_str(),
                    written.as_str(),
                    other.as_str(),
                    label.as_str()
                ),
                ("parallel_for \"alias\" on Threads", "y", "x", "field")
            );
        }
        e => panic!("expected KernelAlias, got {e:?}"),
    }
    assert_eq!(
        err.to_string(),
        "parallel_for \"alias\" on Threads: the kernel writes View \"field\" through `y`, and `x` \
         shares its allocation; a kernel may write an allocation only through one captured View \
         (or mark the access `unsafe`)"
    );
    // A subview of the written View is the same allocation too.
    let a = View::<f64, 2>::new("a", [4, 4])?;
    let row = subview(&a, (0, ALL))?;
    let e = parallel_for(
        "alias2",
        RangePolicy::new(&exec(), 0, 4)?,
        kernel!(|i| a[(i, 0)] = row[i]),
    );
    assert!(matches!(e, Err(Error::KernelAlias { .. })), "{e:?}");
    // Nothing ran and nothing stays borrowed.
    assert_eq!(x.to_vec()?, vec![0.0; 8]);
    assert!(x.host_mut().is_ok());
    Ok(())
}

#[test]
fn an_unsafe_kernel_may_alias() -> Result<()> {
    runtime();
    let x = View::<f64, 1>::new("x", [8])?;
    deep_copy(&x, 3.0)?;
    let y = x.clone();
    // SAFETY (the author's): iteration i reads and writes element i only.
    let k = kernel!(|i| unsafe {
        y[i] = x[i] * 2.0;
    });
    assert!(k.info().is_unsafe);
    let shown = format!("{k:?}");
    assert!(
        shown.contains("captures: [\"y\", \"x\"]") && shown.contains("is_unsafe: true"),
        "{shown}"
    );
    check_device_code(&TranslationUnit::for_kernel(&k, Iterate::Right));
    parallel_for("in place", RangePolicy::new(&exec(), 0, 8)?, &k)?;
    assert_eq!(x.to_vec()?, vec![6.0; 8]);
    Ok(())
}

#[test]
fn unsafe_blocks_allow_other_indices() -> Result<()> {
    runtime();
    let n = 10;
    let src = View::<i32, 1>::new("src", [n])?;
    let dst = View::<i32, 1>::new("dst", [n])?;
    parallel_for(
        "iota",
        RangePolicy::new(&exec(), 0, n)?,
        kernel!(|i| src[i] = i as i32),
    )?;
    // Iteration i writes element n - 1 - i: a permutation, so no two iterations share an element.
    let k = kernel!(|i| {
        let j = dst.extent(0) - 1 - i;
        unsafe {
            dst[j] = src[i] * 10;
        }
    });
    parallel_for("reverse", RangePolicy::new(&exec(), 0, n)?, &k)?;
    check_device_code(&TranslationUnit::for_kernel(&k, Iterate::Right));
    assert_eq!(
        dst.to_vec()?,
        (0..n as i32).rev().map(|v| v * 10).collect::<Vec<_>>()
    );
    Ok(())
}

#[test]
fn a_launch_refuses_views_with_host_guards_and_releases_its_borrows() -> Result<()> {
    runtime();
    let x = View::<f64, 1>::new("input", [4])?;
    let y = View::<f64, 1>::new("output", [4])?;
    let k = kernel!(|i| y[i] = x[i] * 2.0);
    check_device_code(&TranslationUnit::for_kernel(&k, Iterate::Right));
    {
        let _reading = y.host()?;
        let err = parallel_for("guarded", RangePolicy::new(&exec(), 0, 4)?, &k).unwrap_err();
        assert!(
            matches!(&err, Error::Borrow { label, requested: BorrowKind::Exclusive, held: BorrowKind::Shared, .. } if label == "output"),
            "{err:?}"
        );
        // The shared borrow of x taken before the failure was given back.
        assert!(x.host_mut().is_ok());
    }
    {
        let _writing = x.host_mut()?;
        let err = parallel_for("guarded", RangePolicy::new(&exec(), 0, 4)?, &k).unwrap_err();
        assert!(
            matches!(&err, Error::Borrow { label, .. } if label == "input"),
            "{err:?}"
        );
    }
    deep_copy(&x, 1.5)?;
    parallel_for("ok", RangePolicy::new(&exec(), 0, 4)?, &k)?;
    // After the launch both Views are free again, for guards and for another launch of the kernel.
    assert_eq!(y.to_vec()?, vec![3.0; 4]);
    deep_copy(&x, 2.5)?;
    parallel_for("again", RangePolicy::new(&exec(), 0, 4)?, &k)?;
    assert_eq!(y.to_vec()?, vec![5.0; 4]);
    Ok(())
}

#[test]
fn read_only_captures_may_share_an_allocation() -> Result<()> {
    runtime();
    let x = View::<u64, 1>::new("x", [6])?;
    parallel_for(
        "fill",
        RangePolicy::new(&exec(), 0, 6)?,
        kernel!(|i| x[i] = i as u64),
    )?;
    let x2 = x.clone();
    let y = View::<u64, 1>::new("y", [6])?;
    parallel_for(
        "sum",
        RangePolicy::new(&exec(), 0, 6)?,
        kernel!(|i| y[i] = x[i] + x2[i]),
    )?;
    assert_eq!(y.to_vec()?, vec![0, 2, 4, 6, 8, 10]);
    // A shared host guard does not stop a kernel that only reads.
    let _g = x.host()?;
    let s: u64 = parallel_reduce(
        "total",
        RangePolicy::new(&exec(), 0, 6)?,
        kernel!(|i, acc| *acc += x[i]),
        Sum::new(),
    )?;
    assert_eq!(s, 15);
    Ok(())
}

#[test]
fn kernels_run_on_serial_and_partitions() -> Result<()> {
    runtime();
    let n = 100;
    let y = View::<f64, 1>::new("y", [n])?;
    let k = kernel!(|i| y[i] = (i * i) as f64);
    parallel_for(
        "serial",
        RangePolicy::new(&Serial::default_instance()?, 0, n)?,
        &k,
    )?;
    let parts = partition_space(&exec(), 2)?;
    let s: f64 = parallel_reduce(
        "part",
        RangePolicy::new(&parts[1], 0, n)?,
        kernel!(|i, acc| *acc += y[i]),
        Sum::new(),
    )?;
    assert_eq!(s, (0..n).map(|i| (i * i) as f64).sum::<f64>());
    // Kokkos' short form: a plain n runs 0..n on the default host space.
    parallel_for("short", n, kernel!(|i| y[i] = 1.0))?;
    assert_eq!(y.to_vec()?, vec![1.0; n]);
    Ok(())
}

#[test]
fn an_out_of_bounds_index_panics_with_the_view_label() -> Result<()> {
    runtime();
    let x = View::<f64, 1>::new("short_view", [3])?;
    let y = View::<f64, 1>::new("y", [5])?;
    let k = kernel!(|i| y[i] = x[i]);
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        parallel_for(
            "oob",
            RangePolicy::new(&Serial::default_instance().unwrap(), 0, 5).unwrap(),
            &k,
        )
    }));
    let msg = match r {
        Err(p) => p.downcast_ref::<String>().cloned().unwrap_or_default(),
        Ok(r) => panic!("no panic: {r:?}"),
    };
    assert!(msg.contains("short_view") && msg.contains("[3]"), "{msg}");
    // The panic released the launch's borrows.
    assert!(x.host_mut().is_ok() && y.host_mut().is_ok());
    Ok(())
}

/// A kernel written inside a `macro_rules!` macro, over names its caller passes in.
macro_rules! fill_with_offset {
    ($out:ident, $lo:ident) => {
        parallel_for(
            "fill",
            $out.extent(0),
            kernel!(|i| $out[i] = (i as i64) - $lo[0]),
        )
        .unwrap()
    };
}

#[test]
fn kernels_inside_macros_capture_the_callers_names() {
    common::runtime();
    let out = View::<i64, 1>::new("out", [4]).unwrap();
    let lo = [10i64];
    fill_with_offset!(out, lo);
    assert_eq!(out.to_vec().unwrap(), [-10, -9, -8, -7]);
}
