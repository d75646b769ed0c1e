//! `deep_copy` against Kokkos' documented semantics (the behaviours of Kokkos' TestDeepCopy): copies
//! between every pair of layouts, within a space and between the host and the space, of subviews,
//! of rank-0 Views, overlapping copies within one allocation, extent mismatches, and (on the host)
//! borrow conflicts with guards.

use ferrokkos::prelude::*;
use ferrokkos::traits::Layout;
use ferrokkos::{BorrowKind, Error, Result};

use crate::common::{
    self, conflict, indices, padded_left_strides, padded_right_strides, right_strides, span,
};
use crate::spaces::{SView, download, upload, upload_nd};

/// Distinct values for `n` elements.
fn distinct(n: usize, seed: i64) -> Vec<i64> {
    (0..n as i64).map(|k| seed + 7 * k).collect()
}

fn copies_between_layouts_and_spaces<S: Launch>(_exec: &S) -> Result<()> {
    macro_rules! layouts_of {
        ($r:literal, $ext:expr) => {{
            let ext: [usize; $r] = $ext;
            let n: usize = ext.iter().product();
            let data = distinct(n, 1000);
            let src = upload_nd::<S, i64, $r, LayoutRight>("src", ext, &data)?;
            // Within the space: Right -> Left -> Right, and into a strided View with holes.
            let left = SView::<S, i64, $r, LayoutLeft>::new("left", ext)?;
            deep_copy(&left, &src)?;
            assert_eq!(download(&left)?, data, "Left <- Right {ext:?}");
            let right = SView::<S, i64, $r>::new("right", ext)?;
            deep_copy(&right, &left)?;
            assert_eq!(download(&right)?, data, "Right <- Left {ext:?}");
            let holes = SView::<S, i64, $r, LayoutStride>::new_strided(
                "holes",
                ext,
                padded_right_strides(ext, 2),
            )?;
            deep_copy(&holes, &left)?;
            assert_eq!(download(&holes)?, data, "Stride <- Left {ext:?}");
            let padded = SView::<S, i64, $r, LayoutStride>::new_strided(
                "padded",
                ext,
                padded_left_strides(ext, 1),
            )?;
            deep_copy(&padded, &holes)?;
            assert_eq!(download(&padded)?, data, "Stride <- Stride {ext:?}");
            // Between the host and the space, in both directions and other layouts.
            let host_left = View::<i64, $r, LayoutLeft>::new("host_left", ext)?;
            deep_copy(&host_left, &src)?;
            assert_eq!(host_left.to_vec()?, data, "host Left <- Right {ext:?}");
            let host_holes = View::<i64, $r, LayoutStride>::new_strided(
                "host_holes",
                ext,
                padded_right_strides(ext, 1),
            )?;
            deep_copy(&host_holes, &padded)?;
            assert_eq!(host_holes.to_vec()?, data, "host Stride <- Stride {ext:?}");
            let other = distinct(n, -5000);
            let host_src = View::<i64, $r, LayoutLeft>::new("host_src", ext)?;
            {
                let mut g = host_src.host_mut()?;
                for (k, i) in indices(ext).into_iter().enumerate() {
                    g[i] = other[k];
                }
            }
            deep_copy(&right, &host_src)?;
            assert_eq!(download(&right)?, other, "Right <- host Left {ext:?}");
            deep_copy(&holes, &host_src)?;
            assert_eq!(download(&holes)?, other, "Stride <- host Left {ext:?}");
            deep_copy(&left, &host_holes)?;
            assert_eq!(download(&left)?, data, "Left <- host Stride {ext:?}");
            // The sources are unchanged.
            assert_eq!(download(&src)?, data);
            assert_eq!(host_src.to_vec()?, other);
        }};
    }
    layouts_of!(1, [37]);
    layouts_of!(2, [5, 7]);
    layouts_of!(2, [1, 9]);
    layouts_of!(3, [3, 4, 6]);
    layouts_of!(4, [2, 3, 2, 5]);
    Ok(())
}
per_space!(
    copies_between_layouts_and_spaces,
    copies_between_layouts_and_spaces
);

fn copies_of_subviews_in_both_directions<S: Launch>(_exec: &S) -> Result<()> {
    let (n, m) = (6, 5);
    let data = distinct(n * m, 1);
    let a = upload_nd::<S, i64, 2, LayoutRight>("a", [n, m], &data)?;
    // A strided column of the space's View into a contiguous host View, and back from another.
    let col = subview(&a, (ALL, 2))?;
    let hc = View::<i64, 1>::new("hc", [n])?;
    deep_copy(&hc, &col)?;
    assert_eq!(
        hc.to_vec()?,
        (0..n).map(|i| data[i * m + 2]).collect::<Vec<_>>()
    );
    let fresh: Vec<i64> = (0..n as i64).map(|k| -k - 1).collect();
    let hf = common::view_from("hf", &fresh)?;
    deep_copy(&col, &hf)?;
    let after = download(&a)?;
    for (k, [i, j]) in indices([n, m]).into_iter().enumerate() {
        let want = if j == 2 { fresh[i] } else { data[k] };
        assert_eq!(after[k], want, "column copy at ({i}, {j})");
    }
    // A block (LayoutRight with padding) into a block of a LayoutLeft View of the same space.
    let b = SView::<S, i64, 3, LayoutLeft>::new("b", [5, 4, 3])?;
    let src = subview(&a, (1..4, 0..3))?;
    let dst = subview(&b, (1..4, 1, 0..3))?;
    deep_copy(&dst, &src)?;
    let bb = download(&b)?;
    let mut written = 0;
    for (k, [i, j, l]) in indices([5, 4, 3]).into_iter().enumerate() {
        if (1..4).contains(&i) && j == 1 {
            assert_eq!(bb[k], after[i * m + l], "block copy at ({i}, {j}, {l})");
            written += 1;
        } else {
            assert_eq!(bb[k], 0, "outside the block at ({i}, {j}, {l})");
        }
    }
    assert_eq!(written, 9);
    // A host block into a strided block of the space's View (a pageable strided source).
    let host = View::<i64, 2, LayoutLeft>::new("host", [4, 4])?;
    {
        let mut g = host.host_mut()?;
        for [i, j] in indices([4, 4]) {
            g[(i, j)] = (100 * i + j) as i64;
        }
    }
    let hb = subview(&host, (1..3, 1..4))?;
    let db = subview(&a, (3..5, (1, 4)))?;
    deep_copy(&db, &hb)?;
    let now = download(&a)?;
    for (k, [i, j]) in indices([n, m]).into_iter().enumerate() {
        let want = if (3..5).contains(&i) && (1..4).contains(&j) {
            (100 * (i - 2) + j) as i64
        } else {
            after[k]
        };
        assert_eq!(now[k], want, "host block -> strided block at ({i}, {j})");
    }
    // And a strided block of the space's View into a host block.
    let target = View::<i64, 2>::new("target", [4, 6])?;
    deep_copy(&subview(&target, (0..2, 2..5))?, &db)?;
    let t = target.to_vec()?;
    for (k, [i, j]) in indices([4, 6]).into_iter().enumerate() {
        let want = if i < 2 && (2..5).contains(&j) {
            (100 * (i + 1) + j - 1) as i64
        } else {
            0
        };
        assert_eq!(t[k], want, "strided block -> host block at ({i}, {j})");
    }
    Ok(())
}
per_space!(
    copies_of_subviews_in_both_directions,
    copies_of_subviews_in_both_directions
);

fn overlapping_copies_within_one_allocation_use_the_old_values<S: Launch>(_exec: &S) -> Result<()> {
    let iota: Vec<i32> = (0..10).collect();
    let v = upload::<S, i32>("v", &iota)?;
    deep_copy(&subview(&v, 2..8)?, &subview(&v, 0..6)?)?;
    assert_eq!(download(&v)?, [0, 1, 0, 1, 2, 3, 4, 5, 8, 9]);
    let v = upload::<S, i32>("v", &iota)?;
    deep_copy(&subview(&v, 0..6)?, &subview(&v, 2..8)?)?;
    assert_eq!(download(&v)?, [2, 3, 4, 5, 6, 7, 6, 7, 8, 9]);
    let v = upload::<S, i32>("v", &iota)?;
    deep_copy(&subview(&v, 5..)?, &subview(&v, ..5)?)?;
    assert_eq!(download(&v)?, [0, 1, 2, 3, 4, 0, 1, 2, 3, 4]);
    // A View onto itself changes nothing: itself, a clone, as LayoutStride, a column onto itself.
    deep_copy(&v, &v.clone())?;
    assert_eq!(download(&v)?, [0, 1, 2, 3, 4, 0, 1, 2, 3, 4]);
    let own = distinct(12, 10);
    let w = upload_nd::<S, i64, 2, LayoutLeft>("self", [3, 4], &own)?;
    deep_copy(&w, &w)?;
    deep_copy(&w, &w.clone())?;
    deep_copy(&w.to_layout_stride(), &w)?;
    deep_copy(&subview(&w, (ALL, 1))?, &subview(&w, (ALL, 1))?)?;
    assert_eq!(download(&w)?, own);
    // Overlapping 2-D blocks.
    let data = distinct(16, 1);
    let a = upload_nd::<S, i64, 2, LayoutRight>("a", [4, 4], &data)?;
    let dst = subview(&a, (1..4, 1..4))?;
    let src = subview(&a.to_layout_stride(), (0..3, 0..3))?;
    deep_copy(&dst, &src)?;
    let got = download(&a)?;
    for [i, j] in indices([4, 4]) {
        let want = if i > 0 && j > 0 {
            data[(i - 1) * 4 + j - 1]
        } else {
            data[i * 4 + j]
        };
        assert_eq!(got[i * 4 + j], want, "at ({i}, {j})");
    }
    Ok(())
}
per_space!(
    overlapping_copies_within_one_allocation_use_the_old_values,
    overlapping_copies_within_one_allocation_use_the_old_values
);

fn rank_0_views_are_read_and_filled<S: Launch>(_exec: &S) -> Result<()> {
    let v = SView::<S, f64, 0>::new("sum", [])?;
    assert_eq!((v.size(), v.span(), v.extents()), (1, 1, []));
    let mut x = 1.0;
    deep_copy(&mut x, &v)?;
    assert_eq!(x, 0.0, "zero-initialized");
    deep_copy(&v, 6.25)?;
    deep_copy(&mut x, &v)?;
    assert_eq!(x, 6.25);
    let a = SView::<S, i32, 2, LayoutLeft>::new("a", [3, 3])?;
    let elem = subview(&a, (1, 2))?;
    deep_copy(&elem, 42)?;
    let mut y = 0;
    deep_copy(&mut y, &elem)?;
    assert_eq!(y, 42);
    assert_eq!(download(&a)?, [0, 0, 0, 0, 0, 42, 0, 0, 0]);
    // A rank-0 View from a host rank-0 View and back.
    let h = View::<u64, 0>::new("h", [])?;
    h.set((), u64::MAX - 3)?;
    let d = SView::<S, u64, 0>::new("d", [])?;
    deep_copy(&d, &h)?;
    let mut z = 0;
    deep_copy(&mut z, &d)?;
    assert_eq!(z, u64::MAX - 3);
    Ok(())
}
per_space!(
    rank_0_views_are_read_and_filled,
    rank_0_views_are_read_and_filled
);

fn mismatched_extents_are_an_error_naming_both_views<S: Launch>(_exec: &S) -> Result<()> {
    let dst = SView::<S, i32, 2>::new("dst", [3, 2])?;
    let src = SView::<S, i32, 2, LayoutLeft>::new("src", [2, 3])?;
    deep_copy(&src, 5)?;
    let e = deep_copy(&dst, &src).unwrap_err();
    assert_eq!(
        e.to_string(),
        "deep_copy: extents differ: destination \"dst\" has [3, 2], source \"src\" has [2, 3]"
    );
    match e {
        Error::ExtentMismatch {
            operation,
            dst_label,
            dst_extents,
            src_label,
            src_extents,
        } => {
            assert_eq!(operation, "deep_copy");
            assert_eq!((dst_label.as_str(), dst_extents), ("dst", vec![3, 2]));
            assert_eq!((src_label.as_str(), src_extents), ("src", vec![2, 3]));
        }
        other => panic!("unexpected error {other}"),
    }
    assert_eq!(download(&dst)?, [0; 6], "a failed copy wrote something");
    // Between the host and the space, in both directions.
    let host = View::<i32, 1>::new("short", [3])?;
    let row = subview(&src, (0, 1..3))?;
    assert_eq!(
        deep_copy(&host, &row).unwrap_err().to_string(),
        "deep_copy: extents differ: destination \"short\" has [3], source \"src\" has [2]"
    );
    assert_eq!(
        deep_copy(&row, &host).unwrap_err().to_string(),
        "deep_copy: extents differ: destination \"src\" has [2], source \"short\" has [3]"
    );
    Ok(())
}
per_space!(
    mismatched_extents_are_an_error_naming_both_views,
    mismatched_extents_are_an_error_naming_both_views
);

/// Writes `seed + 7 * n` into the `n`-th element in row-major order (never zero for the seeds used).
pub fn fill_distinct<L: Layout, const R: usize>(v: &View<i64, R, L>, seed: i64) -> Result<()> {
    let mut g = v.host_mut()?;
    for (n, i) in indices(v.extents()).into_iter().enumerate() {
        g[i] = seed + 7 * n as i64;
    }
    Ok(())
}

/// The elements of a View's whole span in memory (holes included).
fn raw_span<L: Layout, const R: usize>(v: &View<i64, R, L>) -> Vec<i64> {
    let _reader = v.host().unwrap();
    // SAFETY: the View owns its allocation of `span()` elements and a reader guard is held.
    unsafe { std::slice::from_raw_parts(v.as_ptr(), v.span()).to_vec() }
}

/// Copies distinct values from `src` into `dst` (pre-filled with other values) and checks every
/// element, that `src` is unchanged and that the holes of a strided `dst` stay zero.
fn copy_case<Ld: Layout, Ls: Layout, const R: usize>(
    dst: View<i64, R, Ld>,
    src: View<i64, R, Ls>,
) -> Result<()> {
    fill_distinct(&src, 1000)?;
    fill_distinct(&dst, -5001)?;
    deep_copy(&dst, &src)?;
    let what = format!("{} <- {} {:?}", dst.label(), src.label(), dst.extents());
    for (n, i) in indices(dst.extents()).into_iter().enumerate() {
        assert_eq!(dst.get(i)?, 1000 + 7 * n as i64, "{what} at {i:?}");
        assert_eq!(
            src.get(i)?,
            1000 + 7 * n as i64,
            "source changed: {what} at {i:?}"
        );
    }
    let raw = raw_span(&dst);
    assert_eq!(
        raw.iter().filter(|&&x| x != 0).count(),
        dst.size(),
        "holes written: {what}"
    );
    Ok(())
}

fn all_layout_pairs<const R: usize>(ext: [usize; R]) -> Result<()> {
    let right = || View::<i64, R, LayoutRight>::new("right", ext);
    let left = || View::<i64, R, LayoutLeft>::new("left", ext);
    let padded =
        || View::<i64, R, LayoutStride>::new_strided("padded", ext, padded_left_strides(ext, 1));
    let holes =
        || View::<i64, R, LayoutStride>::new_strided("holes", ext, padded_right_strides(ext, 2));
    let compact = || View::<i64, R, LayoutStride>::new_strided("compact", ext, right_strides(ext));
    copy_case(right()?, right()?)?;
    copy_case(right()?, left()?)?;
    copy_case(right()?, padded()?)?;
    copy_case(left()?, right()?)?;
    copy_case(left()?, left()?)?;
    copy_case(left()?, padded()?)?;
    copy_case(padded()?, right()?)?;
    copy_case(padded()?, left()?)?;
    copy_case(padded()?, holes()?)?;
    copy_case(holes()?, padded()?)?;
    // Same strides, different layout types (the contiguous fast path).
    copy_case(compact()?, right()?)?;
    copy_case(right()?, compact()?)?;
    Ok(())
}

#[test]
fn deep_copy_between_all_layouts_of_rank_1_copies_every_element() -> Result<()> {
    common::runtime();
    all_layout_pairs([7])
}

#[test]
fn deep_copy_between_all_layouts_of_rank_2_copies_every_element() -> Result<()> {
    common::runtime();
    all_layout_pairs([3, 4])?;
    all_layout_pairs([1, 5])
}

#[test]
fn deep_copy_between_all_layouts_of_rank_3_copies_every_element() -> Result<()> {
    common::runtime();
    all_layout_pairs([2, 3, 4])
}

#[test]
fn deep_copy_between_all_layouts_of_rank_4_copies_every_element() -> Result<()> {
    common::runtime();
    all_layout_pairs([2, 3, 2, 3])
}

#[test]
fn deep_copy_of_array_elements_copies_whole_values() -> Result<()> {
    common::runtime();
    let a = View::<[f32; 2], 2>::new("pairs", [2, 3])?;
    let b = View::<[f32; 2], 2, LayoutLeft>::new("pairs_left", [2, 3])?;
    let c = View::<[f32; 2], 2>::new("pairs_copy", [2, 3])?;
    for [i, j] in indices([2, 3]) {
        a.set((i, j), [i as f32, j as f32 + 0.5])?;
    }
    deep_copy(&b, &a)?;
    deep_copy(&c, &b)?;
    assert_eq!(c.to_vec()?, a.to_vec()?);
    assert_eq!(b.get((1, 2))?, [1.0, 2.5]);
    Ok(())
}

#[test]
fn deep_copy_while_a_guard_is_alive_is_a_borrow_error() -> Result<()> {
    common::runtime();
    let dst = View::<f64, 1>::new("dst", [4])?;
    let src = View::<f64, 1, LayoutLeft>::new("src", [4])?;
    deep_copy(&src, 1.0)?;
    {
        let _reading_dst = dst.host()?;
        let e = deep_copy(&dst, &src).unwrap_err();
        assert_eq!(
            e.to_string(),
            "View \"dst\" cannot be borrowed exclusive (write) on the host: it is already borrowed \
             shared (read)"
        );
        conflict(
            deep_copy(&dst, 2.0),
            "dst",
            BorrowKind::Exclusive,
            BorrowKind::Shared,
        );
    }
    {
        let _writing_dst = dst.host_mut()?;
        conflict(
            deep_copy(&dst, &src),
            "dst",
            BorrowKind::Exclusive,
            BorrowKind::Exclusive,
        );
    }
    {
        let _writing_src = src.host_mut()?;
        conflict(
            deep_copy(&dst, &src),
            "src",
            BorrowKind::Shared,
            BorrowKind::Exclusive,
        );
    }
    assert_eq!(dst.to_vec()?, [0.0; 4], "a refused copy wrote something");
    {
        let _reading_src = src.host()?;
        deep_copy(&dst, &src)?; // reading the source while it is read is fine
    }
    assert_eq!(dst.to_vec()?, [1.0; 4]);
    Ok(())
}

#[test]
fn overlapping_copy_and_scalar_read_respect_guards() -> Result<()> {
    common::runtime();
    let v = View::<i32, 1>::new("v", [6])?;
    let reader = subview(&v, 4..)?;
    let _r = reader.host()?;
    conflict(
        deep_copy(&subview(&v, 0..3)?, &subview(&v, 1..4)?),
        "v",
        BorrowKind::Exclusive,
        BorrowKind::Shared,
    );
    let s = View::<i32, 0>::new("s", [])?;
    let _w = s.host_mut()?;
    let mut x = 0;
    conflict(
        deep_copy(&mut x, &s),
        "s",
        BorrowKind::Shared,
        BorrowKind::Exclusive,
    );
    Ok(())
}

#[test]
fn deep_copy_of_empty_views_succeeds_and_spans_are_as_computed() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2>::new("a", [0, 4])?;
    let b = View::<i64, 2, LayoutStride>::new_strided("b", [0, 4], [5, 1])?;
    deep_copy(&a, &b)?;
    deep_copy(&b, 3)?;
    assert_eq!((a.span(), b.span(), span([0, 4], [5, 1])), (0, 0, 0));
    let v = View::<i64, 1>::new("v", [3])?;
    let none = subview(&v, 1..1)?;
    deep_copy(&none, &subview(&v, 3..)?)?;
    assert_eq!(v.to_vec()?, [0, 0, 0]);
    Ok(())
}
