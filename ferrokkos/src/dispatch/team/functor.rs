//! What a `TeamPolicy` launch accepts: the team kernel traits ([`TeamForKernel`],
//! [`TeamReduceKernel`]: called once per team member) and the functor traits that lend a launch
//! such a body ([`TeamForFunctor`], [`TeamReduceFunctor`]), as `functor.rs` does for ranges.
//!
//! Closures `|team: &TeamMember| ..` and functor structs in [`Functor`] implement them, on the host
//! spaces. As for ranges, the functor traits are sealed: what a launch uses of a functor lives in a
//! hidden seal supertrait (`seal::SealedTeamForFunctor`, `seal::SealedTeamReduceFunctor`) whose methods
//! take the crate's `Token`. The device translation stays a `Token`-taking method of the public
//! traits, so that code holding an `impl TeamForFunctor` reaches it without naming the seal.

use super::member::TeamMember;
use crate::dispatch::functor::{Functor, functor_seals, lend_self};
use crate::dispatch::reach::{HostOnly, Reach};
use crate::error::Result;
use crate::kernel::DeviceKernel;
use crate::seal::Token;

/// A `parallel_for` team kernel: called once for each thread of each team.
pub trait TeamForKernel: Sync {
    /// Runs the kernel for `team`'s thread.
    fn apply(&self, team: &TeamMember<'_>);
}

impl<F: Fn(&TeamMember<'_>) + Sync> TeamForKernel for F {
    #[inline(always)]
    fn apply(&self, team: &TeamMember<'_>) {
        self(team)
    }
}

/// A `parallel_reduce` team kernel: called once for each thread of each team with the running value
/// of the host thread (or chunk) that runs it. Contribute once per team (in
/// `single(PerTeam(team), ..)`) to count each team once on every space.
pub trait TeamReduceKernel<V>: Sync {
    /// Runs the kernel for `team`'s thread, contributing to `acc`.
    fn apply(&self, team: &TeamMember<'_>, acc: &mut V);
}

impl<V, F: Fn(&TeamMember<'_>, &mut V) + Sync> TeamReduceKernel<V> for F {
    #[inline(always)]
    fn apply(&self, team: &TeamMember<'_>, acc: &mut V) {
        self(team, acc)
    }
}

/// The method of a team functor's seal besides `with_body`: the check of a launch's league and
/// scratch requests.
macro_rules! team_seal_methods {
    () => {
        /// Checks what the kernel needs of a launch's league and scratch requests (see
        /// `Kernel::check_team`); every launch calls it first.
        fn check_team(
            &self,
            league_size: usize,
            vector_length: crate::policy::TeamSize,
            scratch: [crate::policy::ScratchRequest; 2],
            what: &dyn Fn() -> String,
            _: Token,
        ) -> Result<()> {
            let _ = (league_size, vector_length, scratch, what);
            Ok(())
        }
    };
}

/// Something [`crate::parallel_for`] can run over a [`crate::TeamPolicy`]: a closure
/// `|team: &TeamMember| ..` or a functor struct.
///
/// Sealed: a functor struct of your own implements [`TeamForKernel`] and is launched as
/// [`Functor`]`(my_struct)`. The member, and the scratch Views carved from it, are lent for one
/// call: a kernel cannot keep them.
#[diagnostic::on_unimplemented(
    message = "this kernel cannot run over a TeamPolicy: it must take `&TeamMember` and keep \
               nothing it borrows from the member",
    label = "a team kernel takes the team member for one call",
    note = "a scratch View (`team.team_scratch(..)`, `team.thread_scratch(..)`) lives only \
            inside the team body: it cannot be stored, returned or moved out of the call, \
            because the launch reuses its memory for the next team; copy its values into a View \
            or a local",
    note = "a closure over a TeamPolicy takes `&TeamMember` (`|team: &TeamMember| ..`) and runs \
            on host spaces only"
)]
pub trait TeamForFunctor: seal::SealedTeamForFunctor {
    /// Where the functor can run (see `ForFunctor::Reach`).
    type Reach: Reach;
    /// The device translation, for device spaces (see `ForFunctor`): only `kernel!`s have one.
    /// Sealed: only this crate can name its parameter's type, so only this crate calls or
    /// overrides it.
    #[doc(hidden)]
    fn device_kernel(&self, _: Token) -> Option<&dyn DeviceKernel> {
        None
    }
}

/// Something [`crate::parallel_reduce`] can run over a [`crate::TeamPolicy`] into a `V`.
///
/// Sealed: a functor struct of your own implements [`TeamReduceKernel`] and is launched as
/// [`Functor`]`(my_struct)`.
#[diagnostic::on_unimplemented(
    message = "this kernel cannot reduce into `{V}` over a TeamPolicy: it must take \
               `&TeamMember` and the accumulator, and keep nothing it borrows from the member",
    label = "a team reduction takes the team member and the accumulator for one call",
    note = "a closure takes `&TeamMember` and `&mut V` (`|team: &TeamMember, acc: &mut f64| ..`)",
    note = "a scratch View (`team.team_scratch(..)`, `team.thread_scratch(..)`) lives only \
            inside the team body: it cannot be stored, returned or moved out of the call, \
            because the launch reuses its memory for the next team"
)]
pub trait TeamReduceFunctor<V>: seal::SealedTeamReduceFunctor<V> {
    /// Where the functor can run.
    type Reach: Reach;
    /// The device translation, for device spaces (see [`TeamForFunctor::device_kernel`]).
    #[doc(hidden)]
    fn device_kernel(&self, _: Token) -> Option<&dyn DeviceKernel> {
        None
    }
}

functor_seals! {
    /// The seals of the team functor traits, holding what a launch uses of a functor besides its
    /// device translation. A private module: no other crate can name these traits.
    mod seal {
        use super::{TeamForKernel, TeamReduceKernel};
        use crate::error::Result;
        use crate::seal::Token;
    }

    /// What a launch uses of a [`super::TeamForFunctor`]: its body and the check of its league and
    /// scratch requests.
    #[diagnostic::on_unimplemented(
        message = "`TeamForFunctor` is sealed: only closures, team `kernel!`s and `Functor(..)` are \
                   team functors",
        label = "`{Self}` cannot implement `TeamForFunctor`",
        note = "a launch runs a functor's body once per team member, which the accessors of a \
                `kernel!` rely on, so only ferrokkos lends bodies to launches",
        note = "for a functor struct of your own, implement `TeamForKernel` and launch \
                `Functor(my_struct)` (host spaces)"
    )]
    pub trait SealedTeamForFunctor {
        type Body: TeamForKernel, once per "team member";
        team_seal_methods!();
    }

    /// What a launch uses of a [`super::TeamReduceFunctor`] (as [`SealedTeamForFunctor`]).
    #[diagnostic::on_unimplemented(
        message = "`TeamReduceFunctor` is sealed: only closures, team `kernel!`s and `Functor(..)` \
                   are team functors",
        label = "`{Self}` cannot implement `TeamReduceFunctor`",
        note = "a launch runs a functor's body once per team member, which the accessors of a \
                `kernel!` rely on, so only ferrokkos lends bodies to launches",
        note = "for a functor struct of your own, implement `TeamReduceKernel<{V}>` and launch \
                `Functor(my_struct)` (host spaces)"
    )]
    pub trait SealedTeamReduceFunctor<V> {
        type Body: TeamReduceKernel<V>, once per "team member";
        team_seal_methods!();
    }
}

lend_self!(impl[F: Fn(&TeamMember<'_>) + Sync] TeamForFunctor / SealedTeamForFunctor for F, Body = F,
    self => self);
lend_self!(impl[V, F: Fn(&TeamMember<'_>, &mut V) + Sync] TeamReduceFunctor<V> / SealedTeamReduceFunctor
    for F, Body = F, self => self);
lend_self!(impl[T: TeamForKernel] TeamForFunctor / SealedTeamForFunctor for Functor<T>, Body = T,
    self => &self.0);
lend_self!(impl[V, T: TeamReduceKernel<V>] TeamReduceFunctor<V> / SealedTeamReduceFunctor
    for Functor<T>, Body = T, self => &self.0);
