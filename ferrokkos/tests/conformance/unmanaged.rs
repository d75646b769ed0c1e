//! Unmanaged Views (Kokkos' unmanaged-View tests): `with_slice` over a borrowed `Vec` and
//! `from_raw_parts` over a pointer, their checks (too short, null, misaligned), clones that escape
//! the lend, and `resize` / `realloc`, which need a managed View.

use ferrokkos::{
    ALL, Error, LayoutLeft, LayoutStride, Result, View, deep_copy, realloc,
    realloc_without_initializing, resize, subview,
};

use crate::common;

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
