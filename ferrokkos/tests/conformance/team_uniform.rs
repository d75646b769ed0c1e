//! What every thread of a team computes alike (Kokkos requires it; `kernel!` checks it): the bounds
//! of the ranges spread over the team's threads and the source of `team_broadcast` may come from
//! team-wide results (a reduction over the team, `single(PerTeam)`'s value, a broadcast) and from
//! Views the kernel only reads; a broadcast from the team's last thread reaches every thread, and
//! a source outside the team is refused as an index out of bounds is.

use ferrokkos::Result;
use ferrokkos::prelude::*;

use crate::spaces::{SView, download, upload};

/// Each team's ranges run over bounds computed inside the team: a `TeamThreadRange` sum, a
/// `single(PerTeam)` value, a broadcast from the last thread and a row of offsets read from a View.
fn ranges_over_team_wide_bounds<S: Launch>(exec: &S) -> Result<()> {
    let league = 13usize;
    let width = 40usize;
    // Team l's row spans offsets[l]..offsets[l + 1].
    let offsets: Vec<usize> = (0..=league).map(|l| l * (l + 1) / 2 % width).collect();
    let offsets_v = upload::<S, usize>("offsets", &offsets)?;
    let a = SView::<S, u32, 2>::new("a", [league, width])?;
    let b = SView::<S, u32, 2>::new("b", [league, width])?;
    let c = SView::<S, u32, 2>::new("c", [league, width])?;
    let d = SView::<S, u32, 2>::new("d", [league, width])?;
    let sizes = SView::<S, usize, 1>::new("sizes", [league])?;
    parallel_for(
        "team-wide bounds",
        TeamPolicy::new(exec, league, AUTO)?.vector_length(2)?,
        kernel!(|team: &TeamMember| {
            let lr = team.league_rank();
            // lr + 1 ones: the sum is the same on every thread.
            let n = TeamThreadRange::new(team, 0, lr + 1)
                .parallel_reduce(|_k, s: &mut usize| *s += 1, Sum::new());
            TeamVectorRange::new(team, 0, n).parallel_for(|i| a[(lr, i)] = 1);
            let m = single(PerTeam(team), || (lr % 7) + 3);
            TeamVectorRange::new(team, m, 2 * m).parallel_for(|i| b[(lr, i)] = 2);
            // The last thread's rank, from that thread.
            let last = team.team_broadcast(team.team_rank(), team.team_size() - 1);
            TeamVectorRange::new(team, 0, (last + 1).min(width)).parallel_for(|i| c[(lr, i)] = 3);
            single(PerTeam(team), || sizes[lr] = team.team_size());
            let (first, end) = (offsets_v[lr], offsets_v[lr + 1]);
            TeamThreadRange::new(team, first, end).parallel_for(|i| {
                single(PerThread(team), || d[(lr, i)] = 4);
            });
        }),
    )?;
    let (a, b, c, d) = (download(&a)?, download(&b)?, download(&c)?, download(&d)?);
    let sizes = download(&sizes)?;
    for l in 0..league {
        let m = l % 7 + 3;
        for i in 0..width {
            let at = l * width + i;
            assert_eq!(a[at], if i <= l { 1 } else { 0 }, "a at ({l}, {i})");
            assert_eq!(
                b[at],
                if (m..2 * m).contains(&i) { 2 } else { 0 },
                "b at ({l}, {i})"
            );
            let d_want = if (offsets[l]..offsets[l + 1]).contains(&i) {
                4
            } else {
                0
            };
            assert_eq!(d[at], d_want, "d at ({l}, {i})");
        }
        // Every index up to the last thread's rank, and no further.
        let threads = sizes[l].min(width);
        for i in 0..width {
            let want = if i < threads { 3 } else { 0 };
            assert_eq!(
                c[l * width + i],
                want,
                "c at ({l}, {i}), team of {}",
                sizes[l]
            );
        }
    }
    Ok(())
}

per_space!(team_wide_bounds, ranges_over_team_wide_bounds);

/// On the host spaces a team is one thread: a broadcast from team rank 1 has no source thread, and
/// panics as an index out of bounds does (the GPU records it as a fault: `tests/cuda/`).
#[test]
fn a_broadcast_from_outside_the_team_panics_on_the_host() {
    crate::common::runtime();
    let exec = Serial::default_instance().unwrap();
    let out = View::<f64, 1>::new("out", [4]).unwrap();
    let source = 1usize;
    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        parallel_for(
            "broadcast outside",
            TeamPolicy::new(&exec, 4, AUTO).unwrap(),
            kernel!(|team: &TeamMember| {
                let lr = team.league_rank();
                let v = team.team_broadcast(lr as f64, source);
                single(PerTeam(team), || out[lr] = v);
            }),
        )
    }));
    let payload = result.expect_err("the launch must panic");
    let message = payload
        .downcast_ref::<String>()
        .cloned()
        .or_else(|| payload.downcast_ref::<&str>().map(|s| s.to_string()))
        .unwrap_or_default();
    assert!(
        message.contains("team_broadcast from team rank 1, but the team has 1 thread"),
        "{message}"
    );
}
