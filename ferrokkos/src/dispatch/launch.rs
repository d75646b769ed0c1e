//! The launch seams: one trait per policy kind, implemented by each backend (`backend/host/` and
//! `backend/cuda/`), and [`Launch`], which generic code names.
//!
//! A pattern ([`super::parallel_for`] ...) checks that its kernel reaches the policy's space and then
//! calls the space's entry point for that policy. A new policy kind adds a trait here and an
//! implementation per backend; a new backend implements each trait in its own folder.

use super::functor::{ForFunctor, ReduceFunctor, ScanFunctor};
use super::prepare::{Job, Request};
use super::team::{TeamForFunctor, TeamReduceFunctor};
use crate::error::Result;
use crate::policy::{IndexTuple, IndexType, MDRangePolicy, RangePolicy, TeamPolicy};
use crate::reducer::{ReduceTarget, Reducer};
use crate::seal::{SealedLaunchMDRange, SealedLaunchRange, SealedLaunchTeam};
use crate::space::ExecutionSpace;

/// An execution space that runs the patterns over a [`RangePolicy`]. Sealed: the backends
/// implement it.
pub trait LaunchRange: ExecutionSpace + SealedLaunchRange {
    /// Runs a `parallel_for` over a range (see [`crate::parallel_for`]).
    #[doc(hidden)]
    fn launch_range_for<I: IndexType, K: ForFunctor<I>>(
        policy: RangePolicy<Self, I>,
        label: &str,
        kernel: K,
    ) -> Result<()>;

    /// Runs a `parallel_reduce` over a range.
    #[doc(hidden)]
    fn launch_range_reduce<I, K, T>(
        policy: RangePolicy<Self, I>,
        label: &str,
        kernel: K,
        target: T,
    ) -> Result<T::Output>
    where
        I: IndexType,
        T: ReduceTarget,
        K: ReduceFunctor<I, <T::Reducer as Reducer>::Value>;

    /// Runs a `parallel_scan` over a range.
    #[doc(hidden)]
    fn launch_range_scan<I, K, Rd>(
        policy: RangePolicy<Self, I>,
        label: &str,
        kernel: K,
        reducer: Rd,
    ) -> Result<Rd::Value>
    where
        I: IndexType,
        Rd: Reducer,
        K: ScanFunctor<I, Rd::Value>;

    /// The compilation a launch over `policy` would do first, done ahead by [`super::Prepare`]
    /// (`None` where nothing is compiled: the host spaces).
    #[doc(hidden)]
    fn prepare_range<I: IndexType>(
        policy: &RangePolicy<Self, I>,
        request: Request<'_>,
    ) -> Result<Option<Job>> {
        let _ = (policy, request);
        Ok(None)
    }
}

/// An execution space that runs the patterns over an [`MDRangePolicy`]. Sealed: the backends
/// implement it.
pub trait LaunchMDRange: ExecutionSpace + SealedLaunchMDRange {
    /// Runs a `parallel_for` over a multidimensional range.
    #[doc(hidden)]
    fn launch_md_for<const R: usize, I, K>(
        policy: MDRangePolicy<Self, R, I>,
        label: &str,
        kernel: K,
    ) -> Result<()>
    where
        I: IndexType,
        [I; R]: IndexTuple<I>,
        K: ForFunctor<<[I; R] as IndexTuple<I>>::Tuple>;

    /// Runs a `parallel_reduce` over a multidimensional range.
    #[doc(hidden)]
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
        K: ReduceFunctor<<[I; R] as IndexTuple<I>>::Tuple, <T::Reducer as Reducer>::Value>;

    /// The compilation a launch over `policy` would do first (see [`LaunchRange::prepare_range`]).
    #[doc(hidden)]
    fn prepare_md<const R: usize, I>(
        policy: &MDRangePolicy<Self, R, I>,
        request: Request<'_>,
    ) -> Result<Option<Job>>
    where
        I: IndexType,
        [I; R]: IndexTuple<I>,
    {
        let _ = (policy, request);
        Ok(None)
    }
}

/// What a space gives a team of a [`TeamPolicy`] launch: the sizes [`AUTO`](crate::AUTO) resolves to
/// and the largest team a kernel can have.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TeamLimits {
    /// The largest team size (Kokkos' `team_size_max`).
    pub team_size_max: usize,
    /// The team size `AUTO` gives (Kokkos' `team_size_recommended`).
    pub team_size_recommended: usize,
    /// The largest vector length.
    pub vector_length_max: usize,
    /// The most scratch bytes a team can have at levels 0 and 1.
    pub scratch_max: [usize; 2],
}

/// An execution space that runs the patterns over a [`TeamPolicy`]. Sealed: the backends
/// implement it.
pub trait LaunchTeam: ExecutionSpace + SealedLaunchTeam {
    /// The limits of a team of `policy` on this instance (for the kernel whose device translation
    /// is `kernel`, where the space compiles one).
    #[doc(hidden)]
    fn team_limits(
        policy: &TeamPolicy<Self>,
        kernel: Option<&dyn crate::kernel::DeviceKernel>,
    ) -> Result<TeamLimits>;

    /// Runs a `parallel_for` over a league of teams.
    #[doc(hidden)]
    fn launch_team_for<K: TeamForFunctor>(
        policy: TeamPolicy<Self>,
        label: &str,
        kernel: K,
    ) -> Result<()>;

    /// Runs a `parallel_reduce` over a league of teams.
    #[doc(hidden)]
    fn launch_team_reduce<K, T>(
        policy: TeamPolicy<Self>,
        label: &str,
        kernel: K,
        target: T,
    ) -> Result<T::Output>
    where
        T: ReduceTarget,
        K: TeamReduceFunctor<<T::Reducer as Reducer>::Value>;
}

/// An execution space that runs every pattern over every policy: what code generic over the space
/// names (`fn axpy<E: Launch>(exec: &E, ..)`). Implemented for every space that implements each
/// policy's launch trait. Generic code launches `kernel!`s (closures run on host spaces only).
///
/// ```
/// use ferrokkos::prelude::*;
///
/// fn count<E: Launch>(exec: &E, n: usize) -> ferrokkos::Result<u64> {
///     parallel_reduce("count", RangePolicy::new(exec, 0, n)?, kernel!(|_i, acc: &mut u64| *acc += 1), Sum::new())
/// }
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// assert_eq!(count(&Serial::default_instance()?, 10)?, 10);
/// assert_eq!(count(&Threads::default_instance()?, 1000)?, 1000);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub trait Launch: LaunchRange + LaunchMDRange + LaunchTeam {}

impl<E: LaunchRange + LaunchMDRange + LaunchTeam> Launch for E {}
