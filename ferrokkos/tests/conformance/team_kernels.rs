//! Team `kernel!`s (Kokkos' TestTeam, TestTeamVector and TestTeamScan behaviours, written once for
//! every space): league ranks, nested ranges of each kind with for, reduce and scan, `single` with
//! and without a value, broadcasts and barriers, team reductions into a host value.

use ferrokkos::Result;
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;

use crate::spaces::{SView, download};

/// Each team writes its league rank's row of a 2-D View through a TeamThreadRange, and each team
/// thread its elements of a second row through a nested ThreadVectorRange; a `single(PerTeam)`
/// writes the team's own entry.
fn nested_ranges_write_their_own_elements<S: Launch>(exec: &S) -> Result<()> {
    let (league, n, m) = (37usize, 19usize, 5usize);
    let rows = SView::<S, u64, 2>::new("rows", [league, n])?;
    let cube = SView::<S, u64, 3>::new("cube", [league, n, m])?;
    let ones = SView::<S, u64, 1>::new("ones", [league])?;
    parallel_for(
        "nested",
        TeamPolicy::new(exec, league, AUTO)?.vector_length(4)?,
        kernel!(|team: &TeamMember| {
            let lr = team.league_rank();
            TeamThreadRange::new(team, 0, n).parallel_for(|i| {
                ThreadVectorRange::new(team, 0, m).parallel_for(|j| {
                    cube[(lr, i, j)] = (lr * 1000 + i * 10 + j) as u64;
                });
                single(PerThread(team), || rows[(lr, i)] = (lr * 100 + i) as u64);
            });
            single(PerTeam(team), || ones[lr] = lr as u64 + 1);
        }),
    )?;
    let (rows, cube, ones) = (download(&rows)?, download(&cube)?, download(&ones)?);
    for l in 0..league {
        assert_eq!(ones[l], l as u64 + 1);
        for i in 0..n {
            assert_eq!(rows[l * n + i], (l * 100 + i) as u64);
            for j in 0..m {
                assert_eq!(cube[(l * n + i) * m + j], (l * 1000 + i * 10 + j) as u64);
            }
        }
    }
    Ok(())
}

/// Nested reductions of each range kind give every thread the join, and a `single(PerTeam)`
/// contributes it once per team to the launch's reduction.
fn nested_reductions_reach_every_thread<S: Launch>(exec: &S) -> Result<()> {
    let (league, n) = (23usize, 101u64);
    let sums = SView::<S, u64, 2>::new("sums", [league, 3])?;
    let total = parallel_reduce(
        "nested reduce",
        TeamPolicy::new(exec, league, AUTO)?.vector_length(8)?,
        kernel!(|team: &TeamMember, acc: &mut u64| {
            let lr = team.league_rank();
            let base = lr as u64;
            let a =
                TeamThreadRange::new(team, 0, n).parallel_reduce(|i, s| *s += i + base, Sum::new());
            let b =
                TeamVectorRange::new(team, 1, n).parallel_reduce(|i, s| *s += i * i, Sum::new());
            let c = TeamThreadRange::new(team, 0, n).parallel_reduce(
                |i, s| {
                    let part = ThreadVectorRange::new(team, 0, i)
                        .parallel_reduce(|k, t: &mut u64| *t += k, Sum::new());
                    *s += part;
                },
                Sum::new(),
            );
            single(PerTeam(team), || {
                sums[(lr, 0)] = a;
                sums[(lr, 1)] = b;
                sums[(lr, 2)] = c;
                *acc += a;
            });
        }),
        Sum::new(),
    )?;
    let sums = download(&sums)?;
    let mut expected_total = 0;
    for l in 0..league {
        let a: u64 = (0..n).map(|i| i + l as u64).sum();
        let b: u64 = (1..n).map(|i| i * i).sum();
        let c: u64 = (0..n).map(|i| (0..i).sum::<u64>()).sum();
        assert_eq!(&sums[l * 3..l * 3 + 3], &[a, b, c], "league rank {l}");
        expected_total += a;
    }
    assert_eq!(total, expected_total);
    Ok(())
}

/// Rows handed out in blocks of `per_team` to each team (`per_team * league_rank + r`, Kokkos'
/// rows-per-team idiom), the last team's block cut at the end; every row written once.
fn blocked_rows_cover_every_row_once<S: Launch>(exec: &S) -> Result<()> {
    let (rows, per_team) = (1_000usize, 7usize);
    let league = rows.div_ceil(per_team);
    let out = SView::<S, u64, 1>::new("out", [rows])?;
    let x = crate::spaces::upload::<S, u64>("x", &(0..rows as u64).collect::<Vec<_>>())?;
    parallel_for(
        "blocked rows",
        TeamPolicy::new(exec, league, AUTO)?.vector_length(2)?,
        kernel!(|team: &TeamMember| {
            TeamThreadRange::new(team, 0, per_team).parallel_for(|r| {
                let row = per_team * team.league_rank() + r;
                if row < rows {
                    let twice = ThreadVectorRange::new(team, 0, 2usize)
                        .parallel_reduce(|_k, s: &mut u64| *s += x[row], Sum::new());
                    single(PerThread(team), || out[row] = twice + 1);
                }
            });
        }),
    )?;
    let out = download(&out)?;
    for (r, v) in out.iter().enumerate() {
        assert_eq!(*v, 2 * r as u64 + 1, "row {r}");
    }
    Ok(())
}

/// A team scan over each range kind gives every iteration its exclusive prefix in the final pass
/// and every thread the total; a broadcast gives every thread thread 0's value.
fn nested_scans_and_broadcasts<S: Launch>(exec: &S) -> Result<()> {
    let (league, n) = (11usize, 45usize);
    let prefix = SView::<S, i64, 3>::new("prefix", [league, 3, n])?;
    let totals = SView::<S, i64, 2>::new("totals", [league, 4])?;
    let third = SView::<S, i64, 3>::new("third", [league, 1, n])?;
    parallel_for(
        "scans",
        TeamPolicy::new(exec, league, AUTO)?.vector_length(4)?,
        kernel!(|team: &TeamMember| {
            let lr = team.league_rank();
            let l = lr as i64;
            let a = TeamThreadRange::new(team, 0, n).parallel_scan(
                |i, p: &mut i64, last: bool| {
                    if last {
                        single(PerThread(team), || prefix[(lr, 0, i)] = *p);
                    }
                    *p += i as i64 + l;
                },
                Sum::new(),
            );
            let b = TeamVectorRange::new(team, 0, n).parallel_scan(
                |i, p: &mut i64, last: bool| {
                    if last {
                        prefix[(lr, 1, i)] = *p;
                    }
                    *p += 2 * i as i64;
                },
                Sum::new(),
            );
            // One team thread scans over its lanes.
            let c = TeamThreadRange::new(team, 0, 1usize).parallel_reduce(
                |t, s: &mut i64| {
                    *s += ThreadVectorRange::new(team, 0, n).parallel_scan(
                        |i, p: &mut i64, last: bool| {
                            if last {
                                third[(lr, t, i)] = *p;
                            }
                            *p += 1;
                        },
                        Sum::new(),
                    );
                },
                Sum::new(),
            );
            let d = team.team_broadcast(l * 3 + team.team_rank() as i64, 0);
            single(PerTeam(team), || {
                totals[(lr, 0)] = a;
                totals[(lr, 1)] = b;
                totals[(lr, 2)] = c;
                totals[(lr, 3)] = d;
            });
        }),
    )?;
    let (prefix, totals, third) = (download(&prefix)?, download(&totals)?, download(&third)?);
    for l in 0..league {
        let li = l as i64;
        let mut run = [0i64; 3];
        for i in 0..n {
            let at = |k: usize| prefix[(l * 3 + k) * n + i];
            assert_eq!(
                [at(0), at(1), third[l * n + i]],
                run,
                "league rank {l}, iteration {i}"
            );
            run[0] += i as i64 + li;
            run[1] += 2 * i as i64;
            run[2] += 1;
        }
        assert_eq!(
            &totals[l * 4..l * 4 + 4],
            &[run[0], run[1], run[2], li * 3],
            "league rank {l}"
        );
    }
    Ok(())
}

per_space!(nested_ranges_write, nested_ranges_write_their_own_elements);
per_space!(nested_reductions, nested_reductions_reach_every_thread);
per_space!(blocked_rows, blocked_rows_cover_every_row_once);
per_space!(nested_scans, nested_scans_and_broadcasts);

/// Every built-in reducer of one number joins a nested range's values on every range kind: sums,
/// products, minima, maxima, bitwise and logical joins, as in Kokkos' TestTeamVector reductions.
fn nested_reductions_with_every_builtin_reducer<S: Launch>(exec: &S) -> Result<()> {
    let (league, n) = (9usize, 37i64);
    let out = SView::<S, i64, 3>::new("out", [league, 2, 8])?;
    let inner = SView::<S, i64, 3>::new("inner", [league, 1, 8])?;
    parallel_for(
        "reducers",
        TeamPolicy::new(exec, league, AUTO)?.vector_length(4)?,
        kernel!(|team: &TeamMember| {
            let lr = team.league_rank();
            let l = lr as i64;
            // The same eight joins over TeamThreadRange (kind 0), TeamVectorRange (1) and a
            // ThreadVectorRange in a one-iteration TeamThreadRange (2).
            let s0 = TeamThreadRange::new(team, 0, n)
                .parallel_reduce(|i, s: &mut i64| *s += i * l - 3, Sum::new());
            let p0 = TeamThreadRange::new(team, 1, 9i64)
                .parallel_reduce(|i, p: &mut i64| *p *= i + l, Prod::new());
            let mn0 = TeamThreadRange::new(team, 0, n).parallel_reduce(
                |i, m: &mut i64| *m = (*m).min((i - 17) * (i - 17) - l),
                Min::new(),
            );
            let mx0 = TeamThreadRange::new(team, 0, n)
                .parallel_reduce(|i, m: &mut i64| *m = (*m).max(i * 3 % 11 + l), Max::new());
            let ba0 = TeamThreadRange::new(team, 0, n)
                .parallel_reduce(|i, b: &mut i64| *b &= !(1i64 << (i % 5)) | l, BAnd::new());
            let bo0 = TeamThreadRange::new(team, 0, n)
                .parallel_reduce(|i, b: &mut i64| *b |= 1i64 << (i % 7 + l), BOr::new());
            let la0 = TeamThreadRange::new(team, 0, n)
                .parallel_reduce(|i, b: &mut bool| *b = *b && (i + l) % 13 != 12, LAnd);
            let lo0 = TeamThreadRange::new(team, 0, n)
                .parallel_reduce(|i, b: &mut bool| *b = *b || i == l + 20, LOr);
            let s1 = TeamVectorRange::new(team, 0, n)
                .parallel_reduce(|i, s: &mut i64| *s += i * l - 3, Sum::new());
            let p1 = TeamVectorRange::new(team, 1, 9i64)
                .parallel_reduce(|i, p: &mut i64| *p *= i + l, Prod::new());
            let mn1 = TeamVectorRange::new(team, 0, n).parallel_reduce(
                |i, m: &mut i64| *m = (*m).min((i - 17) * (i - 17) - l),
                Min::new(),
            );
            let mx1 = TeamVectorRange::new(team, 0, n)
                .parallel_reduce(|i, m: &mut i64| *m = (*m).max(i * 3 % 11 + l), Max::new());
            let ba1 = TeamVectorRange::new(team, 0, n)
                .parallel_reduce(|i, b: &mut i64| *b &= !(1i64 << (i % 5)) | l, BAnd::new());
            let bo1 = TeamVectorRange::new(team, 0, n)
                .parallel_reduce(|i, b: &mut i64| *b |= 1i64 << (i % 7 + l), BOr::new());
            let la1 = TeamVectorRange::new(team, 0, n)
                .parallel_reduce(|i, b: &mut bool| *b = *b && (i + l) % 13 != 12, LAnd);
            let lo1 = TeamVectorRange::new(team, 0, n)
                .parallel_reduce(|i, b: &mut bool| *b = *b || i == l + 20, LOr);
            TeamThreadRange::new(team, 0, 1usize).parallel_for(|t| {
                let s2 = ThreadVectorRange::new(team, 0, n)
                    .parallel_reduce(|i, s: &mut i64| *s += i * l - 3, Sum::new());
                let p2 = ThreadVectorRange::new(team, 1, 9i64)
                    .parallel_reduce(|i, p: &mut i64| *p *= i + l, Prod::new());
                let mn2 = ThreadVectorRange::new(team, 0, n).parallel_reduce(
                    |i, m: &mut i64| *m = (*m).min((i - 17) * (i - 17) - l),
                    Min::new(),
                );
                let mx2 = ThreadVectorRange::new(team, 0, n)
                    .parallel_reduce(|i, m: &mut i64| *m = (*m).max(i * 3 % 11 + l), Max::new());
                let ba2 = ThreadVectorRange::new(team, 0, n)
                    .parallel_reduce(|i, b: &mut i64| *b &= !(1i64 << (i % 5)) | l, BAnd::new());
                let bo2 = ThreadVectorRange::new(team, 0, n)
                    .parallel_reduce(|i, b: &mut i64| *b |= 1i64 << (i % 7 + l), BOr::new());
                let la2 = ThreadVectorRange::new(team, 0, n)
                    .parallel_reduce(|i, b: &mut bool| *b = *b && (i + l) % 13 != 12, LAnd);
                let lo2 = ThreadVectorRange::new(team, 0, n)
                    .parallel_reduce(|i, b: &mut bool| *b = *b || i == l + 20, LOr);
                single(PerThread(team), || {
                    inner[(lr, t, 0)] = s2;
                    inner[(lr, t, 1)] = p2;
                    inner[(lr, t, 2)] = mn2;
                    inner[(lr, t, 3)] = mx2;
                    inner[(lr, t, 4)] = ba2;
                    inner[(lr, t, 5)] = bo2;
                    inner[(lr, t, 6)] = la2 as i64;
                    inner[(lr, t, 7)] = lo2 as i64;
                });
            });
            single(PerTeam(team), || {
                out[(lr, 0, 0)] = s0;
                out[(lr, 0, 1)] = p0;
                out[(lr, 0, 2)] = mn0;
                out[(lr, 0, 3)] = mx0;
                out[(lr, 0, 4)] = ba0;
                out[(lr, 0, 5)] = bo0;
                out[(lr, 0, 6)] = la0 as i64;
                out[(lr, 0, 7)] = lo0 as i64;
                out[(lr, 1, 0)] = s1;
                out[(lr, 1, 1)] = p1;
                out[(lr, 1, 2)] = mn1;
                out[(lr, 1, 3)] = mx1;
                out[(lr, 1, 4)] = ba1;
                out[(lr, 1, 5)] = bo1;
                out[(lr, 1, 6)] = la1 as i64;
                out[(lr, 1, 7)] = lo1 as i64;
            });
        }),
    )?;
    let (out, inner) = (download(&out)?, download(&inner)?);
    for lr in 0..league {
        let l = lr as i64;
        let want = [
            (0..n).map(|i| i * l - 3).sum::<i64>(),
            (1..9).map(|i| i + l).product::<i64>(),
            (0..n)
                .map(|i| (i - 17) * (i - 17) - l)
                .min()
                .unwrap_or(i64::MAX),
            (0..n).map(|i| i * 3 % 11 + l).max().unwrap_or(i64::MIN),
            (0..n).fold(-1i64, |b, i| b & (!(1i64 << (i % 5)) | l)),
            (0..n).fold(0i64, |b, i| b | (1i64 << (i % 7 + l))),
            (0..n).all(|i| (i + l) % 13 != 12) as i64,
            (0..n).any(|i| i == l + 20) as i64,
        ];
        for kind in 0..2 {
            let at = (lr * 2 + kind) * 8;
            assert_eq!(
                &out[at..at + 8],
                &want,
                "league rank {lr}, range kind {kind}"
            );
        }
        assert_eq!(
            &inner[lr * 8..lr * 8 + 8],
            &want,
            "league rank {lr}, ThreadVectorRange"
        );
    }
    Ok(())
}

/// Teams of the largest size a space allows (with one lane and with the largest vector length)
/// and leagues of one and of many teams: every team thread and lane is one agent, and each team's
/// `team_size()` and `vector_length()` are the policy's.
fn team_and_league_sizes_at_their_limits<S: Launch>(exec: &S) -> Result<()> {
    for lanes in [1usize, 0] {
        let limits = TeamPolicy::new(exec, 1, AUTO)?.limits()?;
        let lanes = if lanes == 0 {
            limits.vector_length_max.min(32)
        } else {
            lanes
        };
        let probe = TeamPolicy::new(exec, 1, AUTO)?.vector_length(lanes)?;
        let size = probe.team_size_max()?;
        for league in [1usize, 3001] {
            let per = size * lanes;
            let seen = SView::<S, u32, 1>::new("seen", [league * per])?;
            let shape = SView::<S, u64, 2>::new("shape", [league, 3])?;
            parallel_for(
                "limits",
                TeamPolicy::new(exec, league, size)?.vector_length(lanes)?,
                kernel!(|team: &TeamMember| {
                    TeamVectorRange::new(team, 0, per).parallel_for(|k| {
                        seen[per * team.league_rank() + k] = 1;
                    });
                    let lr = team.league_rank();
                    single(PerTeam(team), || {
                        shape[(lr, 0)] = team.team_size() as u64;
                        shape[(lr, 1)] = team.vector_length() as u64;
                        shape[(lr, 2)] = team.league_size() as u64;
                    });
                }),
            )?;
            let (seen, shape) = (download(&seen)?, download(&shape)?);
            assert!(
                seen.iter().all(|s| *s == 1),
                "{size} x {lanes}, league {league}"
            );
            for lr in 0..league {
                assert_eq!(
                    &shape[lr * 3..lr * 3 + 3],
                    &[size as u64, lanes as u64, league as u64],
                    "{size} x {lanes}, league rank {lr}"
                );
            }
        }
    }
    Ok(())
}

per_space!(
    builtin_reducers,
    nested_reductions_with_every_builtin_reducer
);
per_space!(sizes_at_limits, team_and_league_sizes_at_their_limits);

/// The limits a policy gives one kernel (Kokkos' `team_size_max(functor, ParallelForTag())`):
/// a team of that size runs it, and the recommended size is within it.
fn team_size_queries_for_a_kernel<S: Launch>(exec: &S) -> Result<()> {
    let league = 5usize;
    let out = SView::<S, u64, 1>::new("out", [league])?;
    let kernel = kernel!(|team: &TeamMember| {
        let size = TeamThreadRange::new(team, 0, 1000usize)
            .parallel_reduce(|_i, s: &mut u64| *s += 1, Sum::new());
        let lr = team.league_rank();
        single(PerTeam(team), || {
            out[lr] = size + team.team_size() as u64 * 1_000_000
        });
    });
    let policy = TeamPolicy::new(exec, league, AUTO)?.vector_length(2)?;
    let (max, recommended) = (
        policy.team_size_max_for(&kernel)?,
        policy.team_size_recommended_for(&kernel)?,
    );
    assert!(
        recommended >= 1 && recommended <= max,
        "{recommended} of {max}"
    );
    assert!(max <= policy.team_size_max()?, "{max}");
    parallel_for(
        "largest team",
        TeamPolicy::new(exec, league, max)?.vector_length(2)?,
        &kernel,
    )?;
    let out = download(&out)?;
    assert!(
        out.iter().all(|v| *v == 1000 + max as u64 * 1_000_000),
        "{out:?}"
    );
    Ok(())
}

per_space!(size_queries, team_size_queries_for_a_kernel);

/// Scratch Views of both levels, a team's and a thread's (Kokkos' TestTeamScratch): a team stages
/// its matrix in level-0 team scratch and a vector in level 1, waits at a barrier, each thread
/// scales the vector into its own scratch, waits again, and multiplies from scratch.
fn scratch_views_stage_tiles<S: Launch>(exec: &S) -> Result<()> {
    let (league, n) = (13usize, 24usize);
    let a_host: Vec<f64> = (0..league * n * n)
        .map(|k| ((k * 7) % 23) as f64 - 11.0)
        .collect();
    let b_host: Vec<f64> = (0..league * n)
        .map(|k| ((k * 5) % 13) as f64 * 0.5)
        .collect();
    let a = SView::<S, f64, 3>::new("a", [league, n, n])?;
    let b = SView::<S, f64, 2>::new("b", [league, n])?;
    let (ha, hb) = (create_mirror_view(&a)?, create_mirror_view(&b)?);
    {
        let (mut ga, mut gb) = (ha.host_mut()?, hb.host_mut()?);
        for m in 0..league {
            for i in 0..n {
                gb[(m, i)] = b_host[m * n + i];
                for j in 0..n {
                    ga[(m, i, j)] = a_host[(m * n + i) * n + j];
                }
            }
        }
    }
    deep_copy(&a, &ha)?;
    deep_copy(&b, &hb)?;
    let c = SView::<S, f64, 2>::new("c", [league, n])?;
    let policy = TeamPolicy::new(exec, league, AUTO)?
        .vector_length(4)?
        .set_scratch_size(0, (PerTeam(n * n * 8), PerThread(n * 8)))?
        .set_scratch_size(1, PerTeam(n * 8))?;
    let kernel = kernel!(|team: &TeamMember| {
        let m = team.league_rank();
        let tile = team.team_scratch(0).view::<f64, 2>([n, n]);
        let far = team.team_scratch(1).view::<f64, 1>([n]);
        let mine = team.thread_scratch(0).view::<f64, 1>([n]);
        TeamThreadRange::new(team, 0, n).parallel_for(|i| {
            ThreadVectorRange::new(team, 0, n).parallel_for(|j| tile[(i, j)] = a[(m, i, j)]);
        });
        TeamVectorRange::new(team, 0, n).parallel_for(|j| far[j] = b[(m, j)]);
        team.team_barrier();
        ThreadVectorRange::new(team, 0, n).parallel_for(|j| mine[j] = 2.0 * far[j]);
        team.team_barrier();
        TeamThreadRange::new(team, 0, n).parallel_for(|i| {
            let s = ThreadVectorRange::new(team, 0, n)
                .parallel_reduce(|j, s: &mut f64| *s += tile[(i, j)] * mine[j], Sum::new());
            single(PerThread(team), || c[(m, i)] = s);
        });
    });
    parallel_for("scratch tiles", policy.clone(), &kernel)?;
    let c = download(&c)?;
    for m in 0..league {
        for i in 0..n {
            let want: f64 = (0..n)
                .map(|j| a_host[(m * n + i) * n + j] * (2.0 * b_host[m * n + j]))
                .sum();
            let got = c[m * n + i];
            assert!(
                (got - want).abs() <= 1e-12 * want.abs().max(1.0),
                "team {m}, row {i}: {got} vs {want}"
            );
        }
    }
    // A request smaller than the Views is refused before anything runs, naming both.
    let short = policy.set_scratch_size(0, (PerTeam(n * n * 8 - 8), PerThread(n * 8)))?;
    let err = parallel_for("short scratch", short, &kernel)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("short scratch")
            && err.contains(&format!("need {} bytes per team", n * n * 8))
            && err.contains(&format!("asks for {}", n * n * 8 - 8)),
        "{err}"
    );
    Ok(())
}

per_space!(scratch_tiles, scratch_views_stage_tiles);

/// A team kernel with scratch Views compiles for the GPU: each View is carved from the level's
/// team or thread part at the offset its predecessors leave (rounded up to 8 bytes).
#[test]
fn scratch_views_compile_with_nvrtc() -> Result<()> {
    crate::common::runtime();
    let n = 8usize;
    let y = View::<f64, 2>::new("y", [4, n])?;
    let kernel = kernel!(|team: &TeamMember| {
        let m = team.league_rank();
        let first = team.team_scratch(0).view::<f32, 1>([3]);
        let tile = team.team_scratch(0).view::<f64, 2>([n, n]);
        let own = team.thread_scratch(1).view::<i32, 1>([n]);
        TeamVectorRange::new(team, 0, n).parallel_for(|i| tile[(i, 0)] = i as f64);
        single(PerTeam(team), || first[0] = 1.0);
        team.team_barrier();
        ThreadVectorRange::new(team, 0, n).parallel_for(|j| own[j] = j as i32);
        team.team_barrier();
        TeamVectorRange::new(team, 0, n).parallel_for(|i| {
            y[(m, i)] = tile[(i, 0)] + own[i] as f64 + first[0] as f64 + tile.extent(1) as f64;
        });
    });
    let unit = TranslationUnit::team_kernel(&kernel);
    let text = unit.generated();
    assert!(
        text.contains("fk::scratch_view<f32, 1>(team.team_scratch[0], (u64)0, (usize)(3ULL))")
            && text.contains("fk::scratch_view<f64, 2>(team.team_scratch[0], first_end,")
            && text.contains("fk::scratch_view<i32, 1>(team.thread_scratch[1], (u64)0,"),
        "{text}"
    );
    crate::common::check_device_code(&unit);
    Ok(())
}

/// A loop that refills scratch each round, with a barrier after the fill and one at the end of the
/// round (Kokkos' tiled-loop idiom): every round reads the round's own values.
fn scratch_rounds_between_barriers<S: Launch>(exec: &S) -> Result<()> {
    let (league, rounds, n) = (6usize, 5usize, 32usize);
    let y = SView::<S, u64, 3>::new("y", [league, rounds, n])?;
    parallel_for(
        "rounds",
        TeamPolicy::new(exec, league, AUTO)?
            .vector_length(2)?
            .set_scratch_size(1, PerTeam(n * 8))?,
        kernel!(|team: &TeamMember| {
            let m = team.league_rank();
            let tile = team.team_scratch(1).view::<u64, 1>([n]);
            for s in 0..rounds {
                TeamVectorRange::new(team, 0, n)
                    .parallel_for(|i| tile[i] = (s * 1000 + i * 10 + m) as u64);
                team.team_barrier();
                TeamVectorRange::new(team, 0, n).parallel_for(|i| y[(m, s, i)] = tile[n - 1 - i]);
                team.team_barrier();
            }
        }),
    )?;
    let y = download(&y)?;
    for m in 0..league {
        for s in 0..rounds {
            for i in 0..n {
                let want = (s * 1000 + (n - 1 - i) * 10 + m) as u64;
                assert_eq!(
                    y[(m * rounds + s) * n + i],
                    want,
                    "team {m}, round {s}, {i}"
                );
            }
        }
    }
    Ok(())
}

per_space!(scratch_rounds, scratch_rounds_between_barriers);

/// `TeamThreadMDRange` of rank 2 and 3 spreads a box over the team's threads (the last index
/// fastest): every point once, a reduction over the box in every thread, a vector range inside.
fn md_ranges_cover_their_boxes<S: Launch>(exec: &S) -> Result<()> {
    let (league, n0, n1, n2) = (7usize, 5usize, 6usize, 3usize);
    let plane = SView::<S, u64, 3>::new("plane", [league, n0, n1])?;
    let cube = SView::<S, u64, 4>::new("cube", [league, n0, n1, n2])?;
    let sums = SView::<S, u64, 1>::new("sums", [league])?;
    parallel_for(
        "md",
        TeamPolicy::new(exec, league, AUTO)?.vector_length(2)?,
        kernel!(|team: &TeamMember| {
            let m = team.league_rank();
            TeamThreadMDRange::new(team, [n0, n1]).parallel_for(|(i, j)| {
                single(PerThread(team), || {
                    plane[(m, i, j)] = (m * 100 + i * 10 + j) as u64
                });
            });
            TeamThreadMDRange::new(team, [n0, n1, n2]).parallel_for(|(i, j, k)| {
                single(PerThread(team), || {
                    cube[(m, i, j, k)] = (i * 100 + j * 10 + k) as u64
                });
            });
            let s = TeamThreadMDRange::new(team, [n0, n1]).parallel_reduce(
                |(i, j), s: &mut u64| {
                    *s += ThreadVectorRange::new(team, 0, j + 1)
                        .parallel_reduce(|_l, t: &mut u64| *t += (i + m) as u64, Sum::new());
                },
                Sum::new(),
            );
            single(PerTeam(team), || sums[m] = s);
        }),
    )?;
    let (plane, cube, sums) = (download(&plane)?, download(&cube)?, download(&sums)?);
    for m in 0..league {
        let mut want = 0u64;
        for i in 0..n0 {
            for j in 0..n1 {
                assert_eq!(plane[(m * n0 + i) * n1 + j], (m * 100 + i * 10 + j) as u64);
                want += ((j + 1) * (i + m)) as u64;
                for k in 0..n2 {
                    assert_eq!(
                        cube[((m * n0 + i) * n1 + j) * n2 + k],
                        (i * 100 + j * 10 + k) as u64
                    );
                }
            }
        }
        assert_eq!(sums[m], want, "team {m}");
    }
    Ok(())
}

per_space!(md_ranges, md_ranges_cover_their_boxes);

/// A `TeamThreadMDRange` kernel compiles for the GPU (its box walked as one count, the
/// coordinates decomposed with the last fastest).
#[test]
fn md_ranges_compile_with_nvrtc() -> Result<()> {
    crate::common::runtime();
    let (n0, n1, n2) = (4usize, 5usize, 6usize);
    let y = View::<u64, 4>::new("y", [2, n0, n1, n2])?;
    let kernel = kernel!(|team: &TeamMember| {
        let m = team.league_rank();
        TeamThreadMDRange::new(team, [n0, n1, n2]).parallel_for(|(i, j, k)| {
            single(PerThread(team), || y[(m, i, j, k)] = (i + j + k) as u64);
        });
    });
    let unit = TranslationUnit::team_kernel(&kernel);
    let text = unit.generated();
    assert!(
        text.contains("% j_extent") && text.contains("/ (j_extent * k_extent)"),
        "{text}"
    );
    crate::common::check_device_code(&unit);
    Ok(())
}

/// Kokkos' tutorials write a team's result under `if team.team_rank() == 0` rather than in
/// `single(PerTeam)`: one thread of each team writes it. Every vector lane of that thread runs the
/// branch, so a launch with a vector length above 1 is refused before anything runs.
fn the_first_thread_writes_the_teams_result<S: Launch>(exec: &S) -> Result<()> {
    let (league, n) = (29usize, 50u64);
    let out = SView::<S, u64, 1>::new("out", [league])?;
    let first = kernel!(|team: &TeamMember| {
        let lr = team.league_rank();
        let s = TeamThreadRange::new(team, 0, n)
            .parallel_reduce(|i, s| *s += i + lr as u64, Sum::new());
        if team.team_rank() == 0 {
            out[lr] = s;
        } else {
            let _unused = s;
        }
    });
    parallel_for("first", TeamPolicy::new(exec, league, AUTO)?, &first)?;
    let got = download(&out)?;
    for (l, v) in got.iter().enumerate() {
        assert_eq!(*v, 1225 + 50 * l as u64, "team {l}");
    }
    let wide = TeamPolicy::new(exec, league, AUTO)?.vector_length(4)?;
    let e = parallel_for("wide", wide, &first).unwrap_err();
    assert!(
        matches!(&e, ferrokkos::Error::Policy { .. })
            && e.to_string()
                .contains("with a vector length of 4 several lanes"),
        "{e}"
    );
    Ok(())
}

per_space!(
    the_first_thread_writes_the_teams_result,
    the_first_thread_writes_the_teams_result
);

/// A sequential loop around nested ranges of fixed bounds (time steps, sweeps): each index runs on
/// the same thread and lane in every iteration, so a write of the iteration's own element in each
/// is owner-computes and needs no barrier.
fn a_loop_around_fixed_ranges_keeps_each_element_with_its_thread<S: Launch>(
    exec: &S,
) -> Result<()> {
    let (league, n, steps) = (11usize, 40usize, 6u64);
    let y = SView::<S, u64, 2>::new("y", [league, n])?;
    let z = SView::<S, u64, 3>::new("z", [league, n, 3])?;
    parallel_for(
        "steps",
        TeamPolicy::new(exec, league, AUTO)?.vector_length(4)?,
        kernel!(|team: &TeamMember| {
            let lr = team.league_rank();
            for k in 0..steps {
                TeamVectorRange::new(team, 0, n).parallel_for(|i| {
                    y[(lr, i)] = y[(lr, i)] * 2 + k + i as u64;
                });
                TeamThreadRange::new(team, 0, n).parallel_for(|i| {
                    ThreadVectorRange::new(team, 0, 3).parallel_for(|j| {
                        z[(lr, i, j)] += k * j as u64 + lr as u64;
                    });
                });
            }
        }),
    )?;
    let (y, z) = (download(&y)?, download(&z)?);
    for l in 0..league {
        for i in 0..n {
            let want = (0..steps).fold(0u64, |v, k| v * 2 + k + i as u64);
            assert_eq!(y[l * n + i], want, "y[({l}, {i})]");
            for j in 0..3u64 {
                let want = (0..steps).map(|k| k * j + l as u64).sum::<u64>();
                assert_eq!(z[(l * n + i) * 3 + j as usize], want, "z[({l}, {i}, {j})]");
            }
        }
    }
    Ok(())
}

per_space!(
    a_loop_around_fixed_ranges,
    a_loop_around_fixed_ranges_keeps_each_element_with_its_thread
);
