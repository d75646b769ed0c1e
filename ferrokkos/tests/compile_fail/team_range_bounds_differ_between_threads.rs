// A range spread over the team's threads gives index `begin + k` to thread `k % team_size`, so each
// index belongs to one thread only if every thread has the same bounds: with a begin that depends
// on the thread, threads 0 and 2 of a team of 4 would both take index 4 and write y[(lr, 4)] at
// once. The bounds of `TeamThreadRange`, `TeamVectorRange` and `TeamThreadMDRange` must be uniform.
use ferrokkos::kernel;
use ferrokkos::prelude::*;

fn main() {
    let y = View::<f64, 2>::new("y", [8, 64]).unwrap();
    let h = View::<u32, 1>::new("h", [1]).unwrap().atomic();
    let n = 64usize;
    let _a = kernel!(|team: &TeamMember| {
        let lr = team.league_rank();
        TeamThreadRange::new(team, team.team_rank(), n).parallel_for(|i| y[(lr, i)] = 1.0);
    });
    let _b = kernel!(|team: &TeamMember| {
        let lr = team.league_rank();
        let first = 2 * team.team_rank();
        TeamVectorRange::new(team, first, n).parallel_for(|i| y[(lr, i)] = 2.0);
    });
    let _c = kernel!(|team: &TeamMember| {
        let lr = team.league_rank();
        let end = h.atomic_fetch_add(0, 1) as usize;
        TeamThreadRange::new(team, 0, end).parallel_for(|i| y[(lr, i)] = 3.0);
    });
    let _d = kernel!(|team: &TeamMember| {
        TeamThreadMDRange::new(team, [8, team.team_rank()]).parallel_for(|(r, c)| y[(r, c)] = 4.0);
    });
}
