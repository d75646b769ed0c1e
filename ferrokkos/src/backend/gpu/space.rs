//! [`GpuSpace`]: an execution space whose instances run on a GPU through this folder's runtime.
//! The generic patterns (`patterns.rs`, `team/launch.rs`) take its policies; a backend's launch
//! seams (`LaunchRange`, `LaunchMDRange`, `LaunchTeam`) call them.

use super::driver::Driver;
use super::instance::Instance;
use crate::space::ExecutionSpace;

/// An execution space of a GPU backend.
pub(crate) trait GpuSpace: ExecutionSpace {
    /// The driver the space's instances use.
    type Driver: Driver;

    /// The instance's state.
    fn gpu_instance(&self) -> &Instance<Self::Driver>;
}
