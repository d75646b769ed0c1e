//! The Cuda backend's own tests: one binary, one module per behaviour. What every space does is
//! checked by the generic bodies of the conformance binary (whose `::cuda` tests run there); these
//! check what only the Cuda backend has: device memory spaces and copies, instances on streams,
//! out-of-bounds and faults on the device, hand-launched translation units, every entry variant,
//! and Kokkos Tools and the trace with GPU work.
//!
//! Every test that needs a GPU is ignored elsewhere (`#[ignore = "needs a CUDA GPU"]`);
//! `unit_variants` needs only NVRTC and runs everywhere. Tests that must be alone in a process
//! (faults, their own initialize) run as a child process of this binary (`common::child`).
//! `cuda_finalize.rs` stays a binary of its own: it compares the device's free memory before
//! initialize and after finalize, which the other tests of a shared binary would change.

#[path = "../common/mod.rs"]
mod common;

mod bounds;
mod device_rules;
mod fault;
mod graphs;
mod instances;
mod memory;
mod nccl;
mod patterns;
mod soundness;
mod tools;
mod unit_variants;
mod units;

use ferrokkos::{Cuda, CudaSpace, ExecutionSpace, LayoutRight, View};

/// A rank-1 View in device memory.
type Dev1<T> = View<T, 1, LayoutRight, CudaSpace>;

/// The default Cuda instance of the test runtime (panics without a GPU).
fn cuda() -> Cuda {
    common::runtime();
    Cuda::default_instance().expect("a CUDA GPU")
}

/// TeamPolicy on Cuda: the limits and their errors, a league larger than the grid, vector lanes
/// filling a warp, team reductions to the host and to a device View, an empty league, and scratch
/// requests at both levels (the data path is tested with hand-written bodies in the library's
/// `backend/cuda/team/scratch_tests.rs`).
mod teams {
    use ferrokkos::Error;
    use ferrokkos::prelude::*;
    use ferrokkos::traits::LaunchTeam;

    use crate::cuda;

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn team_limits_follow_the_block_and_the_warp() {
        let exec = cuda();
        let policy = TeamPolicy::new(&exec, 10, AUTO).unwrap();
        let l = policy.limits().unwrap();
        assert_eq!(l.team_size_max, 1024);
        assert_eq!(l.team_size_recommended, 256);
        assert_eq!(l.vector_length_max, 32);
        assert!(l.scratch_max[0] >= 48 << 10 && l.scratch_max[1] == usize::MAX);
        let wide = policy.clone().vector_length(32).unwrap().limits().unwrap();
        assert_eq!((wide.team_size_max, wide.team_size_recommended), (32, 8));
        let e = policy
            .clone()
            .vector_length(64)
            .unwrap()
            .limits()
            .unwrap_err();
        assert!(e.to_string().contains("vector length of 64"), "{e}");
        let kernel = kernel!(|team: &TeamMember| {
            let _lr = team.league_rank();
        });
        let with_kernel = Cuda::team_limits(&policy, Some(&kernel)).unwrap();
        assert!(with_kernel.team_size_max >= 32 && with_kernel.team_size_max <= 1024);
        let too_big = TeamPolicy::new(&exec, 10, 64)
            .unwrap()
            .vector_length(32)
            .unwrap();
        let e = parallel_for("too big", too_big, &kernel)
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("a team of 64 threads with vector length 32"),
            "{e}"
        );
        assert!(e.contains("too big"), "{e}");
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn every_lane_of_every_team_runs_once_also_beyond_the_grid() {
        let exec = cuda();
        for (league, team, vector) in [(100_000usize, 1usize, 1usize), (777, 3, 32), (50, 33, 1)] {
            let (t, v) = (team, vector);
            let out = View::<u64, 3, LayoutRight, CudaSpace>::new("out", [league, t, v]).unwrap();
            let policy = TeamPolicy::new(&exec, league, team)
                .unwrap()
                .vector_length(vector)
                .unwrap();
            parallel_for(
                "lanes",
                policy,
                kernel!(|team: &TeamMember| {
                    let lr = team.league_rank();
                    TeamThreadRange::new(team, 0, t).parallel_for(|r| {
                        ThreadVectorRange::new(team, 0, v).parallel_for(|k| {
                            out[(lr, r, k)] = (lr * 1_000_000 + r * 1000 + k) as u64 + 1;
                        });
                    });
                }),
            )
            .unwrap();
            let m = create_mirror_view(&out).unwrap();
            deep_copy(&m, &out).unwrap();
            let got = m.to_vec().unwrap();
            for (g, value) in got.iter().enumerate() {
                let (l, r, k) = (g / (team * vector), g / vector % team, g % vector);
                let want = (l * 1_000_000 + r * 1000 + k) as u64 + 1;
                assert_eq!(
                    *value, want,
                    "league {league} x {team} x {vector}, element {g}"
                );
            }
        }
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn team_reductions_reach_the_host_and_a_device_view() {
        let exec = cuda();
        let count = kernel!(|team: &TeamMember, acc: &mut u64| {
            let lr = team.league_rank() as u64;
            let threads = TeamThreadRange::new(team, 0, team.team_size())
                .parallel_reduce(|_i, s: &mut u64| *s += 1, Sum::new());
            single(PerTeam(team), || *acc += lr + threads);
        });
        for (league, team, vector) in [(1usize, 1usize, 1usize), (5000, 7, 4), (3, 1024, 1)] {
            let policy = TeamPolicy::new(&exec, league, team)
                .unwrap()
                .vector_length(vector)
                .unwrap();
            let want = (league * (league - 1) / 2 + league * team) as u64;
            let total = parallel_reduce("count", policy.clone(), &count, Sum::new()).unwrap();
            assert_eq!(total, want, "{league} x {team} x {vector}");
            let place = View::<u64, 0, LayoutRight, CudaSpace>::new("place", []).unwrap();
            parallel_reduce("count", policy, &count, &place).unwrap();
            let m = create_mirror_view(&place).unwrap();
            deep_copy(&m, &place).unwrap();
            assert_eq!(m.to_vec().unwrap(), [want]);
        }
        let empty = TeamPolicy::new(&exec, 0, AUTO).unwrap();
        assert_eq!(
            parallel_reduce("empty", empty, &count, Sum::new()).unwrap(),
            0
        );
        let auto = TeamPolicy::new(&exec, 10, AUTO).unwrap();
        let total = parallel_reduce("auto", auto, &count, Sum::new()).unwrap();
        assert_eq!(total, 45 + 10 * 256);
    }

    /// Kernels that ask for scratch (the `kernel!` front end has no scratch Views yet, so they do
    /// not use it) run every league rank: level 0 small and above 48 KiB, level 1 growing the
    /// instance's buffer, both with a reduction; level 0 beyond the device is an error naming the
    /// request, the reduction's need and the limit.
    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn scratch_requests_run_on_cuda() {
        let exec = cuda();
        let league = 3000usize;
        let seen = View::<u64, 1, LayoutRight, CudaSpace>::new("seen", [league]).unwrap();
        let mark = kernel!(|team: &TeamMember| {
            let lr = team.league_rank();
            single(PerTeam(team), || seen[lr] += 1);
        });
        let limits = TeamPolicy::new(&exec, league, AUTO)
            .unwrap()
            .limits()
            .unwrap();
        let plain = limits.scratch_max[0];
        assert!((48 << 10..1 << 30).contains(&plain), "{plain}");
        assert_eq!(limits.scratch_max[1], usize::MAX);
        // With the kernel, its own static shared memory comes off.
        let policy = TeamPolicy::new(&exec, league, 128).unwrap();
        let limit = Cuda::team_limits(&policy, Some(&mark)).unwrap().scratch_max[0];
        assert!(limit <= plain && limit + 1024 >= plain, "{limit} {plain}");
        let requests: [(usize, usize, usize); 6] = [
            (0, 1024, 0),
            (0, 64 << 10, 64),
            (0, limit - 128 * 8, 8),
            (1, 256 << 10, 1024),
            (1, 2 << 20, 0),
            (1, 1000, 8 << 10),
        ];
        for (n, &(level, per_team, per_thread)) in requests.iter().enumerate() {
            let policy = TeamPolicy::new(&exec, league, 128)
                .unwrap()
                .set_scratch_size(level, (PerTeam(per_team), PerThread(per_thread)))
                .unwrap();
            parallel_for("scratch", policy, &mark)
                .unwrap_or_else(|e| panic!("level {level}, {per_team} + {per_thread}: {e}"));
            let m = create_mirror_view(&seen).unwrap();
            deep_copy(&m, &seen).unwrap();
            let want = n as u64 + 1;
            assert!(
                m.to_vec().unwrap().iter().all(|&v| v == want),
                "level {level}, {per_team} + {per_thread}: every league rank once"
            );
        }
        let count = kernel!(|team: &TeamMember, acc: &mut u64| {
            let lr = team.league_rank() as u64;
            single(PerTeam(team), || *acc += lr);
        });
        let both = TeamPolicy::new(&exec, league, 64)
            .unwrap()
            .set_scratch_size(0, PerTeam(60 << 10))
            .unwrap()
            .set_scratch_size(1, PerThread(4096))
            .unwrap();
        let total = parallel_reduce("scratch", both, &count, Sum::new()).unwrap();
        assert_eq!(total, (league * (league - 1) / 2) as u64);
        let huge = TeamPolicy::new(&exec, 4, AUTO)
            .unwrap()
            .set_scratch_size(0, PerTeam(1 << 30))
            .unwrap();
        let e = parallel_for("huge", huge, &mark).unwrap_err().to_string();
        assert!(
            e.contains("level-0 scratch of 1073741824 bytes per team"),
            "{e}"
        );
        assert!(
            e.contains("bytes of shared memory") && e.contains("huge"),
            "{e}"
        );
        // The reduction's values per thread come on top of the scratch.
        let full = TeamPolicy::new(&exec, 4, 256)
            .unwrap()
            .set_scratch_size(0, PerTeam(plain))
            .unwrap();
        match parallel_reduce("full", full, &count, Sum::new()) {
            Err(Error::Policy { reason, .. }) => {
                assert!(
                    reason.contains("the reduction's 2048 bytes after it"),
                    "{reason}"
                )
            }
            other => panic!("expected a policy error, got {other:?}"),
        }
    }
}
