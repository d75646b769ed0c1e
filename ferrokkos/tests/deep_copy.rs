//! `deep_copy` against Kokkos' documented semantics (the behaviours of Kokkos' TestDeepCopy): copies
//! between every pair of layouts, fills, rank-0 reads, extent mismatches, overlapping copies within one
//! allocation and borrow conflicts.

mod common;

use common::{conflict, indices, padded_left_strides, padded_right_strides, right_strides, span};
use ferrokkos::{
    ALL, BorrowKind, Error, Layout, LayoutLeft, LayoutRight, LayoutStride, Result, View, deep_copy,
    subview,
};

/// Writes `seed + 7 * n` into the `n`-th element in row-major order (never zero for the seeds used).
fn fill_distinct<L: Layout, const R: usize>(v: &View<i64, R, L>, seed: i64) -> Result<()> {
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
fn deep_copy_between_subviews_of_different_allocations_copies_every_element() -> Result<()> {
    common::runtime();
    let a = View::<i64, 3>::new("a", [3, 4, 5])?;
    let b = View::<i64, 3, LayoutLeft>::new("b", [5, 4, 3])?;
    fill_distinct(&a, 1)?;
    let src: View<i64, 2, LayoutRight> = subview(&a, (ALL, 2, 1..4))?;
    let dst: View<i64, 2, LayoutLeft> = subview(&b, (1..4, 0..3, 1))?;
    deep_copy(&dst, &src)?;
    for [i, j] in indices([3, 3]) {
        assert_eq!(b.get((1 + i, j, 1))?, a.get((i, 2, 1 + j))?);
    }
    let written = b.to_vec()?.iter().filter(|&&x| x != 0).count();
    assert_eq!(written, 9, "only the subview of b may change");
    Ok(())
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

/// Fills `parent` with distinct values, fills `sub` with `value` and checks every parent element:
/// `inside(index)` ones hold `value`, the others their old value.
fn check_fill<L: Layout, K: Layout, const R: usize, const Q: usize>(
    parent: &View<i64, R, L>,
    sub: &View<i64, Q, K>,
    inside: impl Fn([usize; R]) -> bool,
) -> Result<()> {
    fill_distinct(parent, 1)?;
    deep_copy(sub, -3)?;
    assert_eq!(sub.to_vec()?, vec![-3; sub.size()]);
    let mut filled = 0;
    for (n, i) in indices(parent.extents()).into_iter().enumerate() {
        let expected = if inside(i) { -3 } else { 1 + 7 * n as i64 };
        filled += usize::from(inside(i));
        assert_eq!(parent.get(i)?, expected, "at {i:?}");
    }
    assert_eq!(filled, sub.size());
    Ok(())
}

#[test]
fn fill_sets_every_element_of_a_whole_view() -> Result<()> {
    common::runtime();
    let v = View::<f64, 3, LayoutLeft>::new("v", [2, 3, 4])?;
    deep_copy(&v, 2.5)?;
    assert_eq!(v.to_vec()?, vec![2.5; 24]);
    let s = View::<f64, 2, LayoutStride>::new_strided("s", [3, 4], [10, 2])?;
    deep_copy(&s, 1.5)?;
    assert_eq!(s.to_vec()?, vec![1.5; 12]);
    let _reader = s.host()?;
    // SAFETY: 3 * 4 elements with strides [10, 2] span 27 elements; a reader guard is held.
    let raw = unsafe { std::slice::from_raw_parts(s.as_ptr(), 27) };
    assert_eq!(
        raw.iter().filter(|&&x| x == 1.5).count(),
        12,
        "holes were filled"
    );
    Ok(())
}

#[test]
fn fill_of_a_contiguous_subview_leaves_the_rest_untouched() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2>::new("a", [4, 5])?;
    let rows: View<i64, 2, LayoutRight> = subview(&a, (1..3, ALL))?;
    assert!(rows.span_is_contiguous());
    check_fill(&a, &rows, |[i, _]| (1..3).contains(&i))?;
    let row: View<i64, 1, LayoutRight> = subview(&a, (3, ALL))?;
    check_fill(&a, &row, |[i, _]| i == 3)
}

#[test]
fn fill_of_a_strided_subview_leaves_the_rest_untouched() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2>::new("a", [4, 5])?;
    let col: View<i64, 1, LayoutStride> = subview(&a, (ALL, 2))?;
    check_fill(&a, &col, |[_, j]| j == 2)?;
    let block: View<i64, 2, LayoutRight> = subview(&a, (1..3, 1..4))?;
    assert!(!block.span_is_contiguous());
    check_fill(&a, &block, |[i, j]| {
        (1..3).contains(&i) && (1..4).contains(&j)
    })?;
    let l = View::<i64, 3, LayoutLeft>::new("l", [3, 4, 2])?;
    let plane: View<i64, 2, LayoutStride> = subview(&l, (1, ALL, ALL))?;
    check_fill(&l, &plane, |[i, _, _]| i == 1)?;
    let s = View::<i64, 3, LayoutStride>::new_strided("s", [3, 4, 2], [1, 6, 30])?;
    let part: View<i64, 2, LayoutStride> = subview(&s, (0..2, 3, ALL))?;
    check_fill(&s, &part, |[i, j, _]| i < 2 && j == 3)
}

#[test]
fn rank_0_view_is_read_into_a_scalar() -> Result<()> {
    common::runtime();
    let v = View::<f64, 0>::new("sum", [])?;
    deep_copy(&v, 6.25)?;
    let mut x = 0.0;
    deep_copy(&mut x, &v)?;
    assert_eq!(x, 6.25);

    let a = View::<i32, 2, LayoutLeft>::new("a", [3, 3])?;
    a.set((1, 2), 42)?;
    let elem: View<i32, 0, LayoutStride> = subview(&a, (1, 2))?;
    let mut y = 0;
    deep_copy(&mut y, &elem)?;
    assert_eq!(y, 42);
    deep_copy(&elem, 7)?;
    assert_eq!(a.to_vec()?, [0, 0, 0, 0, 0, 7, 0, 0, 0]);
    Ok(())
}

#[test]
fn mismatched_extents_are_an_error_naming_both_views() -> Result<()> {
    common::runtime();
    let dst = View::<i32, 2>::new("dst", [3, 2])?;
    let src = View::<i32, 2, LayoutLeft>::new("src", [2, 3])?;
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
    assert_eq!(dst.to_vec()?, [0; 6], "a failed copy wrote something");
    let row = subview(&src, (0, 1..3))?;
    let short = View::<i32, 1>::new("short", [3])?;
    assert_eq!(
        deep_copy(&short, &row).unwrap_err().to_string(),
        "deep_copy: extents differ: destination \"short\" has [3], source \"src\" has [2]"
    );
    Ok(())
}

#[test]
fn copy_between_overlapping_subviews_uses_the_old_source_values() -> Result<()> {
    common::runtime();
    let v = View::<i32, 1>::new("v", [10])?;
    let iota = |v: &View<i32, 1>| -> Result<()> {
        for i in 0..10 {
            v.set(i, i as i32)?;
        }
        Ok(())
    };
    iota(&v)?;
    deep_copy(&subview(&v, 2..8)?, &subview(&v, 0..6)?)?;
    assert_eq!(v.to_vec()?, [0, 1, 0, 1, 2, 3, 4, 5, 8, 9]);
    iota(&v)?;
    deep_copy(&subview(&v, 0..6)?, &subview(&v, 2..8)?)?;
    assert_eq!(v.to_vec()?, [2, 3, 4, 5, 6, 7, 6, 7, 8, 9]);
    // Disjoint parts of one allocation.
    iota(&v)?;
    deep_copy(&subview(&v, 5..)?, &subview(&v, ..5)?)?;
    assert_eq!(v.to_vec()?, [0, 1, 2, 3, 4, 0, 1, 2, 3, 4]);
    Ok(())
}

#[test]
fn copy_between_overlapping_2d_blocks_uses_the_old_source_values() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2>::new("a", [4, 4])?;
    fill_distinct(&a, 1)?;
    let old = a.to_vec()?;
    let dst: View<i64, 2, LayoutRight> = subview(&a, (1..4, 1..4))?;
    let src: View<i64, 2, LayoutStride> = subview(&a.to_layout_stride(), (0..3, 0..3))?;
    deep_copy(&dst, &src)?;
    for [i, j] in indices([4, 4]) {
        let expected = if i > 0 && j > 0 {
            old[(i - 1) * 4 + j - 1]
        } else {
            old[i * 4 + j]
        };
        assert_eq!(a.get((i, j))?, expected, "at ({i}, {j})");
    }
    Ok(())
}

#[test]
fn copying_a_view_onto_itself_changes_nothing() -> Result<()> {
    common::runtime();
    let v = View::<i64, 2, LayoutLeft>::new("self", [3, 4])?;
    fill_distinct(&v, 10)?;
    let before = v.to_vec()?;
    deep_copy(&v, &v)?;
    deep_copy(&v, &v.clone())?;
    deep_copy(&v.to_layout_stride(), &v)?;
    let col = subview(&v, (ALL, 1))?;
    deep_copy(&col, &subview(&v, (ALL, 1))?)?;
    assert_eq!(v.to_vec()?, before);
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
