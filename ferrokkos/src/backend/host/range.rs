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

/// `parallel_for` over a range on a host space.
fn host_range_for<S, I, K>(policy: RangePolicy<S, I>, label: &str, kernel: K) -> Result<()>
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
        profiled(
            Pattern::For,
            tool_site(this.space()),
            label,
            type_name::<K>(),
            || {
                kernel.with_body_over(
                    &what,
                    &[(begin.to_i128(), this.end().to_i128())],
                    I::BITS,
                    |kernel| {
                        let body = |items: Range<u64>| for_range(kernel, begin, items);
                        run_for(this.space(), &what, this.work(), &body)
                    },
                    Token::new(),
                )
            },
        )?
    }
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
            tool_site(this.space()),
            label,
            type_name::<K>(),
            || {
                kernel.with_body_over(
                    &what,
                    &[(begin.to_i128(), this.end().to_i128())],
                    I::BITS,
                    |kernel| {
                        let body = |items: Range<u64>, acc: &mut <T::Reducer as Reducer>::Value| {
                            reduce_range(
                                kernel,
                                &reducer,
                                S::IN_ORDER_REDUCTIONS,
                                begin,
                                items,
                                acc,
                            )
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
