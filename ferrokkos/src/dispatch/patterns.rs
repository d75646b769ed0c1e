//! The patterns' policies: `RangePolicy` and `MDRangePolicy` run a kernel through their space's
//! launch trait ([`LaunchRange`], [`LaunchMDRange`]), after checking that the kernel reaches the
//! space.

use super::functor::{ForFunctor, ReduceFunctor, ScanFunctor};
use super::launch::{LaunchMDRange, LaunchRange};
use super::prepare::{Job, Request, RequestPattern};
use super::reach::ReachesSpace;
use super::{ParallelFor, ParallelReduce, ParallelScan};
use crate::error::Result;
use crate::policy::{IndexTuple, IndexType, MDRangePolicy, RangePolicy};
use crate::reducer::{ReduceTarget, Reducer};
use crate::seal::Token;
use crate::space::ExecutionSpace;

/// Names a launch in errors (`parallel_for "label" on Threads`).
fn launch_name<'a, S: ExecutionSpace>(
    pattern: &'a str,
    label: &'a str,
) -> impl Fn() -> String + 'a {
    move || format!("{pattern} \"{label}\" on {}", S::NAME)
}

/// The iteration box of a range, for the overlap checks.
fn range_box<S: ExecutionSpace, I: IndexType>(p: &RangePolicy<S, I>) -> [(i128, i128); 1] {
    [(p.begin().to_i128(), p.end().to_i128())]
}

/// The iteration box of a multidimensional range.
fn md_box<S: ExecutionSpace, const R: usize, I: IndexType>(
    p: &MDRangePolicy<S, R, I>,
) -> [(i128, i128); R]
where
    [I; R]: IndexTuple<I>,
{
    let (lo, hi) = (p.lower(), p.upper());
    std::array::from_fn(|d| (lo[d].to_i128(), hi[d].to_i128()))
}

impl<S, I, K> ParallelFor<K> for RangePolicy<S, I>
where
    S: LaunchRange,
    I: IndexType,
    K: ForFunctor<I>,
    K::Reach: ReachesSpace<S::Kind>,
{
    fn launch_for(self, label: &str, kernel: K) -> Result<()> {
        let what = launch_name::<S>("parallel_for", label);
        kernel.check_overlaps(&range_box(&self), I::BITS, &what, Token::new())?;
        S::launch_range_for(self, label, kernel)
    }

    fn prepare_for(&self, label: &str, kernel: &K, t: Token) -> Result<Option<Job>> {
        S::prepare_range(
            self,
            Request::new(label, kernel.device_kernel(t), RequestPattern::For),
        )
    }
}

impl<S, I, K, T> ParallelReduce<K, T> for RangePolicy<S, I>
where
    S: LaunchRange,
    I: IndexType,
    T: ReduceTarget,
    K: ReduceFunctor<I, <T::Reducer as Reducer>::Value>,
    K::Reach: ReachesSpace<S::Kind>,
{
    fn launch_reduce(self, label: &str, kernel: K, target: T) -> Result<T::Output> {
        let what = launch_name::<S>("parallel_reduce", label);
        kernel.check_overlaps(&range_box(&self), I::BITS, &what, Token::new())?;
        S::launch_range_reduce(self, label, kernel, target)
    }

    fn prepare_reduce(&self, label: &str, kernel: &K, t: Token) -> Result<Option<Job>> {
        let pattern = RequestPattern::reduce::<T::Reducer>();
        let request = Request::new(label, kernel.device_kernel(t), pattern);
        S::prepare_range(self, request)
    }
}

impl<S, I, K, Rd> ParallelScan<K, Rd> for RangePolicy<S, I>
where
    S: LaunchRange,
    I: IndexType,
    Rd: Reducer,
    K: ScanFunctor<I, Rd::Value>,
    K::Reach: ReachesSpace<S::Kind>,
{
    fn launch_scan(self, label: &str, kernel: K, reducer: Rd) -> Result<Rd::Value> {
        let what = launch_name::<S>("parallel_scan", label);
        kernel.check_overlaps(&range_box(&self), I::BITS, &what, Token::new())?;
        S::launch_range_scan(self, label, kernel, reducer)
    }

    fn prepare_scan(&self, label: &str, kernel: &K, t: Token) -> Result<Option<Job>> {
        let pattern = RequestPattern::scan::<Rd>();
        S::prepare_range(self, Request::new(label, kernel.device_kernel(t), pattern))
    }
}

impl<S, const R: usize, I, K> ParallelFor<K> for MDRangePolicy<S, R, I>
where
    S: LaunchMDRange,
    I: IndexType,
    [I; R]: IndexTuple<I>,
    K: ForFunctor<<[I; R] as IndexTuple<I>>::Tuple>,
    K::Reach: ReachesSpace<S::Kind>,
{
    fn launch_for(self, label: &str, kernel: K) -> Result<()> {
        let what = launch_name::<S>("parallel_for", label);
        kernel.check_overlaps(&md_box(&self), I::BITS, &what, Token::new())?;
        S::launch_md_for(self, label, kernel)
    }

    fn prepare_for(&self, label: &str, kernel: &K, t: Token) -> Result<Option<Job>> {
        S::prepare_md(
            self,
            Request::new(label, kernel.device_kernel(t), RequestPattern::For),
        )
    }
}

impl<S, const R: usize, I, K, T> ParallelReduce<K, T> for MDRangePolicy<S, R, I>
where
    S: LaunchMDRange,
    I: IndexType,
    [I; R]: IndexTuple<I>,
    T: ReduceTarget,
    K: ReduceFunctor<<[I; R] as IndexTuple<I>>::Tuple, <T::Reducer as Reducer>::Value>,
    K::Reach: ReachesSpace<S::Kind>,
{
    fn launch_reduce(self, label: &str, kernel: K, target: T) -> Result<T::Output> {
        let what = launch_name::<S>("parallel_reduce", label);
        kernel.check_overlaps(&md_box(&self), I::BITS, &what, Token::new())?;
        S::launch_md_reduce(self, label, kernel, target)
    }

    fn prepare_reduce(&self, label: &str, kernel: &K, t: Token) -> Result<Option<Job>> {
        let pattern = RequestPattern::reduce::<T::Reducer>();
        let request = Request::new(label, kernel.device_kernel(t), pattern);
        S::prepare_md(self, request)
    }
}
