//! Cuda's launch seams for Range and MDRange policies: each calls the GPU runtime's pattern
//! (`backend/gpu/patterns.rs`) with the policy (TeamPolicy's seam is in `team.rs`).

use super::instance::Cuda;
use crate::backend::gpu::patterns;
use crate::dispatch::{Job, Request};
use crate::error::Result;
use crate::policy::{IndexTuple, IndexType, MDRangePolicy, RangePolicy};

impl crate::seal::Sealed for Cuda {}

impl crate::dispatch::LaunchRange for Cuda {
    fn launch_range_for<I: crate::policy::IndexType, K: crate::dispatch::ForFunctor<I>>(
        policy: RangePolicy<Self, I>,
        label: &str,
        kernel: K,
    ) -> Result<()> {
        patterns::range_for(policy, label, kernel)
    }

    fn launch_range_reduce<I, K, T>(
        policy: RangePolicy<Self, I>,
        label: &str,
        kernel: K,
        target: T,
    ) -> Result<T::Output>
    where
        I: crate::policy::IndexType,
        T: crate::reducer::ReduceTarget,
        K: crate::dispatch::ReduceFunctor<I, <T::Reducer as crate::reducer::Reducer>::Value>,
    {
        patterns::range_reduce(policy, label, kernel, target)
    }

    fn launch_range_scan<I, K, Rd>(
        policy: RangePolicy<Self, I>,
        label: &str,
        kernel: K,
        reducer: Rd,
    ) -> Result<Rd::Value>
    where
        I: crate::policy::IndexType,
        Rd: crate::reducer::Reducer,
        K: crate::dispatch::ScanFunctor<I, Rd::Value>,
    {
        patterns::range_scan(policy, label, kernel, reducer)
    }

    fn prepare_range<I: IndexType>(
        policy: &RangePolicy<Self, I>,
        request: Request<'_>,
    ) -> Result<Option<Job>> {
        patterns::prepare_range(policy, request)
    }
}

impl crate::dispatch::LaunchMDRange for Cuda {
    fn launch_md_for<const R: usize, I, K>(
        policy: MDRangePolicy<Self, R, I>,
        label: &str,
        kernel: K,
    ) -> Result<()>
    where
        I: crate::policy::IndexType,
        [I; R]: crate::policy::IndexTuple<I>,
        K: crate::dispatch::ForFunctor<<[I; R] as crate::policy::IndexTuple<I>>::Tuple>,
    {
        patterns::md_for(policy, label, kernel)
    }

    fn launch_md_reduce<const R: usize, I, K, T>(
        policy: MDRangePolicy<Self, R, I>,
        label: &str,
        kernel: K,
        target: T,
    ) -> Result<T::Output>
    where
        I: crate::policy::IndexType,
        [I; R]: crate::policy::IndexTuple<I>,
        T: crate::reducer::ReduceTarget,
        K: crate::dispatch::ReduceFunctor<
                <[I; R] as crate::policy::IndexTuple<I>>::Tuple,
                <T::Reducer as crate::reducer::Reducer>::Value,
            >,
    {
        patterns::md_reduce(policy, label, kernel, target)
    }

    fn prepare_md<const R: usize, I>(
        policy: &MDRangePolicy<Self, R, I>,
        request: Request<'_>,
    ) -> Result<Option<Job>>
    where
        I: IndexType,
        [I; R]: IndexTuple<I>,
    {
        patterns::prepare_md(policy, request)
    }
}
