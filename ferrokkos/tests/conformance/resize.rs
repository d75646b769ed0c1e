//! `resize` and `realloc` against Kokkos' documented semantics (Kokkos' TestViewResize): the common
//! box keeps its values, new elements are zero, the label is kept, other handles stay on the old
//! allocation; `realloc` discards the contents.

use ferrokkos::traits::RegularLayout;
use ferrokkos::{
    LayoutLeft, LayoutRight, Result, View, deep_copy, realloc, realloc_without_initializing,
    resize, subview,
};

use crate::common::{self, indices, left_strides, right_strides};
use crate::mirrors::{code, fill_codes};

/// Fills a View of `old` extents with index codes, resizes it to `new` and checks that the common box
/// kept its values, new elements are zero, the label is kept and the layout's strides are compact.
fn check_resize<L: RegularLayout, const R: usize>(
    old: [usize; R],
    new: [usize; R],
    strides: fn([usize; R]) -> [usize; R],
) -> Result<()> {
    let mut v = View::<i64, R, L>::new("rs", old)?;
    fill_codes(&v)?;
    resize(&mut v, new)?;
    assert_eq!(
        (v.label(), v.extents(), v.strides()),
        ("rs", new, strides(new))
    );
    for i in indices(new) {
        let kept = (0..R).all(|r| i[r] < old[r]);
        let want = if kept { code(i) } else { 0 };
        assert_eq!(v.get(i)?, want, "{old:?} -> {new:?} at {i:?}");
    }
    Ok(())
}

/// Resizes growing and shrinking each dimension in turn, both at once, and to and from zero.
fn resize_every_dimension<L: RegularLayout, const R: usize>(
    base: [usize; R],
    strides: fn([usize; R]) -> [usize; R],
) -> Result<()> {
    for d in 0..R {
        let mut grown = base;
        grown[d] += 2;
        check_resize::<L, R>(base, grown, strides)?;
        let mut shrunk = base;
        shrunk[d] -= 1;
        check_resize::<L, R>(base, shrunk, strides)?;
        let mut mixed = base.map(|e| e + 1);
        mixed[d] = 1;
        check_resize::<L, R>(base, mixed, strides)?;
        let mut empty = base;
        empty[d] = 0;
        check_resize::<L, R>(base, empty, strides)?;
        check_resize::<L, R>(empty, base, strides)?;
    }
    check_resize::<L, R>(base, base.map(|e| e + 3), strides)?;
    check_resize::<L, R>(base, base.map(|e| e - 1), strides)
}

#[test]
fn resize_keeps_the_common_contents_for_layout_right() -> Result<()> {
    common::runtime();
    resize_every_dimension::<LayoutRight, 1>([5], right_strides)?;
    resize_every_dimension::<LayoutRight, 2>([3, 4], right_strides)?;
    resize_every_dimension::<LayoutRight, 3>([2, 3, 4], right_strides)
}

#[test]
fn resize_keeps_the_common_contents_for_layout_left() -> Result<()> {
    common::runtime();
    resize_every_dimension::<LayoutLeft, 1>([5], left_strides)?;
    resize_every_dimension::<LayoutLeft, 2>([3, 4], left_strides)?;
    resize_every_dimension::<LayoutLeft, 3>([2, 3, 4], left_strides)
}

#[test]
fn resize_to_the_same_extents_keeps_the_allocation() -> Result<()> {
    common::runtime();
    let mut v = View::<f64, 2>::new("same", [3, 3])?;
    v.set((1, 1), 2.0)?;
    let clone = v.clone();
    let ptr = v.as_ptr();
    resize(&mut v, [3, 3])?;
    assert_eq!((v.as_ptr(), v.get((1, 1))?), (ptr, 2.0));
    assert!(v.shares_allocation_with(&clone));
    Ok(())
}

#[test]
fn resize_and_realloc_leave_other_handles_on_the_old_allocation() -> Result<()> {
    common::runtime();
    let mut v = View::<i64, 1>::new("handles", [4])?;
    fill_codes(&v)?;
    let clone = v.clone();
    let part = subview(&v, 1..3)?;
    resize(&mut v, [6])?;
    assert!(!v.shares_allocation_with(&clone));
    assert_eq!(
        (clone.extents(), clone.use_count(), v.use_count()),
        ([4], 2, 1)
    );
    assert_eq!(clone.to_vec()?, [10, 11, 12, 13]);
    v.set(1, -1)?;
    assert_eq!(
        (clone.get(1)?, part.get(0)?),
        (11, 11),
        "the old allocation changed"
    );
    assert_eq!(v.to_vec()?, [10, -1, 12, 13, 0, 0]);
    let mut w = clone.clone();
    realloc(&mut w, [2])?;
    assert!(!w.shares_allocation_with(&clone));
    assert_eq!(
        (clone.to_vec()?, w.to_vec()?),
        (vec![10, 11, 12, 13], vec![0, 0])
    );
    Ok(())
}

#[test]
fn realloc_discards_the_contents_and_keeps_the_label() -> Result<()> {
    common::runtime();
    let mut v = View::<f64, 2, LayoutLeft>::new("re", [2, 3])?;
    deep_copy(&v, 7.0)?;
    realloc(&mut v, [4, 2])?;
    assert_eq!(
        (v.label(), v.extents(), v.strides()),
        ("re", [4, 2], [1, 4])
    );
    assert_eq!(v.to_vec()?, [0.0; 8]);
    deep_copy(&v, 7.0)?;
    realloc(&mut v, [4, 2])?;
    assert_eq!(
        v.to_vec()?,
        [0.0; 8],
        "realloc to the same extents must zero the contents"
    );
    let mut u = View::<i32, 1>::new("uninit", [3])?;
    deep_copy(&u, 1)?;
    realloc_without_initializing(&mut u, [5])?;
    assert_eq!(
        (u.label(), u.extents(), u.is_managed()),
        ("uninit", [5], true)
    );
    // HostSpace documents that it hands out zeroed memory even without initializing.
    assert_eq!(u.to_vec()?, [0; 5]);
    Ok(())
}
