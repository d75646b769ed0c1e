// A TeamThreadRange inside another splits the team's threads twice (Kokkos forbids it too).
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Threads::default_instance()?;
    let y = View::<f64, 3>::new("y", [8, 4, 4])?;
    parallel_for(
        "teams",
        TeamPolicy::new(&exec, 8, AUTO)?,
        kernel!(|team: &TeamMember| {
            let lr = team.league_rank();
            TeamThreadRange::new(team, 0, 4).parallel_for(|i| {
                TeamThreadRange::new(team, 0, 4).parallel_for(|j| {
                    single(PerThread(team), || y[(lr, i, j)] = 1.0);
                });
            });
        }),
    )?;
    Ok(())
}
