//! The std algorithms with a comparator or a binary predicate (Kokkos' overloads taking one):
//! [`min_element_by`], [`max_element_by`], [`minmax_element_by`], [`is_sorted_by`],
//! [`is_sorted_until_by`] and [`adjacent_find_by`], over elements of any type a kernel reads.
//! A comparator `less(a, b)` is Kokkos': true when `a` goes before `b`, a strict weak order.
//!
//! The element searches keep a position, not a value: each iteration finds the best index of a
//! chunk of 256 elements in order, then each level finds the best of 256 chunks' indices, until
//! one is left. Ties keep the earlier index (the later one for `minmax_element_by`'s maximum, as
//! C++), the same on every space and thread count.

use super::folds::scratch;
use crate::dispatch::{Launch, parallel_for, parallel_reduce};
use crate::error::Result;
use crate::kernel::DeviceFn;
use crate::kernel::value::DeviceValue;
use crate::layout::Layout;
use crate::policy::RangePolicy;
use crate::reducer::Min;
use crate::space::MemorySpace;
use crate::view::{View, create_mirror_view, deep_copy};

/// Elements (then chunk indices) one iteration of a search walks.
const CHUNK: usize = 256;

/// What a search keeps: the first smallest element, the first largest, or the last largest.
const FIRST_MIN: usize = 0;
const FIRST_MAX: usize = 1;
const LAST_MAX: usize = 2;

/// The index of the first smallest element by `less` (Kokkos' `min_element(exec, view, comp)`,
/// Rust's `iter().min_by(..)` position); `None` for an empty View.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::std_algorithms::min_element_by;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let v = View::<[f64; 2], 1>::new("points", [3])?;
/// v.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[[3.0, 4.0], [1.0, -1.0], [0.0, 2.0]]);
/// let nearer = kernel!(|a: [f64; 2], b: [f64; 2]| -> bool {
///     a[0] * a[0] + a[1] * a[1] < b[0] * b[0] + b[1] * b[1]
/// });
/// assert_eq!(min_element_by(&exec, &v, nearer)?, Some(1));
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn min_element_by<T, L, M, S, F>(
    exec: &S,
    view: &View<T, 1, L, M>,
    less: F,
) -> Result<Option<usize>>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, T), Output = bool>,
{
    best_index(exec, view, less, FIRST_MIN)
}

/// The index of the first largest element by `less` (Kokkos' `max_element(exec, view, comp)`,
/// C++'s: the first of equal maxima); `None` for an empty View.
pub fn max_element_by<T, L, M, S, F>(
    exec: &S,
    view: &View<T, 1, L, M>,
    less: F,
) -> Result<Option<usize>>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, T), Output = bool>,
{
    best_index(exec, view, less, FIRST_MAX)
}

/// The indices of the first smallest and the last largest element by `less` (Kokkos'
/// `minmax_element(exec, view, comp)`, C++'s `std::minmax_element`); `None` for an empty View.
pub fn minmax_element_by<T, L, M, S, F>(
    exec: &S,
    view: &View<T, 1, L, M>,
    less: F,
) -> Result<Option<(usize, usize)>>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, T), Output = bool>,
{
    let min = best_index(exec, view, less, FIRST_MIN)?;
    let max = best_index(exec, view, less, LAST_MAX)?;
    Ok(min.zip(max))
}

/// The best index of `view` by `less` as `mode` says.
fn best_index<T, L, M, S, F>(
    exec: &S,
    view: &View<T, 1, L, M>,
    less: F,
    mode: usize,
) -> Result<Option<usize>>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, T), Output = bool>,
{
    let (v, n, less) = (view, view.extent(0), less.closure());
    if n == 0 {
        return Ok(None);
    }
    let mut count = n.div_ceil(CHUNK);
    let mut best = scratch::<usize, M>("Kokkos::min_element::best", count)?;
    {
        let out = &best;
        parallel_for(
            "Kokkos::min_element",
            RangePolicy::new(exec, 0, count)?,
            crate::kernel!(|c| {
                let start = c * CHUNK;
                let mut at = start;
                for j in 1..CHUNK {
                    let i = start + j;
                    if i < n {
                        let (x, y) = (v[i], v[at]);
                        let replace = if mode == FIRST_MIN {
                            less.call(x, y)
                        } else if mode == FIRST_MAX {
                            less.call(y, x)
                        } else {
                            !less.call(x, y)
                        };
                        if replace {
                            at = i;
                        }
                    }
                }
                out[c] = at;
            }),
        )?;
    }
    while count > 1 {
        let next = count.div_ceil(CHUNK);
        let out = scratch::<usize, M>("Kokkos::min_element::best", next)?;
        let (src, dst, m) = (&best, &out, count);
        parallel_for(
            "Kokkos::min_element::chunks",
            RangePolicy::new(exec, 0, next)?,
            crate::kernel!(|c| {
                let start = c * CHUNK;
                let mut at = src[start];
                for j in 1..CHUNK {
                    let k = start + j;
                    if k < m {
                        let i = src[k];
                        let (x, y) = (v[i], v[at]);
                        let replace = if mode == FIRST_MIN {
                            less.call(x, y)
                        } else if mode == FIRST_MAX {
                            less.call(y, x)
                        } else {
                            !less.call(x, y)
                        };
                        if replace {
                            at = i;
                        }
                    }
                }
                dst[c] = at;
            }),
        )?;
        best = out;
        count = next;
    }
    let host = create_mirror_view(&best)?;
    deep_copy(&host, &best)?;
    Ok(host.to_vec()?.first().copied())
}

/// The first index `i` where `view[i]` goes before `view[i - 1]` by `less` (Kokkos'
/// `is_sorted_until(exec, view, comp)`): the length of the sorted prefix, `n` when all of it is.
pub fn is_sorted_until_by<T, L, M, S, F>(
    exec: &S,
    view: &View<T, 1, L, M>,
    less: F,
) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, T), Output = bool>,
{
    let (v, n, less) = (view, view.extent(0), less.closure());
    if n < 2 {
        return Ok(n);
    }
    let first = parallel_reduce(
        "Kokkos::is_sorted_until",
        RangePolicy::new(exec, 1, n)?,
        crate::kernel!(|i, acc| if less.call(v[i], v[i - 1]) && i < *acc {
            *acc = i;
        }),
        Min::<usize>::new(),
    )?;
    Ok(first.min(n))
}

/// Whether no element goes before the one before it by `less` (Kokkos' `is_sorted(exec, view,
/// comp)`, Rust's `is_sorted_by`).
pub fn is_sorted_by<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, less: F) -> Result<bool>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, T), Output = bool>,
{
    Ok(is_sorted_until_by(exec, view, less)? == view.extent(0))
}

/// The first index `i` where `pred(view[i], view[i + 1])` holds (Kokkos' `adjacent_find(exec,
/// view, pred)`, Rust's `windows(2).position(..)`).
pub fn adjacent_find_by<T, L, M, S, F>(
    exec: &S,
    view: &View<T, 1, L, M>,
    pred: F,
) -> Result<Option<usize>>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, T), Output = bool>,
{
    let (v, n, pred) = (view, view.extent(0), pred.closure());
    if n < 2 {
        return Ok(None);
    }
    let first = parallel_reduce(
        "Kokkos::adjacent_find",
        RangePolicy::new(exec, 0, n - 1)?,
        crate::kernel!(|i, acc| if pred.call(v[i], v[i + 1]) && i < *acc {
            *acc = i;
        }),
        Min::<usize>::new(),
    )?;
    Ok((first < n - 1).then_some(first))
}
