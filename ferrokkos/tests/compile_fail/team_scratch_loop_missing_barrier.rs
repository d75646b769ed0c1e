// A loop that fills scratch, waits, and reads it needs a second barrier before its next round
// writes again: without it, a fast thread's next write meets a slow thread's read.
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Threads::default_instance()?;
    let y = View::<f64, 3>::new("y", [8, 4, 16])?;
    parallel_for(
        "teams",
        TeamPolicy::new(&exec, 8, AUTO)?.set_scratch_size(0, PerTeam(128))?,
        kernel!(|team: &TeamMember| {
            let m = team.league_rank();
            let tile = team.team_scratch(0).view::<f64, 1>([16]);
            for s in 0..4 {
                TeamVectorRange::new(team, 0, 16).parallel_for(|i| tile[i] = (s * i) as f64);
                team.team_barrier();
                TeamVectorRange::new(team, 0, 16).parallel_for(|i| y[(m, s, i)] = tile[15 - i]);
            }
        }),
    )?;
    Ok(())
}
