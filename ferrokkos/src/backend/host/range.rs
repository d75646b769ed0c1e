//! `RangePolicy` on the host spaces: the [`LaunchRange`] entry points of Serial and Threads, and
//! Kokkos' short form `parallel_for(n, f)` on the default host space.

use std::any::type_name;
use std::ops::Range;

use super::isa::wide_or_plain;
use super::point::{CHUNK, ForPoint, ReducePoint, chunked, each_run, part_in};
use super::run::{describe, run_for, run_reduce, run_scan};
use super::work::Work;
use crate::dispatch::{
    ForFunctor, ForKernel, HostExecutionSpace, LaunchRange, ParallelFor, ParallelReduce,
    ParallelScan, ReachesSpace, ReduceFunctor, ReduceKernel, ScanFunctor, ScanKernel,
};
use crate::error::Result;
use crate::policy::{IndexType, RangePolicy};
use crate::reducer::{ReduceTarget, Reducer};
use crate::seal::Token;
use crate::space::tool_site;
use crate::space::{ExecutionSpace, HostKind};
use crate::tools::{Pattern, profiled};

// The loops below sit in functions that take the kernel as `&K` and are never inlined: a shared
// reference parameter tells the compiler that the kernel's captures do not change during the loop, so it
// keeps pointers and extents captured by value (`move` closures) in registers instead of reloading them
// after every store, and it can then vectorize the loop, with its bounds checks hoisted. (Inlining
// would drop that knowledge: rustc's MIR inliner does not keep the parameter's `noalias`.) The call
// costs a few nanoseconds per chunk, not per iteration. Each loop is compiled twice, for the build's
// target and with AVX2 and FMA, and runs the copy the CPU can (`wide_or_plain!`, in `isa.rs`).

wide_or_plain! {
    /// Runs iterations `items` (counted from `begin`) of a range kernel.
    fn for_range[I: IndexType, K: ForKernel<I>](kernel: &K, begin: I, items: Range<u64>) {
        let inside = proven_part(&items, begin, kernel.proven_box());
        each_run(items, inside, &mut ForPoint(kernel), |k| begin.advance(k));
    }
}

/// The items of `items` (counted from `begin`) whose index lies in the launch's proven box
/// (`proven`, one coordinate); empty without one.
#[inline(always)]
fn proven_part<I: IndexType>(
    items: &Range<u64>,
    begin: I,
    proven: Option<&[(i128, i128)]>,
) -> Range<u64> {
    match proven {
        Some(&[bounds]) => part_in(items, begin.to_i128(), bounds),
        _ => items.end..items.end,
    }
}

wide_or_plain! {
    /// Runs iterations `items` of a range reduction into `acc`; unless `in_order`, the proven runs
    /// go in chunks where the values are small (see `ReducePoint`).
    fn reduce_range[I: IndexType, Rd: Reducer, K: ReduceKernel<I, Rd::Value>](
        kernel: &K,
        reducer: &Rd,
        in_order: bool,
        begin: I,
        items: Range<u64>,
        acc: &mut Rd::Value,
    ) {
        let inside = proven_part(&items, begin, kernel.proven_box());
        if !in_order && chunked::<Rd::Value>() {
            let mut point = ReducePoint::<_, _, CHUNK>::new(kernel, reducer, acc);
            each_run(items, inside, &mut point, |k| begin.advance(k));
        } else {
            let mut point = ReducePoint::<_, _, 0>::new(kernel, reducer, acc);
            each_run(items, inside, &mut point, |k| begin.advance(k));
        }
    }
}

wide_or_plain! {
    /// Runs iterations `items` of one scan pass.
    fn scan_range[I: IndexType, V, K: ScanKernel<I, V>](
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

impl<S: HostExecutionSpace> LaunchRange for S {
    fn launch_range_for<I: IndexType, K: ForFunctor<I>>(
        policy: RangePolicy<Self, I>,
        label: &str,
        kernel: K,
    ) -> Result<()> {
        host_range_for(policy, label, kernel)
    }

    fn launch_range_reduce<I, K, T>(
        policy: RangePolicy<Self, I>,
        label: &str,
        kernel: K,
        target: T,
    ) -> Result<T::Output>
    where
        I: IndexType,
        T: ReduceTarget,
        K: ReduceFunctor<I, <T::Reducer as Reducer>::Value>,
    {
        host_range_reduce(policy, label, kernel, target)
    }

    fn launch_range_scan<I, K, Rd>(
        policy: RangePolicy<Self, I>,
        label: &str,
        kernel: K,
        reducer: Rd,
    ) -> Result<Rd::Value>
    where
        I: IndexType,
        Rd: Reducer,
        K: ScanFunctor<I, Rd::Value>,
    {
        host_range_scan(policy, label, kernel, reducer)
    }
}

/// What the host drivers ask of a range or multidimensional policy besides its work: its space
/// and its iteration box (which a `kernel!` may be proven in bounds over).
pub(super) trait HostPolicy {
    /// The host space the launch runs on.
    type Space: HostExecutionSpace;
    /// The iteration box, `[lower, upper)` per dimension.
    type Bounds: AsRef<[(i128, i128)]>;
    /// The bits of the index type.
    const BITS: u32;
    /// The instance the launch runs on.
    fn space(&self) -> &Self::Space;
    /// The iteration box.
    fn bounds(&self) -> Self::Bounds;
}

impl<S: HostExecutionSpace, I: IndexType> HostPolicy for RangePolicy<S, I> {
    type Space = S;
    type Bounds = [(i128, i128); 1];
    const BITS: u32 = I::BITS;
    #[inline(always)]
    fn space(&self) -> &S {
        RangePolicy::space(self)
    }
    #[inline(always)]
    fn bounds(&self) -> [(i128, i128); 1] {
        [(self.begin().to_i128(), self.end().to_i128())]
    }
}

/// A host `parallel_for` over `policy` (a range or a multidimensional one): the deferred finalize,
/// the tools' profiling and the lending of the body; `run` runs the body over the launch's work.
/// Written once for both policies, and generic to the end: it adds no allocation, `dyn` call or
/// lock to a launch (the description is formatted only for an error).
#[inline(always)]
pub(super) fn host_for<P: HostPolicy, A, K: ForFunctor<A>>(
    policy: P,
    label: &str,
    kernel: K,
    run: impl FnOnce(&P, &K::Body, &dyn Fn() -> String) -> Result<()>,
) -> Result<()> {
    // A finalize asked for inside the kernel happens once this launch has returned.
    let _deferred = crate::runtime::DeferredFinalize;
    {
        let this = policy;
        let what = describe("parallel_for", label, P::Space::NAME);
        profiled(
            Pattern::For,
            tool_site(this.space()),
            label,
            type_name::<K>(),
            || {
                kernel.with_body_over(
                    &what,
                    this.bounds().as_ref(),
                    P::BITS,
                    |body| run(&this, body, &what),
                    Token::new(),
                )
            },
        )?
    }
}

/// A host `parallel_reduce` over `policy` into `target`, as [`host_for`]: `run` reduces the body
/// over the launch's work with the target's reducer.
#[inline(always)]
pub(super) fn host_reduce<P, A, K, T>(
    policy: P,
    label: &str,
    kernel: K,
    target: T,
    run: impl FnOnce(
        &P,
        &K::Body,
        &T::Reducer,
        &dyn Fn() -> String,
    ) -> Result<<T::Reducer as Reducer>::Value>,
) -> Result<T::Output>
where
    P: HostPolicy,
    T: ReduceTarget,
    K: ReduceFunctor<A, <T::Reducer as Reducer>::Value>,
{
    // A finalize asked for inside the kernel happens once this launch has returned.
    let _deferred = crate::runtime::DeferredFinalize;
    {
        let this = policy;
        let (reducer, sink) = target.split();
        T::check(&sink)?;
        let what = describe("parallel_reduce", label, P::Space::NAME);
        let value = profiled(
            Pattern::Reduce,
            tool_site(this.space()),
            label,
            type_name::<K>(),
            || {
                kernel.with_body_over(
                    &what,
                    this.bounds().as_ref(),
                    P::BITS,
                    |body| run(&this, body, &reducer, &what),
                    Token::new(),
                )
            },
        )??;
        T::deliver(sink, value)
    }
}

/// `parallel_for` over a range on a host space.
fn host_range_for<S, I, K>(policy: RangePolicy<S, I>, label: &str, kernel: K) -> Result<()>
where
    S: HostExecutionSpace,
    I: IndexType,
    K: ForFunctor<I>,
{
    host_for(policy, label, kernel, |this, kernel, what| {
        let begin = this.begin();
        // Localized per run of items, on the thread that runs them (see `ForKernel::with_local`),
        // outside the loop's function so that its `&K` parameter keeps its no-alias promise.
        let body = |items: Range<u64>| kernel.with_local(|k| for_range(k, begin, items));
        run_for(this.space(), what, this.work(), &body)
    })
}

/// `parallel_reduce` over a range on a host space.
fn host_range_reduce<S, I, K, T>(
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
    host_reduce(
        policy,
        label,
        kernel,
        target,
        |this, kernel, reducer, what| {
            let begin = this.begin();
            let body = |items: Range<u64>, acc: &mut <T::Reducer as Reducer>::Value| {
                kernel.with_local(|k| {
                    reduce_range(k, reducer, S::IN_ORDER_REDUCTIONS, begin, items, acc)
                })
            };
            run_reduce(this.space(), what, this.work(), reducer, &body)
        },
    )
}

/// `parallel_scan` over a range on a host space.
fn host_range_scan<S, I, K, Rd>(
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
        profiled(
            Pattern::Scan,
            tool_site(this.space()),
            label,
            type_name::<K>(),
            || {
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
            },
        )?
    }
}

/// The policy of Kokkos' `parallel_for(n, f)`: iterations `0..n` on the default instance of
/// [`crate::DefaultHostExecutionSpace`].
fn default_range(n: usize) -> Result<RangePolicy<super::DefaultHostExecutionSpace>> {
    let space = <super::DefaultHostExecutionSpace as ExecutionSpace>::default_instance()?;
    RangePolicy::new(&space, 0, n)
}

/// `parallel_for(label, n, kernel)`: iterations `0..n` on the default host execution space.
impl<K> ParallelFor<K> for usize
where
    K: ForFunctor<usize>,
    K::Reach: ReachesSpace<HostKind>,
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
    K::Reach: ReachesSpace<HostKind>,
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
    K::Reach: ReachesSpace<HostKind>,
{
    fn launch_scan(self, label: &str, kernel: K, reducer: Rd) -> Result<Rd::Value> {
        default_range(self)?.launch_scan(label, kernel, reducer)
    }
}
