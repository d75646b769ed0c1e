//! The host conformance suites (Views, deep_copy, mirrors, policies, MDRange, reducers, scans) as
//! generic bodies over the execution space, run on Serial, Threads and Cuda (`name::serial`,
//! `name::threads`, `name::cuda`; the last ignored without a GPU). Views live in
//! `S::MemorySpace` and are read back through `deep_copy` into host mirrors; kernels are
//! `kernel!`s. Results are compared with plain Rust: exactly for integers and exact float
//! operations, within 1e-12 relative (to the sum of the magnitudes of the terms) for f64 sums,
//! whose order differs between spaces.

// The reference computations mirror the kernel bodies.
#![allow(clippy::manual_is_multiple_of)]

mod common;
#[macro_use]
mod per_space;

use common::{indices, left_strides, padded_left_strides, padded_right_strides, right_strides};
use ferrokkos::IndexTuple;
use ferrokkos::RegularLayout;
use ferrokkos::prelude::*;
use ferrokkos::{
    Element, Error, IndexType, Layout, Result, create_mirror, device, parallel_scan_with,
};
use per_space::{assert_sum_close, download, upload, upload_nd};

/// A View of rank `R` and layout `L` in the memory space of `S`.
type SView<S, T, const R: usize, L = LayoutRight> =
    View<T, R, L, <S as ExecutionSpace>::MemorySpace>;

// -------------------------------------------------------------------------------------------------
// Views: shapes, labels, zero initialization, layouts in memory
// -------------------------------------------------------------------------------------------------

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
    drop(c);
    assert_eq!(v.use_count(), 1);
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

// -------------------------------------------------------------------------------------------------
// deep_copy
// -------------------------------------------------------------------------------------------------

/// The bytes of an element (plain data without padding: primitives, `bool` and arrays of them).
fn bytes_of<T: Element>(x: &T) -> &[u8] {
    // SAFETY: `x` is a valid `T` of `size_of::<T>()` bytes, all initialized (the element types used
    // here have no padding).
    unsafe { std::slice::from_raw_parts((x as *const T).cast::<u8>(), size_of::<T>()) }
}

/// Asserts that `got[k]` has the bytes of `want(k)` for every `k` (so `-0.0` differs from `0.0`).
fn assert_elements<T: Element + std::fmt::Debug>(got: &[T], want: impl Fn(usize) -> T, what: &str) {
    for (k, g) in got.iter().enumerate() {
        let w = want(k);
        assert!(bytes_of(g) == bytes_of(&w), "{what} at {k}: {g:?} != {w:?}");
    }
}

/// Fills with `value` (and then with `zero`) a rank-1 View of `n` elements, one column of an
/// `n` x 3 LayoutRight View and a block of an `n` x 3 LayoutLeft View of `S`'s space, checking the
/// bytes of every element (the elements outside the column and the block stay zero).
fn fill_case<S: Launch, T: Element + std::fmt::Debug>(n: usize, value: T, zero: T) -> Result<()> {
    let what = format!("{} fill of {n} x {}", S::NAME, std::any::type_name::<T>());
    let v = SView::<S, T, 1>::new("fill", [n])?;
    let got = download(&v)?;
    assert_eq!(got.len(), n);
    assert_elements(&got, |_| zero, &format!("{what}: zeroed"));
    deep_copy(&v, value)?;
    assert_elements(&download(&v)?, |_| value, &what);
    deep_copy(&v, zero)?;
    assert_elements(&download(&v)?, |_| zero, &format!("{what}: back to zero"));
    // A strided column (LayoutStride) of a LayoutRight View, and a block of a LayoutLeft View.
    let m = SView::<S, T, 2>::new("columns", [n, 3])?;
    deep_copy(&subview(&m, (ALL, 1))?, value)?;
    let want = |k: usize| if k % 3 == 1 { value } else { zero };
    assert_elements(&download(&m)?, want, &format!("{what}: column fill"));
    let l = SView::<S, T, 2, LayoutLeft>::new("rows", [n, 3])?;
    let half = n.div_ceil(2);
    deep_copy(&subview(&l, (0..half, 1..3))?, value)?;
    let want = |k: usize| {
        let (i, j) = (k / 3, k % 3);
        if i < half && j >= 1 { value } else { zero }
    };
    assert_elements(&download(&l)?, want, &format!("{what}: block fill"));
    Ok(())
}

fn fills_of_zero_and_other_values_for_every_element_size<S: Launch>(_exec: &S) -> Result<()> {
    for n in [1, 7, 333, 4099] {
        fill_case::<S, u8>(n, 0xab, 0)?;
        fill_case::<S, i16>(n, -2, 0)?;
        fill_case::<S, i32>(n, 0x0102_0304, 0)?;
        fill_case::<S, u32>(n, u32::MAX, 0)?;
        fill_case::<S, i64>(n, i64::MIN + 5, 0)?;
        fill_case::<S, u64>(n, 0x0101_0101_0101_0101, 0)?;
        fill_case::<S, f32>(n, 1.5, 0.0)?;
        fill_case::<S, f32>(n, -0.0, 0.0)?;
        fill_case::<S, f64>(n, -2.5e-300, 0.0)?;
        fill_case::<S, bool>(n, true, false)?;
        fill_case::<S, [f32; 3]>(n, [1.0, -2.0, 3.5], [0.0; 3])?;
        fill_case::<S, [u8; 3]>(n, [1, 2, 3], [0; 3])?;
        fill_case::<S, [i16; 2]>(n, [-1, 7], [0; 2])?;
        // Larger than the device fill kernel's pattern (32 bytes).
        fill_case::<S, [f64; 5]>(n, [1.0, 2.0, 3.0, 4.0, 5.0], [0.0; 5])?;
    }
    Ok(())
}
per_space!(
    fills_of_zero_and_other_values_for_every_element_size,
    fills_of_zero_and_other_values_for_every_element_size
);

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
    // A View onto itself changes nothing.
    deep_copy(&v, &v.clone())?;
    assert_eq!(download(&v)?, [0, 1, 2, 3, 4, 0, 1, 2, 3, 4]);
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
    assert!(matches!(e, Error::ExtentMismatch { .. }), "{e:?}");
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

fn mirrors_round_trip<S: Launch>(exec: &S) -> Result<()> {
    let n = 1000;
    let v = SView::<S, f64, 2, LayoutLeft>::new("field", [n, 3])?;
    let m = create_mirror_view(&v)?;
    type Mirror<S> = <<S as ExecutionSpace>::MemorySpace as MemorySpace>::HostMirror;
    let same = <S::MemorySpace as MemorySpace>::NAME == <Mirror<S> as MemorySpace>::NAME;
    assert_eq!(m.shares_allocation_with(&v), same, "{}", S::NAME);
    let want_label = if same { "field" } else { "field_mirror" };
    assert_eq!(
        (m.label(), m.extents(), m.strides()),
        (want_label, [n, 3], v.strides())
    );
    // Host values -> the space -> a kernel -> back.
    {
        let mut g = m.host_mut()?;
        for [i, j] in indices([n, 3]) {
            g[(i, j)] = (i * 3 + j) as f64;
        }
    }
    deep_copy(&v, &m)?;
    parallel_for(
        "update",
        MDRangePolicy::new(exec, [0, 0], [n, 3])?,
        kernel!(|(i, j): (usize, usize)| v[(i, j)] = v[(i, j)] * 2.0 + 1.0),
    )?;
    // A fresh mirror (always a new allocation) sees the update; so does the first after a copy.
    let fresh = create_mirror(&v)?;
    assert!(!fresh.shares_allocation_with(&v));
    deep_copy(&fresh, &v)?;
    deep_copy(&m, &v)?;
    let want: Vec<f64> = (0..3 * n).map(|k| k as f64 * 2.0 + 1.0).collect();
    assert_eq!(fresh.to_vec()?, want);
    assert_eq!(m.to_vec()?, want);
    Ok(())
}
per_space!(mirrors_round_trip, mirrors_round_trip);

// -------------------------------------------------------------------------------------------------
// RangePolicy
// -------------------------------------------------------------------------------------------------

/// A chunk size larger than every range the tests use.
const HUGE_CHUNK: usize = 1 << 20;

/// Every schedule / chunk-size configuration of `begin..end` on `exec`, with a description.
fn policies<S: Launch, I: IndexType>(
    exec: &S,
    begin: I,
    end: I,
) -> Result<Vec<(String, RangePolicy<S, I>)>> {
    let base = RangePolicy::new(exec, begin, end)?;
    let mut out = Vec::new();
    for schedule in [Schedule::Static, Schedule::Dynamic] {
        let p = base.clone().schedule(schedule);
        out.push((format!("{} {schedule:?} no chunk", S::NAME), p.clone()));
        for chunk in [1, 7, HUGE_CHUNK] {
            let c = p.clone().chunk_size(chunk)?;
            out.push((format!("{} {schedule:?} chunk {chunk}", S::NAME), c));
        }
    }
    Ok(out)
}

/// Asserts that every counter is 1.
fn each_once(counts: &[u32], what: &str) {
    for (k, c) in counts.iter().enumerate() {
        assert_eq!(*c, 1, "{what}: slot {k}");
    }
}

fn range_for_with_nonzero_begin_visits_begin_to_end<S: Launch>(exec: &S) -> Result<()> {
    for (begin, end) in [(0usize, 1000usize), (40, 140), (17, 18), (1, 100_003)] {
        for (what, p) in policies(exec, begin, end)? {
            let v = SView::<S, u64, 1>::new("nonzero_begin", [end - begin])?;
            let counts = SView::<S, u32, 1>::new("counts", [end])?;
            parallel_for(
                "write",
                p,
                kernel!(|i| {
                    unsafe {
                        v[i - begin] = i as u64;
                    }
                    counts.atomic_add(i, 1u32);
                }),
            )?;
            let want: Vec<u64> = (begin as u64..end as u64).collect();
            assert_eq!(download(&v)?, want, "{what} {begin}..{end}");
            let c = download(&counts)?;
            assert!(c[..begin].iter().all(|x| *x == 0), "{what}: before begin");
            each_once(&c[begin..], &format!("{what} {begin}..{end}"));
        }
    }
    Ok(())
}
per_space!(
    range_for_with_nonzero_begin_visits_begin_to_end,
    range_for_with_nonzero_begin_visits_begin_to_end
);

fn empty_ranges_run_nothing<S: Launch>(exec: &S) -> Result<()> {
    let calls = SView::<S, u32, 1>::new("calls", [1])?;
    for (begin, end) in [(0usize, 0usize), (5, 5), (usize::MAX, usize::MAX)] {
        for (what, p) in policies(exec, begin, end)? {
            assert!(p.is_empty(), "{what}");
            assert_eq!(p.len(), 0, "{what}");
            parallel_for("empty", p.clone(), kernel!(|_i| calls.atomic_add(0, 1u32)))?;
            let sum: u64 = parallel_reduce(
                "empty",
                p.clone(),
                kernel!(|_i, acc: &mut u64| *acc += 1),
                Sum::new(),
            )?;
            let total: u64 = parallel_scan(
                "empty",
                p,
                kernel!(|_i, partial: &mut u64, _last: bool| *partial += 1),
            )?;
            assert_eq!((sum, total), (0, 0), "{what}");
        }
    }
    let mut c = 0;
    deep_copy(&mut c, &subview(&calls, 0)?)?;
    assert_eq!(c, 0, "a kernel ran on an empty range");
    // Signed empty ranges.
    let p = RangePolicy::new(exec, -3i64, -3)?;
    let s: i64 = parallel_reduce(
        "empty",
        p,
        kernel!(|i: i64, acc: &mut i64| *acc += i),
        Sum::new(),
    )?;
    assert_eq!(s, 0);
    Ok(())
}
per_space!(empty_ranges_run_nothing, empty_ranges_run_nothing);

fn every_index_type_reaches_the_ends_of_its_type<S: Launch>(exec: &S) -> Result<()> {
    // i32 with a negative begin: each index once.
    for (what, p) in policies(exec, -50i32, 50)? {
        let counts = SView::<S, u32, 1>::new("counts", [100])?;
        parallel_for(
            "i32",
            p,
            kernel!(|i: i32| counts.atomic_add((i + 50) as usize, 1u32)),
        )?;
        each_once(&download(&counts)?, &what);
    }
    // i64 with a negative begin, for and reduce.
    let (begin, end) = (-500i64, 250i64);
    for (what, p) in policies(exec, begin, end)? {
        let counts = SView::<S, u32, 1>::new("counts", [750])?;
        parallel_for(
            "i64",
            p.clone(),
            kernel!(|i: i64| counts.atomic_add(i - begin, 1u32)),
        )?;
        each_once(&download(&counts)?, &what);
        let s: i64 = parallel_reduce("i64", p, kernel!(|i: i64, a: &mut i64| *a += i), Sum::new())?;
        assert_eq!(s, (begin..end).sum::<i64>(), "{what}");
    }
    // The ends of each type.
    let p = RangePolicy::new(exec, i64::MIN, i64::MIN + 10)?;
    let s: i64 = parallel_reduce(
        "i64 bottom",
        p,
        kernel!(|i: i64, a: &mut i64| *a += i.wrapping_sub(i64::MIN)),
        Sum::new(),
    )?;
    assert_eq!(s, 45);
    let p = RangePolicy::new(exec, i64::MAX - 10, i64::MAX)?;
    let s: i64 = parallel_reduce(
        "i64 top",
        p,
        kernel!(|i: i64, a: &mut i64| *a += i64::MAX - i),
        Sum::new(),
    )?;
    assert_eq!(s, 55);
    let p = RangePolicy::new(exec, i32::MAX - 9, i32::MAX)?;
    let s: i64 = parallel_reduce(
        "i32 top",
        p,
        kernel!(|i: i32, a: &mut i64| *a += i as i64),
        Sum::new(),
    )?;
    assert_eq!(s, (i32::MAX - 9..i32::MAX).map(i64::from).sum::<i64>());
    let p = RangePolicy::new(exec, i32::MIN, i32::MIN + 3)?;
    let m: i32 = parallel_reduce(
        "i32 bottom",
        p,
        kernel!(|i: i32, a: &mut i32| *a = (*a).min(i)),
        Min::new(),
    )?;
    assert_eq!(m, i32::MIN);
    let p = RangePolicy::new(exec, u32::MAX - 4, u32::MAX)?;
    let m: u32 = parallel_reduce(
        "u32 top",
        p,
        kernel!(|i: u32, a: &mut u32| *a = (*a).max(i)),
        Max::new(),
    )?;
    assert_eq!(m, u32::MAX - 1);
    for (what, p) in policies(exec, 0u32, 1000)? {
        let s: u64 = parallel_reduce(
            "u32",
            p,
            kernel!(|i: u32, a: &mut u64| *a += i as u64),
            Sum::new(),
        )?;
        assert_eq!(s, 499_500, "{what}");
    }
    let p = RangePolicy::new(exec, usize::MAX - 5, usize::MAX)?;
    let s: u64 = parallel_reduce(
        "usize top",
        p,
        kernel!(|i, a: &mut u64| *a += (usize::MAX - i) as u64),
        Sum::new(),
    )?;
    assert_eq!(s, 15);
    for (begin, end) in [(0u64, 10_000u64), (3, 4), (1_000_000_007, 1_000_001_000)] {
        let want: u64 = (begin..end).map(|i| i * i % 1009).sum();
        for (what, p) in policies(exec, begin, end)? {
            let s: u64 = parallel_reduce(
                "u64",
                p,
                kernel!(|i: u64, a: &mut u64| *a += i * i % 1009),
                Sum::new(),
            )?;
            assert_eq!(s, want, "{what} {begin}..{end}");
        }
    }
    let p = RangePolicy::new(exec, -3isize, 4)?;
    let s: isize = parallel_reduce(
        "isize",
        p,
        kernel!(|i: isize, a: &mut isize| *a += i * i),
        Sum::new(),
    )?;
    assert_eq!(s, 2 * (9 + 4 + 1));
    Ok(())
}
per_space!(
    every_index_type_reaches_the_ends_of_its_type,
    every_index_type_reaches_the_ends_of_its_type
);

/// Values of very different magnitudes, so that a change of summation order changes the result.
fn wild(i: usize) -> f64 {
    let mantissa = ((i * 7919) % 1000) as f64 + 0.123;
    let sign = if i % 5 == 0 { -1.0 } else { 1.0 };
    sign * mantissa * 10f64.powi((i % 23) as i32 - 11)
}

fn large_reductions_are_exact_for_integers_and_close_for_floats<S: Launch>(exec: &S) -> Result<()> {
    let n = 3_000_017usize;
    let s: u64 = parallel_reduce(
        "count",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i, a: &mut u64| *a += (i * i % 1009) as u64),
        Sum::new(),
    )?;
    assert_eq!(s, (0..n).map(|i| (i * i % 1009) as u64).sum::<u64>());
    let m = 100_003;
    let data: Vec<f64> = (0..m).map(wild).collect();
    let x = upload::<S, f64>("wild", &data)?;
    let run = || -> Result<f64> {
        let mut s = 0.0;
        parallel_reduce(
            "wild",
            RangePolicy::new(exec, 0, m)?,
            kernel!(|i, a: &mut f64| *a += x[i]),
            &mut s,
        )?;
        Ok(s)
    };
    let first = run()?;
    let sequential = data.iter().fold(0.0, |a, x| a + x);
    let scale: f64 = data.iter().map(|x| x.abs()).sum();
    assert_sum_close(first, sequential, scale, S::NAME);
    for k in 1..5 {
        assert_eq!(run()?.to_bits(), first.to_bits(), "run {k} differs");
    }
    // Positive terms: 1e-12 relative to the sum itself.
    let h: f64 = parallel_reduce(
        "harmonic",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i, a: &mut f64| *a += 1.0 / (1.0 + i as f64)),
        Sum::new(),
    )?;
    let want = (0..n).fold(0.0, |a, i| a + 1.0 / (1.0 + i as f64));
    assert_sum_close(h, want, want, S::NAME);
    Ok(())
}
per_space!(
    large_reductions_are_exact_for_integers_and_close_for_floats,
    large_reductions_are_exact_for_integers_and_close_for_floats
);

fn policies_with_bad_input_are_errors<S: Launch>(exec: &S) -> Result<()> {
    let e = RangePolicy::new(exec, 100, 90).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid RangePolicy: lower bound (100) is greater than the upper bound (90)"
    );
    let e = RangePolicy::new(exec, 10, 20)?.chunk_size(0).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid RangePolicy: the chunk size must be at least 1"
    );
    let e = MDRangePolicy::new(exec, [0i64, 5], [4, 3]).unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid MDRangePolicy<2>: lower bound (5) is greater than the upper bound (3) in dimension 1"
    );
    let e = MDRangePolicy::new(exec, [0i64, 0, 0], [2, 2, 2])?
        .tile_sizes([2, 0, 1])
        .unwrap_err();
    assert_eq!(
        e.to_string(),
        "invalid MDRangePolicy<3>: tile size in dimension 1 is 0; every tile size must be at least 1"
    );
    Ok(())
}
per_space!(
    policies_with_bad_input_are_errors,
    policies_with_bad_input_are_errors
);

// -------------------------------------------------------------------------------------------------
// MDRangePolicy
// -------------------------------------------------------------------------------------------------

/// A value per point, different for each dimension so that swapped indices would show.
#[device]
fn weight4(i: i64, j: i64, k: i64, l: i64) -> i64 {
    (i * 31 + 7) * (i - 3)
        + (j * 31 + 14) * (j - 3) * 2
        + (k * 31 + 21) * (k - 3) * 3
        + (l * 31 + 28) * (l - 3) * 4
        + i * j * (k + 1) * (l + 2)
}

/// The weights of the points of `lower..upper` in row-major order, their sum and their maximum.
fn md_reference<const R: usize>(
    lower: [i64; R],
    upper: [i64; R],
    w: impl Fn([i64; R]) -> i64,
) -> (Vec<i64>, i64, i64) {
    let ext: [usize; R] = std::array::from_fn(|r| (upper[r] - lower[r]) as usize);
    let weights: Vec<i64> = indices(ext)
        .into_iter()
        .map(|o| w(std::array::from_fn(|r| lower[r] + o[r] as i64)))
        .collect();
    let sum = weights.iter().sum();
    let max = *weights.iter().max().unwrap();
    (weights, sum, max)
}

/// MDRange policies over `lower..upper` in both iteration orders, with default, given and oversized
/// tiles, each with a description.
fn md_policies<S: Launch, const R: usize>(
    exec: &S,
    lower: [i64; R],
    upper: [i64; R],
    tiles: [usize; R],
) -> Result<Vec<(String, MDRangePolicy<S, R, i64>)>>
where
    [i64; R]: IndexTuple<i64>,
{
    let mut out = Vec::new();
    for order in [Iterate::Right, Iterate::Left] {
        for t in [None, Some(tiles), Some([100; R])] {
            let what = format!("{} {lower:?}..{upper:?} {order:?} tiles {t:?}", S::NAME);
            let mut p = MDRangePolicy::new(exec, lower, upper)?.iterate(order);
            if let Some(t) = t {
                p = p.tile_sizes(t)?;
            }
            let points: usize = (0..R).map(|r| (upper[r] - lower[r]) as usize).product();
            assert_eq!(p.len(), points as u64, "{what}");
            out.push((what, p));
        }
    }
    Ok(out)
}

/// A rank-2 MDRange visits each point of `lower..upper` once (counted atomically) and writes its
/// weight at its offset from the lower corner; a reduction sums and maximizes the weights.
fn md_box_2<S: Launch>(
    exec: &S,
    lower: [i64; 2],
    upper: [i64; 2],
    tiles: [usize; 2],
) -> Result<()> {
    let (weights, sum, max) = md_reference(lower, upper, |[i, j]| weight4(i, j, 0, 7));
    let ext = [0, 1].map(|r| (upper[r] - lower[r]) as usize);
    for (what, p) in md_policies(exec, lower, upper, tiles)? {
        let out = SView::<S, i64, 2>::new("out", ext)?;
        let counts = SView::<S, u32, 2>::new("counts", ext)?;
        let lo = lower;
        parallel_for(
            "visit",
            p.clone(),
            kernel!(|(i, j)| {
                counts.atomic_add((i - lo[0], j - lo[1]), 1u32);
                unsafe {
                    out[(i - lo[0], j - lo[1])] = weight4(i, j, 0, 7);
                }
            }),
        )?;
        each_once(&download(&counts)?, &what);
        assert_eq!(download(&out)?, weights, "{what}");
        let (s, m) = parallel_reduce(
            "weights",
            p,
            kernel!(|(i, j), s: &mut i64, m: &mut i64| {
                let w = weight4(i, j, 0, 7);
                *s += w;
                *m = (*m).max(w);
            }),
            (Sum::new(), Max::new()),
        )?;
        assert_eq!((s, m), (sum, max), "{what}");
    }
    Ok(())
}

/// [`md_box_2`] at rank 3.
fn md_box_3<S: Launch>(
    exec: &S,
    lower: [i64; 3],
    upper: [i64; 3],
    tiles: [usize; 3],
) -> Result<()> {
    let (weights, sum, max) = md_reference(lower, upper, |[i, j, k]| weight4(i, j, k, -1));
    let ext = [0, 1, 2].map(|r| (upper[r] - lower[r]) as usize);
    for (what, p) in md_policies(exec, lower, upper, tiles)? {
        let out = SView::<S, i64, 3, LayoutLeft>::new("out", ext)?;
        let counts = SView::<S, u32, 3>::new("counts", ext)?;
        let lo = lower;
        parallel_for(
            "visit",
            p.clone(),
            kernel!(|(i, j, k)| {
                counts.atomic_add((i - lo[0], j - lo[1], k - lo[2]), 1u32);
                unsafe {
                    out[(i - lo[0], j - lo[1], k - lo[2])] = weight4(i, j, k, -1);
                }
            }),
        )?;
        each_once(&download(&counts)?, &what);
        assert_eq!(download(&out)?, weights, "{what}");
        let (s, m) = parallel_reduce(
            "weights",
            p,
            kernel!(|(i, j, k), s: &mut i64, m: &mut i64| {
                let w = weight4(i, j, k, -1);
                *s += w;
                *m = (*m).max(w);
            }),
            (Sum::new(), Max::new()),
        )?;
        assert_eq!((s, m), (sum, max), "{what}");
    }
    Ok(())
}

/// [`md_box_2`] at rank 4.
fn md_box_4<S: Launch>(
    exec: &S,
    lower: [i64; 4],
    upper: [i64; 4],
    tiles: [usize; 4],
) -> Result<()> {
    let (weights, sum, max) = md_reference(lower, upper, |[i, j, k, l]| weight4(i, j, k, l));
    let ext = [0, 1, 2, 3].map(|r| (upper[r] - lower[r]) as usize);
    for (what, p) in md_policies(exec, lower, upper, tiles)? {
        let out = SView::<S, i64, 4>::new("out", ext)?;
        let counts = SView::<S, u32, 4, LayoutLeft>::new("counts", ext)?;
        let lo = lower;
        parallel_for(
            "visit",
            p.clone(),
            kernel!(|(i, j, k, l)| {
                counts.atomic_add((i - lo[0], j - lo[1], k - lo[2], l - lo[3]), 1u32);
                unsafe {
                    out[(i - lo[0], j - lo[1], k - lo[2], l - lo[3])] = weight4(i, j, k, l);
                }
            }),
        )?;
        each_once(&download(&counts)?, &what);
        assert_eq!(download(&out)?, weights, "{what}");
        let (s, m) = parallel_reduce(
            "weights",
            p,
            kernel!(|(i, j, k, l), s: &mut i64, m: &mut i64| {
                let w = weight4(i, j, k, l);
                *s += w;
                *m = (*m).max(w);
            }),
            (Sum::new(), Max::new()),
        )?;
        assert_eq!((s, m), (sum, max), "{what}");
    }
    Ok(())
}

fn md_range_visits_every_point_once_at_ranks_2_to_4<S: Launch>(exec: &S) -> Result<()> {
    md_box_2(exec, [-3, 2], [4, 9], [2, 3])?;
    md_box_2(exec, [-20, -45], [41, 30], [8, 16])?;
    md_box_2(exec, [7, -7], [8, -6], [3, 3])?; // a single point
    md_box_3(exec, [-2, -5, 0], [3, 2, 3], [2, 3, 2])?;
    md_box_3(exec, [-9, 3, -17], [8, 20, 12], [4, 4, 4])?;
    md_box_3(exec, [0, 0, 0], [1, 9, 2], [1, 4, 1])?; // unit extents
    md_box_4(exec, [-1, 0, -2, 1], [2, 3, 1, 5], [2, 2, 2, 3])?;
    md_box_4(exec, [-4, -3, -2, -6], [5, 7, 6, 3], [3, 2, 4, 2])?;
    Ok(())
}
per_space!(
    md_range_visits_every_point_once_at_ranks_2_to_4,
    md_range_visits_every_point_once_at_ranks_2_to_4
);

fn md_range_with_other_index_types_and_empty_boxes<S: Launch>(exec: &S) -> Result<()> {
    // usize indices.
    let counts = SView::<S, u32, 2>::new("counts", [4, 6])?;
    let p = MDRangePolicy::new(exec, [0usize, 0], [4, 6])?.tile_sizes([3, 4])?;
    parallel_for(
        "usize",
        p,
        kernel!(|(i, j): (usize, usize)| counts.atomic_add((i, j), 1u32)),
    )?;
    each_once(&download(&counts)?, "usize");
    // i32 indices at the top of the type.
    let p = MDRangePolicy::new(exec, [-5i32, i32::MAX - 3], [-1, i32::MAX])?;
    let (lo, hi) = parallel_reduce(
        "i32",
        p.iterate(Iterate::Left),
        kernel!(|(i, j): (i32, i32), s: &mut i64, m: &mut i32| {
            *s += i as i64;
            *m = (*m).max(j);
        }),
        (Sum::new(), Max::new()),
    )?;
    assert_eq!((lo, hi), (3 * (-5 - 4 - 3 - 2), i32::MAX - 1));
    // Empty boxes run nothing and reduce to the identities.
    let calls = SView::<S, u32, 1>::new("calls", [1])?;
    for (lower, upper) in [
        ([0i64, 0, 0], [3, 0, 4]),
        ([-2, 5, -1], [1, 7, -1]),
        ([0, 0, 0], [0, 0, 0]),
    ] {
        for order in [Iterate::Right, Iterate::Left] {
            let p = MDRangePolicy::new(exec, lower, upper)?.iterate(order);
            assert!(p.is_empty());
            parallel_for(
                "empty",
                p.clone(),
                kernel!(|(_i, _j, _k)| calls.atomic_add(0, 1u32)),
            )?;
            let (s, m) = parallel_reduce(
                "empty",
                p,
                kernel!(|(_i, _j, _k), s: &mut f64, m: &mut i32| {
                    *s += 1.0;
                    *m = (*m).min(0);
                }),
                (Sum::new(), Min::new()),
            )?;
            assert_eq!((s, m), (0.0, i32::MAX));
        }
    }
    assert_eq!(download(&calls)?, [0]);
    Ok(())
}
per_space!(
    md_range_with_other_index_types_and_empty_boxes,
    md_range_with_other_index_types_and_empty_boxes
);

fn md_range_float_reductions_match_sequential_loops<S: Launch>(exec: &S) -> Result<()> {
    let (lower, upper) = ([-40i64, -30, 1], [50, 60, 28]);
    let mut sum = 0.0;
    let mut best = (f64::MAX, i64::MAX);
    let mut flat = 0i64;
    for i in lower[0]..upper[0] {
        for j in lower[1]..upper[1] {
            for k in lower[2]..upper[2] {
                let v = (i * 3 - j * j + 2 * k) as f64 * 0.5;
                sum += v;
                if v < best.0 {
                    best = (v, flat);
                }
                flat += 1;
            }
        }
    }
    let (n1, n2) = ((upper[1] - lower[1]), (upper[2] - lower[2]));
    for order in [Iterate::Right, Iterate::Left] {
        let p = MDRangePolicy::new(exec, lower, upper)?
            .tile_sizes([2, 4, 3])?
            .iterate(order);
        let mut s = 0.0;
        parallel_reduce(
            "sum",
            p.clone(),
            kernel!(|(i, j, k), a: &mut f64| *a += (i * 3 - j * j + 2 * k) as f64 * 0.5),
            &mut s,
        )?;
        assert_eq!(
            s, sum,
            "{order:?}: halves of integers add exactly in any order"
        );
        let m = parallel_reduce(
            "argmin",
            p,
            kernel!(|(i, j, k), a: &mut ValLocScalar<f64, i64>| {
                let at = ((i - lower[0]) * n1 + j - lower[1]) * n2 + k - lower[2];
                let v = (i * 3 - j * j + 2 * k) as f64 * 0.5;
                if v < a.val || (v == a.val && at < a.loc) {
                    a.val = v;
                    a.loc = at;
                }
            }),
            MinLoc::new(),
        )?;
        assert_eq!((m.val, m.loc), best, "{order:?}");
    }
    Ok(())
}
per_space!(
    md_range_float_reductions_match_sequential_loops,
    md_range_float_reductions_match_sequential_loops
);

// -------------------------------------------------------------------------------------------------
// Reducers
// -------------------------------------------------------------------------------------------------

/// Known data: values from a period-101 pattern with tied extremes far apart (the minimum at 3 and
/// at the last index, the maximum at 0, n / 2 and n - 3).
fn pattern(n: usize, offset: i64) -> Vec<i64> {
    let mut x: Vec<i64> = (0..n).map(|i| ((i * 37) % 101) as i64 - offset).collect();
    x[3] = -1000 + 1000 * (offset == 0) as i64;
    x[n - 1] = x[3];
    for i in [0, n / 2, n - 3] {
        x[i] = 1000;
    }
    x
}

/// The built-in reducers over the values of `$t` (made from [`pattern`] by `as`), against plain
/// Rust, for `n` in a small size (one block) and a large one (many blocks on a GPU).
macro_rules! reducers_on {
    ($name:ident, $t:ident, $offset:expr) => {
        fn $name<S: Launch>(exec: &S) -> Result<()> {
            for n in [100usize, 100_003] {
                let xs: Vec<$t> = pattern(n, $offset).into_iter().map(|v| v as $t).collect();
                let x = upload::<S, $t>("x", &xs)?;
                for (what, p) in policies(exec, 0, n)? {
                    let what = format!("{what} n {n} {}", stringify!($t));
                    // Sums of these values are exact in any order, floats included.
                    let sum: $t = parallel_reduce(
                        "sum",
                        p.clone(),
                        kernel!(|i, a: &mut $t| *a += x[i]),
                        Sum::new(),
                    )?;
                    assert_eq!(sum, xs.iter().fold(0 as $t, |a, v| a + v), "{what}");
                    let min: $t = parallel_reduce(
                        "min",
                        p.clone(),
                        kernel!(|i, a: &mut $t| *a = (*a).min(x[i])),
                        Min::new(),
                    )?;
                    let max: $t = parallel_reduce(
                        "max",
                        p.clone(),
                        kernel!(|i, a: &mut $t| *a = (*a).max(x[i])),
                        Max::new(),
                    )?;
                    let lo = xs
                        .iter()
                        .copied()
                        .fold(xs[0], |a, v| if v < a { v } else { a });
                    let hi = xs
                        .iter()
                        .copied()
                        .fold(xs[0], |a, v| if v > a { v } else { a });
                    assert_eq!((min, max), (lo, hi), "{what}");
                    let minloc = parallel_reduce(
                        "minloc",
                        p.clone(),
                        kernel!(|i, a: &mut ValLocScalar<$t, usize>| {
                            if x[i] < a.val {
                                a.val = x[i];
                                a.loc = i;
                            }
                        }),
                        MinLoc::<$t, usize>::new(),
                    )?;
                    let at_lo = xs.iter().position(|v| *v == lo).unwrap();
                    assert_eq!(
                        (minloc.val, minloc.loc),
                        (lo, at_lo),
                        "{what}: smallest location"
                    );
                    let maxloc = parallel_reduce(
                        "maxloc",
                        p.clone(),
                        kernel!(|i, a: &mut ValLocScalar<$t, usize>| {
                            if x[i] > a.val {
                                a.val = x[i];
                                a.loc = i;
                            }
                        }),
                        MaxLoc::<$t, usize>::new(),
                    )?;
                    let at_hi = xs.iter().position(|v| *v == hi).unwrap();
                    assert_eq!(
                        (maxloc.val, maxloc.loc),
                        (hi, at_hi),
                        "{what}: smallest location"
                    );
                    let mm = parallel_reduce(
                        "minmax",
                        p.clone(),
                        kernel!(|i, a: &mut MinMaxScalar<$t>| {
                            a.min_val = a.min_val.min(x[i]);
                            a.max_val = a.max_val.max(x[i]);
                        }),
                        MinMax::<$t>::new(),
                    )?;
                    assert_eq!((mm.min_val, mm.max_val), (lo, hi), "{what}");
                    let mml = parallel_reduce(
                        "minmaxloc",
                        p.clone(),
                        kernel!(|i, a: &mut MinMaxLocScalar<$t, usize>| {
                            if x[i] < a.min_val {
                                a.min_val = x[i];
                                a.min_loc = i;
                            }
                            if x[i] > a.max_val {
                                a.max_val = x[i];
                                a.max_loc = i;
                            }
                        }),
                        MinMaxLoc::<$t, usize>::new(),
                    )?;
                    assert_eq!(
                        (mml.min_val, mml.min_loc, mml.max_val, mml.max_loc),
                        (lo, at_lo, hi, at_hi),
                        "{what}"
                    );
                    let any = parallel_reduce(
                        "lor",
                        p.clone(),
                        kernel!(|i, a: &mut bool| *a = *a || x[i] == hi),
                        LOr,
                    )?;
                    let none = parallel_reduce(
                        "lor",
                        p.clone(),
                        kernel!(|i, a: &mut bool| *a = *a || x[i] > hi),
                        LOr,
                    )?;
                    let all = parallel_reduce(
                        "land",
                        p.clone(),
                        kernel!(|i, a: &mut bool| *a = *a && x[i] >= lo),
                        LAnd,
                    )?;
                    let not_all = parallel_reduce(
                        "land",
                        p.clone(),
                        kernel!(|i, a: &mut bool| *a = *a && x[i] < hi),
                        LAnd,
                    )?;
                    assert_eq!(
                        (any, none, all, not_all),
                        (true, false, true, false),
                        "{what}"
                    );
                    // Into a `&mut` scalar (overwritten, as in Kokkos) and through into_result.
                    let mut s = 77 as $t;
                    parallel_reduce(
                        "into",
                        p.clone(),
                        kernel!(|i, a: &mut $t| *a += x[i]),
                        &mut s,
                    )?;
                    assert_eq!(s, sum, "{what}: &mut target");
                    let mut m = 77 as $t;
                    parallel_reduce(
                        "into_result",
                        p.clone(),
                        kernel!(|i, a: &mut $t| *a = (*a).max(x[i])),
                        Max::new().into_result(&mut m),
                    )?;
                    assert_eq!(m, hi, "{what}: into_result");
                    // Into a rank-0 View of the space.
                    let v0 = SView::<S, $t, 0>::new("r", [])?;
                    deep_copy(&v0, 77 as $t)?;
                    parallel_reduce(
                        "into view",
                        p.clone(),
                        kernel!(|i, a: &mut $t| *a += x[i]),
                        &v0,
                    )?;
                    let mut back = 0 as $t;
                    deep_copy(&mut back, &v0)?;
                    assert_eq!(back, sum, "{what}: rank-0 View target");
                    // A tuple of reducers, in one pass.
                    let (ts, tm, tl, tb) = parallel_reduce(
                        "tuple",
                        p.clone(),
                        kernel!(|i,
                                 s: &mut $t,
                                 m: &mut $t,
                                 l: &mut ValLocScalar<$t, usize>,
                                 b: &mut bool| {
                            *s += x[i];
                            *m = (*m).max(x[i]);
                            if x[i] < l.val {
                                l.val = x[i];
                                l.loc = i;
                            }
                            *b = *b || x[i] == lo;
                        }),
                        (Sum::new(), Max::new(), MinLoc::new(), LOr),
                    )?;
                    assert_eq!(
                        (ts, tm, tl.val, tl.loc, tb),
                        (sum, hi, lo, at_lo, true),
                        "{what}"
                    );
                }
            }
            Ok(())
        }
        per_space!($name, $name);
    };
}

reducers_on!(reducers_on_i32, i32, 50);
reducers_on!(reducers_on_i64, i64, 50);
reducers_on!(reducers_on_u64, u64, 0);
reducers_on!(reducers_on_f32, f32, 50);
reducers_on!(reducers_on_f64, f64, 50);

fn products_and_bitwise_reducers<S: Launch>(exec: &S) -> Result<()> {
    let n = 100_003usize;
    for (what, p) in policies(exec, 0, n)? {
        // Powers of two multiply exactly in any order.
        let prod: f64 = parallel_reduce(
            "prod",
            p.clone(),
            kernel!(|i, a: &mut f64| {
                if i < 300 {
                    *a *= 2f64.powi((i % 5) as i32 - 1)
                }
            }),
            Prod::new(),
        )?;
        assert_eq!(prod, 2f64.powi(300), "{what}");
        let fprod: f32 = parallel_reduce(
            "prod f32",
            p.clone(),
            kernel!(|i, a: &mut f32| {
                if i % 1000 == 7 {
                    *a *= 0.5
                }
            }),
            Prod::new(),
        )?;
        assert_eq!(fprod, 0.5f32.powi(100), "{what}");
        let iprod: i64 = parallel_reduce(
            "prod i64",
            p.clone(),
            kernel!(|i, a: &mut i64| {
                if i < 20 {
                    *a *= (i % 3 + 1) as i64
                }
            }),
            Prod::new(),
        )?;
        assert_eq!(iprod, 2i64.pow(7) * 3i64.pow(6), "{what}");
        let uprod: u32 = parallel_reduce(
            "prod u32",
            p.clone(),
            kernel!(|i, a: &mut u32| {
                if i % 10_000 == 1 {
                    *a *= 3
                }
            }),
            Prod::new(),
        )?;
        let ones = (0..n).filter(|i| i % 10_000 == 1).count() as u32;
        assert_eq!(uprod, 3u32.pow(ones), "{what}");
        let band: u32 = parallel_reduce(
            "band",
            p.clone(),
            kernel!(|i, a: &mut u32| *a &= (i as u32).wrapping_mul(2_654_435_761) | 0x8000_0001),
            BAnd::new(),
        )?;
        let bor: u32 = parallel_reduce(
            "bor",
            p.clone(),
            kernel!(|i, a: &mut u32| *a |= ((i as u32) & 0x0f0f) << 4),
            BOr::new(),
        )?;
        let bits = (0..n as u32).map(|i| i.wrapping_mul(2_654_435_761) | 0x8000_0001);
        assert_eq!(band, bits.fold(!0, |a, b| a & b), "{what}");
        assert_eq!(
            bor,
            (0..n as u32).fold(0, |a, i| a | ((i & 0x0f0f) << 4)),
            "{what}"
        );
        let band64: u64 = parallel_reduce(
            "band u64",
            p.clone(),
            kernel!(|i, a: &mut u64| *a &= !(1u64 << (i % 61) as u32) | (i % 7 == 0) as u64),
            BAnd::new(),
        )?;
        let want = (0..n as u64).fold(!0u64, |a, i| {
            a & (!(1u64 << (i % 61)) | (i % 7 == 0) as u64)
        });
        assert_eq!(band64, want, "{what}");
        let bor64: i64 = parallel_reduce(
            "bor i64",
            p.clone(),
            kernel!(|i, a: &mut i64| *a |= 1i64 << (i % 63) as u32),
            BOr::new(),
        )?;
        assert_eq!(bor64, i64::MAX, "{what}");
        // Six reducers, the most a tuple takes.
        type Six = (i64, i64, i64, i64, bool, u8);
        let six: Six = parallel_reduce(
            "six",
            p.clone(),
            kernel!(|i,
                     s: &mut i64,
                     pr: &mut i64,
                     lo: &mut i64,
                     hi: &mut i64,
                     all: &mut bool,
                     bits: &mut u8| {
                let v = (i % 7) as i64 - 3;
                *s += v;
                if i == 42 {
                    *pr *= 2;
                }
                *lo = (*lo).min(v);
                *hi = (*hi).max(v);
                *all = *all && v < 4;
                *bits |= 1u8 << (i % 8) as u32;
            }),
            (
                Sum::new(),
                Prod::new(),
                Min::new(),
                Max::new(),
                LAnd,
                BOr::new(),
            ),
        )?;
        let total: i64 = (0..n).map(|i| (i % 7) as i64 - 3).sum();
        assert_eq!(six, (total, 2, -3, 3, true, 0xff), "{what}");
    }
    Ok(())
}
per_space!(products_and_bitwise_reducers, products_and_bitwise_reducers);

fn empty_ranges_reduce_to_each_reducers_identity<S: Launch>(exec: &S) -> Result<()> {
    let p = RangePolicy::new(exec, 7usize, 7)?;
    let f = || RangePolicy::new(exec, 7usize, 7);
    let floats: (f64, f64, f64, f64) = parallel_reduce(
        "floats",
        p.clone(),
        kernel!(
            |_i, s: &mut f64, pr: &mut f64, lo: &mut f64, hi: &mut f64| {
                *s += 1.0;
                *pr *= 3.0;
                *lo = 0.0;
                *hi = 0.0;
            }
        ),
        (Sum::new(), Prod::new(), Min::new(), Max::new()),
    )?;
    assert_eq!(
        floats,
        (0.0, 1.0, f64::MAX, f64::MIN),
        "lowest finite, not -inf"
    );
    let ints: (i32, i32, u16, u16) = parallel_reduce(
        "ints",
        f()?,
        kernel!(
            |_i, lo: &mut i32, hi: &mut i32, and: &mut u16, or: &mut u16| {
                *lo = 0;
                *hi = 0;
                *and = 0;
                *or = 1;
            }
        ),
        (Min::new(), Max::new(), BAnd::new(), BOr::new()),
    )?;
    assert_eq!(ints, (i32::MAX, i32::MIN, u16::MAX, 0));
    let logic: (bool, bool) = parallel_reduce(
        "logic",
        f()?,
        kernel!(|_i, all: &mut bool, any: &mut bool| {
            *all = false;
            *any = true;
        }),
        (LAnd, LOr),
    )?;
    assert_eq!(logic, (true, false));
    let min = parallel_reduce(
        "minloc",
        f()?,
        kernel!(|i, a: &mut ValLocScalar<f64, usize>| {
            a.val = 0.0;
            a.loc = i;
        }),
        MinLoc::<f64, usize>::new(),
    )?;
    assert_eq!((min.val, min.loc), (f64::MAX, usize::MAX));
    let max = parallel_reduce(
        "maxloc",
        f()?,
        kernel!(|i, a: &mut ValLocScalar<i64, usize>| {
            a.val = 0;
            a.loc = i;
        }),
        MaxLoc::<i64, usize>::new(),
    )?;
    assert_eq!((max.val, max.loc), (i64::MIN, usize::MAX));
    let mm = parallel_reduce(
        "minmax",
        f()?,
        kernel!(|_i, a: &mut MinMaxScalar<f32>| a.min_val = 0.0),
        MinMax::<f32>::new(),
    )?;
    assert_eq!((mm.min_val, mm.max_val), (f32::MAX, f32::MIN));
    let mml = parallel_reduce(
        "minmaxloc",
        f()?,
        kernel!(|_i, a: &mut MinMaxLocScalar<i32, usize>| a.min_loc = 0),
        MinMaxLoc::<i32, usize>::new(),
    )?;
    assert_eq!(
        (mml.min_val, mml.min_loc, mml.max_val, mml.max_loc),
        (i32::MAX, usize::MAX, i32::MIN, usize::MAX)
    );
    let mut s = 42.0;
    parallel_reduce("into", f()?, kernel!(|_i, a: &mut f64| *a += 1.0), &mut s)?;
    assert_eq!(s, 0.0, "the result is overwritten, not added to");
    let v0 = SView::<S, f64, 0>::new("e0", [])?;
    deep_copy(&v0, 42.0)?;
    parallel_reduce("into view", f()?, kernel!(|_i, a: &mut f64| *a += 1.0), &v0)?;
    let mut back = 1.0;
    deep_copy(&mut back, &v0)?;
    assert_eq!(back, 0.0);
    let p = RangePolicy::new(exec, -3i32, -3)?;
    let m = parallel_reduce(
        "signed loc",
        p,
        kernel!(|i: i32, a: &mut ValLocScalar<u8, i32>| {
            a.val = 0;
            a.loc = i;
        }),
        MinLoc::<u8, i32>::new(),
    )?;
    assert_eq!((m.val, m.loc), (u8::MAX, i32::MAX));
    Ok(())
}
per_space!(
    empty_ranges_reduce_to_each_reducers_identity,
    empty_ranges_reduce_to_each_reducers_identity
);

fn signed_locations_break_ties_by_the_most_negative<S: Launch>(exec: &S) -> Result<()> {
    for (what, p) in policies(exec, -50_000i64, 50_000)? {
        let m = parallel_reduce(
            "minloc i64",
            p,
            kernel!(|i: i64, a: &mut ValLocScalar<i64, i64>| {
                let v = if i == -50_000 || i == 49_999 || i == 3 {
                    -9
                } else {
                    i.abs()
                };
                if v < a.val {
                    a.val = v;
                    a.loc = i;
                }
            }),
            MinLoc::<i64, i64>::new(),
        )?;
        assert_eq!((m.val, m.loc), (-9, -50_000), "{what}");
    }
    Ok(())
}
per_space!(
    signed_locations_break_ties_by_the_most_negative,
    signed_locations_break_ties_by_the_most_negative
);

// -------------------------------------------------------------------------------------------------
// Scans
// -------------------------------------------------------------------------------------------------

/// The contribution of iteration `i`: small, of both signs.
fn value(i: usize) -> i64 {
    ((i * 7919) % 13) as i64 - 4
}

fn scans_match_a_sequential_prefix_sum<S: Launch>(exec: &S) -> Result<()> {
    for (begin, end) in [
        (0usize, 0usize),
        (0, 1),
        (0, 2),
        (0, 3),
        (0, 1000),
        (0, 4099),
        (100, 1100),
        (12345, 12346),
        (0, 3_000_017),
    ] {
        let n = end - begin;
        let (mut exclusive, mut inclusive, mut running) = (Vec::new(), Vec::new(), 0i64);
        for i in begin..end {
            exclusive.push(running);
            running += value(i);
            inclusive.push(running);
        }
        let configs = if n > 100_000 {
            vec![(S::NAME.to_string(), RangePolicy::new(exec, begin, end)?)]
        } else {
            policies(exec, begin, end)?
        };
        for (what, p) in configs {
            let what = format!("{what} {begin}..{end}");
            let ex = SView::<S, i64, 1>::new("exclusive", [n])?;
            let inc = SView::<S, i64, 1>::new("inclusive", [n])?;
            let t1: i64 = parallel_scan(
                "both",
                p.clone(),
                kernel!(|i, partial: &mut i64, is_final: bool| {
                    if is_final {
                        unsafe {
                            ex[i - begin] = *partial;
                        }
                    }
                    *partial += ((i * 7919) % 13) as i64 - 4;
                    if is_final {
                        unsafe {
                            inc[i - begin] = *partial;
                        }
                    }
                }),
            )?;
            assert_eq!(download(&ex)?, exclusive, "{what}: exclusive");
            assert_eq!(download(&inc)?, inclusive, "{what}: inclusive");
            let t2: i64 = parallel_scan(
                "total",
                p,
                kernel!(|i, partial: &mut i64, _last: bool| {
                    *partial += ((i * 7919) % 13) as i64 - 4
                }),
            )?;
            assert_eq!((t1, t2), (running, running), "{what}: totals");
        }
    }
    Ok(())
}
per_space!(
    scans_match_a_sequential_prefix_sum,
    scans_match_a_sequential_prefix_sum
);

fn u64_and_f64_scans_of_large_ranges<S: Launch>(exec: &S) -> Result<()> {
    for n in [1usize, 7, 1000, 1 << 20, 3_000_017] {
        let v = SView::<S, u64, 1>::new("v", [n])?;
        let out = SView::<S, u64, 1>::new("out", [n])?;
        let fout = SView::<S, f64, 1>::new("fout", [n])?;
        parallel_for(
            "init",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| v[i] = (i % 13) as u64 + (1u64 << 40)),
        )?;
        let total: u64 = parallel_scan(
            "u64",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i, partial: &mut u64, last: bool| {
                if last {
                    out[i] = *partial;
                }
                *partial += v[i];
            }),
        )?;
        let ftotal: f64 = parallel_scan(
            "f64",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i, partial: &mut f64, last: bool| {
                *partial += 1.0 / (1.0 + (i % 1000) as f64);
                if last {
                    fout[i] = *partial;
                }
            }),
        )?;
        let got = download(&out)?;
        let fgot = download(&fout)?;
        let (mut run, mut frun, mut carry) = (0u64, 0.0f64, 0.0f64);
        for i in 0..n {
            assert_eq!(got[i], run, "n {n} at {i}");
            run += (i % 13) as u64 + (1 << 40);
            // The reference is summed with compensation (Neumaier), so that it is accurate to a few
            // ulp: a plain sequential sum of 3 million terms is itself off by more than 1e-12.
            let term = 1.0 / (1.0 + (i % 1000) as f64);
            let t = frun + term;
            carry += if frun.abs() >= term.abs() {
                (frun - t) + term
            } else {
                (term - t) + frun
            };
            frun = t;
            let exact = frun + carry;
            // Positive terms: any summation order of k terms is within k * eps of the exact prefix
            // (relative; the classic bound), which for millions of terms exceeds 1e-12: Serial's
            // plain running sum needs it, the device's blocked sums are closer.
            let bound = (1e-12f64).max((i + 1) as f64 * f64::EPSILON) * exact;
            let frun = exact;
            assert!(
                (fgot[i] - frun).abs() <= bound,
                "n {n} at {i}: {} vs {frun}",
                fgot[i]
            );
        }
        assert_eq!(total, run, "n {n}");
        let exact = frun + carry;
        let bound = (1e-12f64).max(n as f64 * f64::EPSILON);
        assert!(
            (ftotal - exact).abs() <= bound * exact,
            "f64 total, n {n}: {ftotal} vs {exact}"
        );
    }
    Ok(())
}
per_space!(
    u64_and_f64_scans_of_large_ranges,
    u64_and_f64_scans_of_large_ranges
);

fn scans_over_signed_indices_and_with_max<S: Launch>(exec: &S) -> Result<()> {
    let (begin, end) = (-300i64, 301i64);
    let mut running = 0;
    let expected: Vec<i64> = (begin..end)
        .map(|i| {
            running += i * i;
            running
        })
        .collect();
    for (what, p) in policies(exec, begin, end)? {
        let out = SView::<S, i64, 1>::new("signed_scan", [601])?;
        let total: i64 = parallel_scan(
            "signed",
            p,
            kernel!(|i: i64, s: &mut i64, fin: bool| {
                *s += i * i;
                if fin {
                    unsafe {
                        out[i - begin] = *s;
                    }
                }
            }),
        )?;
        assert_eq!(total, running, "{what}");
        assert_eq!(download(&out)?, expected, "{what}");
    }
    // A running maximum (parallel_scan_with Max), inclusive and exclusive.
    let n = 100_000usize;
    let wave = |i: usize| ((i * 7919) % 100_003) as i64 - if i > 60_000 { 200_000 } else { 0 };
    let (mut inclusive, mut exclusive, mut m) = (Vec::new(), Vec::new(), i64::MIN);
    for i in 0..n {
        exclusive.push(m);
        m = m.max(wave(i));
        inclusive.push(m);
    }
    for (what, p) in policies(exec, 0, n)? {
        let inc = SView::<S, i64, 1>::new("running_max", [n])?;
        let ex = SView::<S, i64, 1>::new("max_before", [n])?;
        let t: i64 = parallel_scan_with(
            "running_max",
            p,
            kernel!(|i, s: &mut i64, fin: bool| {
                if fin {
                    ex[i] = *s;
                }
                let drop = if i > 60_000 { 200_000 } else { 0 };
                *s = (*s).max(((i * 7919) % 100_003) as i64 - drop);
                if fin {
                    inc[i] = *s;
                }
            }),
            Max::new(),
        )?;
        assert_eq!(t, m, "{what}: total");
        assert_eq!(download(&inc)?, inclusive, "{what}: inclusive");
        assert_eq!(download(&ex)?, exclusive, "{what}: exclusive");
    }
    Ok(())
}
per_space!(
    scans_over_signed_indices_and_with_max,
    scans_over_signed_indices_and_with_max
);
