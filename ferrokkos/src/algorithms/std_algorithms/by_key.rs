//! Segmented reductions and scans (Thrust's and oneDPL's `reduce_by_key`, `inclusive_scan_by_key`,
//! `exclusive_scan_by_key`; Kokkos has none): a segment is a run of equal consecutive keys.
//!
//! The segments' starts are found with one scan (a key unlike the one before it starts a segment),
//! then one iteration per segment folds its values in index order, so every space gives the bits
//! of a sequential fold (floats included). A segment is one iteration's work: many short segments
//! use the device well, a few very long ones do not.

use super::Number;
use super::check;
use crate::dispatch::{Launch, parallel_for, parallel_scan};
use crate::error::{Error, Result};
use crate::kernel::DeviceFn;
use crate::kernel::value::DeviceValue;
use crate::layout::{Layout, LayoutRight};
use crate::policy::RangePolicy;
use crate::space::MemorySpace;
use crate::view::{View, view_alloc};

/// The start of each segment of `keys`, then `n`: a View of `segments + 1` starts (of `n + 1`
/// elements), and the number of segments.
fn segment_starts<K, L, M, S>(
    exec: &S,
    keys: &View<K, 1, L, M>,
    operation: &str,
) -> Result<(View<usize, 1, LayoutRight, M>, usize)>
where
    K: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let n = keys.extent(0);
    let starts = View::<usize, 1, LayoutRight, M>::new(
        view_alloc(format!("Kokkos::{operation}::starts")).without_initializing(),
        [n + 1],
    )?;
    let segments = parallel_scan(
        "Kokkos::segment_starts",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i, partial, is_final: bool| {
            if i == 0 || keys[i] != keys[i - 1] {
                if is_final {
                    let at: usize = *partial;
                    // SAFETY (race rules): `at` counts the segment starts before `i`: one per
                    // start.
                    unsafe {
                        starts[at] = i;
                    }
                }
                *partial += 1usize;
            }
        }),
    )?;
    parallel_for(
        "Kokkos::segment_starts_end",
        RangePolicy::new(exec, segments, segments + 1)?,
        crate::kernel!(|s| starts[s] = n),
    )?;
    Ok((starts, segments))
}

/// `Err` unless `out` holds `segments` elements.
fn holds<T: crate::view::Element, L: Layout, M: MemorySpace>(
    operation: &'static str,
    out: &View<T, 1, L, M>,
    segments: usize,
) -> Result<()> {
    if out.extent(0) >= segments {
        return Ok(());
    }
    Err(Error::InvalidArgument {
        operation,
        reason: format!(
            "the keys have {segments} segments, but View \"{}\" holds {}",
            out.label(),
            out.extent(0)
        ),
    })
}

/// For each run of equal consecutive keys, writes the key to `out_keys[s]` and the sum of its
/// values to `out_values[s]` (`s` the run's number); returns the number of runs (Thrust's
/// `reduce_by_key`). `keys` and `values` have one extent; each sum is the values' sum in index
/// order, on every space.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::std_algorithms::reduce_by_key;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let keys = View::<u32, 1>::new("keys", [7])?;
/// keys.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[1, 1, 4, 4, 4, 1, 9]);
/// let values = View::<f64, 1>::new("values", [7])?;
/// values.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
/// let (k, v) = (View::<u32, 1>::new("k", [7])?, View::<f64, 1>::new("v", [7])?);
/// let runs = reduce_by_key(&exec, &keys, &values, &k, &v)?;
/// assert_eq!(runs, 4);
/// assert_eq!(&k.to_vec()?[..runs], [1, 4, 1, 9]);
/// assert_eq!(&v.to_vec()?[..runs], [3.0, 12.0, 6.0, 7.0]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn reduce_by_key<K, T, L, J, LK, LV, M, S>(
    exec: &S,
    keys: &View<K, 1, L, M>,
    values: &View<T, 1, J, M>,
    out_keys: &View<K, 1, LK, M>,
    out_values: &View<T, 1, LV, M>,
) -> Result<usize>
where
    K: Number,
    T: Number,
    L: Layout,
    J: Layout,
    LK: Layout,
    LV: Layout,
    M: MemorySpace,
    S: Launch,
{
    check::same_extent("reduce_by_key", keys, values)?;
    check::distinct("reduce_by_key", keys, out_keys)?;
    check::distinct("reduce_by_key", values, out_values)?;
    let (starts, segments) = segment_starts(exec, keys, "reduce_by_key")?;
    holds("reduce_by_key", out_keys, segments)?;
    holds("reduce_by_key", out_values, segments)?;
    let zero = T::ZERO;
    parallel_for(
        "Kokkos::reduce_by_key",
        RangePolicy::new(exec, 0, segments)?,
        crate::kernel!(|s| {
            let (first, end) = (starts[s], starts[s + 1]);
            let mut sum = zero;
            for j in first..end {
                sum += values[j];
            }
            out_keys[s] = keys[first];
            out_values[s] = sum;
        }),
    )?;
    Ok(segments)
}

/// Writes to `dst[i]` the sum of the values from the start of `i`'s run of equal keys to `i`
/// (Thrust's `inclusive_scan_by_key`). `keys`, `values` and `dst` have one extent.
pub fn inclusive_scan_by_key<K, T, L, J, LD, M, S>(
    exec: &S,
    keys: &View<K, 1, L, M>,
    values: &View<T, 1, J, M>,
    dst: &View<T, 1, LD, M>,
) -> Result<()>
where
    K: Number,
    T: Number,
    L: Layout,
    J: Layout,
    LD: Layout,
    M: MemorySpace,
    S: Launch,
{
    scan_by_key(exec, keys, values, dst, None, "inclusive_scan_by_key")
}

/// Writes to `dst[i]` `init` plus the sum of the values from the start of `i`'s run of equal keys
/// to `i - 1` (Thrust's `exclusive_scan_by_key`: each run starts again at `init`).
pub fn exclusive_scan_by_key<K, T, L, J, LD, M, S>(
    exec: &S,
    keys: &View<K, 1, L, M>,
    values: &View<T, 1, J, M>,
    dst: &View<T, 1, LD, M>,
    init: T,
) -> Result<()>
where
    K: Number,
    T: Number,
    L: Layout,
    J: Layout,
    LD: Layout,
    M: MemorySpace,
    S: Launch,
{
    scan_by_key(exec, keys, values, dst, Some(init), "exclusive_scan_by_key")
}

/// The scans by key: inclusive without `init`, exclusive from `init`.
fn scan_by_key<K, T, L, J, LD, M, S>(
    exec: &S,
    keys: &View<K, 1, L, M>,
    values: &View<T, 1, J, M>,
    dst: &View<T, 1, LD, M>,
    init: Option<T>,
    operation: &'static str,
) -> Result<()>
where
    K: Number,
    T: Number,
    L: Layout,
    J: Layout,
    LD: Layout,
    M: MemorySpace,
    S: Launch,
{
    check::same_extent(operation, keys, values)?;
    check::same_extent(operation, values, dst)?;
    check::distinct(operation, values, dst)?;
    check::distinct(operation, keys, dst)?;
    let (starts, segments) = segment_starts(exec, keys, operation)?;
    let (exclusive, start) = (init.is_some(), init.unwrap_or(T::ZERO));
    parallel_for(
        "Kokkos::scan_by_key",
        RangePolicy::new(exec, 0, segments)?,
        crate::kernel!(|s| {
            let mut sum = start;
            for j in starts[s]..starts[s + 1] {
                let x = values[j];
                if exclusive {
                    // SAFETY (race rules): the segments are disjoint index ranges, each one
                    // iteration's.
                    unsafe {
                        dst[j] = sum;
                    }
                    sum += x;
                } else {
                    sum += x;
                    // SAFETY (race rules): as above.
                    unsafe {
                        dst[j] = sum;
                    }
                }
            }
        }),
    )
}

/// [`reduce_by_key`] with `op` in place of `+`: each run's values folded by `op` in index order
/// (Thrust's `reduce_by_key` with a binary operation; `op` associative).
pub fn reduce_by_key_with<K, T, L, J, LK, LV, M, S, F>(
    exec: &S,
    keys: &View<K, 1, L, M>,
    values: &View<T, 1, J, M>,
    out_keys: &View<K, 1, LK, M>,
    out_values: &View<T, 1, LV, M>,
    op: F,
) -> Result<usize>
where
    K: Number,
    T: DeviceValue,
    L: Layout,
    J: Layout,
    LK: Layout,
    LV: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, T), Output = T>,
{
    check::same_extent("reduce_by_key", keys, values)?;
    check::distinct("reduce_by_key", keys, out_keys)?;
    check::distinct("reduce_by_key", values, out_values)?;
    let (starts, segments) = segment_starts(exec, keys, "reduce_by_key")?;
    holds("reduce_by_key", out_keys, segments)?;
    holds("reduce_by_key", out_values, segments)?;
    let op = op.closure();
    parallel_for(
        "Kokkos::reduce_by_key",
        RangePolicy::new(exec, 0, segments)?,
        crate::kernel!(|s| {
            let (first, end) = (starts[s], starts[s + 1]);
            let mut acc = values[first];
            for j in first + 1..end {
                acc = op.call(acc, values[j]);
            }
            out_keys[s] = keys[first];
            out_values[s] = acc;
        }),
    )?;
    Ok(segments)
}

/// [`inclusive_scan_by_key`] with `op` in place of `+` (Thrust's `inclusive_scan_by_key` with a
/// binary operation).
pub fn inclusive_scan_by_key_with<K, T, L, J, LD, M, S, F>(
    exec: &S,
    keys: &View<K, 1, L, M>,
    values: &View<T, 1, J, M>,
    dst: &View<T, 1, LD, M>,
    op: F,
) -> Result<()>
where
    K: Number,
    T: DeviceValue,
    L: Layout,
    J: Layout,
    LD: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, T), Output = T>,
{
    let operation = "inclusive_scan_by_key";
    check::same_extent(operation, keys, values)?;
    check::same_extent(operation, values, dst)?;
    check::distinct(operation, values, dst)?;
    check::distinct(operation, keys, dst)?;
    let (starts, segments) = segment_starts(exec, keys, operation)?;
    let op = op.closure();
    parallel_for(
        "Kokkos::scan_by_key",
        RangePolicy::new(exec, 0, segments)?,
        crate::kernel!(|s| {
            let (first, end) = (starts[s], starts[s + 1]);
            let mut acc = values[first];
            // SAFETY (race rules): the segments are disjoint index ranges, each one iteration's.
            unsafe {
                dst[first] = acc;
            }
            for j in first + 1..end {
                acc = op.call(acc, values[j]);
                // SAFETY (race rules): as above.
                unsafe {
                    dst[j] = acc;
                }
            }
        }),
    )
}
