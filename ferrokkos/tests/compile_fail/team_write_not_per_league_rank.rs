// Every team writes y[i] for the same i: the index does not follow the league rank, so two teams
// write one element.
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Threads::default_instance()?;
    let y = View::<f64, 1>::new("y", [16])?;
    parallel_for(
        "teams",
        TeamPolicy::new(&exec, 8, AUTO)?,
        kernel!(|team: &TeamMember| {
            TeamVectorRange::new(team, 0, 16).parallel_for(|i| y[i] = 1.0);
        }),
    )?;
    Ok(())
}
