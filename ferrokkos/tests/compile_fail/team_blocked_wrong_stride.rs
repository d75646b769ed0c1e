// `per * league_rank + r` is one to one only when r runs over 0..per; here it runs over 0..more,
// so neighbouring teams' rows overlap.
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Threads::default_instance()?;
    let y = View::<f64, 1>::new("y", [64])?;
    let (per, more) = (4usize, 8usize);
    parallel_for(
        "teams",
        TeamPolicy::new(&exec, 8, AUTO)?,
        kernel!(|team: &TeamMember| {
            TeamVectorRange::new(team, 0, more).parallel_for(|r| y[per * team.league_rank() + r] = 1.0);
        }),
    )?;
    Ok(())
}
