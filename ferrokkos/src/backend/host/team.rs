//! `TeamPolicy` on the host spaces: the [`LaunchTeam`] entry points of Serial and Threads.
//!
//! Mapping (as Kokkos' Serial): a team is one thread with one vector lane (`team_size_max` is 1 and
//! `AUTO` gives 1), so nested ranges are plain loops the compiler can vectorize and barriers have
//! nothing to wait for. League ranks are split over the participants as a range's iterations are
//! (`Work`: static blocks, round-robin chunks or dynamic chunks). Scratch memory comes from arenas
//! of the running thread, one per level for the team and one per level for its thread, allocated
//! zeroed when a thread starts its share of the league and reused for each league rank it runs.

use std::any::type_name;
use std::ops::Range;

use super::isa::wide_or_plain;
use super::run::{describe, run_for, run_reduce};
use super::work::Work;
use crate::dispatch::{
    HostExecutionSpace, LaunchTeam, ScratchArena, TeamForFunctor, TeamForKernel, TeamLimits,
    TeamMember, TeamReduceFunctor, TeamReduceKernel,
};
use crate::error::{Error, Result};
use crate::policy::{MAX_VECTOR_LENGTH, ScratchRequest, TeamPolicy, TeamSize};
use crate::reducer::{ReduceTarget, Reducer};
use crate::seal::Token;
use crate::space::{ExecutionSpace, tool_site};
use crate::tools::{Pattern, profiled};

/// The limits of a team on a host space.
const HOST_LIMITS: TeamLimits = TeamLimits {
    team_size_max: 1,
    team_size_recommended: 1,
    vector_length_max: MAX_VECTOR_LENGTH,
    scratch_max: [usize::MAX, usize::MAX],
};

/// A host launch's team shape.
struct Shape {
    league_size: usize,
    vector_length: usize,
    scratch: [ScratchRequest; 2],
}

impl Shape {
    /// The shape of `policy` on the host space `S`: an error for a team of more than one thread.
    fn of<S: ExecutionSpace>(policy: &TeamPolicy<S>) -> Result<Shape> {
        if let TeamSize::Fixed(n) = policy.team_size()
            && n > HOST_LIMITS.team_size_max
        {
            return Err(Error::Policy {
                policy: "TeamPolicy".into(),
                reason: format!(
                    "a team of {n} threads on {}: the host spaces run teams of one thread \
                     (team_size_max is 1); ask for AUTO, which every space resolves to its own size",
                    S::NAME
                ),
            });
        }
        let vector_length = match policy.get_vector_length() {
            TeamSize::Fixed(v) => v,
            TeamSize::Auto => 1,
        };
        Ok(Shape {
            league_size: policy.league_size(),
            vector_length,
            scratch: [policy.scratch_request(0), policy.scratch_request(1)],
        })
    }

    /// The split of the league over the participants.
    fn work<S: HostExecutionSpace>(&self, policy: &TeamPolicy<S>) -> Work {
        Work::new(
            self.league_size as u64,
            policy.get_schedule(),
            policy.get_chunk_size().map(|c| c as u64),
            policy.space().concurrency(),
        )
    }

    /// The words of each arena: the team's levels 0 and 1, then the thread's.
    fn words(&self) -> [usize; 4] {
        let w = |bytes: usize| bytes.div_ceil(8);
        [
            w(self.scratch[0].per_team),
            w(self.scratch[1].per_team),
            w(self.scratch[0].per_thread),
            w(self.scratch[1].per_thread),
        ]
    }

    /// Checks that one thread's arenas can be allocated (each thread allocates its own).
    fn check_scratch<S: ExecutionSpace>(&self) -> Result<()> {
        for (k, words) in self.words().into_iter().enumerate() {
            let mut probe: Vec<u64> = Vec::new();
            if probe.try_reserve_exact(words).is_err() {
                let (level, whose) = (k % 2, if k < 2 { "team" } else { "thread" });
                return Err(Error::Allocation {
                    label: format!("TeamPolicy scratch, level {level}, per {whose}"),
                    bytes: words as u128 * 8,
                    space: S::NAME,
                });
            }
        }
        Ok(())
    }

    /// One thread's arenas, zeroed.
    fn arenas(&self) -> [Vec<u64>; 4] {
        self.words().map(|w| vec![0u64; w])
    }

    /// The member running `league_rank`, over the thread's arenas.
    fn member<'b>(&self, arenas: &'b mut [Vec<u64>; 4], league_rank: usize) -> TeamMember<'b> {
        let [t0, t1, p0, p1] = arenas;
        let r = &self.scratch;
        TeamMember::new(
            league_rank,
            self.league_size,
            self.vector_length,
            [
                ScratchArena::new(t0, 0, r[0].per_team),
                ScratchArena::new(t1, 1, r[1].per_team),
                ScratchArena::new(&mut [], 2, 0),
            ],
            [
                ScratchArena::new(p0, 0, r[0].per_thread),
                ScratchArena::new(p1, 1, r[1].per_thread),
                ScratchArena::new(&mut [], 2, 0),
            ],
        )
    }
}

// As for ranges (see `range.rs`), the loops take the kernel by `&K` and are never inlined.

wide_or_plain! {
    /// Runs league ranks `leagues` of a team kernel.
    fn teams_for[K: TeamForKernel](kernel: &K, shape: &Shape, leagues: Range<u64>) {
        let mut arenas = shape.arenas();
        for l in leagues {
            kernel.apply(&shape.member(&mut arenas, l as usize));
        }
    }
}

wide_or_plain! {
    /// Runs league ranks `leagues` of a team reduction into `acc`.
    fn teams_reduce[V, K: TeamReduceKernel<V>](
        kernel: &K,
        shape: &Shape,
        leagues: Range<u64>,
        acc: &mut V,
    ) {
        let mut arenas = shape.arenas();
        for l in leagues {
            kernel.apply(&shape.member(&mut arenas, l as usize), acc);
        }
    }
}

/// Runs one team launch of `pattern` (`name` in errors) on `policy`'s space: checks the shape and
/// the scratch request, then runs `run` with them and the launch's name inside the tools' region.
fn launch<S: HostExecutionSpace, K, R>(
    policy: &TeamPolicy<S>,
    pattern: Pattern,
    name: &str,
    label: &str,
    run: impl FnOnce(&Shape, &dyn Fn() -> String) -> Result<Result<R>>,
) -> Result<R> {
    let what = describe(name, label, S::NAME);
    let shape = Shape::of(policy)?;
    shape.check_scratch::<S>()?;
    profiled(
        pattern,
        tool_site(policy.space()),
        label,
        type_name::<K>(),
        || run(&shape, &what),
    )?
}

impl<S: HostExecutionSpace> LaunchTeam for S {
    fn team_limits(
        policy: &TeamPolicy<Self>,
        _: Option<&dyn crate::kernel::DeviceKernel>,
    ) -> Result<TeamLimits> {
        let _ = policy;
        Ok(HOST_LIMITS)
    }

    fn launch_team_for<K: TeamForFunctor>(
        policy: TeamPolicy<Self>,
        label: &str,
        kernel: K,
    ) -> Result<()> {
        // A finalize asked for inside the kernel happens once this launch has returned.
        let _deferred = crate::runtime::DeferredFinalize;
        launch::<_, K, _>(
            &policy,
            Pattern::For,
            "parallel_for",
            label,
            |shape, what| {
                kernel.with_body(
                    what,
                    |kernel| {
                        let body = |leagues: Range<u64>| teams_for(kernel, shape, leagues);
                        run_for(policy.space(), what, shape.work(&policy), &body)
                    },
                    Token::new(),
                )
            },
        )
    }

    fn launch_team_reduce<K, T>(
        policy: TeamPolicy<Self>,
        label: &str,
        kernel: K,
        target: T,
    ) -> Result<T::Output>
    where
        T: ReduceTarget,
        K: TeamReduceFunctor<<T::Reducer as Reducer>::Value>,
    {
        let _deferred = crate::runtime::DeferredFinalize;
        let (reducer, sink) = target.split();
        T::check(&sink)?;
        let value = launch::<_, K, _>(
            &policy,
            Pattern::Reduce,
            "parallel_reduce",
            label,
            |shape, what| {
                kernel.with_body(
                    what,
                    |kernel| {
                        let body =
                            |leagues: Range<u64>, acc: &mut <T::Reducer as Reducer>::Value| {
                                teams_reduce(kernel, shape, leagues, acc)
                            };
                        run_reduce(policy.space(), what, shape.work(&policy), &reducer, &body)
                    },
                    Token::new(),
                )
            },
        )?;
        T::deliver(sink, value)
    }
}
