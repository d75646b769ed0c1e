//! `subview` against Kokkos' documented semantics (the behaviours of Kokkos' TestViewSubview): every
//! argument kind, the resulting extents, strides and layout type, aliasing with the parent, nesting,
//! rank-0 and empty subviews, and bounds errors.

use std::collections::HashMap;

use crate::common::{self, indices, offset, right_strides, row_major};
use ferrokkos::traits::Layout;
use ferrokkos::{ALL, Error, LayoutLeft, LayoutRight, LayoutStride, Result, View, subview};

/// Writes each parent element's row-major position into it.
fn fill_linear<L: Layout, const R: usize>(v: &View<i64, R, L>) -> Result<()> {
    let mut g = v.host_mut()?;
    for (n, i) in indices(v.extents()).into_iter().enumerate() {
        g[i] = n as i64;
    }
    Ok(())
}

/// Checks that `sub` is the part of `parent` that `map` (sub index -> parent index) describes: its
/// pointer, the values it reads, and that writes through it land exactly on the mapped parent elements
/// (and writes to those parent elements show in `sub`).
fn check_maps<L: Layout, K: Layout, const R: usize, const Q: usize>(
    parent: &View<i64, R, L>,
    sub: &View<i64, Q, K>,
    map: impl Fn([usize; Q]) -> [usize; R],
) -> Result<()> {
    assert!(sub.shares_allocation_with(parent));
    assert_eq!(sub.label(), parent.label());
    fill_linear(parent)?;
    let pext = parent.extents();
    if sub.size() > 0 {
        let first = offset(map([0; Q]), parent.strides());
        assert_eq!(
            sub.as_ptr(),
            parent.as_ptr().wrapping_add(first),
            "subview pointer"
        );
    }
    let expected: Vec<i64> = indices(sub.extents())
        .into_iter()
        .map(|q| row_major(map(q), pext) as i64)
        .collect();
    assert_eq!(sub.to_vec()?, expected, "values read through the subview");
    let mut image = HashMap::new();
    for (n, q) in indices(sub.extents()).into_iter().enumerate() {
        sub.set(q, -1 - n as i64)?;
        image.insert(map(q), -1 - n as i64);
    }
    assert_eq!(
        image.len(),
        sub.size(),
        "two subview indices map to one parent element"
    );
    for p in indices(pext) {
        let want = image.get(&p).copied().unwrap_or(row_major(p, pext) as i64);
        assert_eq!(parent.get(p)?, want, "parent element {p:?}");
    }
    for (n, q) in indices(sub.extents()).into_iter().enumerate() {
        parent.set(map(q), 1000 + n as i64)?;
        assert_eq!(
            sub.get(q)?,
            1000 + n as i64,
            "parent write not visible at {q:?}"
        );
    }
    Ok(())
}

#[test]
fn every_argument_kind_selects_in_a_rank_1_view() -> Result<()> {
    common::runtime();
    let v = View::<i64, 1>::new("v", [10])?;
    let at: View<i64, 0, LayoutStride> = subview(&v, 3)?;
    check_maps(&v, &at, |[]| [3])?;
    let r: View<i64, 1, LayoutRight> = subview(&v, 2..5)?;
    assert_eq!((r.extents(), r.strides()), ([3], [1]));
    check_maps(&v, &r, |[i]| [2 + i])?;
    let ri: View<i64, 1, LayoutRight> = subview(&v, 2..=5)?;
    assert_eq!(ri.extents(), [4]);
    check_maps(&v, &ri, |[i]| [2 + i])?;
    let from: View<i64, 1, LayoutRight> = subview(&v, 7..)?;
    assert_eq!(from.extents(), [3]);
    check_maps(&v, &from, |[i]| [7 + i])?;
    let to: View<i64, 1, LayoutRight> = subview(&v, ..4)?;
    assert_eq!(to.extents(), [4]);
    check_maps(&v, &to, |[i]| [i])?;
    let to_incl: View<i64, 1, LayoutRight> = subview(&v, ..=4)?;
    assert_eq!(to_incl.extents(), [5]);
    check_maps(&v, &to_incl, |[i]| [i])?;
    let full: View<i64, 1, LayoutRight> = subview(&v, ..)?;
    let all: View<i64, 1, LayoutRight> = subview(&v, ALL)?;
    assert_eq!(
        (full.extents(), all.extents(), all.as_ptr()),
        ([10], [10], v.as_ptr())
    );
    check_maps(&v, &full, |[i]| [i])?;
    let pair: View<i64, 1, LayoutRight> = subview(&v, (2, 6))?;
    assert_eq!(pair.extents(), [4]);
    check_maps(&v, &pair, |[i]| [2 + i])?;
    // A one-element tuple is the same as the bare argument.
    let tuple: View<i64, 1, LayoutRight> = subview(&v, (1..3,))?;
    check_maps(&v, &tuple, |[i]| [1 + i])
}

#[test]
fn rank_2_layout_right_subviews_have_the_documented_layouts() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2>::new("a", [4, 5])?;
    let row: View<i64, 1, LayoutRight> = subview(&a, (1, ALL))?;
    assert_eq!((row.extents(), row.strides()), ([5], [1]));
    check_maps(&a, &row, |[j]| [1, j])?;
    let col: View<i64, 1, LayoutStride> = subview(&a, (ALL, 2))?;
    assert_eq!((col.extents(), col.strides(), col.span()), ([4], [5], 16));
    check_maps(&a, &col, |[i]| [i, 2])?;
    let block: View<i64, 2, LayoutRight> = subview(&a, (1..3, 2..=4))?;
    assert_eq!((block.extents(), block.strides()), ([2, 3], [5, 1]));
    assert_eq!(
        (block.size(), block.span(), block.span_is_contiguous()),
        (6, 8, false)
    );
    check_maps(&a, &block, |[i, j]| [1 + i, 2 + j])?;
    let rows: View<i64, 2, LayoutRight> = subview(&a, ((0, 2), ..))?;
    assert_eq!((rows.extents(), rows.span_is_contiguous()), ([2, 5], true));
    check_maps(&a, &rows, |[i, j]| [i, j])?;
    let corner: View<i64, 2, LayoutRight> = subview(&a, (..=2, 3..))?;
    assert_eq!(corner.extents(), [3, 2]);
    check_maps(&a, &corner, |[i, j]| [i, 3 + j])?;
    let cols: View<i64, 2, LayoutStride> = subview(&a.to_layout_stride(), (ALL, 1..3))?;
    check_maps(&a, &cols, |[i, j]| [i, 1 + j])?;
    let elem: View<i64, 0, LayoutStride> = subview(&a, (2, 3))?;
    check_maps(&a, &elem, |[]| [2, 3])
}

#[test]
fn rank_3_layout_right_subviews_keep_the_parent_strides() -> Result<()> {
    common::runtime();
    let a = View::<i64, 3>::new("a3", [3, 4, 5])?;
    let line: View<i64, 1, LayoutStride> = subview(&a, (1, ALL, 2))?;
    assert_eq!((line.extents(), line.strides()), ([4], [5]));
    check_maps(&a, &line, |[j]| [1, j, 2])?;
    let slab: View<i64, 3, LayoutRight> = subview(&a, (ALL, 1..3, ALL))?;
    assert_eq!((slab.extents(), slab.strides()), ([3, 2, 5], [20, 5, 1]));
    check_maps(&a, &slab, |[i, j, k]| [i, 1 + j, k])?;
    let plane: View<i64, 2, LayoutRight> = subview(&a, (2, ALL, 1..4))?;
    assert_eq!((plane.extents(), plane.strides()), ([4, 3], [5, 1]));
    check_maps(&a, &plane, |[j, k]| [2, j, 1 + k])?;
    let mid: View<i64, 2, LayoutRight> = subview(&a, (0..2, 3, ..))?;
    assert_eq!((mid.extents(), mid.strides()), ([2, 5], [20, 1]));
    check_maps(&a, &mid, |[i, k]| [i, 3, k])?;
    let deep: View<i64, 1, LayoutStride> = subview(&a, (0..2, 3, 4))?;
    assert_eq!((deep.extents(), deep.strides()), ([2], [20]));
    check_maps(&a, &deep, |[i]| [i, 3, 4])
}

#[test]
fn layout_left_parents_keep_layout_left_when_the_first_argument_is_a_range() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2, LayoutLeft>::new("l", [4, 5])?;
    let col: View<i64, 1, LayoutLeft> = subview(&a, (ALL, 2))?;
    assert_eq!((col.extents(), col.strides()), ([4], [1]));
    check_maps(&a, &col, |[i]| [i, 2])?;
    let row: View<i64, 1, LayoutStride> = subview(&a, (1, ALL))?;
    assert_eq!((row.extents(), row.strides()), ([5], [4]));
    check_maps(&a, &row, |[j]| [1, j])?;
    let block: View<i64, 2, LayoutLeft> = subview(&a, (1..3, 1..4))?;
    assert_eq!(
        (block.extents(), block.strides(), block.span()),
        ([2, 3], [1, 4], 10)
    );
    check_maps(&a, &block, |[i, j]| [1 + i, 1 + j])?;

    let b = View::<i64, 4, LayoutLeft>::new("l4", [2, 3, 4, 5])?;
    let s1: View<i64, 2, LayoutLeft> = subview(&b, (ALL, 1, 2..4, 3))?;
    assert_eq!((s1.extents(), s1.strides()), ([2, 2], [1, 6]));
    check_maps(&b, &s1, |[i, k]| [i, 1, 2 + k, 3])?;
    let s2: View<i64, 2, LayoutStride> = subview(&b, (1, ALL, ALL, 0))?;
    assert_eq!((s2.extents(), s2.strides()), ([3, 4], [2, 6]));
    check_maps(&b, &s2, |[j, k]| [1, j, k, 0])?;
    let s3: View<i64, 3, LayoutLeft> = subview(&b, (0..1, .., 3, ..=1))?;
    assert_eq!((s3.extents(), s3.strides()), ([1, 3, 2], [1, 2, 24]));
    check_maps(&b, &s3, |[i, j, l]| [i, j, 3, l])
}

#[test]
fn layout_stride_parents_give_layout_stride_subviews() -> Result<()> {
    common::runtime();
    let s = View::<i64, 2, LayoutStride>::new_strided("s", [4, 5], [1, 6])?;
    let col: View<i64, 1, LayoutStride> = subview(&s, (ALL, 2))?;
    assert_eq!((col.extents(), col.strides()), ([4], [1]));
    check_maps(&s, &col, |[i]| [i, 2])?;
    let row: View<i64, 1, LayoutStride> = subview(&s, (3, 1..))?;
    assert_eq!((row.extents(), row.strides()), ([4], [6]));
    check_maps(&s, &row, |[j]| [3, 1 + j])?;
    let block: View<i64, 2, LayoutStride> = subview(&s, (1..3, (1, 4)))?;
    assert_eq!((block.extents(), block.strides()), ([2, 3], [1, 6]));
    check_maps(&s, &block, |[i, j]| [1 + i, 1 + j])?;
    let t = View::<i64, 3, LayoutStride>::new_strided("t", [2, 3, 4], [1, 10, 2])?;
    let mid: View<i64, 2, LayoutStride> = subview(&t, (ALL, 2, 1..3))?;
    assert_eq!((mid.extents(), mid.strides()), ([2, 2], [1, 2]));
    check_maps(&t, &mid, |[i, k]| [i, 2, 1 + k])
}

#[test]
fn rank_8_subviews_mix_every_argument_kind() -> Result<()> {
    common::runtime();
    let ext = [2, 3, 2, 2, 2, 2, 2, 3];
    let a = View::<i64, 8>::new("a8", ext)?;
    let ps = right_strides(ext);
    assert_eq!(ps, [288, 96, 48, 24, 12, 6, 3, 1]);
    let s: View<i64, 5, LayoutRight> = subview(&a, (1, ALL, 0, 1..2, .., (0, 1), 1, 1..=2))?;
    assert_eq!(
        (s.extents(), s.strides()),
        ([3, 1, 2, 1, 2], [96, 24, 12, 6, 1])
    );
    check_maps(&a, &s, |[p, q, r, t, u]| [1, p, 0, 1 + q, r, t, 1, 1 + u])?;
    let same: View<i64, 8, LayoutRight> = subview(&a, (ALL, ALL, ALL, ALL, ALL, ALL, ALL, ALL))?;
    assert_eq!(
        (same.extents(), same.strides(), same.as_ptr()),
        (ext, ps, a.as_ptr())
    );
    let line: View<i64, 1, LayoutStride> = subview(&a, (ALL, 2, 1, 1, 1, 1, 1, 2))?;
    assert_eq!((line.extents(), line.strides()), ([2], [288]));
    check_maps(&a, &line, |[i]| [i, 2, 1, 1, 1, 1, 1, 2])?;
    let point: View<i64, 0, LayoutStride> = subview(&a, (1, 2, 1, 1, 1, 1, 1, 2))?;
    check_maps(&a, &point, |[]| [1, 2, 1, 1, 1, 1, 1, 2])
}

#[test]
fn subviews_of_subviews_compose_their_offsets() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2>::new("a", [6, 7])?;
    let rows: View<i64, 2, LayoutRight> = subview(&a, (1..5, ALL))?;
    let row: View<i64, 1, LayoutRight> = subview(&rows, (2, 1..6))?;
    check_maps(&a, &row, |[j]| [3, 1 + j])?;
    let part: View<i64, 1, LayoutRight> = subview(&row, 2..=3)?;
    check_maps(&a, &part, |[j]| [3, 3 + j])?;
    let block: View<i64, 2, LayoutRight> = subview(&a, (1..6, 2..7))?;
    let col: View<i64, 1, LayoutStride> = subview(&block, (1..4, 3))?;
    assert_eq!((col.extents(), col.strides()), ([3], [7]));
    check_maps(&a, &col, |[i]| [2 + i, 5])?;
    let every: View<i64, 1, LayoutStride> = subview(&col, ..)?;
    check_maps(&a, &every, |[i]| [2 + i, 5])?;
    let one: View<i64, 0, LayoutStride> = subview(&col, 2)?;
    check_maps(&a, &one, |[]| [4, 5])?;
    assert_eq!(a.use_count(), 8);
    Ok(())
}

#[test]
fn rank_0_subviews_read_and_write_one_parent_element() -> Result<()> {
    common::runtime();
    let r = View::<f64, 2>::new("r", [3, 3])?;
    let l = View::<f64, 2, LayoutLeft>::new("l", [3, 3])?;
    let er: View<f64, 0, LayoutStride> = subview(&r, (1, 2))?;
    let el: View<f64, 0, LayoutStride> = subview(&l, (1, 2))?;
    assert_eq!(
        (er.size(), er.span(), er.extents(), er.strides()),
        (1, 1, [], [])
    );
    er.set((), 1.5)?;
    el.host_mut()?[()] = 2.5;
    assert_eq!((r.get((1, 2))?, l.get((1, 2))?), (1.5, 2.5));
    assert_eq!(r.host()?.as_slice().unwrap()[5], 1.5);
    assert_eq!(l.host()?.as_slice().unwrap()[7], 2.5);
    r.set((1, 2), 4.0)?;
    assert_eq!((er.get(())?, er.to_vec()?), (4.0, vec![4.0]));
    Ok(())
}

#[test]
#[allow(clippy::reversed_empty_ranges, reason = "3..=2 is under test")]
fn empty_ranges_give_empty_subviews() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2>::new("a", [4, 5])?;
    let none: View<i64, 2, LayoutRight> = subview(&a, (2..2, ALL))?;
    assert_eq!((none.extents(), none.size(), none.span()), ([0, 5], 0, 0));
    assert!(none.to_vec()?.is_empty());
    let at_end: View<i64, 2, LayoutRight> = subview(&a, (ALL, 5..))?;
    assert_eq!((at_end.extents(), at_end.size()), ([4, 0], 0));
    let pair: View<i64, 1, LayoutStride> = subview(&a, ((4, 4), 1))?;
    assert_eq!(pair.extents(), [0]);
    let incl: View<i64, 1, LayoutRight> = subview(&a, (0, 3..=2))?;
    assert_eq!(incl.extents(), [0]);
    let nested: View<i64, 2, LayoutRight> = subview(&none, (0..0, 1..3))?;
    assert_eq!(nested.extents(), [0, 2]);
    let e = subview(&none, (0, ALL)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "subview of View \"a\": argument 0 (0) is out of bounds for dimension 0 of extent 0 \
         (parent extents [0, 5])"
    );
    assert!(matches!(none.get((0, 0)), Err(Error::OutOfBounds { .. })));
    Ok(())
}

fn bounds_message<const R: usize>(
    e: Error,
    label: &str,
    arg: usize,
    given: &str,
    extent: usize,
    extents: [usize; R],
) {
    let text = e.to_string();
    assert_eq!(
        text,
        format!(
            "subview of View \"{label}\": argument {arg} ({given}) is out of bounds for dimension \
             {arg} of extent {extent} (parent extents {extents:?})"
        )
    );
    match e {
        Error::SubviewBounds {
            label: l,
            arg: a,
            given: g,
            extent: x,
            extents: xs,
        } => {
            assert_eq!(
                (l.as_str(), a, g.as_str(), x, xs),
                (label, arg, given, extent, extents.to_vec())
            );
        }
        other => panic!("unexpected error {other}"),
    }
}

#[test]
#[allow(clippy::reversed_empty_ranges, reason = "under test")]
fn out_of_bounds_arguments_are_subview_bounds_errors() -> Result<()> {
    common::runtime();
    let ext = [4, 5, 6];
    let a = View::<f64, 3>::new("A", ext)?;
    bounds_message(subview(&a, (4, ALL, 0)).unwrap_err(), "A", 0, "4", 4, ext);
    bounds_message(
        subview(&a, (0, 3..9, ALL)).unwrap_err(),
        "A",
        1,
        "3..9",
        5,
        ext,
    );
    bounds_message(
        subview(&a, (0, 2..=5, ALL)).unwrap_err(),
        "A",
        1,
        "2..=5",
        5,
        ext,
    );
    bounds_message(subview(&a, (0, 1, 7..)).unwrap_err(), "A", 2, "7..", 6, ext);
    bounds_message(
        subview(&a, (0, ..6, ALL)).unwrap_err(),
        "A",
        1,
        "..6",
        5,
        ext,
    );
    bounds_message(
        subview(&a, (0, ..=5, ALL)).unwrap_err(),
        "A",
        1,
        "..=5",
        5,
        ext,
    );
    bounds_message(
        subview(&a, (0, (3, 7), ALL)).unwrap_err(),
        "A",
        1,
        "(3, 7)",
        5,
        ext,
    );
    bounds_message(subview(&a, (0, 1, 6)).unwrap_err(), "A", 2, "6", 6, ext);
    // Reversed ranges are errors too.
    bounds_message(
        subview(&a, (4..2, 0, ALL)).unwrap_err(),
        "A",
        0,
        "4..2",
        4,
        ext,
    );
    bounds_message(
        subview(&a, ((4, 2), 0, ALL)).unwrap_err(),
        "A",
        0,
        "(4, 2)",
        4,
        ext,
    );
    bounds_message(
        subview(&a, (3..=1, 0, ALL)).unwrap_err(),
        "A",
        0,
        "3..=1",
        4,
        ext,
    );
    let max = usize::MAX;
    bounds_message(
        subview(&a, (0..=max, 0, ALL)).unwrap_err(),
        "A",
        0,
        &format!("0..={max}"),
        4,
        ext,
    );
    bounds_message(
        subview(&a, (..=max, 0, ALL)).unwrap_err(),
        "A",
        0,
        &format!("..={max}"),
        4,
        ext,
    );
    // The first offending argument is reported.
    bounds_message(subview(&a, (9, 9, 9..)).unwrap_err(), "A", 0, "9", 4, ext);
    // Bounds are those of the View subviewed, not of its parent.
    let v = View::<i32, 1, LayoutLeft>::new("v", [10])?;
    let part = subview(&v, 2..5)?;
    bounds_message(subview(&part, 3).unwrap_err(), "v", 0, "3", 3, [3]);
    bounds_message(subview(&part, 1..4).unwrap_err(), "v", 0, "1..4", 3, [3]);
    Ok(())
}

#[test]
fn the_method_form_equals_the_function_form() -> Result<()> {
    common::runtime();
    let a = View::<i64, 3, LayoutLeft>::new("m", [3, 4, 5])?;
    let f: View<i64, 2, LayoutLeft> = subview(&a, (ALL, 1..3, 2))?;
    let m: View<i64, 2, LayoutLeft> = a.subview((ALL, 1..3, 2))?;
    assert_eq!(
        (m.extents(), m.strides(), m.as_ptr()),
        (f.extents(), f.strides(), f.as_ptr())
    );
    check_maps(&a, &m, |[i, j]| [i, 1 + j, 2])?;
    let chained: View<i64, 1, LayoutStride> = a.subview((1..3, 2, ALL))?.subview((1, ..))?;
    assert_eq!((chained.extents(), chained.strides()), ([5], [12]));
    check_maps(&a, &chained, |[k]| [2, 2, k])?;
    assert!(a.subview((3, 0, 0)).is_err());
    Ok(())
}

#[test]
fn subviews_keep_the_allocation_alive() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2>::new("keep", [3, 3])?;
    a.set((2, 2), 9)?;
    let tail: View<i64, 1, LayoutRight> = subview(&a, (2, 1..))?;
    drop(a);
    assert_eq!(
        (tail.use_count(), tail.label(), tail.to_vec()?),
        (1, "keep", vec![0, 9])
    );
    Ok(())
}

#[test]
fn an_exhausted_inclusive_range_selects_nothing() -> Result<()> {
    common::runtime();
    let v = View::<i64, 1>::new("ex", [5])?;
    let mut range = 1..=2;
    range.by_ref().for_each(drop);
    assert!(range.is_empty());
    let data = [0i64; 5];
    assert!(data[range.clone()].is_empty(), "slices treat it as empty");
    let s = subview(&v, range)?;
    assert_eq!(s.extents(), [0]);
    Ok(())
}
