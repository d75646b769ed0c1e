// A scratch View lives only inside the team body: a team reduction that keeps one past its call
// is refused with that rule (as `soundness_team_scratch_escapes` for `parallel_for`).
use ferrokkos::prelude::*;
use ferrokkos::ScratchView;
use std::sync::Mutex;

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Serial::default_instance()?;
    let kept: Mutex<Vec<ScratchView<'static, f64, 1>>> = Mutex::new(Vec::new());
    let policy = TeamPolicy::new(&exec, 4, AUTO)?.set_scratch_size(0, PerTeam(64))?;
    let _: f64 = parallel_reduce(
        "keep",
        policy,
        |team: &TeamMember, acc: &mut f64| {
            let v = team.team_scratch(0).view::<f64, 1>([8]).unwrap();
            *acc += 1.0;
            kept.lock().unwrap().push(v);
        },
        Sum::new(),
    )?;
    Ok(())
}
