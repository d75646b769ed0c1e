//! The shape of a league of teams on a GPU, from its [`TeamPolicy`] and the limits of the device
//! and the kernel (pure: unit-tested in `shape_tests.rs`).
//!
//! A team is one block of `team_size * vector_length` threads (one-dimensional); thread
//! `threadIdx.x` is lane `threadIdx.x % vector_length` of team thread `threadIdx.x / vector_length`,
//! so a thread's lanes are consecutive lanes of one SIMD group and the vector length is at most
//! the group's width ([`GpuArch::wave`]: 32 on CUDA, 64 on AMD CDNA GPUs).

use super::scratch::ScratchLayout;
use crate::backend::gpu::arch::GpuArch;
use crate::dispatch::TeamLimits;
use crate::error::{Error, Result};
use crate::policy::{ScratchRequest, TeamPolicy, TeamSize};
use crate::space::ExecutionSpace;

/// The threads per block that `AUTO` aims at: 256 (eight warps, four CDNA wavefronts; `AUTO` gives
/// `min(team_size_max, max(1, 256 / vector_length))` team threads). Blocks of 256 keep several
/// blocks resident per multiprocessor (latency hiding, and a block waiting at a team barrier
/// leaves others to run), give a team enough threads to split its nested ranges, and are the usual
/// choice of hand-written CUDA kernels; Kokkos' own recommendation on Cuda comes out at 128 to 256
/// threads for most kernels.
pub(crate) const RECOMMENDED_THREADS: u32 = 256;

/// A league of teams as launched: `league` blocks' worth of league ranks, each a block of
/// `team_size * vector_length` threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TeamShape {
    /// The league size.
    pub(crate) league: u64,
    /// The threads of a team.
    pub(crate) team_size: u32,
    /// The vector lanes of a thread (at most [`GpuArch::wave`]; Kokkos asks a power of two).
    pub(crate) vector_length: u32,
    /// Where its scratch memory lies (see `scratch.rs`).
    pub(crate) scratch: ScratchLayout,
}

impl TeamShape {
    /// The threads of a team's block.
    pub(crate) fn block(self) -> u32 {
        self.team_size * self.vector_length
    }
}

/// What a launch asks of a league: a [`TeamPolicy`]'s sizes and scratch requests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct TeamAsk {
    pub(crate) league_size: usize,
    pub(crate) team_size: TeamSize,
    pub(crate) vector_length: TeamSize,
    pub(crate) scratch: [ScratchRequest; 2],
}

impl TeamAsk {
    /// What `policy` asks.
    pub(crate) fn of<S: ExecutionSpace>(policy: &TeamPolicy<S>) -> TeamAsk {
        TeamAsk {
            league_size: policy.league_size(),
            team_size: policy.team_size(),
            vector_length: policy.get_vector_length(),
            scratch: [policy.scratch_request(0), policy.scratch_request(1)],
        }
    }
}

/// What a team's block may use.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct BlockLimits {
    /// The programming model: its name in messages and its SIMD group, the vector length's bound.
    pub(crate) arch: GpuArch,
    /// The most threads a block of the kernel may have: the compiled function's limit (its
    /// registers), or the device's when no function is at hand.
    pub(crate) max_threads: u32,
    /// The dynamic shared memory a block may use without opting in, in bytes: a reduction keeps
    /// one value per thread there. (On AMD GPUs there is no opt-in: this is the LDS of a block.)
    pub(crate) shared_per_block: usize,
    /// The shared memory a block may use at most (with the kernel's opt-in), in bytes: the bound
    /// of level-0 scratch. (On AMD GPUs, the LDS of a block: 64 KiB on MI250X and MI300.)
    pub(crate) shared_optin: usize,
    /// The static shared memory of the kernel's function (0 when no function is at hand), which
    /// the opt-in bound includes.
    pub(crate) static_shared: usize,
    /// The size of a reduction's value (0 for a `parallel_for`).
    pub(crate) value_size: usize,
}

/// The vector length `ask` gets on `arch`: `AUTO` gives 1; above the SIMD group's width is an
/// error naming the length and the limit (`what` describes the launch or query).
pub(crate) fn vector_length(
    arch: GpuArch,
    ask: &TeamAsk,
    what: &dyn Fn() -> String,
) -> Result<u32> {
    match ask.vector_length {
        TeamSize::Auto => Ok(1),
        TeamSize::Fixed(v) if v <= arch.wave as usize => Ok(v as u32),
        TeamSize::Fixed(v) => Err(Error::Policy {
            policy: "TeamPolicy".into(),
            reason: format!(
                "{}: a vector length of {v} on {}, whose limit is {} (a thread's vector lanes are \
                 lanes of one {})",
                what(),
                arch.name,
                arch.wave,
                arch.group
            ),
        }),
    }
}

/// The limits of a team with `vector_length` lanes per thread under `b`: the team threads that
/// fit the block's threads (and, for a reduction, its shared memory at one value per thread), the
/// team size `AUTO` gives (see [`RECOMMENDED_THREADS`]), the SIMD group as the vector length's limit,
/// level-0 scratch up to the block's opt-in shared memory less the kernel's static shared memory
/// (a reduction's values per thread come on top: see [`resolve`]), and level 1 without a bound of
/// its own (the device's memory is the bound, checked when the launch allocates it).
pub(crate) fn limits(vector_length: u32, b: &BlockLimits) -> TeamLimits {
    let mut threads = b.max_threads as usize;
    if let Some(fit) = b.shared_per_block.checked_div(b.value_size) {
        threads = threads.min(fit);
    }
    let v = vector_length.max(1) as usize;
    let team_size_max = threads / v;
    let recommended = (RECOMMENDED_THREADS as usize / v).max(1);
    TeamLimits {
        team_size_max,
        team_size_recommended: recommended.min(team_size_max),
        vector_length_max: b.arch.wave as usize,
        scratch_max: [b.shared_optin.saturating_sub(b.static_shared), usize::MAX],
    }
}

/// The shape of the launch `ask` under `b`: `AUTO` resolved, the team checked against the
/// limits, and its scratch laid out (see `scratch.rs`). Level-0 scratch and what the pattern needs
/// after it (a reduction's value per thread) beyond the block's opt-in shared memory less the
/// kernel's static shared memory is an error naming the three; so is a size that overflows.
/// `what` describes the launch.
pub(crate) fn resolve(
    ask: &TeamAsk,
    b: &BlockLimits,
    what: &dyn Fn() -> String,
) -> Result<TeamShape> {
    let v = vector_length(b.arch, ask, what)?;
    let lim = limits(v, b);
    let team_size = match ask.team_size {
        TeamSize::Auto => lim.team_size_recommended,
        TeamSize::Fixed(t) => t,
    };
    if team_size == 0 || team_size > lim.team_size_max {
        let shared = if b.value_size > 0 {
            format!(
                " and {} bytes of shared memory at {} bytes per thread",
                b.shared_per_block, b.value_size
            )
        } else {
            String::new()
        };
        return Err(Error::Policy {
            policy: "TeamPolicy".into(),
            reason: format!(
                "{}: a team of {team_size} threads with vector length {v} is {} threads per block \
                 on {}; the kernel's block has at most {} threads{shared}, so team_size_max is \
                 {} at this vector length",
                what(),
                team_size.saturating_mul(v as usize),
                b.arch.name,
                b.max_threads,
                lim.team_size_max
            ),
        });
    }
    let team_size = team_size as u32;
    let scratch = ScratchLayout::new(&ask.scratch, team_size, what)?;
    let pattern = (team_size * v) as usize * b.value_size;
    let limit = b.shared_optin.saturating_sub(b.static_shared);
    if scratch
        .shared_bytes(pattern)
        .is_none_or(|total| total > limit)
    {
        let request = ask.scratch[0];
        let needs = if pattern > 0 {
            format!(
                " and the reduction's {pattern} bytes after it (a value of {} bytes per thread)",
                b.value_size
            )
        } else {
            String::new()
        };
        let own = if b.static_shared > 0 {
            format!(" ({} of them the kernel's own)", b.static_shared)
        } else {
            String::new()
        };
        return Err(Error::Policy {
            policy: "TeamPolicy".into(),
            reason: format!(
                "{}: level-0 scratch of {} bytes per team ({} per team + {} per thread x \
                 {team_size} threads, each rounded up to 8){needs} on {}, where a block has at \
                 most {} bytes of shared memory{own}",
                what(),
                scratch.level_bytes(0).unwrap_or(u64::MAX),
                request.per_team,
                request.per_thread,
                b.arch.name,
                b.shared_optin
            ),
        });
    }
    Ok(TeamShape {
        league: ask.league_size as u64,
        team_size,
        vector_length: v,
        scratch,
    })
}
