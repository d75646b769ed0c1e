// A team kernel written with kernel! is reported as not yet in the kernel language, with the way
// to write it today (a closure on the host spaces).
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
