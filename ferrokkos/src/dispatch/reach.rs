//! Which execution spaces a functor can run on, as types, so that launching a host-only functor
//! (a closure, a functor struct) on the GPU is a compile error, while a `kernel!` runs on every
//! space, also in code generic over the space.

use crate::space::{HostKind, SpaceKind};

mod sealed {
    /// The seal of [`super::Reach`].
    #[diagnostic::on_unimplemented(
        message = "`Reach` is sealed: a functor's reach is `HostOnly` or `Everywhere`",
        label = "`{Self}` cannot be a functor's reach",
        note = "only `kernel!`s, which carry a device translation, reach `Everywhere`; closures \
                and functor structs are `HostOnly`"
    )]
    pub trait Sealed {}
    impl Sealed for super::HostOnly {}
    impl Sealed for super::Everywhere {}
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

/// Whether functors of this reach run on spaces of kind `K`.
#[diagnostic::on_unimplemented(
    message = "this functor cannot be launched with this policy",
    label = "a closure or functor struct on a GPU space, or a kernel whose index type is not the policy's",
    note = "a GPU space runs only `kernel!`s (closures and functor structs run only on host spaces)",
    note = "a kernel's index must match the policy's index type: unannotated, it is `usize` for a \
            RangePolicy and `(i64, i64, ..)` for an MDRangePolicy; annotate it otherwise, e.g. \
            `|(i, j): (usize, usize)|`"
)]
pub trait ReachesSpace<K: SpaceKind> {}

impl<K: SpaceKind> ReachesSpace<K> for Everywhere {}
impl ReachesSpace<HostKind> for HostOnly {}
