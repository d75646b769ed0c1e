//! The std algorithms that write elements one by one: [`fill`], [`copy`], [`transform`],
//! [`transform_binary`], [`replace`], [`replace_if`], [`reverse`], [`swap_ranges`],
//! [`adjacent_difference`]. Each is one `parallel_for`; a source and a destination are distinct
//! allocations.

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

/// Sets every element of `view` to `value` (Kokkos' `fill`, Rust's `fill`).
pub fn fill<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>, value: T) -> Result<()>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    // A one-element array: kernels capture any device value so.
    let (v, value) = (view, [value]);
    parallel_for(
        "Kokkos::fill",
        RangePolicy::new(exec, 0, view.extent(0))?,
        crate::kernel!(|i| v[i] = value[0]),
    )
}

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

/// Reverses the order of `view`'s elements (Kokkos' `reverse`, Rust's `reverse`).
pub fn reverse<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>) -> Result<()>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let (v, n) = (view, view.extent(0));
    // Iteration `i` exchanges `i` and `n - 1 - i`: the lower and the upper half, apart (checked
    // at launch).
    parallel_for(
        "Kokkos::reverse",
        RangePolicy::new(exec, 0, n / 2)?,
        crate::kernel!(|i| {
            let low = v[i];
            let high = v[n - 1 - i];
            v[i] = high;
            v[n - 1 - i] = low;
        }),
    )
}

/// Exchanges the elements of `a` and `b`, which have one extent and are distinct allocations
/// (Kokkos' `swap_ranges`, Rust's `swap_with_slice`).
pub fn swap_ranges<T, L, K, M, S>(
    exec: &S,
    a: &View<T, 1, L, M>,
    b: &View<T, 1, K, M>,
) -> Result<()>
where
    T: DeviceValue,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    check::same_extent("swap_ranges", a, b)?;
    check::distinct("swap_ranges", a, b)?;
    parallel_for(
        "Kokkos::swap_ranges",
        RangePolicy::new(exec, 0, a.extent(0))?,
        crate::kernel!(|i| {
            let t = a[i];
            a[i] = b[i];
            b[i] = t;
        }),
    )
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
