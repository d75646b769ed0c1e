//! Team kernels built by hand for the code generator's tests, as `kernel!`'s team form will build
//! them (captures, a host closure, a shadow over the team member), ahead of that form. Only their
//! device translations are used: their host closures do nothing. (The GPU tests build theirs in
//! `tests/cuda/main.rs`, through `ferrokkos::__private`.)

use crate::dispatch::Everywhere;
use crate::dispatch::team::kernel::{host_team_for, host_team_reduce};
use crate::dispatch::{TeamForFunctor, TeamReduceFunctor};
use crate::kernel::capture;
use crate::kernel::kernel::{shadow_team_for, shadow_team_reduce};
use crate::kernel::shadow::team::{RangeKind, range_for, range_reduce, single_team, single_thread};
use crate::kernel::shadow::{self as sh, Rhs, TeamShadow};
use crate::kernel::{DeviceScalar, Expr, Kernel, KernelInfo};
use crate::reducer::Sum;

/// The info of a hand-made kernel of this file at `line` (its identity in the kernel cache).
fn info(line: u32, params: &'static [&'static str]) -> KernelInfo {
    KernelInfo {
        file: file!(),
        line,
        column: 1,
        hash: u64::from(line) * 0x9e37_79b9,
        is_unsafe: false,
        index: &[],
        params,
    }
}

/// `e` as the right operand of an operator on its own type.
fn rhs<T: DeviceScalar>(e: Expr<T>) -> Rhs<T, T> {
    sh::like(&e, e)
}

/// `e as f64`.
fn real(e: Expr<usize>) -> Expr<f64> {
    sh::cast::<f64, usize>(e)
}

/// `(a * b) + c` over `usize`.
fn mad(a: Expr<usize>, b: Expr<usize>, c: Expr<usize>) -> Expr<usize> {
    sh::add(sh::mul(a, rhs(b)), rhs(c))
}

/// A `parallel_for` team kernel that captures the number `x` and calls every kind of collective
/// (a broadcast, vector and team reductions, a barrier) without writing anything.
pub(crate) fn sweep(x: f64) -> impl TeamForFunctor<Reach = Everywhere> {
    let caps = (capture::value(&x, "x"),);
    let host = host_team_for(&caps, |_, _| {});
    let shadow = shadow_team_for(&caps, move |(x,), team: TeamShadow| {
        let (r, t, v) = (team.team_rank(), team.team_size(), team.vector_length());
        let from_0 = team.team_broadcast(sh::mul(x, rhs(real(r))), sh::lit(0usize));
        let lanes = range_reduce(
            RangeKind::ThreadVector,
            team,
            "k",
            sh::lit(0usize),
            v,
            |k, a| sh::add_assign(sh::deref(a), rhs(sh::add(real(k), rhs(from_0)))),
            Sum::<f64>::new(),
        );
        let _threads = range_reduce(
            RangeKind::TeamThread,
            team,
            "i",
            sh::lit(0usize),
            t,
            |_, a| sh::add_assign(sh::deref(a), rhs(lanes)),
            Sum::<f64>::new(),
        );
        team.team_barrier();
    });
    // SAFETY: the kernel writes no View; the host closure touches nothing.
    unsafe { Kernel::new_team_for(caps, host, shadow, info(line!(), &["team"])) }
}

/// The `parallel_reduce` team kernel `count` (into an `f64` sum): lane k of team thread r of
/// league rank l adds its global thread index `(l * T + r) * V + k`; each thread adds once the
/// sum of its lane indices (a vector reduction, `V (V - 1) / 2`); each team adds once its team size
/// (a team reduction of ones). A league of L teams gives
/// `sum(0..L T V) + L T V (V - 1) / 2 + L T`.
pub(crate) fn count() -> impl TeamReduceFunctor<f64, Reach = Everywhere> {
    let caps = ();
    let host = host_team_reduce::<f64, _, _>(&caps, |_, _, _| {});
    let shadow = shadow_team_reduce::<f64, _, _>(&caps, move |(), team: TeamShadow, acc| {
        let acc = sh::deref(acc);
        let (l, r) = (team.league_rank(), team.team_rank());
        let (t, v) = (team.team_size(), team.vector_length());
        range_for(
            RangeKind::ThreadVector,
            team,
            "k",
            sh::lit(0usize),
            v,
            |k| {
                sh::add_assign(acc, rhs(real(mad(mad(l, t, r), v, k))));
            },
        );
        let lanes = range_reduce(
            RangeKind::ThreadVector,
            team,
            "j",
            sh::lit(0usize),
            v,
            |j, a| sh::add_assign(sh::deref(a), rhs(real(j))),
            Sum::<f64>::new(),
        );
        single_thread(team, || sh::add_assign(acc, rhs(lanes)));
        let ones = range_reduce(
            RangeKind::TeamThread,
            team,
            "i",
            sh::lit(0usize),
            t,
            |_, a| sh::add_assign(sh::deref(a), rhs(sh::lit(1.0f64))),
            Sum::<f64>::new(),
        );
        single_team(team, || sh::add_assign(acc, rhs(ones)));
    });
    // SAFETY: the kernel writes no View; the host closure touches nothing.
    unsafe { Kernel::new_team_reduce(caps, host, shadow, info(line!(), &["team", "acc"])) }
}
