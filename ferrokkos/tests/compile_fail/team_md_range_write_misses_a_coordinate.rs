// A TeamThreadMDRange's points (i, j) are agents of their own: a write indexed by i alone is made
// by every j at once.
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Threads::default_instance()?;
    let y = View::<f64, 2>::new("y", [8, 4])?;
    parallel_for(
        "teams",
        TeamPolicy::new(&exec, 8, AUTO)?,
        kernel!(|team: &TeamMember| {
            let m = team.league_rank();
            TeamThreadMDRange::new(team, [4, 4]).parallel_for(|(i, j)| {
                single(PerThread(team), || y[(m, i)] = j as f64);
            });
        }),
    )?;
    Ok(())
}
