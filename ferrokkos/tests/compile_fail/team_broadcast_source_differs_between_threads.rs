// `team_broadcast(v, source)` gives every thread the value of team thread `source`: the source must
// be the same on every thread of the team. With a source that depends on the thread, several
// threads would write the broadcast's shared slot at once (a race in shared memory on a GPU) and
// take their values from different threads.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let x = View::<f64, 1>::new("x", [8]).unwrap();
    let y = View::<f64, 1>::new("y", [8]).unwrap();
    let _kernel = kernel!(|team: &TeamMember| {
        let lr = team.league_rank();
        let v = team.team_broadcast(x[lr], team.team_rank());
        single(PerTeam(team), || y[lr] = v);
    });
}
