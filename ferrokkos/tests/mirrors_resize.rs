//! Mirrors, resize / realloc and unmanaged Views against Kokkos' documented semantics (the behaviours
//! of Kokkos' TestViewAPI mirror tests, TestViewResize and the unmanaged-View tests).

mod common;

use common::{indices, left_strides, right_strides};
use ferrokkos::{
    ALL, Error, HostSpace, Layout, LayoutLeft, LayoutRight, LayoutStride, RegularLayout, Result,
    View, create_mirror, create_mirror_in, create_mirror_view, create_mirror_view_and_copy,
    create_mirror_view_in, deep_copy, realloc, realloc_without_initializing, resize, subview,
};

/// A value that encodes the multi-index (never zero).
fn code<const R: usize>(index: [usize; R]) -> i64 {
    index.iter().fold(1, |acc, &i| acc * 10 + i as i64)
}

fn fill_codes<L: Layout, const R: usize>(v: &View<i64, R, L>) -> Result<()> {
    let mut g = v.host_mut()?;
    for i in indices(v.extents()) {
        g[i] = code(i);
    }
    Ok(())
}

#[test]
fn create_mirror_allocates_a_new_view_with_the_same_shape() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2>::new("a", [3, 4])?;
    fill_codes(&a)?;
    let m: View<i64, 2, LayoutRight, HostSpace> = create_mirror(&a)?;
    assert!(!m.shares_allocation_with(&a));
    assert_ne!(m.as_ptr(), a.as_ptr());
    assert_eq!(
        (m.label(), m.extents(), m.strides()),
        ("a_mirror", [3, 4], [4, 1])
    );
    assert_eq!(
        m.to_vec()?,
        [0; 12],
        "a mirror is not a copy of the contents"
    );
    assert_eq!(a.use_count(), 1);
    deep_copy(&m, &a)?;
    m.set((0, 0), -1)?;
    assert_eq!(
        (a.get((0, 0))?, m.get((2, 3))?),
        (code([0, 0]), code([2, 3]))
    );

    let l = View::<f32, 3, LayoutLeft>::new("l", [2, 3, 4])?;
    let ml: View<f32, 3, LayoutLeft> = create_mirror(&l)?;
    assert_eq!(
        (ml.label(), ml.strides(), ml.as_ptr() as usize % 64),
        ("l_mirror", [1, 2, 6], 0)
    );
    let z = View::<f64, 0>::new("z", [])?;
    assert_eq!(create_mirror(&z)?.label(), "z_mirror");
    Ok(())
}

#[test]
fn create_mirror_of_layout_stride_has_compact_strides_in_the_same_order() -> Result<()> {
    common::runtime();
    let padded_cols = View::<i64, 2, LayoutStride>::new_strided("pc", [3, 4], [1, 5])?;
    let m = create_mirror(&padded_cols)?;
    assert_eq!(
        (m.label(), m.extents(), m.strides()),
        ("pc_mirror", [3, 4], [1, 3])
    );
    assert!(m.span_is_contiguous());
    let padded_rows = View::<i64, 2, LayoutStride>::new_strided("pr", [3, 4], [8, 1])?;
    assert_eq!(create_mirror(&padded_rows)?.strides(), [4, 1]);
    let mixed = View::<i64, 3, LayoutStride>::new_strided("mixed", [2, 3, 4], [1, 10, 2])?;
    let mm: View<i64, 3, LayoutStride> = create_mirror_in(HostSpace, &mixed)?;
    assert_eq!((mm.strides(), mm.span()), ([1, 8, 2], 24));
    fill_codes(&mixed)?;
    deep_copy(&mm, &mixed)?;
    assert_eq!(mm.to_vec()?, mixed.to_vec()?);
    // A column of a row-major matrix mirrors to a compact rank-1 View.
    let a = View::<i64, 2>::new("a", [4, 5])?;
    let col = subview(&a, (ALL, 2))?;
    let mc: View<i64, 1, LayoutStride> = create_mirror(&col)?;
    assert_eq!(
        (mc.label(), mc.extents(), mc.strides()),
        ("a_mirror", [4], [1])
    );
    // A padded LayoutRight block mirrors to a compact LayoutRight View.
    let block = subview(&a, (1..3, 1..4))?;
    let mb: View<i64, 2, LayoutRight> = create_mirror(&block)?;
    assert_eq!((mb.strides(), mb.span_is_contiguous()), ([3, 1], true));
    Ok(())
}

#[test]
fn create_mirror_in_host_space_always_allocates() -> Result<()> {
    common::runtime();
    let a = View::<u8, 1, LayoutLeft>::new("bytes", [16])?;
    let m: View<u8, 1, LayoutLeft, HostSpace> = create_mirror_in(HostSpace, &a)?;
    assert!(!m.shares_allocation_with(&a));
    assert_eq!(
        (m.label(), m.extents(), m.is_managed()),
        ("bytes_mirror", [16], true)
    );
    Ok(())
}

#[test]
fn create_mirror_view_of_a_host_view_is_the_view_itself() -> Result<()> {
    common::runtime();
    let a = View::<i64, 2, LayoutLeft>::new("host", [3, 2])?;
    let m: View<i64, 2, LayoutLeft> = create_mirror_view(&a)?;
    assert!(m.shares_allocation_with(&a));
    assert_eq!(
        (m.as_ptr(), m.label(), m.strides(), a.use_count()),
        (a.as_ptr(), "host", [1, 3], 2)
    );
    m.set((2, 1), 5)?;
    assert_eq!(a.get((2, 1))?, 5);
    let mi = create_mirror_view_in(HostSpace, &a)?;
    assert!(mi.shares_allocation_with(&a));
    assert_eq!(mi.label(), "host");
    let row = subview(&a, (1, ALL))?;
    let mr: View<i64, 1, LayoutStride> = create_mirror_view(&row)?;
    assert_eq!((mr.as_ptr(), mr.strides()), (row.as_ptr(), [3]));
    Ok(())
}

#[test]
fn create_mirror_view_and_copy_in_the_same_space_shares_the_allocation() -> Result<()> {
    common::runtime();
    let a = View::<i64, 3>::new("src", [2, 3, 4])?;
    fill_codes(&a)?;
    let m = create_mirror_view_and_copy(HostSpace, &a)?;
    assert!(m.shares_allocation_with(&a));
    assert_eq!((m.label(), m.to_vec()?), ("src", a.to_vec()?));
    let part = subview(&a, (1, ALL, 1..3))?;
    let mp = create_mirror_view_and_copy(HostSpace, &part)?;
    assert_eq!((mp.as_ptr(), mp.to_vec()?), (part.as_ptr(), part.to_vec()?));
    Ok(())
}

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

#[test]
fn resize_and_realloc_of_an_unmanaged_view_are_invalid() -> Result<()> {
    common::runtime();
    let mut data = vec![1.0f64; 4];
    View::<f64, 1>::with_slice("user", &mut data, [4], |v| {
        let mut c = v.clone();
        let e = resize(&mut c, [8]).unwrap_err();
        assert_eq!(
            e.to_string(),
            "View \"user\": resize needs a managed View; this one wraps user memory"
        );
        assert!(matches!(e, Error::InvalidView { ref label, .. } if label == "user"));
        assert_eq!(
            realloc(&mut c, [2]).unwrap_err().to_string(),
            "View \"user\": realloc needs a managed View; this one wraps user memory"
        );
        assert!(matches!(
            realloc_without_initializing(&mut c, [2]),
            Err(Error::InvalidView { .. })
        ));
        assert!(matches!(
            resize(&mut c, [4]),
            Err(Error::InvalidView { .. })
        ));
        assert_eq!((c.extents(), c.as_ptr()), ([4], v.as_ptr()));
    })?;
    let mut raw = vec![0u8; 6];
    // SAFETY: `raw` holds 6 elements and outlives the View, which is the only access until dropped.
    let mut r =
        unsafe { View::<u8, 2, LayoutLeft>::from_raw_parts("raw", raw.as_mut_ptr(), [2, 3]) }?;
    assert!(matches!(
        resize(&mut r, [3, 3]),
        Err(Error::InvalidView { .. })
    ));
    drop(r);
    assert_eq!(data, [1.0; 4]);
    Ok(())
}

#[test]
fn with_slice_wraps_the_vec_and_writes_land_in_it() -> Result<()> {
    common::runtime();
    let mut data = vec![0i32; 6];
    let size = View::<i32, 2, LayoutLeft>::with_slice("wrapped", &mut data, [2, 3], |v| {
        assert!(!v.is_managed());
        assert_eq!((v.label(), v.strides()), ("wrapped", [1, 2]));
        deep_copy(v, 4).unwrap();
        v.set((1, 0), 10).unwrap();
        v.host_mut().unwrap()[(0, 2)] = 20;
        v.size()
    })?;
    assert_eq!(size, 6);
    assert_eq!(data, [4, 10, 4, 4, 20, 4]);
    let mut more = vec![1.5f64, 2.5, 3.5, 4.5, 5.5, 6.5, 7.5];
    let back = View::<f64, 2>::with_slice("read", &mut more, [2, 3], |v| v.to_vec())??;
    assert_eq!(
        back,
        [1.5, 2.5, 3.5, 4.5, 5.5, 6.5],
        "a longer slice is fine"
    );
    let strided = View::<f64, 1, LayoutStride>::with_slice_strided(
        "every_other",
        &mut more,
        [4],
        [2],
        |v| deep_copy(v, 0.0),
    )?;
    strided?;
    assert_eq!(more, [0.0, 2.5, 0.0, 4.5, 0.0, 6.5, 0.0]);
    Ok(())
}

#[test]
fn use_count_of_a_with_slice_view_counts_only_view_handles() -> Result<()> {
    common::runtime();
    let mut raw = vec![0u8; 3];
    // SAFETY: `raw` holds 3 elements and outlives the View, which is the only access until dropped.
    let r = unsafe { View::<u8, 1>::from_raw_parts("raw", raw.as_mut_ptr(), [3]) }?;
    assert_eq!(r.use_count(), 1);
    drop(r);
    let mut data = vec![0u8; 3];
    let counts = View::<u8, 1>::with_slice("lent", &mut data, [3], |v| {
        let alone = v.use_count();
        let c = v.clone();
        (alone, c.use_count())
    })?;
    assert_eq!(counts, (1, 2), "one handle, then a clone");
    Ok(())
}

#[test]
fn with_slice_rejects_a_too_short_slice_without_calling_the_closure() {
    common::runtime();
    let mut data = vec![0u16; 5];
    let mut called = false;
    let e = View::<u16, 2>::with_slice("short", &mut data, [2, 3], |_| called = true).unwrap_err();
    assert!(!called);
    assert_eq!(
        e.to_string(),
        "View \"short\": a slice of 5 elements is too short for extents [2, 3] (span 6)"
    );
    assert!(matches!(e, Error::InvalidView { ref label, .. } if label == "short"));
    let s =
        View::<u16, 2, LayoutStride>::with_slice_strided("gap", &mut data, [2, 2], [4, 1], |_| ());
    assert_eq!(
        s.unwrap_err().to_string(),
        "View \"gap\": a slice of 5 elements is too short for extents [2, 2] (span 6)"
    );
}

#[test]
fn a_clone_that_escapes_with_slice_is_expired() -> Result<()> {
    common::runtime();
    let mut data = vec![3i64; 4];
    let mut escaped: Option<View<i64, 1>> = None;
    let mut escaped_part: Option<View<i64, 1>> = None;
    View::<i64, 1>::with_slice("scoped", &mut data, [4], |v| {
        escaped = Some(v.clone());
        escaped_part = Some(subview(v, 1..3).unwrap());
    })?;
    data[0] = 9; // the Vec is ours again
    let v = escaped.unwrap();
    let e = v.get(0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "View \"scoped\" wraps borrowed memory whose scope has ended; it can no longer be used"
    );
    assert!(matches!(e, Error::Expired { ref label } if label == "scoped"));
    assert!(matches!(v.set(0, 1), Err(Error::Expired { .. })));
    assert!(matches!(v.host(), Err(Error::Expired { .. })));
    assert!(matches!(v.host_mut(), Err(Error::Expired { .. })));
    assert!(matches!(v.to_vec(), Err(Error::Expired { .. })));
    assert!(matches!(deep_copy(&v, 5), Err(Error::Expired { .. })));
    let part = escaped_part.unwrap();
    assert!(matches!(part.get(0), Err(Error::Expired { .. })));
    let target = View::<i64, 1>::new("target", [4])?;
    assert!(matches!(deep_copy(&target, &v), Err(Error::Expired { .. })));
    assert_eq!(data, [9, 3, 3, 3]);
    Ok(())
}

#[test]
fn from_raw_parts_wraps_a_vec_pointer() -> Result<()> {
    common::runtime();
    let mut data: Vec<f32> = (0..6).map(|x| x as f32).collect();
    // SAFETY: `data` holds 6 elements, outlives the View and is not touched while the View lives.
    let v = unsafe { View::<f32, 2>::from_raw_parts("raw", data.as_mut_ptr(), [2, 3]) }?;
    assert!(!v.is_managed());
    assert_eq!(
        (v.label(), v.strides(), v.as_ptr()),
        ("raw", [3, 1], data.as_ptr())
    );
    assert_eq!(v.get((1, 0))?, 3.0);
    v.set((0, 2), -2.0)?;
    let col = subview(&v, (ALL, 1))?;
    deep_copy(&col, 7.0)?;
    drop((v, col));
    assert_eq!(data, [0.0, 7.0, -2.0, 3.0, 7.0, 5.0]);
    Ok(())
}

#[test]
fn from_raw_parts_rejects_null_and_misaligned_pointers() -> Result<()> {
    common::runtime();
    // SAFETY: a null pointer is refused before any access.
    let e =
        unsafe { View::<f64, 1>::from_raw_parts("null", std::ptr::null_mut(), [3]) }.unwrap_err();
    assert_eq!(e.to_string(), "View \"null\": null pointer for extents [3]");
    assert!(matches!(e, Error::InvalidView { ref label, .. } if label == "null"));
    // SAFETY: an empty View never dereferences its pointer.
    let empty = unsafe { View::<f64, 2>::from_raw_parts("nothing", std::ptr::null_mut(), [0, 4]) }?;
    assert_eq!((empty.size(), empty.to_vec()?), (0, vec![]));
    let mut bytes = vec![0u64; 4];
    let odd = bytes
        .as_mut_ptr()
        .cast::<u8>()
        .wrapping_add(1)
        .cast::<u32>();
    // SAFETY: the misaligned pointer is refused before any access.
    let m = unsafe { View::<u32, 1>::from_raw_parts("odd", odd, [2]) }.unwrap_err();
    let text = m.to_string();
    assert!(
        text.starts_with("View \"odd\": pointer 0x")
            && text.ends_with(" is not aligned to 4 bytes"),
        "{text}"
    );
    Ok(())
}
