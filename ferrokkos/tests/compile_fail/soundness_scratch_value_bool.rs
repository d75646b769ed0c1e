// Soundness: scratch memory holds what earlier work left there, so a scratch View holds only
// types every bit pattern of which is a value; a `bool` View is refused (`ScratchValue` is sealed).
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Threads::default_instance()?;
    let y = View::<f64, 1>::new("y", [8])?;
    parallel_for(
        "teams",
        TeamPolicy::new(&exec, 8, AUTO)?.set_scratch_size(0, PerTeam(8))?,
        kernel!(|team: &TeamMember| {
            let m = team.league_rank();
            let flags = team.team_scratch(0).view::<bool, 1>([8]);
            single(PerTeam(team), || {
                flags[0] = true;
                y[m] = 1.0;
            });
        }),
    )?;
    Ok(())
}
