//! The kind of an execution space: whether its work runs as Rust on host threads or as device code.

mod sealed {
    /// The seal of [`super::SpaceKind`].
    #[diagnostic::on_unimplemented(
        message = "`SpaceKind` is sealed: an execution space's kind is `HostKind` or `DeviceKind`",
        label = "`{Self}` cannot be the kind of an execution space",
        note = "the kind says whether a space runs Rust on host threads (`HostKind`) or device \
                code (`DeviceKind`); which functors a space runs follows from it"
    )]
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
