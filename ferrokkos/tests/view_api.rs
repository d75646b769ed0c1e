//! The View API against Kokkos' documented semantics (the behaviours of Kokkos' TestViewAPI,
//! TestViewMapping and TestViewBadAlloc): shapes and strides of every rank and layout, element access,
//! reference semantics, bounds and borrow errors, and allocation failures.

mod common;

use std::panic::{AssertUnwindSafe, catch_unwind};

use common::{conflict, indices, left_strides, offset, padded_right_strides, right_strides, span};
use ferrokkos::{
    ALL, BorrowKind, Error, HostSpace, Layout, LayoutLeft, LayoutRight, LayoutStride, MemorySpace,
    Result, View, deep_copy, subview,
};

/// Extents used for the rank sweeps (truncated to the rank); includes an extent of 1.
const EXT: [usize; 8] = [3, 2, 4, 2, 3, 1, 2, 3];

fn ext<const R: usize>() -> [usize; R] {
    std::array::from_fn(|r| EXT[r])
}

/// Checks every shape property of `v`, that it starts zero-filled, and that values written through a
/// guard land at `offset(index, strides)` in memory and come back in row-major order from `to_vec`.
fn check_mapping<L: Layout, const R: usize>(
    v: &View<u32, R, L>,
    label: &str,
    extents: [usize; R],
    strides: [usize; R],
) -> Result<()> {
    assert_eq!(View::<u32, R, L>::RANK, R);
    assert_eq!(v.label(), label);
    assert_eq!(v.extents(), extents);
    assert_eq!(v.strides(), strides, "strides of {label}");
    for r in 0..R {
        assert_eq!((v.extent(r), v.stride(r)), (extents[r], strides[r]));
    }
    for r in R..R + 3 {
        assert_eq!(v.extent(r), 1, "extent({r}) beyond rank {R}");
    }
    let size: usize = extents.iter().product();
    let span = span(extents, strides);
    assert_eq!((v.size(), v.span()), (size, span), "{label}");
    assert_eq!(v.span_is_contiguous(), span == size);
    assert_eq!(v.as_ptr() as usize % 64, 0, "{label} alignment");
    assert!(v.is_managed());

    assert_eq!(v.to_vec()?, vec![0; size], "{label} is not zero-filled");
    {
        let mut g = v.host_mut()?;
        for (n, i) in indices(extents).into_iter().enumerate() {
            g[i] = n as u32 + 1;
        }
    }
    assert_eq!(v.to_vec()?, (1..=size as u32).collect::<Vec<_>>());
    for (n, i) in indices(extents).into_iter().enumerate() {
        assert_eq!(v.get(i)?, n as u32 + 1);
        // SAFETY: the offset of an in-bounds index lies in the allocation; no guard is alive.
        let raw = unsafe { *v.as_ptr().add(offset(i, strides)) };
        assert_eq!(raw, n as u32 + 1, "{label}{i:?} not at its offset");
    }
    if span > 0 {
        // SAFETY: the allocation holds `span` elements; no guard is alive.
        let all = unsafe { std::slice::from_raw_parts(v.as_ptr(), span) };
        let written = all.iter().filter(|&&x| x != 0).count();
        assert_eq!(written, size, "holes written");
    }
    Ok(())
}

fn right_of_rank<const R: usize>() -> Result<()> {
    let label = format!("right{R}");
    let v = View::<u32, R, LayoutRight>::new(&label, ext())?;
    check_mapping(&v, &label, ext(), right_strides(ext()))
}

fn left_of_rank<const R: usize>() -> Result<()> {
    let label = format!("left{R}");
    let v = View::<u32, R, LayoutLeft>::new(&label, ext())?;
    check_mapping(&v, &label, ext(), left_strides(ext()))
}

fn padded_stride_of_rank<const R: usize>() -> Result<()> {
    let strides = padded_right_strides(ext(), 1);
    let v = View::<u32, R, LayoutStride>::new_strided("padded", ext(), strides)?;
    check_mapping(&v, "padded", ext(), strides)
}

fn transposed_stride_of_rank<const R: usize>() -> Result<()> {
    let strides = left_strides(ext());
    let v = View::<u32, R, LayoutStride>::new_strided("compact", ext(), strides)?;
    check_mapping(&v, "compact", ext(), strides)
}

macro_rules! for_ranks_0_to_8 {
    ($f:ident) => {{
        $f::<0>()?;
        $f::<1>()?;
        $f::<2>()?;
        $f::<3>()?;
        $f::<4>()?;
        $f::<5>()?;
        $f::<6>()?;
        $f::<7>()?;
        $f::<8>()?;
    }};
}

#[test]
fn layout_right_views_of_ranks_0_to_8_are_row_major_and_zeroed() -> Result<()> {
    common::runtime();
    for_ranks_0_to_8!(right_of_rank);
    let v = View::<f64, 3>::new("A", [2, 3, 4])?;
    assert_eq!((v.strides(), v.size(), v.span()), ([12, 4, 1], 24, 24));
    Ok(())
}

#[test]
fn layout_left_views_of_ranks_0_to_8_are_column_major_and_zeroed() -> Result<()> {
    common::runtime();
    for_ranks_0_to_8!(left_of_rank);
    let v = View::<f64, 3, LayoutLeft>::new("A", [2, 3, 4])?;
    assert_eq!(v.strides(), [1, 2, 6]);
    Ok(())
}

#[test]
fn layout_stride_views_of_ranks_0_to_8_use_the_given_strides() -> Result<()> {
    common::runtime();
    for_ranks_0_to_8!(padded_stride_of_rank);
    for_ranks_0_to_8!(transposed_stride_of_rank);
    let v = View::<i32, 2, LayoutStride>::new_strided("p", [3, 4], [8, 1])?;
    assert_eq!((v.span(), v.span_is_contiguous()), (20, false));
    // The stride of a dimension beyond the rank is the span.
    assert_eq!((v.stride(2), v.stride(7)), (20, 20));
    Ok(())
}

#[test]
fn rank_0_view_holds_one_element() -> Result<()> {
    common::runtime();
    let v = View::<f64, 0>::new("scalar", [])?;
    assert_eq!(
        (v.size(), v.span(), v.extent(0), v.extents()),
        (1, 1, 1, [])
    );
    v.set((), 2.5)?;
    assert_eq!(v.get([])?, 2.5);
    assert_eq!(v.host()?[()], 2.5);
    v.host_mut()?[()] += 1.0;
    assert_eq!(v.to_vec()?, [3.5]);
    Ok(())
}

#[test]
fn views_of_array_bool_and_char_elements_start_zeroed() -> Result<()> {
    common::runtime();
    let v = View::<[f32; 3], 1>::new("vec3", [4])?;
    assert_eq!(v.to_vec()?, vec![[0.0; 3]; 4]);
    v.set(2, [1.0, 2.0, 3.0])?;
    assert_eq!(v.get(2)?, [1.0, 2.0, 3.0]);
    assert_eq!(View::<bool, 2>::new("b", [2, 2])?.to_vec()?, [false; 4]);
    assert_eq!(View::<char, 1>::new("c", [3])?.to_vec()?, ['\0'; 3]);
    Ok(())
}

#[test]
fn guards_accept_every_index_form() -> Result<()> {
    common::runtime();
    let v1 = View::<i64, 1>::new("v1", [5])?;
    let v2 = View::<i64, 2, LayoutLeft>::new("v2", [2, 3])?;
    let v3 = View::<i64, 3>::new("v3", [2, 3, 4])?;
    let v8 = View::<i64, 8>::new("v8", [2; 8])?;
    {
        let mut g1 = v1.host_mut()?;
        g1[3] = 30;
        g1[[4]] = 40;
        let mut g2 = v2.host_mut()?;
        g2[(1, 2)] = 12;
        g2[[0, 1]] = 1;
        let mut g3 = v3.host_mut()?;
        g3[(1, 2, 3)] = 123;
        let mut g8 = v8.host_mut()?;
        g8[(1, 1, 1, 1, 1, 1, 1, 1)] = 255;
        g8[[1, 0, 1, 0, 1, 0, 1, 0]] = 170;
        assert_eq!(
            (g1[3], g1[[4]], g2[(1, 2)], g3[[1, 2, 3]]),
            (30, 40, 12, 123)
        );
    }
    let (g1, g2, g3, g8) = (v1.host()?, v2.host()?, v3.host()?, v8.host()?);
    assert_eq!((g1[3], g1[[4]], g1[0]), (30, 40, 0));
    assert_eq!((g2[[1, 2]], g2[(0, 1)], g2[(1, 1)]), (12, 1, 0));
    assert_eq!(g3[(1, 2, 3)], 123);
    assert_eq!(g8[[1; 8]], 255);
    assert_eq!(g8[(1, 0, 1, 0, 1, 0, 1, 0)], 170);
    // Memory positions: LayoutLeft (1, 2) is offset 1 + 2 * 2 = 5; rank-8 all-ones is 255.
    assert_eq!(g2.as_slice().unwrap()[5], 12);
    assert_eq!(g8.as_slice().unwrap()[255], 255);
    assert_eq!(g8.as_slice().unwrap()[0b1010_1010], 170);
    Ok(())
}

#[test]
fn get_and_set_accept_every_index_form() -> Result<()> {
    common::runtime();
    let v = View::<u16, 3, LayoutLeft>::new("gs", [2, 3, 4])?;
    v.set((1, 2, 3), 7)?;
    v.set([0, 1, 2], 8)?;
    assert_eq!(
        (v.get([1, 2, 3])?, v.get((0, 1, 2))?, v.get((1, 1, 1))?),
        (7, 8, 0)
    );
    let r = View::<u16, 1>::new("r", [3])?;
    r.set(1, 4)?;
    r.set([2], 5)?;
    assert_eq!(r.to_vec()?, [0, 4, 5]);
    // to_vec is row-major whatever the layout: (1, 2, 3) is the last element.
    let all = v.to_vec()?;
    assert_eq!((all[23], all[4 + 2], all.len()), (7, 8, 24));
    Ok(())
}

#[test]
fn to_vec_is_row_major_for_every_layout() -> Result<()> {
    common::runtime();
    let r = View::<i32, 2>::new("r", [2, 3])?;
    let l = View::<i32, 2, LayoutLeft>::new("l", [2, 3])?;
    let s = View::<i32, 2, LayoutStride>::new_strided("s", [2, 3], [1, 5])?;
    for (i, j) in [(0, 0), (0, 1), (0, 2), (1, 0), (1, 1), (1, 2)] {
        let x = (10 * i + j) as i32;
        r.set((i, j), x)?;
        l.set((i, j), x)?;
        s.set((i, j), x)?;
    }
    let expected = [0, 1, 2, 10, 11, 12];
    assert_eq!(
        (r.to_vec()?, l.to_vec()?, s.to_vec()?),
        (expected.to_vec(), expected.to_vec(), expected.to_vec())
    );
    assert_eq!(l.host()?.as_slice().unwrap(), [0, 10, 1, 11, 2, 12]);
    assert_eq!(
        s.host()?.as_slice(),
        None,
        "a strided View with holes has no slice"
    );
    Ok(())
}

#[test]
fn clones_share_the_allocation_and_count_uses() -> Result<()> {
    common::runtime();
    let v = View::<f64, 2>::new("shared", [3, 3])?;
    assert_eq!(v.use_count(), 1);
    let c = v.clone();
    assert_eq!((v.use_count(), c.use_count()), (2, 2));
    assert!(c.shares_allocation_with(&v));
    assert_eq!(
        (c.as_ptr(), c.label(), c.extents()),
        (v.as_ptr(), "shared", [3, 3])
    );
    c.set((2, 1), 4.0)?;
    assert_eq!(v.get((2, 1))?, 4.0);
    let row = subview(&v, (1, ALL))?;
    assert_eq!(v.use_count(), 3);
    assert!(row.shares_allocation_with(&c));
    drop(c);
    assert_eq!(v.use_count(), 2);
    drop(row);
    assert_eq!(v.use_count(), 1);
    assert_eq!(
        (v.memory_space().name(), HostSpace::NAME),
        ("HostSpace", "HostSpace")
    );
    let dbg = format!("{v:?}");
    for part in ["\"shared\"", "LayoutRight", "HostSpace", "[3, 3]"] {
        assert!(dbg.contains(part), "{dbg}");
    }
    let other = View::<f64, 2>::new(String::from("shared"), [3, 3])?;
    assert!(!other.shares_allocation_with(&v));
    assert_eq!(other.get((2, 1))?, 0.0);
    Ok(())
}

#[test]
fn dropping_the_last_handle_frees_the_allocation() -> Result<()> {
    common::runtime();
    // Other tests of this process allocate at most a few KiB at a time, so a 64 MiB View stands out.
    const N: usize = 8 << 20;
    const BYTES: usize = N * 8;
    const SLACK: usize = 4 << 20;
    let before = HostSpace.stats()?;
    let big = View::<f64, 1>::new("unique_64MiB", [N])?;
    let during = HostSpace.stats()?;
    assert!(
        during.live_bytes + SLACK >= before.live_bytes + BYTES,
        "{before:?} -> {during:?}"
    );
    assert!(during.live_bytes >= BYTES && during.high_water_bytes >= during.live_bytes);
    assert!(during.live_allocations >= 1);
    let clone = big.clone();
    drop(big);
    assert!(
        HostSpace.stats()?.live_bytes >= BYTES,
        "freed while a clone is alive"
    );
    assert_eq!(clone.get(N - 1)?, 0.0);
    drop(clone);
    let after = HostSpace.stats()?;
    assert!(after.live_bytes < BYTES, "not freed: {after:?}");
    assert!(after.high_water_bytes >= BYTES);
    Ok(())
}

#[test]
fn zero_extent_views_are_empty_but_valid() -> Result<()> {
    common::runtime();
    let r = View::<f64, 3>::new("zr", [3, 0, 2])?;
    let l = View::<f64, 3, LayoutLeft>::new("zl", [3, 0, 2])?;
    let s = View::<f64, 3, LayoutStride>::new_strided("zs", [3, 0, 2], [7, 3, 1])?;
    assert_eq!((r.size(), r.span(), r.strides()), (0, 0, [0, 2, 1]));
    assert_eq!((l.size(), l.span(), l.strides()), (0, 0, [1, 3, 0]));
    assert_eq!((s.size(), s.span(), s.strides()), (0, 0, [7, 3, 1]));
    assert!(r.span_is_contiguous() && l.span_is_contiguous() && s.span_is_contiguous());
    assert_eq!(r.as_ptr() as usize % 64, 0);
    assert!(r.to_vec()?.is_empty() && l.to_vec()?.is_empty() && s.to_vec()?.is_empty());
    deep_copy(&r, &l)?;
    deep_copy(&s, &r)?;
    deep_copy(&l, 1.0)?;
    assert!(matches!(r.get((0, 0, 0)), Err(Error::OutOfBounds { .. })));
    let e = View::<i32, 1>::new("empty", [0])?;
    assert_eq!(
        (e.size(), e.extent(0), e.host()?.as_slice()),
        (0, 0, Some(&[][..]))
    );
    Ok(())
}

#[test]
fn layout_stride_rejects_strides_that_make_indices_share_elements() -> Result<()> {
    common::runtime();
    let e = View::<f64, 2, LayoutStride>::new_strided("bad", [3, 4], [1, 2]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "View \"bad\": strides [1, 2] make different indices of extents [3, 4] share elements"
    );
    assert!(matches!(e, Error::InvalidView { ref label, .. } if label == "bad"));
    let zero = View::<f64, 1, LayoutStride>::new_strided("zero", [3], [0]).unwrap_err();
    assert_eq!(
        zero.to_string(),
        "View \"zero\": strides [0] make different indices of extents [3] share elements"
    );
    // A dimension of extent 1 never repeats an element, whatever its stride.
    let ok = View::<f64, 2, LayoutStride>::new_strided("ok", [1, 5], [0, 1])?;
    assert_eq!((ok.size(), ok.span()), (5, 5));
    // Interleaved strides that do not collide are fine.
    let woven = View::<u8, 2, LayoutStride>::new_strided("woven", [2, 3], [1, 2])?;
    assert_eq!((woven.span(), woven.span_is_contiguous()), (6, true));
    Ok(())
}

#[test]
fn get_and_set_out_of_bounds_return_out_of_bounds() -> Result<()> {
    common::runtime();
    let v = View::<f64, 2>::new("b", [2, 3])?;
    let e = v.get((2, 0)).unwrap_err();
    assert_eq!(
        e.to_string(),
        "index [2, 0] is out of bounds for View \"b\" with extents [2, 3]"
    );
    let e = v.set([1, 3], 1.0).unwrap_err();
    let want = (vec![1, 3], vec![2, 3]);
    assert!(matches!(e, Error::OutOfBounds { label, index, extents }
        if label == "b" && (index.clone(), extents.clone()) == want));
    assert_eq!(
        v.to_vec()?,
        [0.0; 6],
        "an out-of-bounds set wrote something"
    );
    let s = subview(&v, (ALL, 1..3))?;
    assert_eq!(
        s.get((0, 2)).unwrap_err().to_string(),
        "index [0, 2] is out of bounds for View \"b\" with extents [2, 2]"
    );
    Ok(())
}

#[test]
fn guard_index_out_of_bounds_panics_naming_label_index_and_extents() -> Result<()> {
    common::runtime();
    let v = View::<i32, 2>::new("g", [2, 3])?;
    let payload = catch_unwind(AssertUnwindSafe(|| {
        let g = v.host().unwrap();
        g[(0, 3)]
    }))
    .unwrap_err();
    let msg = payload
        .downcast_ref::<String>()
        .expect("a formatted message");
    assert_eq!(
        msg,
        "index [0, 3] is out of bounds for View \"g\" with extents [2, 3]"
    );
    // The guard was released during unwinding.
    v.host_mut()?[(1, 2)] = 5;
    assert_eq!(v.get((1, 2))?, 5);
    Ok(())
}

#[test]
#[should_panic(expected = "index [4] is out of bounds for View \"w\" with extents [4]")]
fn writing_through_a_guard_out_of_bounds_panics() {
    common::runtime();
    let v = View::<i32, 1, LayoutLeft>::new("w", [4]).unwrap();
    let mut g = v.host_mut().unwrap();
    g[4] = 1;
}

const READ: BorrowKind = BorrowKind::Shared;
const WRITE: BorrowKind = BorrowKind::Exclusive;

#[test]
fn writing_while_a_reader_is_alive_is_a_borrow_error() -> Result<()> {
    common::runtime();
    let v = View::<f64, 1>::new("rw", [4])?;
    let r1 = v.host()?;
    let r2 = v.host()?; // readers coexist
    let e = v.host_mut().err().unwrap();
    assert_eq!(
        e.to_string(),
        "View \"rw\" cannot be borrowed exclusive (write) on the host: it is already borrowed \
         shared (read)"
    );
    conflict(v.set(0, 1.0), "rw", WRITE, READ);
    assert_eq!(v.get(0)?, 0.0, "reading while reading is fine");
    drop(r1);
    conflict(v.host_mut(), "rw", WRITE, READ);
    drop(r2);
    v.set(0, 1.0)?;
    assert_eq!(v.get(0)?, 1.0);
    Ok(())
}

#[test]
fn reading_while_a_writer_is_alive_is_a_borrow_error() -> Result<()> {
    common::runtime();
    let v = View::<f64, 1>::new("wr", [4])?;
    let w = v.host_mut()?;
    let e = v.host().err().unwrap();
    assert_eq!(
        e.to_string(),
        "View \"wr\" cannot be borrowed shared (read) on the host: it is already borrowed \
         exclusive (write)"
    );
    conflict(v.get(1), "wr", READ, WRITE);
    conflict(v.to_vec(), "wr", READ, WRITE);
    conflict(v.host_mut(), "wr", WRITE, WRITE);
    drop(w);
    assert_eq!(v.to_vec()?, [0.0; 4]);
    Ok(())
}

#[test]
fn borrow_conflicts_reach_through_clones_and_subviews() -> Result<()> {
    common::runtime();
    let v = View::<i32, 2>::new("parent", [3, 4])?;
    let clone = v.clone();
    let row: View<i32, 1, LayoutRight> = subview(&v, (2, ALL))?;
    {
        let _w = clone.host_mut()?;
        conflict(v.get((0, 0)), "parent", READ, WRITE);
        conflict(row.host(), "parent", READ, WRITE);
    }
    {
        let _r = row.host()?;
        conflict(v.set((0, 0), 1), "parent", WRITE, READ);
        conflict(clone.host_mut(), "parent", WRITE, READ);
        // A different allocation is not affected.
        View::<i32, 2>::new("parent", [3, 4])?.set((0, 0), 1)?;
    }
    row.set(1, 9)?;
    assert_eq!(v.get((2, 1))?, 9);
    Ok(())
}

#[test]
fn views_are_send_and_sync_and_work_on_other_threads() -> Result<()> {
    common::runtime();
    fn send_sync<T: Send + Sync>() {}
    send_sync::<View<f64, 2>>();
    send_sync::<View<i32, 3, LayoutLeft>>();
    send_sync::<View<[f32; 3], 1, LayoutStride, HostSpace>>();
    let v = View::<u64, 1>::new("moved", [100])?;
    let alias = v.clone();
    let t = std::thread::spawn(move || -> Result<View<u64, 1>> {
        {
            let mut g = v.host_mut()?;
            for i in 0..100 {
                g[i] = i as u64 * 3;
            }
        }
        Ok(v)
    });
    let back = t.join().unwrap()?;
    assert!(back.shares_allocation_with(&alias));
    assert_eq!(alias.get(99)?, 297);
    std::thread::scope(|s| {
        for _ in 0..2 {
            s.spawn(|| assert_eq!(alias.host().unwrap().as_slice().unwrap()[10], 30));
        }
    });
    Ok(())
}

#[test]
fn a_petabyte_view_is_an_allocation_error() {
    common::runtime();
    let e = View::<f64, 1>::new("big", [1 << 47]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "failed to allocate 1125899906842624 bytes (1.0 PiB) for View \"big\" in HostSpace"
    );
    assert!(matches!(e, Error::Allocation { label, bytes, space }
        if label == "big" && bytes == 1 << 50 && space == "HostSpace"));
}

#[test]
fn extents_whose_product_overflows_are_a_size_overflow() {
    common::runtime();
    let e = View::<f64, 2>::new("huge", [usize::MAX, 2]).unwrap_err();
    assert_eq!(
        e.to_string(),
        format!(
            "View \"huge\" with extents [{}, 2] is too large: its size overflows usize",
            usize::MAX
        )
    );
    assert!(matches!(e, Error::SizeOverflow { ref label, ref extents }
        if label == "huge" && extents == &[usize::MAX, 2]));
    let left = View::<u8, 3, LayoutLeft>::new("left", [1 << 32, 1 << 32, 2]).unwrap_err();
    assert!(matches!(left, Error::SizeOverflow { .. }), "{left}");
    let strided = View::<u8, 2, LayoutStride>::new_strided("wide", [2, 2], [1, usize::MAX]);
    assert!(
        matches!(strided, Err(Error::SizeOverflow { .. })),
        "{strided:?}"
    );
}

#[test]
fn a_byte_count_beyond_usize_is_an_allocation_error_with_the_exact_bytes() {
    common::runtime();
    // The element count fits usize; the byte count does not (reported as u128).
    let n = usize::MAX / 4;
    let e = View::<f64, 1>::new("bytes", [n]).unwrap_err();
    let bytes = n as u128 * 8;
    assert!(
        matches!(e, Error::Allocation { bytes: b, .. } if b == bytes),
        "{e}"
    );
    assert_eq!(
        e.to_string(),
        format!("failed to allocate {bytes} bytes (32.0 EiB) for View \"bytes\" in HostSpace")
    );
}

#[test]
fn to_layout_stride_and_try_into_layout_keep_the_elements() -> Result<()> {
    common::runtime();
    let v = View::<f64, 2>::new("x", [3, 4])?;
    let s: View<f64, 2, LayoutStride> = v.to_layout_stride();
    assert!(s.shares_allocation_with(&v));
    assert_eq!(
        (s.strides(), s.as_ptr(), s.label()),
        ([4, 1], v.as_ptr(), "x")
    );
    s.set((2, 3), 1.5)?;
    assert_eq!(v.get((2, 3))?, 1.5);
    let back: View<f64, 2, LayoutRight> = s.try_into_layout()?;
    assert_eq!((back.strides(), back.get((2, 3))?), ([4, 1], 1.5));
    let e = s.try_into_layout::<LayoutLeft>().unwrap_err();
    assert_eq!(
        e.to_string(),
        "View \"x\": strides [4, 1] do not fit LayoutLeft"
    );

    let l = View::<f64, 2, LayoutLeft>::new("y", [3, 4])?;
    let ls = l.to_layout_stride();
    assert_eq!(ls.strides(), [1, 3]);
    assert!(ls.try_into_layout::<LayoutLeft>().is_ok());
    assert!(matches!(
        ls.try_into_layout::<LayoutRight>(),
        Err(Error::InvalidView { .. })
    ));

    // A column (stride 4) fits neither regular layout; a padded LayoutStride fits LayoutRight.
    let col = subview(&v, (ALL, 3))?;
    assert_eq!(
        col.try_into_layout::<LayoutRight>()
            .unwrap_err()
            .to_string(),
        "View \"x\": strides [4] do not fit LayoutRight"
    );
    let padded = View::<f64, 2, LayoutStride>::new_strided("p", [3, 4], [8, 1])?;
    padded.set((1, 2), 7.0)?;
    let pr: View<f64, 2> = padded.try_into_layout()?;
    assert_eq!(
        (pr.strides(), pr.span_is_contiguous(), pr.get((1, 2))?),
        ([8, 1], false, 7.0)
    );

    // A unit-stride dimension of extent 1 fits whatever its stride: it is never stepped over.
    let thin = View::<f64, 2, LayoutStride>::new_strided("thin", [3, 1], [4, 9])?;
    thin.set((2, 0), 3.0)?;
    let tr: View<f64, 2> = thin.try_into_layout()?;
    assert_eq!((tr.strides(), tr.get((2, 0))?), ([4, 1], 3.0));
    Ok(())
}
