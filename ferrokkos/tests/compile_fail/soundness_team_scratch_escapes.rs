// Soundness: a scratch View lives in memory the launch owns and reuses for the next league rank. A
// team kernel cannot keep one past its call (the member, and the views carved from its scratch,
// are borrowed for the call only).
use ferrokkos::prelude::*;
use ferrokkos::ScratchView;
use std::sync::Mutex;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Serial::default_instance()?;
    let kept: Mutex<Option<ScratchView<'static, f64, 1>>> = Mutex::new(None);
    let policy = TeamPolicy::new(&exec, 4, AUTO)?.set_scratch_size(0, PerTeam(64))?;
    parallel_for("keep", policy, |team: &TeamMember| {
        let v = team.team_scratch(0).view::<f64, 1>([8]).unwrap();
        *kept.lock().unwrap() = Some(v);
    })?;
    Ok(())
}
