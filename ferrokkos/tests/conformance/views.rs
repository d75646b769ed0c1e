//! Views: shapes, strides, labels and zero initialization of every rank and layout, layouts in
//! memory, reference semantics of clones and subviews, allocation without initializing, layout
//! conversions and allocation errors (Kokkos' TestViewAPI, TestViewMapping and TestViewBadAlloc).

use ferrokkos::prelude::*;
use ferrokkos::traits::Layout;
use ferrokkos::traits::RegularLayout;
use ferrokkos::{Error, HostSpace, Result, create_mirror};

use crate::common::child::in_own_process;
use crate::common::{
    self, indices, left_strides, offset, padded_left_strides, padded_right_strides, right_strides,
    span,
};
use crate::spaces::{SView, download};

/// Row-major numbers 1, 2, ... written by a kernel into a rank-1 View.
fn kernel_fill_1<S: Launch, L: Layout>(exec: &S, v: &SView<S, u32, 1, L>) -> Result<()> {
    let n = v.extent(0);
    parallel_for(
        "fill1",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| v[i] = i as u32 + 1),
    )
}

/// Row-major numbers 1, 2, ... written by a kernel into a rank-2 View.
fn kernel_fill_2<S: Launch, L: Layout>(exec: &S, v: &SView<S, u32, 2, L>) -> Result<()> {
    let e = v.extents();
    parallel_for(
        "fill2",
        MDRangePolicy::new(exec, [0, 0], e)?,
        kernel!(|(i, j): (usize, usize)| v[(i, j)] = (i * v.extent(1) + j) as u32 + 1),
    )
}

/// Row-major numbers 1, 2, ... written by a kernel into a rank-3 View.
fn kernel_fill_3<S: Launch, L: Layout>(exec: &S, v: &SView<S, u32, 3, L>) -> Result<()> {
    let e = v.extents();
    parallel_for(
        "fill3",
        MDRangePolicy::new(exec, [0, 0, 0], e)?,
        kernel!(|(i, j, k): (usize, usize, usize)| {
            v[(i, j, k)] = ((i * v.extent(1) + j) * v.extent(2) + k) as u32 + 1
        }),
    )
}

/// Checks the shape properties of `v`, that it starts zeroed, and that row-major numbers written by
/// `fill` come back in row-major order.
fn check_shape<S: Launch, L: Layout, const R: usize>(
    v: &SView<S, u32, R, L>,
    label: &str,
    strides: [usize; R],
    fill: impl FnOnce(&SView<S, u32, R, L>) -> Result<()>,
) -> Result<()> {
    let extents = v.extents();
    let what = format!("{label} on {}", S::NAME);
    assert_eq!(v.label(), label, "{what}");
    assert_eq!(v.strides(), strides, "{what}: strides");
    for r in 0..R {
        assert_eq!(
            (v.extent(r), v.stride(r)),
            (extents[r], strides[r]),
            "{what}"
        );
    }
    for r in R..R + 3 {
        assert_eq!(v.extent(r), 1, "{what}: extent({r}) beyond the rank");
    }
    let size: usize = extents.iter().product();
    let span = common::span(extents, strides);
    assert_eq!((v.size(), v.span()), (size, span), "{what}");
    assert_eq!(v.span_is_contiguous(), span == size, "{what}");
    assert_eq!(v.as_ptr() as usize % 64, 0, "{what}: alignment");
    assert!(v.is_managed(), "{what}");
    assert_eq!(
        v.memory_space().name(),
        <S::MemorySpace as MemorySpace>::NAME
    );
    assert_eq!(download(v)?, vec![0; size], "{what}: not zero-filled");
    fill(v)?;
    let want: Vec<u32> = (1..=size as u32).collect();
    assert_eq!(download(v)?, want, "{what}: kernel writes");
    Ok(())
}

/// `v`'s elements in memory order (through a new host mirror, which keeps the strides of a
/// LayoutRight or LayoutLeft View), checked against the offsets its strides give.
fn check_memory_order<S: Launch, L: RegularLayout, const R: usize>(
    v: &SView<S, u32, R, L>,
) -> Result<()> {
    let m = create_mirror(v)?;
    assert_eq!(m.label(), format!("{}_mirror", v.label()));
    assert_eq!(
        m.strides(),
        v.strides(),
        "a mirror keeps a regular layout's strides"
    );
    deep_copy(&m, v)?;
    let g = m.host()?;
    let memory = g.as_slice().expect("a compact View has a slice");
    for (n, i) in indices(v.extents()).into_iter().enumerate() {
        assert_eq!(
            memory[common::offset(i, v.strides())],
            n as u32 + 1,
            "{} on {}: element {i:?} is not at its offset",
            v.label(),
            S::NAME
        );
    }
    Ok(())
}

fn views_of_ranks_1_to_3_in_every_layout<S: Launch>(exec: &S) -> Result<()> {
    // Rank 1.
    let e1 = [7];
    let r = SView::<S, u32, 1>::new("right1", e1)?;
    check_shape::<S, _, 1>(&r, "right1", right_strides(e1), |v| kernel_fill_1(exec, v))?;
    check_memory_order::<S, _, 1>(&r)?;
    let l = SView::<S, u32, 1, LayoutLeft>::new("left1", e1)?;
    check_shape::<S, _, 1>(&l, "left1", left_strides(e1), |v| kernel_fill_1(exec, v))?;
    let st = padded_right_strides(e1, 0).map(|s| s * 3);
    let s = SView::<S, u32, 1, LayoutStride>::new_strided("stride1", e1, st)?;
    check_shape::<S, _, 1>(&s, "stride1", st, |v| kernel_fill_1(exec, v))?;
    // Rank 2.
    let e2 = [5, 3];
    let r = SView::<S, u32, 2>::new("right2", e2)?;
    check_shape::<S, _, 2>(&r, "right2", right_strides(e2), |v| kernel_fill_2(exec, v))?;
    check_memory_order::<S, _, 2>(&r)?;
    let l = SView::<S, u32, 2, LayoutLeft>::new("left2", e2)?;
    check_shape::<S, _, 2>(&l, "left2", left_strides(e2), |v| kernel_fill_2(exec, v))?;
    check_memory_order::<S, _, 2>(&l)?;
    let st = padded_left_strides(e2, 1);
    let s = SView::<S, u32, 2, LayoutStride>::new_strided("stride2", e2, st)?;
    check_shape::<S, _, 2>(&s, "stride2", st, |v| kernel_fill_2(exec, v))?;
    // A mirror of a strided View gets compact strides in the same memory order.
    assert_eq!(create_mirror(&s)?.strides(), left_strides(e2));
    // Rank 3.
    let e3 = [3, 4, 5];
    let r = SView::<S, u32, 3>::new("right3", e3)?;
    check_shape::<S, _, 3>(&r, "right3", right_strides(e3), |v| kernel_fill_3(exec, v))?;
    check_memory_order::<S, _, 3>(&r)?;
    let l = SView::<S, u32, 3, LayoutLeft>::new("left3", e3)?;
    check_shape::<S, _, 3>(&l, "left3", left_strides(e3), |v| kernel_fill_3(exec, v))?;
    check_memory_order::<S, _, 3>(&l)?;
    let st = padded_right_strides(e3, 2);
    let s = SView::<S, u32, 3, LayoutStride>::new_strided("stride3", e3, st)?;
    check_shape::<S, _, 3>(&s, "stride3", st, |v| kernel_fill_3(exec, v))?;
    assert_eq!(create_mirror(&s)?.strides(), right_strides(e3));
    // Zero extents: empty but valid, and copies of them do nothing.
    let z = SView::<S, u32, 3>::new("zero", [3, 0, 2])?;
    assert_eq!((z.size(), z.span(), z.strides()), (0, 0, [0, 2, 1]));
    assert!(download(&z)?.is_empty());
    deep_copy(&z, 5)?;
    deep_copy(&z, &SView::<S, u32, 3, LayoutLeft>::new("zl", [3, 0, 2])?)?;
    Ok(())
}
per_space!(
    views_of_ranks_1_to_3_in_every_layout,
    views_of_ranks_1_to_3_in_every_layout
);

fn clones_and_subviews_share_the_allocation<S: Launch>(exec: &S) -> Result<()> {
    let v = SView::<S, f64, 2>::new("shared", [4, 6])?;
    let c = v.clone();
    assert_eq!((v.use_count(), c.use_count()), (2, 2));
    assert!(c.shares_allocation_with(&v));
    assert_eq!(
        (c.as_ptr(), c.label(), c.extents()),
        (v.as_ptr(), "shared", [4, 6])
    );
    let row = subview(&v, (2, ALL))?;
    assert_eq!(v.use_count(), 3, "a subview is a handle too");
    assert!(row.shares_allocation_with(&c));
    assert_eq!((row.extents(), row.label()), ([6], "shared"));
    // A kernel writing through the subview changes the parent.
    parallel_for(
        "row",
        RangePolicy::new(exec, 0, 6)?,
        kernel!(|j| row[j] = j as f64 + 0.5),
    )?;
    let all = download(&c)?;
    for (n, [i, j]) in indices([4, 6]).into_iter().enumerate() {
        let want = if i == 2 { j as f64 + 0.5 } else { 0.0 };
        assert_eq!(all[n], want, "at ({i}, {j})");
    }
    drop(row);
    assert_eq!(v.use_count(), 2);
    drop(c);
    assert_eq!(v.use_count(), 1);
    // A new View with the same label is another allocation.
    let other = SView::<S, f64, 2>::new("shared", [4, 6])?;
    assert!(!other.shares_allocation_with(&v));
    assert_eq!(download(&other)?, vec![0.0; 24]);
    let dbg = format!("{v:?}");
    for part in [
        "\"shared\"",
        "LayoutRight",
        <S::MemorySpace as MemorySpace>::NAME,
        "[4, 6]",
    ] {
        assert!(dbg.contains(part), "{dbg}");
    }
    Ok(())
}
per_space!(
    clones_and_subviews_share_the_allocation,
    clones_and_subviews_share_the_allocation
);

fn without_initializing_then_fill<S: Launch>(_exec: &S) -> Result<()> {
    for n in [1, 100, 4099] {
        let v = SView::<S, f64, 1>::new(
            view_alloc::<S::MemorySpace>("raw").without_initializing(),
            [n],
        )?;
        assert_eq!(v.label(), "raw");
        deep_copy(&v, -3.25)?;
        assert_eq!(download(&v)?, vec![-3.25; n]);
        let w = SView::<S, i16, 2, LayoutLeft>::new(
            view_alloc::<S::MemorySpace>("raw2").without_initializing(),
            [n, 3],
        )?;
        deep_copy(&w, 77i16)?;
        assert_eq!(download(&w)?, vec![77i16; n * 3]);
        // Initialized Views start zeroed whatever the element type.
        assert_eq!(download(&SView::<S, u8, 1>::new("z8", [n])?)?, vec![0; n]);
        assert_eq!(
            download(&SView::<S, [f32; 3], 1>::new("z3", [n])?)?,
            vec![[0.0; 3]; n]
        );
        assert_eq!(
            download(&SView::<S, bool, 2>::new("zb", [n, 2])?)?,
            vec![false; 2 * n]
        );
    }
    Ok(())
}
per_space!(
    without_initializing_then_fill,
    without_initializing_then_fill
);

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
fn dropping_the_last_handle_frees_the_allocation() -> Result<()> {
    // Alone in a process of its own: other tests of this binary allocate large Views at the same
    // time, which would change the counts.
    if !in_own_process(
        module_path!(),
        "dropping_the_last_handle_frees_the_allocation",
    ) {
        return Ok(());
    }
    common::runtime();
    // Nothing else runs in this process, so a 64 MiB View stands out.
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
