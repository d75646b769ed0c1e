// Soundness (names resolved as rustc resolves them): a `single` of the caller's runs the closure
// that the race rules took for once per team; one that runs it on two threads at once (a data race
// in safe code) is refused: the closure `kernel!` passes can run only once, on this thread.
#![forbid(unsafe_code)]
use ferrokkos::kernel;
use ferrokkos::prelude::*;

mod impostors {
    pub fn single<S, R: Send, F: Fn() -> R + Send + Sync>(_scope: S, f: F) -> R {
        std::thread::scope(|s| {
            s.spawn(&f);
            f()
        })
    }
}

use impostors::single;

fn main() {
    let once = View::<u64, 1>::new("once", [4]).unwrap();
    let _kernel = kernel!(|team: &TeamMember| {
        let lr = team.league_rank();
        single(PerTeam(team), || once[lr] += 1);
    });
}
