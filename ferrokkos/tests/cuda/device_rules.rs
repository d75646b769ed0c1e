//! Rules of device code whose breach the GPU turns into an `Err` instead of a race, stale code or a
//! dead context: the compiled code of a kernel depends only on its types (instantiations with other
//! constants get their own; other captured values are parameters of the same code), a
//! `team_broadcast` from a thread outside the team is reported as an index out of bounds is, and a
//! kernel whose `#[device]` functions recurse is refused before it runs. The device stays usable
//! after each. Every test needs a CUDA GPU and is ignored elsewhere; the ones that leave a fault in
//! the context's record run alone in a child process.

use ferrokkos::prelude::*;
use ferrokkos::{Cuda, DeviceTarget, Error, device};

use crate::common::child::in_own_process;
use crate::{Dev1, cuda};

/// The device View's elements.
fn host_copy<T: ferrokkos::traits::Element + Default>(v: &Dev1<T>) -> Vec<T> {
    let m = create_mirror_view(v).unwrap();
    deep_copy(&m, v).unwrap();
    m.to_vec().unwrap()
}

/// `y[i] = x[i + K] * SCALE`: one kernel in the source, one closure type per `K`.
fn shifted<const K: usize>(exec: &Cuda, y: &Dev1<f64>, x: &Dev1<f64>) {
    const SCALE: f64 = 2.0;
    let n = y.extent(0);
    parallel_for(
        "shifted",
        RangePolicy::new(exec, 0, n).unwrap(),
        kernel!(|i| y[i] = x[i + K] * SCALE),
    )
    .unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn each_instantiation_of_a_kernel_runs_its_own_code() {
    let exec = cuda();
    let n = 1 << 20;
    let x = Dev1::<f64>::new("x", [n + 8]).unwrap();
    parallel_for(
        "iota",
        RangePolicy::new(&exec, 0, n + 8).unwrap(),
        kernel!(|i| x[i] = i as f64),
    )
    .unwrap();
    let y = Dev1::<f64>::new("y", [n]).unwrap();
    for _ in 0..2 {
        shifted::<1>(&exec, &y, &x);
        let got = host_copy(&y);
        assert!((0..n).all(|i| got[i] == 2.0 * (i + 1) as f64), "K = 1");
        shifted::<5>(&exec, &y, &x);
        let got = host_copy(&y);
        assert!((0..n).all(|i| got[i] == 2.0 * (i + 5) as f64), "K = 5");
    }
    // One closure type, launched with other captured values: the values are parameters.
    for scale in [1.0, -3.0, 0.5] {
        parallel_for(
            "scaled",
            RangePolicy::new(&exec, 0, n).unwrap(),
            kernel!(|i| y[i] = scale * x[i]),
        )
        .unwrap();
        let got = host_copy(&y);
        assert!((0..n).all(|i| got[i] == scale * i as f64), "scale {scale}");
    }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_broadcast_from_outside_the_team_is_an_error_and_the_device_stays_usable() {
    if !in_own_process(
        module_path!(),
        "a_broadcast_from_outside_the_team_is_an_error_and_the_device_stays_usable",
    ) {
        return;
    }
    let exec = cuda();
    let league = 64usize;
    let out = Dev1::<f64>::new("out", [league]).unwrap();
    deep_copy(&out, -1.0).unwrap();
    // Beyond u32 too: the source is not truncated to a team rank.
    for source in [32usize, 1000, (1 << 32) + 1] {
        parallel_for(
            "broadcast from outside",
            TeamPolicy::new(&exec, league, 32).unwrap(),
            kernel!(|team: &TeamMember| {
                let lr = team.league_rank();
                let v = team.team_broadcast(lr as f64 + 0.5, source);
                single(PerTeam(team), || out[lr] = v);
            }),
        )
        .unwrap();
        let e = exec.fence("after the broadcast").unwrap_err();
        match &e {
            Error::DeviceOutOfBounds {
                target,
                index,
                extents,
                ..
            } => {
                assert_eq!(*target, DeviceTarget::TeamRank, "{e}");
                assert_eq!(&index[..], &[source as u64], "{e}");
                assert_eq!(&extents[..], &[32], "{e}");
            }
            other => panic!("expected DeviceOutOfBounds, got {other}"),
        }
        assert!(e.to_string().contains("team_broadcast"), "{e}");
        // Every thread got the value's zero, not another thread's value or uninitialized memory.
        assert_eq!(host_copy(&out), vec![0.0; league]);
    }
    // A broadcast from the last thread, on the same context.
    parallel_for(
        "broadcast from the last thread",
        TeamPolicy::new(&exec, league, 32).unwrap(),
        kernel!(|team: &TeamMember| {
            let lr = team.league_rank();
            let v = team.team_broadcast((lr * 100 + team.team_rank()) as f64, team.team_size() - 1);
            single(PerTeam(team), || out[lr] = v);
        }),
    )
    .unwrap();
    exec.fence("after").unwrap();
    let got = host_copy(&out);
    assert!(
        (0..league).all(|l| got[l] == (l * 100 + 31) as f64),
        "{got:?}"
    );
}

/// `n!`, by recursion (fine on the host, refused on the GPU).
#[device]
fn factorial(n: u64) -> u64 {
    if n <= 1 { 1 } else { n * factorial(n - 1) }
}

/// Depth `n` through two functions (fine on the host, refused on the GPU).
#[device]
fn down(n: u32) -> u32 {
    if n == 0 { 0 } else { 1 + across(n - 1) }
}

/// See [`down`].
#[device]
fn across(n: u32) -> u32 {
    if n == 0 { 0 } else { 1 + down(n - 1) }
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_kernel_whose_device_functions_recurse_is_refused_before_it_runs() {
    let exec = cuda();
    let n = 1000;
    let y = Dev1::<u64>::new("y", [n]).unwrap();
    let e = parallel_for(
        "factorials",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| y[i] = factorial((i % 20) as u64)),
    )
    .unwrap_err();
    assert!(matches!(e, Error::Unsupported { .. }), "{e}");
    assert!(e.to_string().contains("(factorial -> factorial)"), "{e}");
    let depth = Dev1::<u32>::new("depth", [n]).unwrap();
    let e = parallel_for(
        "depths",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| depth[i] = down(50 + i as u32)),
    )
    .unwrap_err();
    assert!(e.to_string().contains("(down -> across -> down)"), "{e}");
    // Nothing ran, the context is fine.
    exec.fence("after").unwrap();
    parallel_for(
        "after",
        RangePolicy::new(&exec, 0, n).unwrap(),
        kernel!(|i| y[i] = i as u64 * 3),
    )
    .unwrap();
    assert!(
        host_copy(&y)
            .iter()
            .enumerate()
            .all(|(i, v)| *v == i as u64 * 3)
    );
    // The same kernels run on the host.
    let host = View::<u32, 1>::new("host", [4]).unwrap();
    parallel_for(
        "depths on the host",
        RangePolicy::new(&Serial::default_instance().unwrap(), 0, 4).unwrap(),
        kernel!(|i| host[i] = down(50 + i as u32)),
    )
    .unwrap();
    assert_eq!(host.to_vec().unwrap(), vec![50, 51, 52, 53]);
}
