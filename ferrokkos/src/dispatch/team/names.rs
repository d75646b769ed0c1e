//! The proofs that a team `kernel!`'s host body runs the constructs the race rules read by name.
//!
//! The rules (and the typed shadow, which writes the device code) take `TeamVectorRange::new(team,
//! ..)` for the runtime's range of that kind and `single(PerTeam(team), ..)` for one thread of the
//! team, by their names; the host body calls what those names resolve to where the kernel is
//! written. A range is passed through [`nested_range`], which compiles only for the runtime's range
//! of the kind the name says (another type, or another kind imported under that name, is refused);
//! a `single`'s scope through [`single_scope`] likewise; and a `single`'s closure holds a
//! [`NotSync`], so that a `single` of the caller's cannot run it on several threads at once (it
//! could only run it again, as ordinary code, with the host's bounds checks).

use std::marker::PhantomData;

use super::member::TeamMember;
use super::nested::{TeamThreadMDRange, TeamThreadRange, TeamVectorRange, ThreadVectorRange};
use crate::policy::{IndexType, PerTeam, PerThread};

mod seal {
    /// Implemented for the runtime's nested ranges and `single` scopes only.
    #[diagnostic::on_unimplemented(
        message = "`NestedRangeKind` and `SingleScopeKind` are sealed: only ferrokkos' nested \
                   ranges and `single` scopes are what a team kernel's names say",
        label = "`{Self}` cannot stand for a team construct",
        note = "a team `kernel!` reads `TeamThreadRange`, `TeamVectorRange`, `single(PerTeam(..))` \
                ... by their names; the race rules rely on them being the runtime's"
    )]
    pub trait Sealed {}
}

/// The kind of a nested range, as `kernel!` reads it from the name: 0 `TeamThreadRange`, 1
/// `ThreadVectorRange`, 2 `TeamVectorRange`, 3 `TeamThreadMDRange`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the nested range its name says in a team kernel",
    label = "a team `kernel!` reads this range by its name",
    note = "in a team `kernel!`, `TeamThreadRange`, `ThreadVectorRange`, `TeamVectorRange` and \
            `TeamThreadMDRange` are ferrokkos' ranges of those names: the race rules and the device \
            code follow their meaning, so the name must not resolve to another type or another kind"
)]
pub trait NestedRangeKind<const KIND: u8>: seal::Sealed {}

impl<I: IndexType> seal::Sealed for TeamThreadRange<'_, '_, I> {}
impl<I: IndexType> seal::Sealed for ThreadVectorRange<'_, '_, I> {}
impl<I: IndexType> seal::Sealed for TeamVectorRange<'_, '_, I> {}
impl<const R: usize> seal::Sealed for TeamThreadMDRange<'_, '_, R> {}
impl<I: IndexType> NestedRangeKind<0> for TeamThreadRange<'_, '_, I> {}
impl<I: IndexType> NestedRangeKind<1> for ThreadVectorRange<'_, '_, I> {}
impl<I: IndexType> NestedRangeKind<2> for TeamVectorRange<'_, '_, I> {}
impl<const R: usize> NestedRangeKind<3> for TeamThreadMDRange<'_, '_, R> {}

/// `range`, which must be the runtime's nested range of kind `KIND` (see [`NestedRangeKind`]).
#[inline(always)]
pub fn nested_range<const KIND: u8, R: NestedRangeKind<KIND>>(range: R) -> R {
    range
}

/// The scope of a `single`, as `kernel!` reads it from the name: `true` for `PerTeam(team)`,
/// `false` for `PerThread(team)`.
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not the `single` scope its name says in a team kernel",
    label = "a team `kernel!` reads this scope by its name",
    note = "in a team `kernel!`, `single(PerTeam(team), ..)` runs once per team and \
            `single(PerThread(team), ..)` once per thread: the race rules and the device code \
            follow those names, so they must be ferrokkos' `PerTeam` and `PerThread`"
)]
pub trait SingleScopeKind<const PER_TEAM: bool>: seal::Sealed {}

impl seal::Sealed for PerTeam<&TeamMember<'_>> {}
impl seal::Sealed for PerThread<&TeamMember<'_>> {}
impl SingleScopeKind<true> for PerTeam<&TeamMember<'_>> {}
impl SingleScopeKind<false> for PerThread<&TeamMember<'_>> {}

/// `scope`, which must be the runtime's `single` scope the name says (see [`SingleScopeKind`]).
#[inline(always)]
pub fn single_scope<const PER_TEAM: bool, S: SingleScopeKind<PER_TEAM>>(scope: S) -> S {
    scope
}

/// A value that is neither `Send` nor `Sync`: a closure that owns one cannot be run from another
/// thread (see the module documentation).
pub struct NotSync(PhantomData<*const SingleRunsOnceOnItsThread>);

/// What [`NotSync`] says in the message of a closure sent to another thread: the closure of a
/// team kernel's `single` runs once, on the thread that reaches it.
pub struct SingleRunsOnceOnItsThread;

impl NotSync {
    /// A new one.
    #[inline(always)]
    pub fn new() -> NotSync {
        NotSync(PhantomData)
    }
}

impl Default for NotSync {
    fn default() -> NotSync {
        NotSync::new()
    }
}
