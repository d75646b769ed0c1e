// Soundness (names resolved as rustc resolves them): a team kernel's race rules and device code
// read `TeamVectorRange::new(team, ..)` and `single(PerTeam(team), ..)` by their names, so the host
// body must run the constructs those names mean. Here the caller's scope has a `TeamVectorRange` of
// its own (which calls the closure for one index from four threads at once: lost updates, a data
// race in safe code), a `single` of its own (which runs the closure twice, on another thread) and
// `PerThread` imported as `PerTeam`: each is refused.
#![forbid(unsafe_code)]
use ferrokkos::prelude::*;
use ferrokkos::{PerThread as PerTeam, kernel};

mod impostors {
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

    pub fn single<S, R: Send, F: Fn() -> R + Send + Sync>(_scope: S, f: F) -> R {
        std::thread::scope(|s| {
            s.spawn(&f);
            f()
        })
    }
}

use impostors::{TeamVectorRange, single};

fn main() {
    let rows = View::<u64, 2>::new("rows", [4, 16]).unwrap();
    let once = View::<u64, 1>::new("once", [4]).unwrap();
    let _kernel = kernel!(|team: &TeamMember| {
        let lr = team.league_rank();
        TeamVectorRange::new(team, 0, 16usize).parallel_for(|i| rows[(lr, i)] += 1);
        single(PerTeam(team), || once[lr] += 1);
    });
}
