// Only one thread runs a `single`: its change to a local of the team body would leave the other
// threads' copies behind. The value is given back instead.
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Threads::default_instance()?;
    let y = View::<f64, 1>::new("y", [8])?;
    parallel_for(
        "teams",
        TeamPolicy::new(&exec, 8, AUTO)?,
        kernel!(|team: &TeamMember| {
            let mut v = 0.0;
            single(PerTeam(team), || v = 2.0);
            single(PerTeam(team), || y[team.league_rank()] = v);
        }),
    )?;
    Ok(())
}
