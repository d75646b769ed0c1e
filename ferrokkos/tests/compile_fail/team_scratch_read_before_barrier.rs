// A team's threads write scratch and read other threads' elements with no barrier between: a
// reader may run before the writer (Kokkos needs team_barrier() there too).
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Threads::default_instance()?;
    let y = View::<f64, 2>::new("y", [8, 16])?;
    parallel_for(
        "teams",
        TeamPolicy::new(&exec, 8, AUTO)?.set_scratch_size(0, PerTeam(128))?,
        kernel!(|team: &TeamMember| {
            let m = team.league_rank();
            let tile = team.team_scratch(0).view::<f64, 1>([16]);
            TeamVectorRange::new(team, 0, 16).parallel_for(|i| tile[i] = i as f64);
            TeamVectorRange::new(team, 0, 16).parallel_for(|i| y[(m, i)] = tile[15 - i]);
        }),
    )?;
    Ok(())
}
