// A barrier that only some threads of the team reach deadlocks on a GPU.
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Threads::default_instance()?;
    let y = View::<f64, 1>::new("y", [8])?;
    parallel_for(
        "teams",
        TeamPolicy::new(&exec, 8, AUTO)?,
        kernel!(|team: &TeamMember| {
            if team.team_rank() == 0 {
                team.team_barrier();
            }
            single(PerTeam(team), || y[team.league_rank()] = 1.0);
        }),
    )?;
    Ok(())
}
