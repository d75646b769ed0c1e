//! The std algorithms that find a position: [`find`], [`find_if`], [`find_if_not`],
//! [`min_element`], [`max_element`], [`minmax_element`], and [`is_sorted`]. A position is the
//! smallest index that qualifies, the same on every space and thread count (Kokkos returns an
//! iterator, `last` when nothing qualifies: here `None`).

use super::Number;
use crate::dispatch::{Launch, parallel_reduce};
use crate::error::Result;
use crate::kernel::DeviceFn;
use crate::kernel::value::DeviceValue;
use crate::layout::Layout;
use crate::policy::RangePolicy;
use crate::reducer::{MaxLoc, Min, MinLoc, Sum, ValLocScalar};
use crate::space::MemorySpace;
use crate::view::View;

/// `Some(i)` for an index below `n`, `None` for the reducer's "nowhere".
fn position(i: usize, n: usize) -> Option<usize> {
    (i < n).then_some(i)
}

/// The index of the first element equal to `value` (Kokkos' `find`, Rust's
/// `iter().position(|x| *x == value)`).
pub fn find<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>, value: T) -> Result<Option<usize>>
where
    T: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let (v, n) = (view, view.extent(0));
    let first = parallel_reduce(
        "Kokkos::find",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i, acc| if v[i] == value && i < *acc {
            *acc = i;
        }),
        Min::<usize>::new(),
    )?;
    Ok(position(first, n))
}

/// The index of the first element satisfying `pred` (Kokkos' `find_if`, Rust's
/// `iter().position(pred)`).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::std_algorithms::find_if;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let v = View::<f64, 1>::new("v", [5])?;
/// v.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[0.5, 1.5, -2.0, 7.0, -3.0]);
/// assert_eq!(find_if(&exec, &v, kernel!(|x: f64| -> bool { x < 0.0 }))?, Some(2));
/// assert_eq!(find_if(&exec, &v, kernel!(|x: f64| -> bool { x > 10.0 }))?, None);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn find_if<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, pred: F) -> Result<Option<usize>>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    first_where(exec, view, pred, true)
}

/// The index of the first element not satisfying `pred` (Kokkos' `find_if_not`).
pub fn find_if_not<T, L, M, S, F>(
    exec: &S,
    view: &View<T, 1, L, M>,
    pred: F,
) -> Result<Option<usize>>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    first_where(exec, view, pred, false)
}

/// The first index where `pred` gives `want`.
fn first_where<T, L, M, S, F>(
    exec: &S,
    view: &View<T, 1, L, M>,
    pred: F,
    want: bool,
) -> Result<Option<usize>>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    let (v, n, pred) = (view, view.extent(0), pred.closure());
    let first = parallel_reduce(
        "Kokkos::find_if",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i, acc| if pred.call(v[i]) == want && i < *acc {
            *acc = i;
        }),
        Min::<usize>::new(),
    )?;
    Ok(position(first, n))
}

/// The index of the first smallest element (Kokkos' `min_element`, C++'s: the first of equal
/// minima). A NaN is never the minimum; `None` for an empty View or one of NaNs only.
pub fn min_element<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>) -> Result<Option<usize>>
where
    T: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let (v, n) = (view, view.extent(0));
    let best = parallel_reduce(
        "Kokkos::min_element",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i, acc: &mut ValLocScalar<T, usize>| {
            let x = v[i];
            if x < acc.val || (x == acc.val && i < acc.loc) {
                acc.val = x;
                acc.loc = i;
            }
        }),
        MinLoc::<T, usize>::new(),
    )?;
    Ok(position(best.loc, n))
}

/// The index of the first largest element (Kokkos' `max_element`, C++'s: the first of equal
/// maxima; Rust's `max_by` gives the last). A NaN is never the maximum.
pub fn max_element<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>) -> Result<Option<usize>>
where
    T: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let (v, n) = (view, view.extent(0));
    let best = parallel_reduce(
        "Kokkos::max_element",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i, acc: &mut ValLocScalar<T, usize>| {
            let x = v[i];
            if x > acc.val || (x == acc.val && i < acc.loc) {
                acc.val = x;
                acc.loc = i;
            }
        }),
        MaxLoc::<T, usize>::new(),
    )?;
    Ok(position(best.loc, n))
}

/// The indices of the first smallest and the last largest element (Kokkos' `minmax_element`,
/// C++'s `std::minmax_element`). `None` for an empty View or one of NaNs only.
pub fn minmax_element<T, L, M, S>(
    exec: &S,
    view: &View<T, 1, L, M>,
) -> Result<Option<(usize, usize)>>
where
    T: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let (v, n) = (view, view.extent(0));
    let Some(min) = min_element(exec, view)? else {
        return Ok(None);
    };
    // The last maximum: the first over the reversed indices `j = n - 1 - i`.
    let best = parallel_reduce(
        "Kokkos::minmax_element",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|j, acc: &mut ValLocScalar<T, usize>| {
            let x = v[n - 1 - j];
            if x > acc.val || (x == acc.val && j < acc.loc) {
                acc.val = x;
                acc.loc = j;
            }
        }),
        MaxLoc::<T, usize>::new(),
    )?;
    Ok(position(best.loc, n).map(|j| (min, n - 1 - j)))
}

/// Whether `view` is sorted ascending: no element is smaller than the one before it (Kokkos'
/// `is_sorted`, Rust's `is_sorted()`).
pub fn is_sorted<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>) -> Result<bool>
where
    T: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let (v, n) = (view, view.extent(0));
    if n < 2 {
        return Ok(true);
    }
    let descents = parallel_reduce(
        "Kokkos::is_sorted",
        RangePolicy::new(exec, 1, n)?,
        crate::kernel!(|i, acc| if v[i] < v[i - 1] {
            *acc += 1usize;
        }),
        Sum::<usize>::new(),
    )?;
    Ok(descents == 0)
}
