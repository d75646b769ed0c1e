//! The generic concepts every backend implements: execution spaces (where code runs), memory spaces
//! (where data lives) and splitting an execution space into instances.

mod allocation;
mod copy;
mod execution;
pub(crate) mod host_space;
mod kind;
mod lend;
mod memory;
mod partition;
mod pending;
mod sort;

pub(crate) use allocation::Allocation;
pub(crate) use copy::{CopyExec, DeviceCopy, Elem, Side};
pub(crate) use execution::tool_site;
pub use execution::{DeviceType, ExecutionSpace, device_id, fence};
pub use kind::{DeviceKind, HostKind, SpaceKind};
pub use memory::{HostAccessible, Init, MemorySpace, MemoryStats};
pub(crate) use memory::{MemoryRecord, Release};
#[cfg_attr(not(feature = "cuda"), allow(unused_imports))] // used by the CUDA backend
pub(crate) use memory::{RawMemory, Reachable};
pub(crate) use partition::split_concurrency;
pub use partition::{partition_space, partition_space_with_weights};
pub(crate) use pending::Pending;
#[cfg(feature = "cuda")] // the CUDA backend's streams are the queues
pub(crate) use pending::WorkQueue;
pub(crate) use sort::{DeviceSort, KeyKind, SortKeys, SortPart};
