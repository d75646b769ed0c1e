//! `MDRangePolicy` on the host spaces: the [`LaunchMDRange`] entry points of Serial and Threads.

use std::any::type_name;
use std::ops::Range;

use super::run::{describe, run_for, run_reduce};
use super::work::Work;
use crate::dispatch::{
    ForFunctor, ForKernel, HostExecutionSpace, LaunchMDRange, ReduceFunctor, ReduceKernel,
};
use crate::error::Result;
use crate::policy::{IndexTuple, IndexType, MDRangePolicy, Schedule, TileGrid};
use crate::reducer::{ReduceTarget, Reducer};
use crate::seal::Token;
use crate::space::tool_site;
use crate::tools::{Pattern, profiled};

// The loops below sit in functions that take the kernel as `&K` and are never inlined, for the
// reason given in `range.rs`.

/// The offsets of `xs` (from `base` along one coordinate) whose coordinate `base + x` lies in
/// `[lo, hi)`.
#[inline(always)]
fn part_in(xs: &Range<u64>, base: i128, (lo, hi): (i128, i128)) -> Range<u64> {
    let at = |v: i128| (v - base).clamp(xs.start as i128, xs.end as i128) as u64;
    let start = at(lo);
    start..at(hi).max(start)
}

/// Calls `point(idx, proven)` on every point of the tiles `tiles`, line by line along the fastest
/// dimension (the last one when `LAST_FASTEST`), with `proven` true exactly for the points that lie
/// in `inside` (per coordinate `[lo, hi)`; `None`: no point). Each line is cut into at most three
/// runs (before, inside, after), each a counted loop calling `point` with a constant flag.
#[inline(always)]
fn walk<I: IndexType, const R: usize, const LAST_FASTEST: bool>(
    grid: &TileGrid<I, R>,
    tiles: Range<u64>,
    inside: Option<&[(i128, i128)]>,
    mut point: impl Point<[I; R]>,
) {
    let fast = if LAST_FASTEST { R - 1 } else { 0 };
    let base = grid.lower()[fast];
    grid.lines::<LAST_FASTEST>(tiles, |mut idx, xs| {
        let part = match inside {
            Some(b)
                if (0..R).all(|d| d == fast || (b[d].0..b[d].1).contains(&idx[d].to_i128())) =>
            {
                part_in(&xs, base.to_i128(), b[fast])
            }
            _ => xs.end..xs.end,
        };
        for (run, proven) in [
            (xs.start..part.start, false),
            (part.clone(), true),
            (part.end..xs.end, false),
        ] {
            if proven {
                for x in run {
                    idx[fast] = base.advance(x);
                    point.at(idx, true);
                }
            } else {
                for x in run {
                    idx[fast] = base.advance(x);
                    point.at(idx, false);
                }
            }
        }
    });
}

/// What [`walk`] does at one point; `proven` is true only for points of the launch's proven box.
trait Point<A> {
    fn at(&mut self, index: A, proven: bool);
}

/// A `parallel_for` kernel at one point.
struct ForPoint<'a, K>(&'a K);

impl<I: IndexType, const R: usize, K> Point<[I; R]> for ForPoint<'_, K>
where
    [I; R]: IndexTuple<I>,
    K: ForKernel<<[I; R] as IndexTuple<I>>::Tuple>,
{
    #[inline(always)]
    fn at(&mut self, idx: [I; R], proven: bool) {
        if proven {
            // SAFETY: `walk` passes `proven` only for points of the box where the launch proved
            // the body's accesses in bounds (`proven_box`).
            unsafe { self.0.apply_in_bounds(idx.to_tuple()) }
        } else {
            self.0.apply(idx.to_tuple())
        }
    }
}

/// A `parallel_reduce` kernel at one point, into `acc`.
struct ReducePoint<'a, K, V>(&'a K, &'a mut V);

impl<I: IndexType, const R: usize, V, K> Point<[I; R]> for ReducePoint<'_, K, V>
where
    [I; R]: IndexTuple<I>,
    K: ReduceKernel<<[I; R] as IndexTuple<I>>::Tuple, V>,
{
    #[inline(always)]
    fn at(&mut self, idx: [I; R], proven: bool) {
        if proven {
            // SAFETY: as for `ForPoint`.
            unsafe { self.0.apply_in_bounds(idx.to_tuple(), self.1) }
        } else {
            self.0.apply(idx.to_tuple(), self.1)
        }
    }
}

/// Runs the points of tiles `tiles` of a multidimensional kernel.
#[inline(never)]
fn for_tiles<I: IndexType, const R: usize, K>(kernel: &K, grid: &TileGrid<I, R>, tiles: Range<u64>)
where
    [I; R]: IndexTuple<I>,
    K: ForKernel<<[I; R] as IndexTuple<I>>::Tuple>,
{
    let inside = kernel.proven_box();
    if grid.last_fastest() {
        walk::<I, R, true>(grid, tiles, inside, ForPoint(kernel))
    } else {
        walk::<I, R, false>(grid, tiles, inside, ForPoint(kernel))
    }
}

/// Runs the points of tiles `tiles` of a multidimensional reduction into `acc`.
#[inline(never)]
fn reduce_tiles<I: IndexType, const R: usize, V, K>(
    kernel: &K,
    grid: &TileGrid<I, R>,
    tiles: Range<u64>,
    acc: &mut V,
) where
    [I; R]: IndexTuple<I>,
    K: ReduceKernel<<[I; R] as IndexTuple<I>>::Tuple, V>,
{
    let inside = kernel.proven_box();
    if grid.last_fastest() {
        walk::<I, R, true>(grid, tiles, inside, ReducePoint(kernel, acc))
    } else {
        walk::<I, R, false>(grid, tiles, inside, ReducePoint(kernel, acc))
    }
}

impl<S, const R: usize, I> MDRangePolicy<S, R, I>
where
    S: HostExecutionSpace,
    I: IndexType,
    [I; R]: IndexTuple<I>,
{
    fn work(&self, tiles: u64) -> Work {
        Work::new(tiles, Schedule::Static, None, self.space().concurrency())
    }

    /// The iteration box, per dimension `[lower, upper)`, the box [`TileGrid::visit`] walks.
    fn launch_box(&self) -> [(i128, i128); R] {
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
    // A finalize asked for inside the kernel happens once this launch has returned.
    let _deferred = crate::runtime::DeferredFinalize;
    {
        let this = policy;
        let grid = this.grid();
        let what = describe("parallel_for", label, S::NAME);
        profiled(
            Pattern::For,
            tool_site(this.space()),
            label,
            type_name::<K>(),
            || {
                kernel.with_body_over(
                    &what,
                    &this.launch_box(),
                    I::BITS,
                    |kernel| {
                        let body = |tiles: Range<u64>| for_tiles(kernel, &grid, tiles);
                        run_for(this.space(), &what, this.work(grid.count), &body)
                    },
                    Token::new(),
                )
            },
        )?
    }
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
    // A finalize asked for inside the kernel happens once this launch has returned.
    let _deferred = crate::runtime::DeferredFinalize;
    {
        let this = policy;
        let (reducer, sink) = target.split();
        T::check(&sink)?;
        let grid = this.grid();
        let what = describe("parallel_reduce", label, S::NAME);
        let value = profiled(
            Pattern::Reduce,
            tool_site(this.space()),
            label,
            type_name::<K>(),
            || {
                kernel.with_body_over(
                    &what,
                    &this.launch_box(),
                    I::BITS,
                    |kernel| {
                        let body = |tiles: Range<u64>, acc: &mut <T::Reducer as Reducer>::Value| {
                            reduce_tiles(kernel, &grid, tiles, acc)
                        };
                        run_reduce(this.space(), &what, this.work(grid.count), &reducer, &body)
                    },
                    Token::new(),
                )
            },
        )??;
        T::deliver(sink, value)
    }
}
