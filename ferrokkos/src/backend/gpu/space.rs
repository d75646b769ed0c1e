//! [`GpuSpace`]: an execution space whose instances run on a GPU through this folder's runtime.
//! The generic patterns (`patterns.rs`, `team/launch.rs`) take its policies and graphs
//! (`graph.rs`) its instances; a backend's seams (`LaunchRange`, `LaunchMDRange`, `LaunchTeam`,
//! `GraphSpace`) call them.

use std::sync::Arc;

use super::driver::Driver;
use super::instance::Instance;
use crate::space::ExecutionSpace;

/// An execution space of a GPU backend.
pub(crate) trait GpuSpace: ExecutionSpace {
    /// The driver the space's instances use.
    type Driver: Driver;

    /// The instance's state.
    fn gpu_instance(&self) -> &Instance<Self::Driver>;

    /// The handle of the instance `inner` (a graph's recording instance).
    fn from_gpu_instance(inner: Arc<Instance<Self::Driver>>) -> Self;
}
