//! Folds and scans with an operation of the user's, `kernel!(|a: T, b: T| -> T { .. })`:
//! [`reduce_with`], [`transform_reduce_with`], [`inclusive_scan_with`], [`exclusive_scan_with`]
//! (Kokkos' overloads taking a binary operation; it must be associative, and for the folds also
//! commutative, as Kokkos requires).
//!
//! The elements are cut into chunks of 256 that do not depend on the thread count: one iteration
//! folds a chunk in order, then the chunks' values are folded (by the same step while there are
//! more than 256, then on the host, in chunk order), so a result is the same on every run of a
//! space. A fold's chunk is consecutive elements on the host, and the elements `chunks` apart on a
//! GPU (so that a warp reads together); a scan's chunks are consecutive everywhere, and their
//! carries are the scan of the chunks' values.

use super::check;
use crate::dispatch::{Launch, parallel_for};
use crate::error::Result;
use crate::kernel::DeviceFn;
use crate::kernel::value::DeviceValue;
use crate::layout::{Layout, LayoutRight};
use crate::policy::RangePolicy;
use crate::space::MemorySpace;
use crate::view::{View, create_mirror_view, deep_copy, view_alloc};

/// Elements per chunk.
const CHUNK: usize = 256;

/// A temporary of `n` elements in `M`, uninitialized.
pub(super) fn scratch<T: DeviceValue, M: MemorySpace>(
    label: &str,
    n: usize,
) -> Result<View<T, 1, LayoutRight, M>> {
    View::new(view_alloc(label).without_initializing(), [n])
}

/// `init` folded with every element of `view` by `op` (Kokkos' `reduce(exec, view, init, op)`,
/// Rust's `iter().fold(init, op)` for an associative and commutative `op`).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::std_algorithms::reduce_with;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let v = View::<u64, 1>::new("v", [1000])?;
/// v.host_mut()?.as_mut_slice().unwrap().iter_mut().enumerate().for_each(|(i, x)| *x = i as u64 % 97);
/// let max = reduce_with(&exec, &v, 0, kernel!(|a: u64, b: u64| -> u64 { a.max(b) }))?;
/// assert_eq!(max, 96);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn reduce_with<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, init: T, op: F) -> Result<T>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, T), Output = T>,
{
    let same = crate::kernel!(|x: T| -> T { x });
    transform_reduce_with(exec, view, init, op, same)
}

/// `init` folded by `join` with `transform(x)` of every element (Kokkos'
/// `transform_reduce(exec, view, init, join, transform)`).
pub fn transform_reduce_with<T, U, L, M, S, J, F>(
    exec: &S,
    view: &View<T, 1, L, M>,
    init: U,
    join: J,
    transform: F,
) -> Result<U>
where
    T: DeviceValue,
    U: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    J: DeviceFn<(U, U), Output = U>,
    F: DeviceFn<(T,), Output = U>,
{
    let n = view.extent(0);
    if n == 0 {
        return Ok(init);
    }
    let chunks = n.div_ceil(CHUNK);
    let (step_c, step_j) = if S::DEVICE_TYPE.is_gpu() {
        (1, chunks)
    } else {
        (CHUNK, 1)
    };
    let partial = scratch::<U, M>("Kokkos::reduce::partial", chunks)?;
    let (v, op, tf) = (view, join.closure(), transform.closure());
    parallel_for(
        "Kokkos::transform_reduce",
        RangePolicy::new(exec, 0, chunks)?,
        crate::kernel!(|c| {
            let mut acc = tf.call(v[c * step_c]);
            for j in 1..CHUNK {
                let idx = c * step_c + j * step_j;
                if idx < n {
                    acc = op.call(acc, tf.call(v[idx]));
                }
            }
            partial[c] = acc;
        }),
    )?;
    if chunks > CHUNK {
        return reduce_with(exec, &partial, init, join);
    }
    let host = create_mirror_view(&partial)?;
    deep_copy(&host, &partial)?;
    Ok(host.to_vec()?.into_iter().fold(init, |a, b| op.call(a, b)))
}

/// Writes `src[0] op src[1] op ... op src[i]` to `dst[i]`; returns the count (Kokkos'
/// `inclusive_scan(exec, src, dst, op)`; `op` associative).
pub fn inclusive_scan_with<T, L, K, M, S, F>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
    op: F,
) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, T), Output = T>,
{
    scan_with(exec, src, dst, None, op, "inclusive_scan")
}

/// Writes `init op src[0] op ... op src[i - 1]` to `dst[i]` (`init` to `dst[0]`); returns the
/// count (Kokkos' `exclusive_scan(exec, src, dst, init, op)`; `op` associative).
pub fn exclusive_scan_with<T, L, K, M, S, F>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
    init: T,
    op: F,
) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, T), Output = T>,
{
    scan_with(exec, src, dst, Some(init), op, "exclusive_scan")
}

/// The scans with `op`: inclusive without `init`, exclusive from `init`.
fn scan_with<T, L, K, M, S, F>(
    exec: &S,
    src: &View<T, 1, L, M>,
    dst: &View<T, 1, K, M>,
    init: Option<T>,
    op: F,
    operation: &'static str,
) -> Result<usize>
where
    T: DeviceValue,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, T), Output = T>,
{
    check::fits(operation, src, dst)?;
    check::distinct(operation, src, dst)?;
    let n = src.extent(0);
    if n == 0 {
        return Ok(0);
    }
    let chunks = n.div_ceil(CHUNK);
    // The chunks' folds, scanned: the carry into chunk `c` is `carry[c - 1]`.
    let carry = scratch::<T, M>("Kokkos::scan::carry", chunks)?;
    if chunks > 1 {
        let partial = scratch::<T, M>("Kokkos::scan::partial", chunks)?;
        let (v, f) = (src, op.closure());
        parallel_for(
            "Kokkos::scan_partials",
            RangePolicy::new(exec, 0, chunks)?,
            crate::kernel!(|c| {
                let first = c * CHUNK;
                let mut acc = v[first];
                for j in first + 1..(first + CHUNK).min(n) {
                    acc = f.call(acc, v[j]);
                }
                partial[c] = acc;
            }),
        )?;
        scan_with(exec, &partial, &carry, None, op, operation)?;
    }
    let (v, f) = (src, op.closure());
    match init {
        Some(init) => {
            let start = [init];
            parallel_for(
                "Kokkos::exclusive_scan_chunks",
                RangePolicy::new(exec, 0, chunks)?,
                crate::kernel!(|c| {
                    let first = c * CHUNK;
                    let mut acc = start[0];
                    if c > 0 {
                        acc = f.call(start[0], carry[c - 1]);
                    }
                    for j in first..(first + CHUNK).min(n) {
                        // SAFETY (race rules): the chunks are disjoint index ranges, each one
                        // iteration's.
                        unsafe {
                            dst[j] = acc;
                        }
                        acc = f.call(acc, v[j]);
                    }
                }),
            )?;
        }
        None => parallel_for(
            "Kokkos::inclusive_scan_chunks",
            RangePolicy::new(exec, 0, chunks)?,
            crate::kernel!(|c| {
                let first = c * CHUNK;
                let mut acc = v[first];
                if c > 0 {
                    acc = f.call(carry[c - 1], acc);
                }
                // SAFETY (race rules): the chunks are disjoint index ranges, each one
                // iteration's.
                unsafe {
                    dst[first] = acc;
                }
                for j in first + 1..(first + CHUNK).min(n) {
                    acc = f.call(acc, v[j]);
                    // SAFETY (race rules): as above.
                    unsafe {
                        dst[j] = acc;
                    }
                }
            }),
        )?,
    }
    Ok(n)
}
