//! The std algorithms that write a function of each source element to a destination:
//! [`copy`], [`copy_n`], [`copy_backward`], [`transform`], [`transform_binary`], [`replace`],
//! [`replace_if`], [`replace_copy`], [`replace_copy_if`], [`adjacent_difference`]. Each is one
//! `parallel_for`; a source and a destination are distinct allocations.

use super::Number;
use super::check;
use crate::dispatch::{Launch, parallel_for};
use crate::error::Result;
use crate::kernel::DeviceFn;
use crate::kernel::value::DeviceValue;
use crate::layout::Layout;
use crate::policy::RangePolicy;
use crate::space::MemorySpace;
use crate::view::View;

/// Copies `src` into the first `src.extent(0)` elements of `dst`; returns that count, the index in
/// `dst` past the last element written (Kokkos' `copy`, Rust's `copy_from_slice`).
pub fn copy<T, L, K, M, S>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    check::fits("copy", src, dst)?;
    check::distinct("copy", src, dst)?;
    let n = src.extent(0);
    parallel_for(
        "Kokkos::copy",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| dst[i] = src[i]),
    )?;
    Ok(n)
}

/// Copies the first `n` elements of `src` to the first `n` of `dst`; returns `n` (Kokkos'
/// `copy_n`).
pub fn copy_n<T, L, K, M, S>(
    exec: &S,
    src: &View<T, 1, L, M>,
    n: usize,
    dst: &View<T, 1, K, M>,
) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    check::has("copy_n", src, n)?;
    check::has("copy_n", dst, n)?;
    check::distinct("copy_n", src, dst)?;
    parallel_for(
        "Kokkos::copy_n",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| dst[i] = src[i]),
    )?;
    Ok(n)
}

/// Copies `src` to the last `src.extent(0)` elements of `dst`; returns the index in `dst` of the
/// first element written (Kokkos' `copy_backward`).
pub fn copy_backward<T, L, K, M, S>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    check::fits("copy_backward", src, dst)?;
    check::distinct("copy_backward", src, dst)?;
    let (n, first) = (src.extent(0), dst.extent(0) - src.extent(0));
    parallel_for(
        "Kokkos::copy_backward",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| dst[first + i] = src[i]),
    )?;
    Ok(first)
}

/// Writes `op(src[i])` to `dst[i]` for every element of `src`; returns the count (Kokkos'
/// `transform`, Rust's `iter().map(op)`).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::std_algorithms::transform;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let x = View::<f32, 1>::new("x", [4])?;
/// x.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[1.0, 4.0, 9.0, 16.0]);
/// let y = View::<f32, 1>::new("y", [4])?;
/// let scale = 2.0f32;
/// transform(&exec, &x, &y, kernel!(|v: f32| -> f32 { v.sqrt() * scale }))?;
/// assert_eq!(y.to_vec()?, [2.0, 4.0, 6.0, 8.0]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn transform<T, U, L, K, M, S, F>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<U, 1, K, M>,
    op: F,
) -> Result<usize>
where
    T: DeviceValue,
    U: DeviceValue,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = U>,
{
    check::fits("transform", src, dst)?;
    check::distinct("transform", src, dst)?;
    let (n, op) = (src.extent(0), op.closure());
    parallel_for(
        "Kokkos::transform",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| dst[i] = op.call(src[i])),
    )?;
    Ok(n)
}

/// Writes `op(a[i], b[i])` to `dst[i]`; `a` and `b` have one extent (Kokkos' binary
/// `transform`, Rust's `zip` then `map`).
pub fn transform_binary<T, V, U, L, K, J, M, S, F>(
    exec: &S,
    a: &View<T, 1, L, M>,
    b: &View<V, 1, K, M>,
    dst: &View<U, 1, J, M>,
    op: F,
) -> Result<usize>
where
    T: DeviceValue,
    V: DeviceValue,
    U: DeviceValue,
    L: Layout,
    K: Layout,
    J: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, V), Output = U>,
{
    check::same_extent("transform", a, b)?;
    check::fits("transform", a, dst)?;
    check::distinct("transform", a, dst)?;
    check::distinct("transform", b, dst)?;
    let (n, op) = (a.extent(0), op.closure());
    parallel_for(
        "Kokkos::transform",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| dst[i] = op.call(a[i], b[i])),
    )?;
    Ok(n)
}

/// Replaces every element equal to `old` by `new` (Kokkos' `replace`).
pub fn replace<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>, old: T, new: T) -> Result<()>
where
    T: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let v = view;
    parallel_for(
        "Kokkos::replace",
        RangePolicy::new(exec, 0, view.extent(0))?,
        crate::kernel!(|i| if v[i] == old {
            v[i] = new;
        }),
    )
}

/// Replaces every element satisfying `pred` by `new` (Kokkos' `replace_if`).
pub fn replace_if<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, pred: F, new: T) -> Result<()>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    let (v, pred, new) = (view, pred.closure(), [new]);
    parallel_for(
        "Kokkos::replace_if",
        RangePolicy::new(exec, 0, view.extent(0))?,
        crate::kernel!(|i| if pred.call(v[i]) {
            v[i] = new[0];
        }),
    )
}

/// Copies `src` to `dst` with every element equal to `old` replaced by `new`; returns the count
/// (Kokkos' `replace_copy`).
pub fn replace_copy<T, L, K, M, S>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
    old: T,
    new: T,
) -> Result<usize>
where
    T: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    check::fits("replace_copy", src, dst)?;
    check::distinct("replace_copy", src, dst)?;
    let n = src.extent(0);
    parallel_for(
        "Kokkos::replace_copy",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| {
            let x = src[i];
            dst[i] = if x == old { new } else { x };
        }),
    )?;
    Ok(n)
}

/// Copies `src` to `dst` with every element satisfying `pred` replaced by `new`; returns the
/// count (Kokkos' `replace_copy_if`).
pub fn replace_copy_if<T, L, K, M, S, F>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
    pred: F,
    new: T,
) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    check::fits("replace_copy_if", src, dst)?;
    check::distinct("replace_copy_if", src, dst)?;
    let (n, pred, new) = (src.extent(0), pred.closure(), [new]);
    parallel_for(
        "Kokkos::replace_copy_if",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| {
            let x = src[i];
            dst[i] = if pred.call(x) { new[0] } else { x };
        }),
    )?;
    Ok(n)
}

/// Writes `src[0]` to `dst[0]` and `src[i] - src[i - 1]` to `dst[i]` (Kokkos'
/// `adjacent_difference`); returns the count.
pub fn adjacent_difference<T, L, K, M, S>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
) -> Result<usize>
where
    T: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    check::fits("adjacent_difference", src, dst)?;
    check::distinct("adjacent_difference", src, dst)?;
    let n = src.extent(0);
    parallel_for(
        "Kokkos::adjacent_difference",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| if i == 0 {
            dst[i] = src[i];
        } else {
            dst[i] = src[i] - src[i - 1];
        }),
    )?;
    Ok(n)
}
