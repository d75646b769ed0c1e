//! The std algorithms that move elements to other positions: [`reverse`], [`reverse_copy`],
//! [`rotate`], [`rotate_copy`], [`shift_left`], [`shift_right`], [`swap_ranges`], [`iter_swap`].
//! In-place moves whose sources another iteration writes go through a temporary.

use super::check;
use crate::dispatch::{Launch, parallel_for};
use crate::error::{Error, Result};
use crate::kernel::value::DeviceValue;
use crate::layout::{Layout, LayoutRight};
use crate::policy::RangePolicy;
use crate::space::MemorySpace;
use crate::view::{View, view_alloc};

/// A temporary of `n` elements in `M`, uninitialized.
fn scratch<T: DeviceValue, M: MemorySpace>(
    label: &str,
    n: usize,
) -> Result<View<T, 1, LayoutRight, M>> {
    View::new(view_alloc(label).without_initializing(), [n])
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

/// Writes `src` reversed to `dst`; returns the count (Kokkos' `reverse_copy`).
pub fn reverse_copy<T, L, K, M, S>(
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
    check::fits("reverse_copy", src, dst)?;
    check::distinct("reverse_copy", src, dst)?;
    let n = src.extent(0);
    parallel_for(
        "Kokkos::reverse_copy",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| dst[i] = src[n - 1 - i]),
    )?;
    Ok(n)
}

/// `Err` unless `k` is at most `view`'s extent.
fn within<T: DeviceValue, L: Layout, M: MemorySpace>(
    operation: &'static str,
    view: &View<T, 1, L, M>,
    k: usize,
) -> Result<()> {
    if k <= view.extent(0) {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        operation,
        reason: format!(
            "position {k} is past the end of View \"{}\" (extent {})",
            view.label(),
            view.extent(0)
        ),
    })
}

/// Rotates `view` left so that element `middle` comes first; returns where the first element
/// went, `n - middle` (Kokkos' `rotate`, Rust's `rotate_left`).
pub fn rotate<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>, middle: usize) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    within("rotate", view, middle)?;
    let n = view.extent(0);
    if middle == 0 || middle == n {
        return Ok(n - middle);
    }
    let tmp = scratch::<T, M>("Kokkos::rotate", n)?;
    let v = view;
    parallel_for(
        "Kokkos::rotate_copy",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| tmp[i] = v[(i + middle) % n]),
    )?;
    parallel_for(
        "Kokkos::rotate",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| v[i] = tmp[i]),
    )?;
    Ok(n - middle)
}

/// Writes `src` rotated left by `middle` to `dst`; returns the count (Kokkos' `rotate_copy`).
pub fn rotate_copy<T, L, K, M, S>(
    exec: &S,
    src: &View<T, 1, L, M>,
    middle: usize,
    dst: &View<T, 1, K, M>,
) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    within("rotate_copy", src, middle)?;
    check::fits("rotate_copy", src, dst)?;
    check::distinct("rotate_copy", src, dst)?;
    let n = src.extent(0);
    if n == 0 {
        return Ok(0);
    }
    parallel_for(
        "Kokkos::rotate_copy",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i| dst[i] = src[(i + middle) % n]),
    )?;
    Ok(n)
}

/// Moves elements `k..n` to `0..n - k`; returns the new end, `n - k` (0 when `k >= n`, nothing
/// moved). The last `k` elements keep their values (Kokkos' `shift_left`: unspecified).
pub fn shift_left<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>, k: usize) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let n = view.extent(0);
    if k >= n {
        return Ok(0);
    }
    if k == 0 {
        return Ok(n);
    }
    let (v, m) = (view, n - k);
    let tmp = scratch::<T, M>("Kokkos::shift_left", m)?;
    parallel_for(
        "Kokkos::shift_left_copy",
        RangePolicy::new(exec, 0, m)?,
        crate::kernel!(|i| tmp[i] = v[k + i]),
    )?;
    parallel_for(
        "Kokkos::shift_left",
        RangePolicy::new(exec, 0, m)?,
        crate::kernel!(|i| v[i] = tmp[i]),
    )?;
    Ok(m)
}

/// Moves elements `0..n - k` to `k..n`; returns the new begin, `k` (`n` when `k >= n`, nothing
/// moved). The first `k` elements keep their values (Kokkos' `shift_right`: unspecified).
pub fn shift_right<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>, k: usize) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let n = view.extent(0);
    if k >= n {
        return Ok(n);
    }
    if k == 0 {
        return Ok(0);
    }
    let (v, m) = (view, n - k);
    let tmp = scratch::<T, M>("Kokkos::shift_right", m)?;
    parallel_for(
        "Kokkos::shift_right_copy",
        RangePolicy::new(exec, 0, m)?,
        crate::kernel!(|i| tmp[i] = v[i]),
    )?;
    parallel_for(
        "Kokkos::shift_right",
        RangePolicy::new(exec, 0, m)?,
        crate::kernel!(|i| v[k + i] = tmp[i]),
    )?;
    Ok(k)
}

/// Exchanges elements `i` and `j` of `view` (Kokkos' `iter_swap`, Rust's `swap`).
pub fn iter_swap<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>, i: usize, j: usize) -> Result<()>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    check::index("iter_swap", view, i)?;
    check::index("iter_swap", view, j)?;
    if i == j {
        return Ok(());
    }
    let v = view;
    // One iteration writing two elements at different offsets (apart: checked at launch).
    parallel_for(
        "Kokkos::iter_swap",
        RangePolicy::new(exec, 0, 1)?,
        crate::kernel!(|t| {
            let a = v[t + i];
            let b = v[t + j];
            v[t + i] = b;
            v[t + j] = a;
        }),
    )
}
