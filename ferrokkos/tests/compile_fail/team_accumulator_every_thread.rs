// A team reduction's contribution made by every thread counts once per thread on a GPU and once
// on the host: it belongs in `single(PerTeam(team), ..)`.
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Threads::default_instance()?;
    let total: f64 = parallel_reduce(
        "teams",
        TeamPolicy::new(&exec, 8, AUTO)?,
        kernel!(|team: &TeamMember, acc: &mut f64| {
            *acc += team.league_rank() as f64;
        }),
        Sum::new(),
    )?;
    let _ = total;
    Ok(())
}
