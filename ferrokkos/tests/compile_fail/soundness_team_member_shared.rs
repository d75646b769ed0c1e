// Soundness: a team member (and its scratch arenas) belongs to the thread running the team; it is
// not `Sync`, so a team kernel cannot hand it to other threads.
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Serial::default_instance()?;
    parallel_for("share", TeamPolicy::new(&exec, 4, AUTO)?, |team: &TeamMember| {
        std::thread::scope(|s| {
            s.spawn(|| team.team_scratch(0).view::<u8, 1>([1]).is_ok());
        });
    })?;
    Ok(())
}
