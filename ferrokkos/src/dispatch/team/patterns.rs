//! `TeamPolicy` runs a team kernel through its space's [`LaunchTeam`], after checking that the
//! kernel reaches the space; the policy's queries (`team_size_max`, ...) ask the same trait.

use super::functor::{TeamForFunctor, TeamReduceFunctor};
use crate::dispatch::launch::{LaunchTeam, TeamLimits};
use crate::dispatch::reach::ReachesSpace;
use crate::dispatch::{ParallelFor, ParallelReduce};
use crate::error::Result;
use crate::policy::TeamPolicy;
use crate::reducer::{ReduceTarget, Reducer};
use crate::seal::Token;

impl<S, K> ParallelFor<K> for TeamPolicy<S>
where
    S: LaunchTeam,
    K: TeamForFunctor,
    K::Reach: ReachesSpace<S::Kind>,
{
    fn launch_for(self, label: &str, kernel: K) -> Result<()> {
        kernel.check_team(
            self.league_size(),
            self.get_vector_length(),
            [self.scratch_request(0), self.scratch_request(1)],
            &|| describe("parallel_for", label),
            Token::new(),
        )?;
        S::launch_team_for(self, label, kernel)
    }
}

impl<S, K, T> ParallelReduce<K, T> for TeamPolicy<S>
where
    S: LaunchTeam,
    T: ReduceTarget,
    K: TeamReduceFunctor<<T::Reducer as Reducer>::Value>,
    K::Reach: ReachesSpace<S::Kind>,
{
    fn launch_reduce(self, label: &str, kernel: K, target: T) -> Result<T::Output> {
        kernel.check_team(
            self.league_size(),
            self.get_vector_length(),
            [self.scratch_request(0), self.scratch_request(1)],
            &|| describe("parallel_reduce", label),
            Token::new(),
        )?;
        S::launch_team_reduce(self, label, kernel, target)
    }
}

/// Names a team launch in errors.
fn describe(pattern: &str, label: &str) -> String {
    format!("{pattern} \"{label}\" over a TeamPolicy")
}

impl<S: LaunchTeam> TeamPolicy<S> {
    /// What the space gives a team of this policy (the same for every kernel on the host spaces).
    pub fn limits(&self) -> Result<TeamLimits> {
        S::team_limits(self, None)
    }

    /// The largest team size a kernel can have with this policy (Kokkos' `team_size_max`).
    pub fn team_size_max(&self) -> Result<usize> {
        Ok(self.limits()?.team_size_max)
    }

    /// The team size [`crate::AUTO`] gives (Kokkos' `team_size_recommended`).
    pub fn team_size_recommended(&self) -> Result<usize> {
        Ok(self.limits()?.team_size_recommended)
    }

    /// What the space gives a team of this policy running `kernel` as a `parallel_for` (Kokkos'
    /// queries with a functor and `ParallelForTag`): on Cuda the compiled kernel's own limit of
    /// threads per block (its registers), which compiles it if it is not yet; on the host spaces
    /// the same as [`TeamPolicy::limits`].
    pub fn limits_for<K: TeamForFunctor>(&self, kernel: &K) -> Result<TeamLimits> {
        S::team_limits(self, kernel.device_kernel(Token::new()))
    }

    /// The largest team size `kernel` can have with this policy (Kokkos'
    /// `team_size_max(functor, ParallelForTag())`).
    pub fn team_size_max_for<K: TeamForFunctor>(&self, kernel: &K) -> Result<usize> {
        Ok(self.limits_for(kernel)?.team_size_max)
    }

    /// The team size [`crate::AUTO`] gives `kernel` (Kokkos'
    /// `team_size_recommended(functor, ParallelForTag())`).
    pub fn team_size_recommended_for<K: TeamForFunctor>(&self, kernel: &K) -> Result<usize> {
        Ok(self.limits_for(kernel)?.team_size_recommended)
    }
}
