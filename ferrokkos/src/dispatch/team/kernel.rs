//! Team `kernel!`s as team functors: the host closure's check (it takes the team member, whose
//! type lives here, above the kernel layer), the functor traits for [`Kernel`]s of the team kinds,
//! and their host body as the team kernel the host drivers run.

use super::functor::{TeamForFunctor, TeamForKernel, TeamReduceFunctor, TeamReduceKernel, seal};
use super::member::TeamMember;
use crate::dispatch::reach::Everywhere;
use crate::error::Result;
use crate::kernel::capture::Captures;
use crate::kernel::shadow::{Mut, TeamShadow};
use crate::kernel::{DeviceKernel, Expr, HostBody, Kernel, TeamForKind, TeamReduceKind};

/// Checks the host closure of a `parallel_for` team kernel (and gives rustc its parameter types).
/// As for ranges, the closure is `'static`: it reaches nothing but the captures.
pub fn host_team_for<C: Captures, H>(_: &C, host: H) -> H
where
    H: for<'b, 't, 'a> Fn(&'b C::Host<'b>, &'t TeamMember<'a>) + Copy + Sync + 'static,
{
    host
}

/// Checks the host closure of a `parallel_reduce` team kernel.
pub fn host_team_reduce<V, C: Captures, H>(_: &C, host: H) -> H
where
    H: for<'b, 't, 'a> Fn(&'b C::Host<'b>, &'t TeamMember<'a>, &mut V) + Copy + Sync + 'static,
{
    host
}

/// The team functor traits for a team kernel and a reference to it.
macro_rules! team_functors {
    ($trait:ident $(<$v:ident>)? / $seal:ident, $kind:ty, ($($arg:ty),*), ($($sh:ty),*)) => {
        team_functors!(@one $trait $(<$v>)? / $seal, Kernel<$kind, C, H, S>, ($($arg),*), ($($sh),*));
        team_functors!(@one $trait $(<$v>)? / $seal, &Kernel<$kind, C, H, S>, ($($arg),*), ($($sh),*));
    };
    (@one $trait:ident $(<$v:ident>)? / $seal:ident, $t:ty, ($($arg:ty),*), ($($sh:ty),*)) => {
        #[diagnostic::do_not_recommend]
        impl<$($v: 'static,)? C, H, S> seal::$seal $(<$v>)? for $t
        where
            C: Captures + 'static,
            H: for<'b, 't, 'a> Fn(&'b C::Host<'b>, &'t TeamMember<'a> $(, $arg)*) + Copy + Sync + 'static,
            S: Fn(C::Shadow, TeamShadow $(, $sh)*) + Sync + 'static,
        {
            type Body = HostBody<C, H>;
            fn with_body<R>(
                &self,
                what: &dyn Fn() -> String,
                run: impl FnOnce(&Self::Body) -> R,
                _: crate::seal::Token,
            ) -> Result<R> {
                self.run_host(what, None, run)
            }
            fn check_team(
                &self,
                league_size: usize,
                vector_length: crate::policy::TeamSize,
                scratch: [crate::policy::ScratchRequest; 2],
                what: &dyn Fn() -> String,
                _: crate::seal::Token,
            ) -> Result<()> {
                Kernel::check_team(self, league_size, vector_length, scratch, what)
            }
        }

        #[diagnostic::do_not_recommend]
        impl<$($v: 'static,)? C, H, S> $trait $(<$v>)? for $t
        where
            C: Captures + 'static,
            H: for<'b, 't, 'a> Fn(&'b C::Host<'b>, &'t TeamMember<'a> $(, $arg)*) + Copy + Sync + 'static,
            S: Fn(C::Shadow, TeamShadow $(, $sh)*) + Sync + 'static,
        {
            type Reach = Everywhere;
            fn device_kernel(&self, _: crate::seal::Token) -> Option<&dyn DeviceKernel> {
                Some(self)
            }
        }
    };
}

team_functors!(TeamForFunctor / SealedTeamForFunctor, TeamForKind, (), ());
team_functors!(
    TeamReduceFunctor<V> / SealedTeamReduceFunctor,
    TeamReduceKind<V>,
    (&mut V),
    (Expr<Mut<V>>)
);

impl<C, H> TeamForKernel for HostBody<C, H>
where
    C: Captures + 'static,
    H: for<'b, 't, 'a> Fn(&'b C::Host<'b>, &'t TeamMember<'a>) + Sync,
{
    #[inline(always)]
    fn apply(&self, team: &TeamMember<'_>) {
        (self.host)(self.captures(), team)
    }
}

impl<V, C, H> TeamReduceKernel<V> for HostBody<C, H>
where
    C: Captures + 'static,
    H: for<'b, 't, 'a> Fn(&'b C::Host<'b>, &'t TeamMember<'a>, &mut V) + Sync,
{
    #[inline(always)]
    fn apply(&self, team: &TeamMember<'_>, acc: &mut V) {
        (self.host)(self.captures(), team, acc)
    }
}
