// A team kernel writes a View at team level, outside any `single`: every thread and vector lane of
// the team would write the element, so it is not owner-computes (race rules for teams).
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Threads::default_instance()?;
    let y = View::<f64, 1>::new("y", [8])?;
    parallel_for(
        "teams",
        TeamPolicy::new(&exec, 8, AUTO)?,
        kernel!(|team: &TeamMember| y[team.league_rank()] = 1.0),
    )?;
    Ok(())
}
