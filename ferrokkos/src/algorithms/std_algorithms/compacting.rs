//! The std algorithms that keep some elements, in order: [`copy_if`], [`remove_copy_if`],
//! [`remove_copy`], [`unique_copy`], and in place [`remove`], [`remove_if`], [`unique`]. Each
//! is one `parallel_scan` over the elements: the running count of kept elements is where the next
//! kept one goes (a destination shorter than the source is first checked to hold them all, by a
//! count). The in-place forms compact into a temporary and copy the kept elements back; the
//! elements past the new end keep their values (Kokkos: unspecified).

use super::Number;
use super::check;
use super::reducing::count_if;
use crate::dispatch::{Launch, parallel_scan};
use crate::error::{Error, Result};
use crate::kernel::DeviceFn;
use crate::kernel::value::DeviceValue;
use crate::layout::{Layout, LayoutRight};
use crate::policy::RangePolicy;
use crate::space::MemorySpace;
use crate::view::{View, view_alloc};

/// Checks that `dst` holds the `kept` elements.
fn room<T: DeviceValue, L: Layout, K: Layout, M: MemorySpace>(
    operation: &'static str,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
    kept: usize,
) -> Result<()> {
    if kept <= dst.extent(0) {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        operation,
        reason: format!(
            "{kept} elements of View \"{}\" are kept, but the destination View \"{}\" holds {}",
            src.label(),
            dst.label(),
            dst.extent(0)
        ),
    })
}

/// Copies the elements of `src` that satisfy `pred` to the front of `dst`, in order; returns
/// how many (Kokkos' `copy_if`, Rust's `iter().filter(pred)`).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::std_algorithms::copy_if;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let v = View::<i32, 1>::new("v", [8])?;
/// v.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[5, -1, 7, 0, -3, 2, 9, -8]);
/// let kept = View::<i32, 1>::new("kept", [8])?;
/// let n = copy_if(&exec, &v, &kept, kernel!(|x: i32| -> bool { x > 0 }))?;
/// assert_eq!(&kept.to_vec()?[..n], [5, 7, 2, 9]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn copy_if<T, L, K, M, S, F>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
    pred: F,
) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    keep_where(exec, src, dst, pred, true, "copy_if")
}

/// Copies the elements of `src` that do not satisfy `pred` to the front of `dst`, in order;
/// returns how many (Kokkos' `remove_copy_if`).
pub fn remove_copy_if<T, L, K, M, S, F>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
    pred: F,
) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    keep_where(exec, src, dst, pred, false, "remove_copy_if")
}

/// Copies the elements where `pred` gives `want`.
fn keep_where<T, L, K, M, S, F>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
    pred: F,
    want: bool,
    operation: &'static str,
) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    check::distinct(operation, src, dst)?;
    if dst.extent(0) < src.extent(0) {
        let hits = count_if(exec, src, pred)?;
        let kept = if want { hits } else { src.extent(0) - hits };
        room(operation, src, dst, kept)?;
    }
    let pred = pred.closure();
    parallel_scan(
        "Kokkos::copy_if",
        RangePolicy::new(exec, 0, src.extent(0))?,
        crate::kernel!(|i, partial, is_final: bool| {
            let x = src[i];
            let keep = pred.call(x) == want;
            if keep {
                if is_final {
                    let at: usize = *partial;
                    // SAFETY (race rules): `at` is the number of kept elements before `i`, so each
                    // kept element has its own `at`; the write is still bounds-checked.
                    unsafe {
                        dst[at] = x;
                    }
                }
                *partial += 1usize;
            }
        }),
    )
}

/// Copies the first element of each run of equal consecutive elements of `src` to the front of
/// `dst`; returns how many (Kokkos' `unique_copy`, Rust's `dedup` on a copy).
pub fn unique_copy<T, L, K, M, S>(
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
    check::distinct("unique_copy", src, dst)?;
    let n = src.extent(0);
    if dst.extent(0) < n {
        let heads = parallel_scan(
            "Kokkos::unique_copy_count",
            RangePolicy::new(exec, 0, n)?,
            crate::kernel!(|i, partial, is_final: bool| {
                let _ = is_final;
                if i == 0 || src[i] != src[i - 1] {
                    *partial += 1usize;
                }
            }),
        )?;
        room("unique_copy", src, dst, heads)?;
    }
    parallel_scan(
        "Kokkos::unique_copy",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i, partial, is_final: bool| {
            let x = src[i];
            if i == 0 || x != src[i - 1] {
                if is_final {
                    let at: usize = *partial;
                    // SAFETY (race rules): `at` counts the run heads before `i`: one per head.
                    unsafe {
                        dst[at] = x;
                    }
                }
                *partial += 1usize;
            }
        }),
    )
}

/// Copies the elements of `src` not equal to `value` to the front of `dst`; returns how many
/// (Kokkos' `remove_copy`).
pub fn remove_copy<T, L, K, M, S>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
    value: T,
) -> Result<usize>
where
    T: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    let equal = crate::kernel!(|x: T| -> bool { x == value });
    keep_where(exec, src, dst, equal, false, "remove_copy")
}

/// Moves the elements of `view` not equal to `value` to its front, in order; returns how many
/// (the new end; Kokkos' `remove`).
pub fn remove<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>, value: T) -> Result<usize>
where
    T: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let equal = crate::kernel!(|x: T| -> bool { x == value });
    in_place(exec, view, "Kokkos::remove", |tmp| {
        keep_where(exec, view, tmp, equal, false, "remove")
    })
}

/// Moves the elements of `view` not satisfying `pred` to its front, in order; returns how many
/// (the new end; Kokkos' `remove_if`, Rust's `retain` with the predicate negated).
pub fn remove_if<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, pred: F) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    in_place(exec, view, "Kokkos::remove_if", |tmp| {
        keep_where(exec, view, tmp, pred, false, "remove_if")
    })
}

/// Moves the first element of each run of equal consecutive elements of `view` to its front;
/// returns how many (the new end; Kokkos' `unique`, Rust's `dedup`).
pub fn unique<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>) -> Result<usize>
where
    T: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    in_place(exec, view, "Kokkos::unique", |tmp| {
        unique_copy(exec, view, tmp)
    })
}

/// Compacts `view` into a temporary with `compact` (which returns the count kept), then copies
/// the kept elements back to its front.
fn in_place<T, L, M, S>(
    exec: &S,
    view: &View<T, 1, L, M>,
    label: &str,
    compact: impl FnOnce(&View<T, 1, LayoutRight, M>) -> Result<usize>,
) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let tmp = View::<T, 1, LayoutRight, M>::new(
        view_alloc(label).without_initializing(),
        [view.extent(0)],
    )?;
    let kept = compact(&tmp)?;
    let v = view;
    crate::dispatch::parallel_for(
        "Kokkos::compact_back",
        RangePolicy::new(exec, 0, kept)?,
        crate::kernel!(|i| v[i] = tmp[i]),
    )?;
    Ok(kept)
}
