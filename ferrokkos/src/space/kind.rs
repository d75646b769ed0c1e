//! The kind of an execution space: whether its work runs as Rust on host threads or as device code.

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::HostKind {}
    impl Sealed for super::DeviceKind {}
}

/// The kind of an execution space (its `Kind`): [`HostKind`] or [`DeviceKind`].
pub trait SpaceKind: sealed::Sealed {}

/// Spaces whose work runs as Rust on host threads (Serial, Threads).
#[derive(Debug, Clone, Copy)]
pub struct HostKind;

/// Spaces whose work runs as device code (Cuda).
#[derive(Debug, Clone, Copy)]
pub struct DeviceKind;

impl SpaceKind for HostKind {}
impl SpaceKind for DeviceKind {}
