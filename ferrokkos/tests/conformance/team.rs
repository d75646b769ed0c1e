//! TeamPolicy on the host spaces, with plain closures (Kokkos' TestTeam, TestTeamScratch,
//! TestTeamVector and TestTeamScan behaviours): every league rank runs once, nested ranges visit
//! their iterations once and reduce and scan with the built-in reducers, scratch Views at both
//! levels are private to their team and thread, and bad sizes are errors that name them.

use std::sync::atomic::{AtomicU64, Ordering};

use ferrokkos::prelude::*;
use ferrokkos::traits::{HostExecutionSpace, LaunchTeam};
use ferrokkos::{MaxLoc, Result, Schedule};

use crate::common;

/// One test per host space, calling `$body::<Space>` with the space's default instance.
macro_rules! per_host_space {
    ($name:ident, $body:ident) => {
        mod $name {
            #[test]
            fn serial() -> ::ferrokkos::Result<()> {
                $crate::common::runtime();
                super::$body(
                    &<::ferrokkos::Serial as ::ferrokkos::ExecutionSpace>::default_instance()?,
                )
            }
            #[test]
            fn threads() -> ::ferrokkos::Result<()> {
                $crate::common::runtime();
                super::$body(
                    &<::ferrokkos::Threads as ::ferrokkos::ExecutionSpace>::default_instance()?,
                )
            }
        }
    };
}

/// Each league rank runs exactly once, under every schedule, and sees the league's size and a team
/// of one thread (the host mapping, as on Kokkos' Serial).
fn every_league_rank_runs_once<S: HostExecutionSpace + LaunchTeam>(exec: &S) -> Result<()> {
    let league = 1_003;
    let policies = [
        TeamPolicy::new(exec, league, AUTO)?,
        TeamPolicy::new(exec, league, 1)?.chunk_size(7)?,
        TeamPolicy::new(exec, league, AUTO)?.schedule(Schedule::Dynamic),
        TeamPolicy::new(exec, league, AUTO)?
            .schedule(Schedule::Dynamic)
            .chunk_size(3)?,
    ];
    for policy in policies {
        let ranks = View::<u64, 1>::new("ranks", [league])?;
        let visits = AtomicU64::new(0);
        {
            // SAFETY: league rank r writes ranks[r] only.
            let out = unsafe { ranks.parallel_mut()? };
            parallel_for("teams", policy.clone(), |team: &TeamMember| {
                assert_eq!(team.league_size(), league);
                assert_eq!((team.team_rank(), team.team_size()), (0, 1));
                team.team_barrier();
                out.set(team.league_rank(), team.league_rank() as u64 * 3 + 1);
                visits.fetch_add(1, Ordering::Relaxed);
            })?;
        }
        let want: Vec<u64> = (0..league as u64).map(|r| r * 3 + 1).collect();
        assert_eq!(ranks.to_vec()?, want);
        assert_eq!(visits.load(Ordering::Relaxed), league as u64);
        let sum = parallel_reduce(
            "league sum",
            policy,
            |team: &TeamMember, acc: &mut u64| {
                single(PerTeam(team), || *acc += team.league_rank() as u64)
            },
            Sum::new(),
        )?;
        assert_eq!(sum, (league as u64 - 1) * league as u64 / 2);
    }
    Ok(())
}

per_host_space!(every_league_rank_runs_once, every_league_rank_runs_once);

/// An empty league runs nothing and reduces to the identity.
fn an_empty_league_reduces_to_the_identity<S: HostExecutionSpace + LaunchTeam>(
    exec: &S,
) -> Result<()> {
    let max = parallel_reduce(
        "empty",
        TeamPolicy::new(exec, 0, AUTO)?,
        |_: &TeamMember, acc: &mut i64| *acc = i64::MAX,
        Max::new(),
    )?;
    assert_eq!(max, i64::MIN);
    Ok(())
}

per_host_space!(
    an_empty_league_reduces_to_the_identity,
    an_empty_league_reduces_to_the_identity
);

/// Nested reductions over each nested range with the built-in reducers give every team its own
/// result (Kokkos' TestTeamVector reductions).
fn nested_reductions_use_every_builtin_reducer<S: HostExecutionSpace + LaunchTeam>(
    exec: &S,
) -> Result<()> {
    let (league, n) = (64usize, 37i64);
    let results = View::<f64, 2>::new("results", [league, 6])?;
    {
        // SAFETY: league rank r writes row r only.
        let out = unsafe { results.parallel_mut()? };
        parallel_for(
            "nested",
            TeamPolicy::new(exec, league, AUTO)?.vector_length(8)?,
            |team: &TeamMember| {
                let r = team.league_rank() as i64;
                let value = |i: i64| ((i * 7 + r * 3) % 23 - 11) as f64;
                let sum = TeamThreadRange::new(team, 0, n)
                    .parallel_reduce(|i, s: &mut f64| *s += value(i), Sum::new());
                let prod = ThreadVectorRange::new(team, 1, 6i64)
                    .parallel_reduce(|i, p: &mut f64| *p *= (i + r) as f64, Prod::new());
                let min = TeamVectorRange::new(team, 0, n)
                    .parallel_reduce(|i, m: &mut f64| *m = m.min(value(i)), Min::new());
                let max = TeamThreadRange::new(team, 0, n)
                    .parallel_reduce(|i, m: &mut f64| *m = m.max(value(i)), Max::new());
                let loc = ThreadVectorRange::new(team, 0, n).parallel_reduce(
                    |i, m: &mut ferrokkos::ValLocScalar<f64, i64>| {
                        if value(i) > m.val {
                            *m = ferrokkos::ValLocScalar {
                                val: value(i),
                                loc: i,
                            };
                        }
                    },
                    MaxLoc::new(),
                );
                let row = team.league_rank();
                for (k, v) in [sum, prod, min, max, loc.val, loc.loc as f64]
                    .into_iter()
                    .enumerate()
                {
                    out.set((row, k), v);
                }
            },
        )?;
    }
    let got = results.to_vec()?;
    for r in 0..league as i64 {
        let values: Vec<f64> = (0..n).map(|i| ((i * 7 + r * 3) % 23 - 11) as f64).collect();
        let max = values.iter().cloned().fold(f64::MIN, f64::max);
        let loc = values.iter().position(|&v| v == max).unwrap() as f64;
        let want = [
            values.iter().sum::<f64>(),
            (1..6).map(|i| (i + r) as f64).product(),
            values.iter().cloned().fold(f64::MAX, f64::min),
            max,
            max,
            loc,
        ];
        assert_eq!(
            &got[r as usize * 6..r as usize * 6 + 6],
            &want,
            "league rank {r}"
        );
    }
    Ok(())
}

per_host_space!(
    nested_reductions_use_every_builtin_reducer,
    nested_reductions_use_every_builtin_reducer
);

/// A nested scan gives each iteration the exclusive prefix of the earlier ones and returns the
/// total (Kokkos' TestTeamScan).
fn nested_scans_give_prefixes_and_the_total<S: HostExecutionSpace + LaunchTeam>(
    exec: &S,
) -> Result<()> {
    let (league, n) = (20usize, 50usize);
    let prefixes = View::<u64, 2>::new("prefixes", [league, n])?;
    let totals = View::<u64, 1>::new("totals", [league])?;
    {
        // SAFETY: league rank r writes row r of prefixes and totals[r] only.
        let (pre, tot) = unsafe { (prefixes.parallel_mut()?, totals.parallel_mut()?) };
        parallel_for(
            "scan",
            TeamPolicy::new(exec, league, AUTO)?,
            |team: &TeamMember| {
                let r = team.league_rank();
                let total = ThreadVectorRange::new(team, 0, n).parallel_scan(
                    |i, partial: &mut u64, is_final| {
                        if is_final {
                            pre.set((r, i), *partial);
                        }
                        *partial += (i * r + 1) as u64;
                    },
                    Sum::new(),
                );
                tot.set(r, total);
            },
        )?;
    }
    let (pre, tot) = (prefixes.to_vec()?, totals.to_vec()?);
    for r in 0..league {
        let mut running = 0u64;
        for i in 0..n {
            assert_eq!(pre[r * n + i], running, "league rank {r}, iteration {i}");
            running += (i * r + 1) as u64;
        }
        assert_eq!(tot[r], running);
    }
    Ok(())
}

per_host_space!(
    nested_scans_give_prefixes_and_the_total,
    nested_scans_give_prefixes_and_the_total
);

/// `TeamThreadMDRange` of ranks 2 and 3 visits its box once, last dimension fastest.
fn md_ranges_visit_their_box_in_order<S: HostExecutionSpace + LaunchTeam>(exec: &S) -> Result<()> {
    let sums = parallel_reduce(
        "md",
        TeamPolicy::new(exec, 3, AUTO)?,
        |team: &TeamMember, acc: &mut u64| {
            let r = team.league_rank() as u64;
            let order = std::cell::Cell::new(0u64);
            TeamThreadMDRange::new(team, [4, 5]).parallel_for(|(i, j)| {
                assert_eq!(order.get(), (i * 5 + j) as u64);
                order.set(order.get() + 1);
            });
            let box3 = TeamThreadMDRange::new(team, [2, 3, 4]).parallel_reduce(
                |(i, j, k), s: &mut u64| *s += (i * 100 + j * 10 + k) as u64,
                Sum::new(),
            );
            let empty = TeamThreadMDRange::new(team, [3, 0])
                .parallel_reduce(|_, s: &mut u64| *s += 1, Sum::new());
            *acc += order.get() + box3 * (r + 1) + empty;
        },
        Sum::new(),
    )?;
    let box3: u64 = (0..2u64)
        .flat_map(|i| (0..3u64).flat_map(move |j| (0..4u64).map(move |k| i * 100 + j * 10 + k)))
        .sum();
    assert_eq!(sums, 3 * 20 + box3 * (1 + 2 + 3));
    Ok(())
}

per_host_space!(
    md_ranges_visit_their_box_in_order,
    md_ranges_visit_their_box_in_order
);

/// Scratch Views at levels 0 and 1, per team and per thread, hold what the team wrote, are private
/// to the team running (no other team's writes appear), and a View beyond the request is an error
/// naming the level and the bytes (Kokkos' TestTeamScratch).
fn scratch_views_are_private_and_bounded<S: HostExecutionSpace + LaunchTeam>(
    exec: &S,
) -> Result<()> {
    let (league, n) = (200usize, 32usize);
    let policy = TeamPolicy::new(exec, league, AUTO)?
        .set_scratch_size(0, PerTeam(n * 8))?
        .set_scratch_size(1, (PerTeam(n * 4 + 4), PerThread(16)))?;
    assert_eq!(policy.scratch_size(1, 1), n * 4 + 4 + 16);
    let bad = AtomicU64::new(0);
    let total = parallel_reduce(
        "scratch",
        policy,
        |team: &TeamMember, acc: &mut u64| {
            let r = team.league_rank() as u64;
            let mut a = team.team_scratch(0).view::<u64, 1>([n]).unwrap();
            let mut b = team.team_scratch(1).view::<u32, 2>([n / 4, 4]).unwrap();
            let mut c = team.thread_scratch(1).view::<f64, 1>([2]).unwrap();
            // Beyond the request: an error, and the arena keeps its room.
            let too_big = team.team_scratch(1).view::<u8, 1>([9]);
            let message = too_big.err().map(|e| e.to_string()).unwrap_or_default();
            if !message.contains("level 1") || !message.contains("9 bytes") {
                bad.fetch_add(1, Ordering::Relaxed);
            }
            if team.team_scratch(1).view::<u32, 1>([1]).is_err()
                || team.team_scratch(2).view::<u8, 1>([1]).is_ok()
            {
                bad.fetch_add(1, Ordering::Relaxed);
            }
            TeamThreadRange::new(team, 0, n).parallel_for(|_| {});
            for i in 0..n {
                a[i] = r * 1000 + i as u64;
                b[(i / 4, i % 4)] = (r + i as u64) as u32;
            }
            c[0] = r as f64;
            c[1] = 0.5;
            team.team_barrier();
            let mut s = 0u64;
            for i in 0..n {
                s += a[i] - r * 1000 + b[(i / 4, i % 4)] as u64;
            }
            *acc += s + (c[0] + c[1]) as u64;
        },
        Sum::new(),
    )?;
    assert_eq!(bad.load(Ordering::Relaxed), 0);
    let per_team = |r: u64| -> u64 { (0..n as u64).map(|i| i + r + i).sum::<u64>() + r };
    assert_eq!(total, (0..league as u64).map(per_team).sum::<u64>());
    Ok(())
}

per_host_space!(
    scratch_views_are_private_and_bounded,
    scratch_views_are_private_and_bounded
);

/// `single` runs once per team or thread and gives its value to the team; `team_broadcast` gives
/// the value of the named rank.
fn single_and_broadcast_give_the_value<S: HostExecutionSpace + LaunchTeam>(exec: &S) -> Result<()> {
    let calls = AtomicU64::new(0);
    let total = parallel_reduce(
        "single",
        TeamPolicy::new(exec, 10, AUTO)?,
        |team: &TeamMember, acc: &mut u64| {
            let v = single(PerTeam(team), || {
                calls.fetch_add(1, Ordering::Relaxed);
                team.league_rank() as u64 * 2
            });
            let w = single(PerThread(team), || v + 1);
            *acc += team.team_broadcast(w, 0);
        },
        Sum::new(),
    )?;
    assert_eq!(calls.load(Ordering::Relaxed), 10);
    assert_eq!(total, (0..10u64).map(|r| r * 2 + 1).sum::<u64>());
    Ok(())
}

per_host_space!(
    single_and_broadcast_give_the_value,
    single_and_broadcast_give_the_value
);

/// The host spaces' limits: teams of one thread, `AUTO` gives one; bad sizes and levels are errors
/// that name them.
fn team_sizes_at_their_limits<S: HostExecutionSpace + LaunchTeam>(exec: &S) -> Result<()> {
    let p = TeamPolicy::new(exec, 5, AUTO)?;
    assert_eq!((p.team_size_max()?, p.team_size_recommended()?), (1, 1));
    let e = parallel_for("two", TeamPolicy::new(exec, 5, 2)?, |_: &TeamMember| {}).unwrap_err();
    assert!(
        e.to_string().contains("a team of 2 threads")
            && e.to_string().contains("team_size_max is 1"),
        "{e}"
    );
    let e = TeamPolicy::new(exec, 5, AUTO)?
        .vector_length(3)
        .unwrap_err();
    assert!(e.to_string().contains("vector length (3)"), "{e}");
    let e = TeamPolicy::new(exec, 5, AUTO)?
        .set_scratch_size(2, PerTeam(8))
        .unwrap_err();
    assert!(e.to_string().contains("scratch level 2"), "{e}");
    let e = TeamPolicy::new(exec, 5, AUTO)?.chunk_size(0).unwrap_err();
    assert!(e.to_string().contains("chunk size"), "{e}");
    // A request no allocation can meet is an error naming it, before anything runs.
    let huge = TeamPolicy::new(exec, 5, AUTO)?.set_scratch_size(1, PerThread(usize::MAX / 2))?;
    let ran = AtomicU64::new(0);
    let e = parallel_for("huge", huge, |_: &TeamMember| {
        ran.fetch_add(1, Ordering::Relaxed);
    })
    .unwrap_err();
    assert!(e.to_string().contains("level 1, per thread"), "{e}");
    assert_eq!(ran.load(Ordering::Relaxed), 0);
    Ok(())
}

per_host_space!(team_sizes_at_their_limits, team_sizes_at_their_limits);

#[test]
fn a_team_kernel_nested_in_a_threads_kernel_runs_inline() -> Result<()> {
    common::runtime();
    let exec = Threads::default_instance()?;
    let total = parallel_reduce(
        "outer",
        RangePolicy::new(&exec, 0, 8)?,
        |i: usize, acc: &mut u64| {
            let inner = parallel_reduce(
                "inner teams",
                TeamPolicy::new(&exec, 4, AUTO).unwrap(),
                |team: &TeamMember, a: &mut u64| *a += (team.league_rank() * i) as u64,
                Sum::new(),
            )
            .unwrap();
            *acc += inner;
        },
        Sum::new(),
    )?;
    assert_eq!(total, (0..8u64).map(|i| 6 * i).sum::<u64>());
    Ok(())
}

/// A `c * league_rank + i` index is one to one only while `c * league_size` fits `usize`: a
/// launch whose league would overflow it is refused, naming the stride and the league.
#[test]
fn blocked_rows_refuse_a_league_whose_stride_overflows() -> Result<()> {
    common::runtime();
    let exec = Serial::default_instance()?;
    let y = View::<u64, 1>::new("y", [4])?;
    let per = usize::MAX / 2;
    let err = parallel_for(
        "huge stride",
        TeamPolicy::new(&exec, 3, AUTO)?,
        kernel!(|team: &TeamMember| {
            TeamVectorRange::new(team, 0, per).parallel_for(|r| {
                if r < 1 {
                    y[per * team.league_rank() + r] = 1;
                }
            });
        }),
    )
    .unwrap_err()
    .to_string();
    assert!(
        err.contains("huge stride")
            && err.contains("league of 3 teams")
            && err.contains(&per.to_string()),
        "{err}"
    );
    Ok(())
}
