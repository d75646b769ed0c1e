//! Which execution spaces a functor can run on, as types, so that launching a host-only functor
//! (a closure, a functor struct) on the GPU is a compile error, while a `kernel!` runs on every
//! space, also in code generic over the space.

mod sealed {
    pub trait Sealed {}
    impl Sealed for super::HostOnly {}
    impl Sealed for super::Everywhere {}
    impl Sealed for super::HostKind {}
    impl Sealed for super::DeviceKind {}
}

/// The reach of a functor: [`HostOnly`] or [`Everywhere`] (the `Reach` of the functor traits).
/// Every functor runs on host spaces, which is why this implies `ReachesSpace<HostKind>` (so code
/// generic over a functor needs no bound for host launches).
pub trait Reach: sealed::Sealed + ReachesSpace<HostKind> {}

/// Functors that run only on host spaces: closures and functor structs (Rust code only).
#[derive(Debug, Clone, Copy)]
pub struct HostOnly;

/// Functors that run on every space: kernels from `kernel!`, which carry a device translation.
#[derive(Debug, Clone, Copy)]
pub struct Everywhere;

impl Reach for HostOnly {}
impl Reach for Everywhere {}

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

/// Whether functors of this reach run on spaces of kind `K`.
#[diagnostic::on_unimplemented(
    message = "this functor runs only on host spaces, not on a GPU space",
    label = "a closure or functor struct, which has no device translation",
    note = "write the kernel with `kernel!(|i| ...)`: it runs on every space"
)]
pub trait ReachesSpace<K: SpaceKind> {}

impl<K: SpaceKind> ReachesSpace<K> for Everywhere {}
impl ReachesSpace<HostKind> for HostOnly {}
