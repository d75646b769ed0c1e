// A scratch View's extents are launch constants: the launch checks the policy's request against
// them before anything runs, so they may not depend on the team.
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Threads::default_instance()?;
    let y = View::<f64, 1>::new("y", [8])?;
    parallel_for(
        "teams",
        TeamPolicy::new(&exec, 8, AUTO)?.set_scratch_size(0, PerTeam(128))?,
        kernel!(|team: &TeamMember| {
            let m = team.league_rank();
            let tile = team.team_scratch(0).view::<f64, 1>([m + 1]);
            single(PerTeam(team), || {
                tile[0] = 1.0;
                y[m] = tile[0];
            });
        }),
    )?;
    Ok(())
}
