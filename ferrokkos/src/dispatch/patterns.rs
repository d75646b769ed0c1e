//! The three patterns on host policies: `RangePolicy` and `MDRangePolicy` over Serial and Threads.

use std::any::type_name;
use std::ops::Range;

use super::functor::{ForFunctor, ReduceFunctor, ScanFunctor};
use super::host::HostExecutionSpace;
use super::kernel::{ForKernel, ReduceKernel, ScanKernel};
use super::reach::ReachesSpace;
use super::run::{run_for, run_reduce, run_scan};
use super::work::Work;
use super::{ParallelFor, ParallelReduce, ParallelScan};
use crate::error::Result;
use crate::kernel::seal::Token;
use crate::policy::{IndexTuple, IndexType, MDRangePolicy, RangePolicy, Schedule, TileGrid};
use crate::reducer::{ReduceTarget, Reducer};
use crate::space::ExecutionSpace;
use crate::tools::{Pattern, profiled};

// The loops below sit in functions that take the kernel as `&K` and are never inlined: a shared
// reference parameter tells the compiler that the kernel's captures do not change during the loop, so it
// keeps pointers and extents captured by value (`move` closures) in registers instead of reloading them
// after every store, and it can then vectorize the loop, with its bounds checks hoisted. (Inlining
// would drop that knowledge: rustc's MIR inliner does not keep the parameter's `noalias`.) The call
// costs a few nanoseconds per chunk, not per iteration.

/// Runs iterations `items` (counted from `begin`) of a range kernel.
#[inline(never)]
fn for_range<I: IndexType, K: ForKernel<I>>(kernel: &K, begin: I, items: Range<u64>) {
    for k in items {
        kernel.apply(begin.advance(k));
    }
}

/// Runs iterations `items` of a range reduction into `acc`.
#[inline(never)]
fn reduce_range<I: IndexType, V, K: ReduceKernel<I, V>>(
    kernel: &K,
    begin: I,
    items: Range<u64>,
    acc: &mut V,
) {
    for k in items {
        kernel.apply(begin.advance(k), acc);
    }
}

/// Runs iterations `items` of one scan pass.
#[inline(never)]
fn scan_range<I: IndexType, V, K: ScanKernel<I, V>>(
    kernel: &K,
    begin: I,
    items: Range<u64>,
    partial: &mut V,
    is_final: bool,
) {
    for k in items {
        kernel.apply(begin.advance(k), partial, is_final);
    }
}

/// Runs the points of tiles `tiles` of a multidimensional kernel.
#[inline(never)]
fn for_tiles<I: IndexType, const R: usize, K>(kernel: &K, grid: &TileGrid<I, R>, tiles: Range<u64>)
where
    [I; R]: IndexTuple<I>,
    K: ForKernel<<[I; R] as IndexTuple<I>>::Tuple>,
{
    grid.visit(tiles, |idx| kernel.apply(idx.to_tuple()));
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
    grid.visit(tiles, |idx| kernel.apply(idx.to_tuple(), acc));
}

/// Describes a launch for error messages: `parallel_for "label" on Threads`.
fn describe<'a>(pattern: &'a str, label: &'a str, space: &'a str) -> impl Fn() -> String + 'a {
    move || format!("{pattern} \"{label}\" on {space}")
}

impl<S: HostExecutionSpace, I: IndexType> RangePolicy<S, I> {
    fn work(&self) -> Work {
        Work::new(
            self.len(),
            self.get_schedule(),
            self.chunk(),
            self.space().concurrency(),
        )
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
}

impl<S, I, K> ParallelFor<K> for RangePolicy<S, I>
where
    S: ExecutionSpace,
    I: IndexType,
    K: ForFunctor<I>,
    K::Reach: ReachesSpace<S::Kind>,
{
    fn launch_for(self, label: &str, kernel: K) -> Result<()> {
        S::launch_range_for(self, label, kernel)
    }
}

impl<S, I, K, T> ParallelReduce<K, T> for RangePolicy<S, I>
where
    S: ExecutionSpace,
    I: IndexType,
    T: ReduceTarget,
    K: ReduceFunctor<I, <T::Reducer as Reducer>::Value>,
    K::Reach: ReachesSpace<S::Kind>,
{
    fn launch_reduce(self, label: &str, kernel: K, target: T) -> Result<T::Output> {
        S::launch_range_reduce(self, label, kernel, target)
    }
}

impl<S, I, K, Rd> ParallelScan<K, Rd> for RangePolicy<S, I>
where
    S: ExecutionSpace,
    I: IndexType,
    Rd: Reducer,
    K: ScanFunctor<I, Rd::Value>,
    K::Reach: ReachesSpace<S::Kind>,
{
    fn launch_scan(self, label: &str, kernel: K, reducer: Rd) -> Result<Rd::Value> {
        S::launch_range_scan(self, label, kernel, reducer)
    }
}

impl<S, const R: usize, I, K> ParallelFor<K> for MDRangePolicy<S, R, I>
where
    S: ExecutionSpace,
    I: IndexType,
    [I; R]: IndexTuple<I>,
    K: ForFunctor<<[I; R] as IndexTuple<I>>::Tuple>,
    K::Reach: ReachesSpace<S::Kind>,
{
    fn launch_for(self, label: &str, kernel: K) -> Result<()> {
        S::launch_md_for(self, label, kernel)
    }
}

impl<S, const R: usize, I, K, T> ParallelReduce<K, T> for MDRangePolicy<S, R, I>
where
    S: ExecutionSpace,
    I: IndexType,
    [I; R]: IndexTuple<I>,
    T: ReduceTarget,
    K: ReduceFunctor<<[I; R] as IndexTuple<I>>::Tuple, <T::Reducer as Reducer>::Value>,
    K::Reach: ReachesSpace<S::Kind>,
{
    fn launch_reduce(self, label: &str, kernel: K, target: T) -> Result<T::Output> {
        S::launch_md_reduce(self, label, kernel, target)
    }
}

/// `parallel_for` over a range on a host space.
pub(crate) fn host_range_for<S, I, K>(
    policy: RangePolicy<S, I>,
    label: &str,
    kernel: K,
) -> Result<()>
where
    S: HostExecutionSpace,
    I: IndexType,
    K: ForFunctor<I>,
{
    // A finalize asked for inside the kernel happens once this launch has returned.
    let _deferred = crate::runtime::DeferredFinalize;
    {
        let this = policy;
        let begin = this.begin();
        let what = describe("parallel_for", label, S::NAME);
        profiled(Pattern::For, this.space(), label, type_name::<K>(), || {
            kernel.with_body(
                &what,
                |kernel| {
                    let body = |items: Range<u64>| for_range(kernel, begin, items);
                    run_for(this.space(), &what, this.work(), &body)
                },
                Token::new(),
            )
        })?
    }
}

/// `parallel_reduce` over a range on a host space.
pub(crate) fn host_range_reduce<S, I, K, T>(
    policy: RangePolicy<S, I>,
    label: &str,
    kernel: K,
    target: T,
) -> Result<T::Output>
where
    S: HostExecutionSpace,
    I: IndexType,
    T: ReduceTarget,
    K: ReduceFunctor<I, <T::Reducer as Reducer>::Value>,
{
    // A finalize asked for inside the kernel happens once this launch has returned.
    let _deferred = crate::runtime::DeferredFinalize;
    {
        let this = policy;
        let (reducer, sink) = target.split();
        T::check(&sink)?;
        let begin = this.begin();
        let what = describe("parallel_reduce", label, S::NAME);
        let value = profiled(
            Pattern::Reduce,
            this.space(),
            label,
            type_name::<K>(),
            || {
                kernel.with_body(
                    &what,
                    |kernel| {
                        let body = |items: Range<u64>, acc: &mut <T::Reducer as Reducer>::Value| {
                            reduce_range(kernel, begin, items, acc)
                        };
                        run_reduce(this.space(), &what, this.work(), &reducer, &body)
                    },
                    Token::new(),
                )
            },
        )??;
        T::deliver(sink, value)
    }
}

/// `parallel_scan` over a range on a host space.
pub(crate) fn host_range_scan<S, I, K, Rd>(
    policy: RangePolicy<S, I>,
    label: &str,
    kernel: K,
    reducer: Rd,
) -> Result<Rd::Value>
where
    S: HostExecutionSpace,
    I: IndexType,
    Rd: Reducer,
    K: ScanFunctor<I, Rd::Value>,
{
    // A finalize asked for inside the kernel happens once this launch has returned.
    let _deferred = crate::runtime::DeferredFinalize;
    {
        let this = policy;
        let begin = this.begin();
        let what = describe("parallel_scan", label, S::NAME);
        profiled(Pattern::Scan, this.space(), label, type_name::<K>(), || {
            kernel.with_body(
                &what,
                |kernel| {
                    let body = |items: Range<u64>, partial: &mut Rd::Value, is_final: bool| {
                        scan_range(kernel, begin, items, partial, is_final)
                    };
                    run_scan(
                        this.space(),
                        &what,
                        this.work(),
                        this.len(),
                        &reducer,
                        &body,
                    )
                },
                Token::new(),
            )
        })?
    }
}

/// `parallel_for` over a multidimensional range on a host space.
pub(crate) fn host_md_for<S, const R: usize, I, K>(
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
        profiled(Pattern::For, this.space(), label, type_name::<K>(), || {
            kernel.with_body(
                &what,
                |kernel| {
                    let body = |tiles: Range<u64>| for_tiles(kernel, &grid, tiles);
                    run_for(this.space(), &what, this.work(grid.count), &body)
                },
                Token::new(),
            )
        })?
    }
}

/// `parallel_reduce` over a multidimensional range on a host space.
pub(crate) fn host_md_reduce<S, const R: usize, I, K, T>(
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
            this.space(),
            label,
            type_name::<K>(),
            || {
                kernel.with_body(
                    &what,
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

/// The policy of Kokkos' `parallel_for(n, f)`: iterations `0..n` on the default instance of
/// [`crate::DefaultHostExecutionSpace`].
fn default_range(n: usize) -> Result<RangePolicy<crate::DefaultHostExecutionSpace>> {
    let space = <crate::DefaultHostExecutionSpace as crate::ExecutionSpace>::default_instance()?;
    RangePolicy::new(&space, 0, n)
}

/// `parallel_for(label, n, kernel)`: iterations `0..n` on the default host execution space.
impl<K> ParallelFor<K> for usize
where
    K: ForFunctor<usize>,
    K::Reach: ReachesSpace<super::HostKind>,
{
    fn launch_for(self, label: &str, kernel: K) -> Result<()> {
        default_range(self)?.launch_for(label, kernel)
    }
}

/// `parallel_reduce(label, n, kernel, target)`: iterations `0..n` on the default host execution space.
impl<K, T> ParallelReduce<K, T> for usize
where
    T: ReduceTarget,
    K: ReduceFunctor<usize, <T::Reducer as Reducer>::Value>,
    K::Reach: ReachesSpace<super::HostKind>,
{
    fn launch_reduce(self, label: &str, kernel: K, target: T) -> Result<T::Output> {
        default_range(self)?.launch_reduce(label, kernel, target)
    }
}

/// `parallel_scan(label, n, kernel)`: iterations `0..n` on the default host execution space.
impl<K, Rd> ParallelScan<K, Rd> for usize
where
    Rd: Reducer,
    K: ScanFunctor<usize, Rd::Value>,
    K::Reach: ReachesSpace<super::HostKind>,
{
    fn launch_scan(self, label: &str, kernel: K, reducer: Rd) -> Result<Rd::Value> {
        default_range(self)?.launch_scan(label, kernel, reducer)
    }
}
