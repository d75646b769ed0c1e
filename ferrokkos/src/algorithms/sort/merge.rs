//! [`sort_with`] and [`sort_by_key_with`]: Kokkos' `sort(exec, view, comparator)` and
//! `sort_by_key(exec, keys, values, comparator)` on every space, a merge sort built from
//! `kernel!`s whose comparator is a device closure.
//!
//! The keys are copied into a contiguous buffer (with their original indices, for values), and
//! pass `w` (1, 2, 4, ...) merges each pair of neighbouring sorted runs of `w` keys into a second
//! buffer, the two buffers trading places after each pass. An iteration of a pass writes one chunk
//! of `q` outputs (`q` = `2w` up to a bound per space: 32 on a GPU, 4096 on the host). Where a
//! chunk is shorter than a pair of runs, a first kernel finds where each chunk starts on the merge
//! path, by a binary search along its diagonal (`split(d)`: how many of the first `d` outputs come
//! from the left run). The merge kernel then merges each chunk sequentially from its start, taking
//! the left key unless the right one is strictly less (stability). The chunks' output ranges are
//! apart whatever the comparator does, so nothing can race. When the comparator is a strict weak
//! order each chunk's merge ends where the next one starts; a chunk that ends elsewhere is
//! counted, and a comparator that gives one stops the sort with an error after writing back the
//! last complete pass, so no element is lost or repeated.

use super::permute::Permute;
use crate::dispatch::{Launch, parallel_for, parallel_reduce};
use crate::error::{Error, Result};
use crate::kernel::DeviceFn;
use crate::kernel::value::DeviceValue;
use crate::layout::{Layout, LayoutRight};
use crate::policy::RangePolicy;
use crate::reducer::Sum;
use crate::space::MemorySpace;
use crate::view::{View, view_alloc};

/// Sorts `view` stably by `less` on `exec`, on every space (Kokkos' `sort(exec, view,
/// comparator)`): `less(a, b)` is true when `a` goes before `b`, a strict weak order like C++'s
/// `std::less`. For element types that are not [`super::SortKey`]s or orders that are not the
/// keys' own; on the host, [`super::sort_by`] takes a Rust comparator instead.
///
/// A merge sort, `log2(n)` passes of one kernel each, and two temporaries of `view`'s size. A
/// comparator that is not a strict weak order leaves the elements, each once, in an unspecified
/// order; when it makes a merge inconsistent (a merge that two iterations cut in two places
/// disagrees), the sort stops with `Err(InvalidArgument)` naming the View.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::sort_with;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let v = View::<i32, 1>::new("v", [6])?;
/// v.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[5, -1, 7, 0, -3, 2]);
/// sort_with(&exec, &v, kernel!(|a: i32, b: i32| -> bool { a.abs() > b.abs() }))?;
/// assert_eq!(v.to_vec()?, [7, 5, -3, 2, -1, 0]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn sort_with<T, L, M, S, F>(exec: &S, view: &View<T, 1, L, M>, less: F) -> Result<()>
where
    T: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(T, T), Output = bool>,
{
    let what = || format!("sort_with of View \"{}\" on {}", view.label(), exec.name());
    let sorted = merge_sort(exec, view, less, false)?;
    sorted.write_back(exec, view)?;
    sorted.result(&what)
}

/// Sorts `keys` stably by `less` on `exec` and moves each element of `values` with its key, on
/// every space (Kokkos' `sort_by_key(exec, keys, values, comparator)`); `less` as in
/// [`sort_with`]. Both Views have the same extent and are distinct allocations.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::sort_by_key_with;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Serial::default_instance()?;
/// let keys = View::<f64, 1>::new("keys", [4])?;
/// keys.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[0.5, 2.0, 0.5, 1.0]);
/// let ids = View::<u32, 1>::new("ids", [4])?;
/// ids.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[10, 11, 12, 13]);
/// sort_by_key_with(&exec, &keys, &ids, kernel!(|a: f64, b: f64| -> bool { a > b }))?;
/// assert_eq!(keys.to_vec()?, [2.0, 1.0, 0.5, 0.5]);
/// assert_eq!(ids.to_vec()?, [11, 13, 10, 12]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn sort_by_key_with<K, V, LK, LV, M, S, F>(
    exec: &S,
    keys: &View<K, 1, LK, M>,
    values: &View<V, 1, LV, M>,
    less: F,
) -> Result<()>
where
    K: DeviceValue,
    V: DeviceValue,
    LK: Layout,
    LV: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(K, K), Output = bool>,
{
    let what = || {
        format!(
            "sort_by_key_with of View \"{}\" with View \"{}\" on {}",
            keys.label(),
            values.label(),
            exec.name()
        )
    };
    if values.extent(0) != keys.extent(0) {
        return Err(Error::ExtentMismatch {
            operation: "sort_by_key_with",
            dst_label: values.label().to_owned(),
            dst_extents: vec![values.extent(0)],
            src_label: keys.label().to_owned(),
            src_extents: vec![keys.extent(0)],
        });
    }
    if keys.shares_allocation_with(values) {
        return Err(Error::InvalidArgument {
            operation: "sort_by_key_with",
            reason: format!(
                "the keys View \"{}\" and the values View \"{}\" share an allocation; give the \
                 values their own View",
                keys.label(),
                values.label()
            ),
        });
    }
    let sorted = merge_sort(exec, keys, less, true)?;
    sorted.write_back(exec, keys)?;
    values.permute_in_place(exec, &sorted.runs.perm, 0, 0)?;
    sorted.result(&what)
}

/// The largest chunk one iteration of a pass merges: 32 outputs per GPU thread (its binary search
/// then costs about as much as its merge), thousands per host task. A power of two.
fn chunk_bound(gpu: bool) -> usize {
    if gpu { 32 } else { 4096 }
}

/// One buffer of the merge: the keys, and their original indices when values follow them (else
/// an empty View).
struct Runs<K: DeviceValue, M: MemorySpace> {
    keys: View<K, 1, LayoutRight, M>,
    perm: View<usize, 1, LayoutRight, M>,
}

impl<K: DeviceValue, M: MemorySpace> Runs<K, M> {
    fn new(n: usize, with_perm: bool) -> Result<Self> {
        let alloc = |label: &str| view_alloc(label).without_initializing();
        Ok(Runs {
            keys: View::new(alloc("Kokkos::sort_with::keys"), [n])?,
            perm: View::new(
                alloc("Kokkos::sort_with::perm"),
                [if with_perm { n } else { 0 }],
            )?,
        })
    }
}

/// The sorted keys (and their original indices), or those of the last complete pass before the
/// comparator was found inconsistent.
struct Sorted<K: DeviceValue, M: MemorySpace> {
    runs: Runs<K, M>,
    /// `(run width, chunks that ended off the merge path)` of the pass that found the comparator
    /// inconsistent.
    inconsistent: Option<(usize, usize)>,
}

impl<K: DeviceValue, M: MemorySpace> Sorted<K, M> {
    /// Copies the keys into `view`.
    fn write_back<L: Layout, S: Launch>(&self, exec: &S, view: &View<K, 1, L, M>) -> Result<()> {
        let (dst, src) = (view, &self.runs.keys);
        parallel_for(
            "Kokkos::sort_with::copy_back",
            RangePolicy::new(exec, 0, view.extent(0))?,
            crate::kernel!(|i| dst[i] = src[i]),
        )
    }

    fn result(&self, what: &dyn Fn() -> String) -> Result<()> {
        let Some((width, bad)) = self.inconsistent else {
            return Ok(());
        };
        Err(Error::InvalidArgument {
            operation: "sort_with",
            reason: format!(
                "{}: the comparator is not a strict weak order (merging runs of {width} keys, \
                 {bad} chunks ended off the merge path); the View holds its elements, each \
                 once, in an unspecified order",
                what()
            ),
        })
    }
}

/// `keys` merge-sorted by `less` (stable), with their original indices when `with_perm`.
fn merge_sort<K, L, M, S, F>(
    exec: &S,
    keys: &View<K, 1, L, M>,
    less: F,
    with_perm: bool,
) -> Result<Sorted<K, M>>
where
    K: DeviceValue,
    L: Layout,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(K, K), Output = bool>,
{
    let n = keys.extent(0);
    let mut src = Runs::<K, M>::new(n, with_perm)?;
    let mut dst = Runs::<K, M>::new(n, with_perm)?;
    {
        let (from, to, perm) = (keys, &src.keys, &src.perm);
        parallel_for(
            "Kokkos::sort_with::copy_in",
            RangePolicy::new(exec, 0, n)?,
            crate::kernel!(|i| {
                to[i] = from[i];
                if with_perm {
                    perm[i] = i;
                }
            }),
        )?;
    }
    let bound = chunk_bound(S::DEVICE_TYPE.is_gpu());
    let splits = View::<usize, 1, LayoutRight, M>::new(
        view_alloc("Kokkos::sort_with::splits").without_initializing(),
        [n.div_ceil(bound)],
    )?;
    let mut width = 1usize;
    while width < n {
        let bad = merge_pass(exec, &src, &dst, &splits, n, width, bound, less)?;
        if bad > 0 {
            return Ok(Sorted {
                runs: src,
                inconsistent: Some((width, bad)),
            });
        }
        std::mem::swap(&mut src, &mut dst);
        width = width.saturating_mul(2);
    }
    Ok(Sorted {
        runs: src,
        inconsistent: None,
    })
}

/// Merges each pair of sorted runs of `width` keys of `src` into `dst`, in chunks of at most
/// `bound` outputs; returns the number of chunks whose merge ended off the merge path (0 for a
/// strict weak order). `splits` holds a chunk's start on the merge path, for passes whose chunks
/// are shorter than a pair of runs.
#[allow(clippy::too_many_arguments)]
fn merge_pass<K, M, S, F>(
    exec: &S,
    src: &Runs<K, M>,
    dst: &Runs<K, M>,
    splits: &View<usize, 1, LayoutRight, M>,
    n: usize,
    width: usize,
    bound: usize,
    less: F,
) -> Result<usize>
where
    K: DeviceValue,
    M: MemorySpace,
    S: Launch,
    F: DeviceFn<(K, K), Output = bool>,
{
    // A chunk divides a pair of runs (both are powers of two), so it never spans two pairs; where
    // it is the whole pair, it starts at the pair's start and ends at its end on the merge path.
    let q = bound.min(width.saturating_mul(2));
    let whole = q == width.saturating_mul(2);
    let chunks = n.div_ceil(q);
    let (sk, less) = (&src.keys, less.closure());
    if !whole {
        parallel_for(
            "Kokkos::sort_with::split",
            RangePolicy::new(exec, 0, chunks)?,
            crate::kernel!(|c| {
                // split(d): how many of the first d outputs of the pair's merge are left keys.
                let start = c * q;
                let pair = start / (2 * width) * (2 * width);
                let la = if n - pair < width { n - pair } else { width };
                let rest = n - pair - la;
                let lb = if rest < width { rest } else { width };
                let d = start - pair;
                let mut lo = if d > lb { d - lb } else { 0usize };
                let mut hi = if d < la { d } else { la };
                while lo < hi {
                    let mid = (lo + hi) / 2;
                    // Left key `mid` goes after right key `d - 1 - mid` only when that one is
                    // strictly less (stability).
                    if less.call(sk[pair + la + d - 1 - mid], sk[pair + mid]) {
                        hi = mid;
                    } else {
                        lo = mid + 1;
                    }
                }
                splits[c] = lo;
            }),
        )?;
    }
    let with_perm = src.perm.extent(0) > 0;
    let (sp, dk, dp) = (&src.perm, &dst.keys, &dst.perm);
    parallel_reduce(
        "Kokkos::sort_with::merge",
        RangePolicy::new(exec, 0, chunks)?,
        crate::kernel!(|c, bad| {
            // The pair of runs chunk `c` is in: the left one `[pair, pair + la)`, the right one
            // `[pair + la, pair + la + lb)`; the chunk is outputs `[d0, d1)` of their merge, and
            // starts with `a0` left keys before it.
            let start = c * q;
            let pair = start / (2 * width) * (2 * width);
            let la = if n - pair < width { n - pair } else { width };
            let rest = n - pair - la;
            let lb = if rest < width { rest } else { width };
            let d0 = start - pair;
            let d1 = if d0 + q < la + lb { d0 + q } else { la + lb };
            let a0 = if whole { 0usize } else { splits[c] };
            let a1 = if d1 == la + lb { la } else { splits[c + 1] };
            // The merge of the chunk, the next key of each run kept: a + b = d0 + j < la + lb,
            // so one run always has a key.
            let mut a = a0;
            let mut b = d0 - a0;
            let mut ka = sk[pair + if a < la { a } else { 0usize }];
            let mut kb = sk[pair + if b < lb { la + b } else { 0usize }];
            for j in 0..(d1 - d0) {
                let left = a < la && (b >= lb || !less.call(kb, ka));
                // SAFETY (race rules): chunk `c` writes outputs `start + j` for `j < d1 - d0 <=
                // q`, and chunks start `q` apart, so no two iterations write one element,
                // whatever the comparator answers; the writes are still bounds-checked.
                if left {
                    unsafe {
                        dk[start + j] = ka;
                        if with_perm {
                            dp[start + j] = sp[pair + a];
                        }
                    }
                    a += 1;
                    if a < la {
                        ka = sk[pair + a];
                    }
                } else {
                    unsafe {
                        dk[start + j] = kb;
                        if with_perm {
                            dp[start + j] = sp[pair + la + b];
                        }
                    }
                    b += 1;
                    if b < lb {
                        kb = sk[pair + la + b];
                    }
                }
            }
            if a != a1 {
                *bad += 1usize;
            }
        }),
        Sum::<usize>::new(),
    )
}
