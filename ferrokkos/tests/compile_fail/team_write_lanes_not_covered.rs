// A write in a TeamThreadRange runs on every vector lane of the thread: it needs
// `single(PerThread(team), ..)` or a vector range.
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Threads::default_instance()?;
    let y = View::<f64, 2>::new("y", [8, 16])?;
    parallel_for(
        "teams",
        TeamPolicy::new(&exec, 8, AUTO)?,
        kernel!(|team: &TeamMember| {
            let lr = team.league_rank();
            TeamThreadRange::new(team, 0, 16).parallel_for(|i| y[(lr, i)] = 1.0);
        }),
    )?;
    Ok(())
}
