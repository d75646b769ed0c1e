//! `MDRangePolicy` on the host spaces: the [`LaunchMDRange`] entry points of Serial and Threads.

use std::ops::Range;

use super::isa::wide_or_plain;
use super::point::{CHUNK, ForPoint, Point, ReducePoint, chunked, each_run};
use super::range::{HostPolicy, host_for, host_reduce};
use super::run::{run_for, run_reduce};
use super::work::Work;
use crate::dispatch::{
    ForFunctor, ForKernel, HostExecutionSpace, LaunchMDRange, ReduceFunctor, ReduceKernel,
};
use crate::error::Result;
use crate::policy::{IndexTuple, IndexType, MDRangePolicy, TileGrid};
use crate::reducer::{ReduceTarget, Reducer};

// The loops below sit in functions that take the kernel as `&K` and are never inlined, for the
// reason given in `range.rs`.

/// Calls `point.at(idx, proven)` on every point of the tiles `tiles`, line by line along the
/// fastest dimension (the last one when `LAST_FASTEST`), with `proven` true exactly for the points
/// that lie in `inside` (per coordinate `[lo, hi)`; `None`: no point). `WIDE` names the copy of the
/// caller it is inlined into (see `isa.rs`), so that each copy has its own instance of the line
/// closure.
#[inline(always)]
fn walk<I: IndexType, const R: usize, const LAST_FASTEST: bool, const WIDE: bool>(
    grid: &TileGrid<I, R>,
    tiles: Range<u64>,
    inside: Option<&[(i128, i128)]>,
    mut point: impl Point<<[I; R] as IndexTuple<I>>::Tuple>,
) where
    [I; R]: IndexTuple<I>,
{
    let fast = if LAST_FASTEST { R - 1 } else { 0 };
    let lower = grid.lower();
    // The proven box as offsets from the lower corner (`[lo, hi)` per dimension, clamped to the
    // offsets' range), so that each line compares offsets rather than 128-bit coordinates.
    let offset = |v: i128, d: usize| (v - lower[d].to_i128()).clamp(0, u64::MAX as i128) as u64;
    let proven: Option<[(u64, u64); R]> =
        inside.map(|b| std::array::from_fn(|d| (offset(b[d].0, d), offset(b[d].1, d))));
    grid.lines::<LAST_FASTEST>(tiles, |at, xs| {
        let part = match &proven {
            Some(p) if (0..R).all(|d| d == fast || (p[d].0..p[d].1).contains(&at[d])) => {
                let start = p[fast].0.clamp(xs.start, xs.end);
                start..p[fast].1.clamp(start, xs.end)
            }
            _ => xs.end..xs.end,
        };
        let mut idx: [I; R] = std::array::from_fn(|d| lower[d].advance(at[d]));
        each_run(xs, part, &mut point, |x| {
            idx[fast] = lower[fast].advance(x);
            idx.to_tuple()
        });
    });
}

wide_or_plain! {
    /// Runs the points of tiles `tiles` of a multidimensional kernel.
    fn for_tiles[I: IndexType, const R: usize, K](
        kernel: &K,
        grid: &TileGrid<I, R>,
        tiles: Range<u64>,
    ) where [
        [I; R]: IndexTuple<I>,
        K: ForKernel<<[I; R] as IndexTuple<I>>::Tuple>,
    ] {
        let inside = kernel.proven_box();
        if grid.last_fastest() {
            walk::<I, R, true, WIDE>(grid, tiles, inside, ForPoint(kernel))
        } else {
            walk::<I, R, false, WIDE>(grid, tiles, inside, ForPoint(kernel))
        }
    }
}

wide_or_plain! {
    /// Runs the points of tiles `tiles` of a multidimensional reduction into `acc`; unless
    /// `in_order`, the proven runs go in chunks where the values are small (see `ReducePoint`).
    fn reduce_tiles[I: IndexType, const R: usize, Rd: Reducer, K](
        kernel: &K,
        reducer: &Rd,
        in_order: bool,
        grid: &TileGrid<I, R>,
        tiles: Range<u64>,
        acc: &mut Rd::Value,
    ) where [
        [I; R]: IndexTuple<I>,
        K: ReduceKernel<<[I; R] as IndexTuple<I>>::Tuple, Rd::Value>,
    ] {
        let inside = kernel.proven_box();
        if !in_order && chunked::<Rd::Value>() {
            let point = ReducePoint::<_, _, CHUNK>::new(kernel, reducer, acc);
            if grid.last_fastest() {
                walk::<I, R, true, WIDE>(grid, tiles, inside, point)
            } else {
                walk::<I, R, false, WIDE>(grid, tiles, inside, point)
            }
        } else {
            let point = ReducePoint::<_, _, 0>::new(kernel, reducer, acc);
            if grid.last_fastest() {
                walk::<I, R, true, WIDE>(grid, tiles, inside, point)
            } else {
                walk::<I, R, false, WIDE>(grid, tiles, inside, point)
            }
        }
    }
}

impl<S, const R: usize, I> MDRangePolicy<S, R, I>
where
    S: HostExecutionSpace,
    I: IndexType,
    [I; R]: IndexTuple<I>,
{
    fn work(&self, tiles: u64) -> Work {
        Work::new(tiles, self.get_schedule(), None, self.space().concurrency())
    }
}

impl<S, const R: usize, I> HostPolicy for MDRangePolicy<S, R, I>
where
    S: HostExecutionSpace,
    I: IndexType,
    [I; R]: IndexTuple<I>,
{
    type Space = S;
    type Bounds = [(i128, i128); R];
    const BITS: u32 = I::BITS;
    #[inline(always)]
    fn space(&self) -> &S {
        MDRangePolicy::space(self)
    }
    /// The iteration box, per dimension `[lower, upper)`, the box [`TileGrid::visit`] walks.
    #[inline(always)]
    fn bounds(&self) -> [(i128, i128); R] {
        let (lo, hi) = (self.lower(), self.upper());
        std::array::from_fn(|d| (lo[d].to_i128(), hi[d].to_i128()))
    }
}

impl<S: HostExecutionSpace> LaunchMDRange for S {
    fn launch_md_for<const R: usize, I, K>(
        policy: MDRangePolicy<Self, R, I>,
        label: &str,
        kernel: K,
    ) -> Result<()>
    where
        I: IndexType,
        [I; R]: IndexTuple<I>,
        K: ForFunctor<<[I; R] as IndexTuple<I>>::Tuple>,
    {
        host_md_for(policy, label, kernel)
    }

    fn launch_md_reduce<const R: usize, I, K, T>(
        policy: MDRangePolicy<Self, R, I>,
        label: &str,
        kernel: K,
        target: T,
    ) -> Result<T::Output>
    where
        I: IndexType,
        [I; R]: IndexTuple<I>,
        T: ReduceTarget,
        K: ReduceFunctor<<[I; R] as IndexTuple<I>>::Tuple, <T::Reducer as Reducer>::Value>,
    {
        host_md_reduce(policy, label, kernel, target)
    }
}

/// `parallel_for` over a multidimensional range on a host space.
fn host_md_for<S, const R: usize, I, K>(
    policy: MDRangePolicy<S, R, I>,
    label: &str,
    kernel: K,
) -> Result<()>
where
    S: HostExecutionSpace,
    I: IndexType,
    [I; R]: IndexTuple<I>,
    K: ForFunctor<<[I; R] as IndexTuple<I>>::Tuple>,
{
    host_for(policy, label, kernel, |this, kernel, what| {
        let grid = this.grid();
        // Localized per run of tiles, outside the loop's function (see `range.rs`).
        let body = |tiles: Range<u64>| kernel.with_local(|k| for_tiles(k, &grid, tiles));
        run_for(this.space(), what, this.work(grid.count), &body)
    })
}

/// `parallel_reduce` over a multidimensional range on a host space.
fn host_md_reduce<S, const R: usize, I, K, T>(
    policy: MDRangePolicy<S, R, I>,
    label: &str,
    kernel: K,
    target: T,
) -> Result<T::Output>
where
    S: HostExecutionSpace,
    I: IndexType,
    [I; R]: IndexTuple<I>,
    T: ReduceTarget,
    K: ReduceFunctor<<[I; R] as IndexTuple<I>>::Tuple, <T::Reducer as Reducer>::Value>,
{
    host_reduce(
        policy,
        label,
        kernel,
        target,
        |this, kernel, reducer, what| {
            let grid = this.grid();
            let body = |tiles: Range<u64>, acc: &mut <T::Reducer as Reducer>::Value| {
                kernel.with_local(|k| {
                    reduce_tiles(k, reducer, S::IN_ORDER_REDUCTIONS, &grid, tiles, acc)
                })
            };
            run_reduce(this.space(), what, this.work(grid.count), reducer, &body)
        },
    )
}
