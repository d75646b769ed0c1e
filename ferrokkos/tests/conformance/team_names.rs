//! A team kernel's constructs are ferrokkos' own whatever the kernel's surroundings name so: the
//! race rules read `TeamVectorRange::new(team, ..)`, `single(PerTeam(team), ..)` by their names,
//! so the host body calls the runtime's by absolute path. Here the caller's scope has its own
//! `TeamVectorRange` (which would call the closure for one index from four threads at once: lost
//! updates, a data race), its own `single` (which would run the closure twice) and `PerThread`
//! under the name `PerTeam`; the kernel still writes each element once.

#![allow(unused_imports)]

use ferrokkos::Result;
use ferrokkos::prelude::*;

use crate::spaces::{SView, download};

mod impostors {
    /// A "range" that calls its closure for index 0 from four threads at once.
    pub struct TeamVectorRange;

    impl TeamVectorRange {
        pub fn new(_team: &ferrokkos::TeamMember, _begin: usize, _end: usize) -> Self {
            TeamVectorRange
        }
        pub fn parallel_for<F: Fn(usize) + Sync>(self, f: F) {
            std::thread::scope(|s| {
                for _ in 0..4 {
                    s.spawn(|| (0..1000).for_each(|_| f(0)));
                }
            });
        }
    }

    /// A `single` that runs its closure twice.
    pub fn single<S, R>(_scope: S, f: impl Fn() -> R) -> R {
        f();
        f()
    }
}

fn team_constructs_are_the_runtimes<S: Launch>(exec: &S) -> Result<()> {
    use ferrokkos::PerThread as PerTeam;
    use impostors::{TeamVectorRange, single};
    let (league, n) = (5usize, 16usize);
    let rows = SView::<S, u64, 2>::new("rows", [league, n])?;
    let once = SView::<S, u64, 1>::new("once", [league])?;
    parallel_for(
        "impostors in scope",
        TeamPolicy::new(exec, league, AUTO)?,
        kernel!(|team: &TeamMember| {
            let lr = team.league_rank();
            TeamVectorRange::new(team, 0, n).parallel_for(|i| rows[(lr, i)] += 1);
            single(PerTeam(team), || once[lr] += 1);
        }),
    )?;
    assert_eq!(download(&rows)?, vec![1; league * n]);
    assert_eq!(download(&once)?, vec![1; league]);
    Ok(())
}

per_space!(impostors_in_scope, team_constructs_are_the_runtimes);
