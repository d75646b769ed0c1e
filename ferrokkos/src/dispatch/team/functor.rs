//! What a `TeamPolicy` launch accepts: the team kernel traits ([`TeamForKernel`],
//! [`TeamReduceKernel`]: called once per team member) and the functor traits that lend a launch
//! such a body ([`TeamForFunctor`], [`TeamReduceFunctor`]), as `functor.rs` does for ranges.
//!
//! Closures `|team: &TeamMember| ..` and functor structs in [`Functor`] implement them, on the host
//! spaces. As for ranges, the functor traits are implemented only here (their `with_body` takes a
//! type no other crate can name).

use super::member::TeamMember;
use crate::dispatch::functor::Functor;
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

/// Something [`crate::parallel_for`] can run over a [`crate::TeamPolicy`]: a closure
/// `|team: &TeamMember| ..` or a functor struct.
#[diagnostic::on_unimplemented(
    message = "this kernel cannot run over a TeamPolicy",
    label = "a team kernel takes the team member",
    note = "a closure over a TeamPolicy takes `&TeamMember` (`|team: &TeamMember| ..`) and runs on \
            host spaces only"
)]
pub trait TeamForFunctor {
    /// The per-member body a launch runs.
    type Body: TeamForKernel;
    /// Where the functor can run (see `ForFunctor::Reach`).
    type Reach: Reach;
    /// As `ForFunctor::with_body`: only this crate's drivers call it.
    #[doc(hidden)]
    fn with_body<R>(
        &self,
        what: &dyn Fn() -> String,
        run: impl FnOnce(&Self::Body) -> R,
        _: Token,
    ) -> Result<R>;
    /// The device translation, for device spaces (see `ForFunctor::device_kernel`): only
    /// `kernel!`s have one.
    #[doc(hidden)]
    fn device_kernel(&self, _: Token) -> Option<&dyn DeviceKernel> {
        None
    }
    /// Checks what the kernel needs of a launch's league and scratch requests (see
    /// `Kernel::check_team`); every launch calls it first.
    #[doc(hidden)]
    fn check_team(
        &self,
        league_size: usize,
        scratch: [crate::policy::ScratchRequest; 2],
        what: &dyn Fn() -> String,
        _: Token,
    ) -> Result<()> {
        let _ = (league_size, scratch, what);
        Ok(())
    }
}

/// Something [`crate::parallel_reduce`] can run over a [`crate::TeamPolicy`] into a `V`.
#[diagnostic::on_unimplemented(
    message = "this kernel cannot reduce into `{V}` over a TeamPolicy",
    label = "a team reduction takes the team member and the accumulator",
    note = "a closure takes `&TeamMember` and `&mut V` (`|team: &TeamMember, acc: &mut f64| ..`)"
)]
pub trait TeamReduceFunctor<V> {
    /// The per-member body a launch runs.
    type Body: TeamReduceKernel<V>;
    /// Where the functor can run.
    type Reach: Reach;
    /// As `ForFunctor::with_body`.
    #[doc(hidden)]
    fn with_body<R>(
        &self,
        what: &dyn Fn() -> String,
        run: impl FnOnce(&Self::Body) -> R,
        _: Token,
    ) -> Result<R>;
    /// The device translation, for device spaces (see `ForFunctor::device_kernel`): only
    /// `kernel!`s have one.
    #[doc(hidden)]
    fn device_kernel(&self, _: Token) -> Option<&dyn DeviceKernel> {
        None
    }
    /// Checks what the kernel needs of a launch's league and scratch requests (see
    /// `Kernel::check_team`); every launch calls it first.
    #[doc(hidden)]
    fn check_team(
        &self,
        league_size: usize,
        scratch: [crate::policy::ScratchRequest; 2],
        what: &dyn Fn() -> String,
        _: Token,
    ) -> Result<()> {
        let _ = (league_size, scratch, what);
        Ok(())
    }
}

/// A closure or a functor struct lends itself as the body.
macro_rules! lend_self {
    ($s:tt => $($t:tt)*) => {
        type Reach = HostOnly;
        #[inline]
        fn with_body<R>(
            &$s,
            _: &dyn Fn() -> String,
            run: impl FnOnce(&Self::Body) -> R,
            _: Token,
        ) -> Result<R> {
            Ok(run($($t)*))
        }
    };
}

#[diagnostic::do_not_recommend]
impl<F: Fn(&TeamMember<'_>) + Sync> TeamForFunctor for F {
    type Body = F;
    lend_self!(self => self);
}

#[diagnostic::do_not_recommend]
impl<V, F: Fn(&TeamMember<'_>, &mut V) + Sync> TeamReduceFunctor<V> for F {
    type Body = F;
    lend_self!(self => self);
}

#[diagnostic::do_not_recommend]
impl<T: TeamForKernel> TeamForFunctor for Functor<T> {
    type Body = T;
    lend_self!(self => &self.0);
}

#[diagnostic::do_not_recommend]
impl<V, T: TeamReduceKernel<V>> TeamReduceFunctor<V> for Functor<T> {
    type Body = T;
    lend_self!(self => &self.0);
}
