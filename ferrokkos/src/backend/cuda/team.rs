//! `TeamPolicy` on [`Cuda`]: the [`LaunchTeam`] seam, which calls the GPU runtime's team launches
//! (`backend/gpu/team/launch.rs`, where the mapping of teams to blocks is described).

#[cfg(test)]
mod codegen_tests;
#[cfg(test)]
mod collective_tests;
#[cfg(test)]
mod scratch_tests;
#[cfg(test)]
mod test_kernels;

use super::instance::Cuda;
use crate::backend::gpu::team::launch as team;
#[cfg(test)]
use crate::backend::gpu::team::launch::league_writer;
#[cfg(test)]
use crate::backend::gpu::team::{scratch::ScratchLayout, shape::TeamShape};
use crate::dispatch::{LaunchTeam, TeamForFunctor, TeamLimits, TeamReduceFunctor};
use crate::error::Result;
use crate::kernel::DeviceKernel;
use crate::policy::TeamPolicy;
use crate::reducer::{ReduceTarget, Reducer};

impl LaunchTeam for Cuda {
    fn team_limits(
        policy: &TeamPolicy<Self>,
        kernel: Option<&dyn DeviceKernel>,
    ) -> Result<TeamLimits> {
        team::team_limits(policy, kernel)
    }

    fn launch_team_for<K: TeamForFunctor>(
        policy: TeamPolicy<Self>,
        label: &str,
        kernel: K,
    ) -> Result<()> {
        team::team_for(policy, label, kernel)
    }

    fn launch_team_reduce<K, T>(
        policy: TeamPolicy<Self>,
        label: &str,
        kernel: K,
        target: T,
    ) -> Result<T::Output>
    where
        T: ReduceTarget,
        K: TeamReduceFunctor<<T::Reducer as Reducer>::Value>,
    {
        team::team_reduce(policy, label, kernel, target)
    }
}
