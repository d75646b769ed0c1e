//! The std algorithms about a View's order and partition: [`is_sorted_until`],
//! [`is_partitioned`], [`partition_point`], [`partition_copy`].

use super::Number;
use super::compacting::{copy_if, remove_copy_if};
use super::reducing::count_if_pairs;
use super::searching::find_if_not;
use crate::dispatch::{Launch, parallel_reduce};
use crate::error::Result;
use crate::kernel::DeviceFn;
use crate::kernel::value::DeviceValue;
use crate::layout::Layout;
use crate::policy::RangePolicy;
use crate::reducer::Min;
use crate::space::MemorySpace;
use crate::view::View;

/// The end of the sorted prefix of `view`: the first index whose element is smaller than the
/// one before it, or the extent (Kokkos' `is_sorted_until`).
pub fn is_sorted_until<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>) -> Result<usize>
where
    T: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let (v, n) = (view, view.extent(0));
    if n < 2 {
        return Ok(n);
    }
    let first = parallel_reduce(
        "Kokkos::is_sorted_until",
        RangePolicy::new(exec, 1, n)?,
        crate::kernel!(|i, acc| if v[i] < v[i - 1] && i < *acc {
            *acc = i;
        }),
        Min::<usize>::new(),
    )?;
    Ok(first.min(n))
}

/// Whether every element satisfying `pred` comes before every element that does not (Kokkos'
/// `is_partitioned`).
pub fn is_partitioned<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, pred: F) -> Result<bool>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    // A partition has no element that does not satisfy `pred` followed by one that does.
    Ok(count_if_pairs(exec, view, pred, false, true)? == 0)
}

/// The index of the first element not satisfying `pred`, in a partitioned View (Kokkos'
/// `partition_point`, Rust's `partition_point`).
pub fn partition_point<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, pred: F) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    Ok(find_if_not(exec, view, pred)?.unwrap_or(view.extent(0)))
}

/// Copies the elements satisfying `pred` to the front of `yes` and the others to the front of
/// `no`, each in order; returns both counts (Kokkos' `partition_copy`, Rust's `partition`).
pub fn partition_copy<T, L, K, J, M, S, F>(
    exec: &S,
    src: &View<T, 1, L, M>,
    yes: &View<T, 1, K, M>,
    no: &View<T, 1, J, M>,
    pred: F,
) -> Result<(usize, usize)>
where
    T: DeviceValue,
    L: Layout,
    K: Layout,
    J: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = bool>,
{
    let kept = copy_if(exec, src, yes, pred)?;
    let rest = remove_copy_if(exec, src, no, pred)?;
    Ok((kept, rest))
}
