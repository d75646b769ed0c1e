//! The std algorithms' prefix sums: [`inclusive_scan`], [`exclusive_scan`],
//! [`transform_inclusive_scan`], [`transform_exclusive_scan`]. Each is one `parallel_scan` and
//! returns the total; the destination is another allocation than the source.

use super::Number;
use super::check;
use crate::dispatch::{Launch, parallel_scan};
use crate::error::Result;
use crate::kernel::DeviceFn;
use crate::kernel::value::DeviceValue;
use crate::layout::Layout;
use crate::policy::RangePolicy;
use crate::space::MemorySpace;
use crate::view::View;

/// Writes `src[0] + ... + src[i]` to `dst[i]`; returns the sum of all of `src` (Kokkos'
/// `inclusive_scan`).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::std_algorithms::{exclusive_scan, inclusive_scan};
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let counts = View::<u32, 1>::new("counts", [5])?;
/// counts.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[3, 1, 4, 1, 5]);
/// let ends = View::<u32, 1>::new("ends", [5])?;
/// assert_eq!(inclusive_scan(&exec, &counts, &ends)?, 14);
/// assert_eq!(ends.to_vec()?, [3, 4, 8, 9, 14]);
/// let offsets = View::<u32, 1>::new("offsets", [5])?;
/// assert_eq!(exclusive_scan(&exec, &counts, &offsets, 100)?, 114);
/// assert_eq!(offsets.to_vec()?, [100, 103, 104, 108, 109]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn inclusive_scan<T, L, K, M, S>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
) -> Result<T>
where
    T: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    check::fits("inclusive_scan", src, dst)?;
    check::distinct("inclusive_scan", src, dst)?;
    parallel_scan(
        "Kokkos::inclusive_scan",
        RangePolicy::new(exec, 0, src.extent(0))?,
        crate::kernel!(|i, partial, is_final: bool| {
            *partial += src[i];
            if is_final {
                dst[i] = *partial;
            }
        }),
    )
}

/// Writes `init + src[0] + ... + src[i - 1]` to `dst[i]`; returns `init` plus the sum of all of
/// `src` (Kokkos' `exclusive_scan`).
pub fn exclusive_scan<T, L, K, M, S>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
    init: T,
) -> Result<T>
where
    T: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    check::fits("exclusive_scan", src, dst)?;
    check::distinct("exclusive_scan", src, dst)?;
    let total = parallel_scan(
        "Kokkos::exclusive_scan",
        RangePolicy::new(exec, 0, src.extent(0))?,
        crate::kernel!(|i, partial, is_final: bool| {
            let x = src[i];
            if is_final {
                dst[i] = init + *partial;
            }
            *partial += x;
        }),
    )?;
    Ok(init + total)
}

/// Writes `op(src[0]) + ... + op(src[i])` to `dst[i]`; returns the sum over all of `src`
/// (Kokkos' `transform_inclusive_scan` with `std::plus`).
pub fn transform_inclusive_scan<T, U, L, K, M, S, F>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<U, 1, K, M>,
    op: F,
) -> Result<U>
where
    T: DeviceValue,
    U: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = U>,
{
    check::fits("transform_inclusive_scan", src, dst)?;
    check::distinct("transform_inclusive_scan", src, dst)?;
    let op = op.closure();
    parallel_scan(
        "Kokkos::transform_inclusive_scan",
        RangePolicy::new(exec, 0, src.extent(0))?,
        crate::kernel!(|i, partial, is_final: bool| {
            *partial += op.call(src[i]);
            if is_final {
                dst[i] = *partial;
            }
        }),
    )
}

/// Writes `init + op(src[0]) + ... + op(src[i - 1])` to `dst[i]`; returns `init` plus the sum
/// over all of `src` (Kokkos' `transform_exclusive_scan` with `std::plus`).
pub fn transform_exclusive_scan<T, U, L, K, M, S, F>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<U, 1, K, M>,
    init: U,
    op: F,
) -> Result<U>
where
    T: DeviceValue,
    U: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T,), Output = U>,
{
    check::fits("transform_exclusive_scan", src, dst)?;
    check::distinct("transform_exclusive_scan", src, dst)?;
    let op = op.closure();
    let total = parallel_scan(
        "Kokkos::transform_exclusive_scan",
        RangePolicy::new(exec, 0, src.extent(0))?,
        crate::kernel!(|i, partial, is_final: bool| {
            let x = op.call(src[i]);
            if is_final {
                dst[i] = init + *partial;
            }
            *partial += x;
        }),
    )?;
    Ok(init + total)
}
