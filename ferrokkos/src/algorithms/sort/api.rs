//! [`sort`], [`sort_by_key`] and [`sort_by`]: Kokkos' `sort(exec, view)`, `sort_by_key(exec,
//! keys, values)` and `sort(exec, view, comparator)` over rank-1 Views.
//!
//! A space whose memory space names a [`DeviceSort`] (a GPU's) sorts there, queued on the
//! instance; the host spaces sort here ([`super::host`]), on the instance's threads, before
//! returning. A strided View is copied into a contiguous temporary of its space, sorted, and
//! copied back.

use std::cmp::Ordering;

use super::host::{Parts, merge_sort, radix_sort};
use super::key::SortKey;
use crate::error::{Error, Result};
use crate::layout::{Layout, LayoutRight};
use crate::seal::Token;
use crate::space::host_space::HostSpace;
use crate::space::{DeviceSort, ExecutionSpace, MemorySpace, SortKeys, SortPart};
use crate::view::{Element, View, deep_copy_async, view_alloc};

/// Sorts the elements of `keys` ascending, on `exec` (Kokkos' `sort(exec, view)`): integers in
/// numeric order, floats in the order of [`f64::total_cmp`] (`-NaN`s first, then `-inf`, ...,
/// `-0.0`, `+0.0`, ..., `+inf`, `+NaN`s), so the result is the same bits on every space.
///
/// On a GPU instance the sort is a radix sort queued on the instance like a kernel (the View is
/// borrowed by it, and host access waits for it); on a host instance it is a parallel radix sort
/// on the instance's threads, finished when this returns. `keys` lives in memory `exec` reaches.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::sort;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let v = View::<f64, 1>::new("v", [4])?;
/// v.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[2.5, -1.0, 7.0, 0.0]);
/// sort(&exec, &v)?;
/// assert_eq!(v.to_vec()?, [-1.0, 0.0, 2.5, 7.0]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn sort<K, L, M, S>(exec: &S, keys: &View<K, 1, L, M>) -> Result<()>
where
    K: SortKey,
    L: Layout,
    M: MemorySpace,
    S: ExecutionSpace,
{
    let what = || format!("sort of View \"{}\" on {}", keys.label(), exec.name());
    sort_pairs::<K, K, L, L, M, M, S>(exec, keys, None, &what)
}

/// Sorts `keys` ascending and moves each element of `values` with its key, on `exec` (Kokkos'
/// `sort_by_key(exec, keys, values)`). The sort is stable: values of equal keys keep their order.
/// Keys order as in [`sort`]; values are of any element type. Both Views have the same extent, live
/// in memory `exec` reaches, and are distinct allocations.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::sort_by_key;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Serial::default_instance()?;
/// let keys = View::<u32, 1>::new("keys", [4])?;
/// keys.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[3, 1, 3, 0]);
/// let names = View::<char, 1>::new("names", [4])?;
/// names.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&['a', 'b', 'c', 'd']);
/// sort_by_key(&exec, &keys, &names)?;
/// assert_eq!(keys.to_vec()?, [0, 1, 3, 3]);
/// assert_eq!(names.to_vec()?, ['d', 'b', 'a', 'c']);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn sort_by_key<K, V, LK, LV, MK, MV, S>(
    exec: &S,
    keys: &View<K, 1, LK, MK>,
    values: &View<V, 1, LV, MV>,
) -> Result<()>
where
    K: SortKey,
    V: Element,
    LK: Layout,
    LV: Layout,
    MK: MemorySpace,
    MV: MemorySpace,
    S: ExecutionSpace,
{
    let what = || {
        format!(
            "sort_by_key of View \"{}\" with View \"{}\" on {}",
            keys.label(),
            values.label(),
            exec.name()
        )
    };
    if values.extent(0) != keys.extent(0) {
        return Err(Error::ExtentMismatch {
            operation: "sort_by_key",
            dst_label: values.label().to_owned(),
            dst_extents: vec![values.extent(0)],
            src_label: keys.label().to_owned(),
            src_extents: vec![keys.extent(0)],
        });
    }
    sort_pairs(exec, keys, Some(values), &what)
}

/// Sorts the elements of `view` by `compare`, stably, on the host instance `exec` (Kokkos'
/// `sort(exec, view, comparator)`, with a Rust comparator: `|a, b| a.cmp(b)` sorts ascending).
/// For element types that are not [`SortKey`]s, or orders that are not the keys' own. A merge
/// sort: each thread sorts a chunk, then neighbouring runs are merged. `view` lives in memory host
/// code reaches.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::sort_by;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let v = View::<[i32; 2], 1>::new("pairs", [4])?;
/// v.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[[2, 0], [1, 1], [2, 2], [0, 3]]);
/// sort_by(&exec, &v, |a, b| b[0].cmp(&a[0]))?; // descending by the first field
/// assert_eq!(v.to_vec()?, [[2, 0], [2, 2], [1, 1], [0, 3]]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn sort_by<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, compare: F) -> Result<()>
where
    T: Element,
    L: Layout,
    M: MemorySpace,
    S: crate::dispatch::HostExecutionSpace,
    F: Fn(&T, &T) -> Ordering + Sync,
{
    let what = || format!("sort_by of View \"{}\" on {}", view.label(), exec.name());
    let parts = Parts::on(exec.copy_instance(Token::new()));
    on_host_slice(view, &what, &mut |data: &mut [T]| {
        merge_sort(&parts, data, &compare);
        Ok(())
    })
}

/// The keys and the optional values, sorted on `exec`'s device or on the host.
fn sort_pairs<K, V, LK, LV, MK, MV, S>(
    exec: &S,
    keys: &View<K, 1, LK, MK>,
    values: Option<&View<V, 1, LV, MV>>,
    what: &dyn Fn() -> String,
) -> Result<()>
where
    K: SortKey,
    V: Element,
    LK: Layout,
    LV: Layout,
    MK: MemorySpace,
    MV: MemorySpace,
    S: ExecutionSpace,
{
    if keys.size() < 2 {
        return Ok(());
    }
    if let Some(device) = exec.memory_space().device_sort(Token::new()) {
        return on_device(exec, device, keys, values, what);
    }
    let parts = Parts::on(exec.copy_instance(Token::new()));
    on_host_slice(keys, what, &mut |k: &mut [K]| match values {
        None => {
            radix_sort::<K, V>(&parts, k, None);
            Ok(())
        }
        Some(values) => {
            // The values' second buffer: a zeroed host View (its pages are touched first by the
            // parallel passes, not copied on this thread).
            let spare = View::<V, 1, LayoutRight, HostSpace>::new("sort_by_key values", [k.len()])?;
            on_host_slice(&spare, what, &mut |t: &mut [V]| {
                on_host_slice(values, what, &mut |v: &mut [V]| {
                    radix_sort(&parts, &mut *k, Some((v, &mut *t)));
                    Ok(())
                })
            })
        }
    })
}

/// Runs `f` over the elements of `view` as one slice on the host: the View's own elements when
/// they are contiguous, else a contiguous copy, copied back after `f`.
fn on_host_slice<T: Element, L: Layout, M: MemorySpace>(
    view: &View<T, 1, L, M>,
    what: &dyn Fn() -> String,
    f: &mut dyn FnMut(&mut [T]) -> Result<()>,
) -> Result<()> {
    if !M::HOST_ACCESSIBLE {
        return Err(Error::Unsupported {
            what: what(),
            reason: format!(
                "View \"{}\" is in {}, which host code cannot reach: sort it on an instance of a \
                 space that reaches it",
                view.label(),
                M::NAME
            ),
        });
    }
    if let Some(done) = view.with_host_slice_mut(&mut *f)? {
        return done;
    }
    let copy = contiguous_copy(view)?;
    crate::view::deep_copy(&copy, view)?;
    copy.with_host_slice_mut(f)?.unwrap_or(Ok(()))?;
    crate::view::deep_copy(view, &copy)
}

/// A contiguous View of `view`'s extent in its space, uninitialized.
fn contiguous_copy<T: Element, L: Layout, M: MemorySpace>(
    view: &View<T, 1, L, M>,
) -> Result<View<T, 1, LayoutRight, M>> {
    let props = view_alloc(format!("{} (sorted copy)", view.label())).without_initializing();
    View::new(props, [view.extent(0)])
}

/// The sort handed to the device's `DeviceSort`, through contiguous copies of strided Views.
fn on_device<K, V, LK, LV, MK, MV, S>(
    exec: &S,
    device: &dyn DeviceSort,
    keys: &View<K, 1, LK, MK>,
    values: Option<&View<V, 1, LV, MV>>,
    what: &dyn Fn() -> String,
) -> Result<()>
where
    K: SortKey,
    V: Element,
    LK: Layout,
    LV: Layout,
    MK: MemorySpace,
    MV: MemorySpace,
    S: ExecutionSpace,
{
    let strided = |contiguous: bool| !contiguous;
    let key_copy = match strided(keys.span_is_contiguous()) {
        true => Some(contiguous_copy(keys)?),
        false => None,
    };
    let value_copy = match values {
        Some(v) if strided(v.span_is_contiguous()) => Some(contiguous_copy(v)?),
        _ => None,
    };
    if let Some(c) = &key_copy {
        deep_copy_async(exec, c, keys)?;
    }
    if let (Some(c), Some(v)) = (&value_copy, values) {
        deep_copy_async(exec, c, v)?;
    }
    let key_part = match &key_copy {
        Some(c) => part_of(c),
        None => part_of(keys),
    };
    let value_part = values.map(|v| match &value_copy {
        Some(c) => part_of(c),
        None => part_of(v),
    });
    let sort_keys = SortKeys {
        part: key_part,
        kind: K::KIND,
        count: keys.extent(0),
    };
    device.sort(
        exec.copy_instance(Token::new()),
        &sort_keys,
        value_part.as_ref(),
        what,
    )?;
    if let Some(c) = &key_copy {
        deep_copy_async(exec, keys, c)?;
    }
    if let (Some(c), Some(v)) = (&value_copy, values) {
        deep_copy_async(exec, v, c)?;
    }
    Ok(())
}

/// A contiguous View's elements as a sort sees them.
fn part_of<T: Element, L: Layout, M: MemorySpace>(view: &View<T, 1, L, M>) -> SortPart<'_> {
    SortPart {
        alloc: view.allocation(),
        label: view.label(),
        ptr: view.as_ptr().cast_mut().cast(),
        size: size_of::<T>(),
        align: align_of::<T>(),
    }
}
