//! The std algorithms that compare Views element by element or look for a run: [`mismatch`],
//! [`lexicographical_compare`], [`adjacent_find`], [`find_first_of`], [`search`], [`search_n`],
//! [`find_end`]. Each is one `parallel_reduce` of the smallest (or largest) qualifying index.

use super::Number;
use crate::dispatch::{Launch, parallel_reduce};
use crate::error::Result;
use crate::layout::Layout;
use crate::policy::RangePolicy;
use crate::reducer::{Max, Min};
use crate::space::MemorySpace;
use crate::view::View;

/// The first index below `m` where `a` and `b` differ, or `m`.
fn first_difference<T, L, K, M, S>(
    exec: &S,
    a: &View<T, 1, L, M>,
    b: &View<T, 1, K, M>,
    m: usize,
) -> Result<usize>
where
    T: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    let first = parallel_reduce(
        "Kokkos::mismatch",
        RangePolicy::new(exec, 0, m)?,
        crate::kernel!(|i, acc| if a[i] != b[i] && i < *acc {
            *acc = i;
        }),
        Min::<usize>::new(),
    )?;
    Ok(first.min(m))
}

/// The first index where `a` and `b` differ: where they differ within the shorter one, else the
/// shorter one's length if their lengths differ, else `None` (Kokkos' `mismatch`, which returns
/// the pair of iterators there).
pub fn mismatch<T, L, K, M, S>(
    exec: &S,
    a: &View<T, 1, L, M>,
    b: &View<T, 1, K, M>,
) -> Result<Option<usize>>
where
    T: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    let m = a.extent(0).min(b.extent(0));
    let at = first_difference(exec, a, b, m)?;
    Ok((at < m || a.extent(0) != b.extent(0)).then_some(at))
}

/// Whether `a` comes before `b` in lexicographical order (Kokkos' `lexicographical_compare`,
/// Rust's `a < b` on slices of totally ordered elements).
pub fn lexicographical_compare<T, L, K, M, S>(
    exec: &S,
    a: &View<T, 1, L, M>,
    b: &View<T, 1, K, M>,
) -> Result<bool>
where
    T: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    let m = a.extent(0).min(b.extent(0));
    // The first difference and whether `a` is smaller there, as `2 * i + less`.
    let code = parallel_reduce(
        "Kokkos::lexicographical_compare",
        RangePolicy::new(exec, 0, m)?,
        crate::kernel!(|i, acc| {
            let (x, y) = (a[i], b[i]);
            if x != y {
                let c = 2 * i + (x < y) as usize;
                if c < *acc {
                    *acc = c;
                }
            }
        }),
        Min::<usize>::new(),
    )?;
    if code / 2 < m {
        return Ok(code % 2 == 1);
    }
    Ok(a.extent(0) < b.extent(0))
}

/// The first index `i` with `view[i] == view[i + 1]` (Kokkos' `adjacent_find`).
pub fn adjacent_find<T, L, M, S>(exec: &S, view: &View<T, 1, L, M>) -> Result<Option<usize>>
where
    T: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let (v, n) = (view, view.extent(0));
    if n < 2 {
        return Ok(None);
    }
    let first = parallel_reduce(
        "Kokkos::adjacent_find",
        RangePolicy::new(exec, 0, n - 1)?,
        crate::kernel!(|i, acc| if v[i] == v[i + 1] && i < *acc {
            *acc = i;
        }),
        Min::<usize>::new(),
    )?;
    Ok((first < n - 1).then_some(first))
}

/// The first index of `view` whose element equals one of `set`'s (Kokkos' `find_first_of`).
pub fn find_first_of<T, L, K, M, S>(
    exec: &S,
    view: &View<T, 1, L, M>,
    set: &View<T, 1, K, M>,
) -> Result<Option<usize>>
where
    T: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    let (v, n, m) = (view, view.extent(0), set.extent(0));
    let first = parallel_reduce(
        "Kokkos::find_first_of",
        RangePolicy::new(exec, 0, n)?,
        crate::kernel!(|i, acc| {
            let x = v[i];
            let mut hit = false;
            for k in 0..m {
                if x == set[k] {
                    hit = true;
                }
            }
            if hit && i < *acc {
                *acc = i;
            }
        }),
        Min::<usize>::new(),
    )?;
    Ok((first < n).then_some(first))
}

/// The first index where `pattern` occurs in `view` (Kokkos' `search`, Rust's
/// `windows(m).position(|w| w == pattern)`); `Some(0)` for an empty pattern.
pub fn search<T, L, K, M, S>(
    exec: &S,
    view: &View<T, 1, L, M>,
    pattern: &View<T, 1, K, M>,
) -> Result<Option<usize>>
where
    T: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    let (v, n, m, p) = (view, view.extent(0), pattern.extent(0), pattern);
    if m == 0 {
        return Ok(Some(0));
    }
    if m > n {
        return Ok(None);
    }
    let first = parallel_reduce(
        "Kokkos::search",
        RangePolicy::new(exec, 0, n - m + 1)?,
        crate::kernel!(|i, acc| {
            let mut same = true;
            for k in 0..m {
                if v[i + k] != p[k] {
                    same = false;
                    break;
                }
            }
            if same && i < *acc {
                *acc = i;
            }
        }),
        Min::<usize>::new(),
    )?;
    Ok((first <= n - m).then_some(first))
}

/// The last index where `pattern` occurs in `view` (Kokkos' `find_end`); `None` for an empty
/// pattern.
pub fn find_end<T, L, K, M, S>(
    exec: &S,
    view: &View<T, 1, L, M>,
    pattern: &View<T, 1, K, M>,
) -> Result<Option<usize>>
where
    T: Number,
    L: Layout,
    K: Layout,
    M: MemorySpace,
    S: Launch,
{
    let (v, n, m, p) = (view, view.extent(0), pattern.extent(0), pattern);
    if m == 0 || m > n {
        return Ok(None);
    }
    // One past the last match (0: none).
    let last = parallel_reduce(
        "Kokkos::find_end",
        RangePolicy::new(exec, 0, n - m + 1)?,
        crate::kernel!(|i, acc| {
            let mut same = true;
            for k in 0..m {
                if v[i + k] != p[k] {
                    same = false;
                    break;
                }
            }
            if same && i + 1 > *acc {
                *acc = i + 1;
            }
        }),
        Max::<usize>::new(),
    )?;
    Ok(last.checked_sub(1))
}

/// The first index where `count` consecutive elements equal `value` (Kokkos' `search_n`);
/// `Some(0)` for a count of 0.
pub fn search_n<T, L, M, S>(
    exec: &S,
    view: &View<T, 1, L, M>,
    count: usize,
    value: T,
) -> Result<Option<usize>>
where
    T: Number,
    L: Layout,
    M: MemorySpace,
    S: Launch,
{
    let (v, n) = (view, view.extent(0));
    if count == 0 {
        return Ok(Some(0));
    }
    if count > n {
        return Ok(None);
    }
    let first = parallel_reduce(
        "Kokkos::search_n",
        RangePolicy::new(exec, 0, n - count + 1)?,
        crate::kernel!(|i, acc| {
            let mut same = true;
            for k in 0..count {
                if v[i + k] != value {
                    same = false;
                    break;
                }
            }
            if same && i < *acc {
                *acc = i;
            }
        }),
        Min::<usize>::new(),
    )?;
    Ok((first <= n - count).then_some(first))
}
