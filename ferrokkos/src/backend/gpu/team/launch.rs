//! `TeamPolicy` on a GPU space: the entry points its `LaunchTeam` seam calls, built on
//! [`crate::backend::gpu::launch`].
//!
//! Mapping (see `shape.rs` and `codegen/team_entry.rs`): each team is one block of
//! `team_size * vector_length` threads, a thread's vector lanes being consecutive lanes of one
//! warp (vector lengths up to the warp's width); league ranks go to blocks, grid-stride beyond the
//! grid, which is sized from the kernel's occupancy at the team's block size as a range's is.
//! `AUTO` gives vector length 1 and the recommended team size ([`shape::RECOMMENDED_THREADS`]). A
//! launch checks the team against its compiled function's limit of threads per block (and its
//! scratch against the function's shared memory) before it plans. Scratch memory (`scratch.rs`):
//! level 0 in the block's dynamic shared memory (the function opted in above the driver's
//! default), level 1 in a device buffer of the instance, a slice per block; the entry's `fk::Team`
//! points at the team's and the thread's parts (`codegen/device/team.cuh`).

use std::any::type_name;

use super::scratch::ScratchLayout;
use super::shape::{self, BlockLimits, TeamAsk, TeamShape, resolve};
use crate::backend::gpu::driver::{DeviceInfo as _, Driver, Function as _};
use crate::backend::gpu::instance::Instance;
use crate::backend::gpu::launch::{self, Kind, Space};
use crate::backend::gpu::patterns::entered;
use crate::backend::gpu::reduce::{reduce_into, reducer_cxx};
use crate::backend::gpu::space::GpuSpace;
use crate::dispatch::{TeamForFunctor, TeamLimits, TeamReduceFunctor};
use crate::error::Result;
use crate::kernel::{BodyKind, DeviceKernel, ParamWriter};
use crate::policy::{Iterate, TeamPolicy};
use crate::reducer::{ReduceTarget, Reducer};
use crate::seal::Token;
use crate::tools::Pattern;

/// The block limits on `inst`'s device for a kernel whose block may have `max_threads` threads
/// and `static_shared` bytes of static shared memory, and whose reduction value has `value_size`
/// bytes.
fn block_limits<D: Driver>(
    inst: &Instance<D>,
    max_threads: u32,
    static_shared: usize,
    value_size: usize,
) -> BlockLimits {
    let info = &inst.shared().info;
    BlockLimits {
        arch: info.gpu_arch(),
        max_threads: max_threads.min(info.max_threads_per_block()),
        shared_per_block: info.shared_memory_per_block(),
        shared_optin: info.shared_memory_per_block_optin(),
        static_shared,
        value_size,
    }
}

/// The launch parameters of a league (`codegen/team_entry.rs`): its size, the team size and the
/// vector length, then its scratch layout (the team and thread parts of levels 0 and 1, where the
/// pattern's shared memory starts, the stride of level 1's block slices); the level-1 buffer's
/// address follows, written by the launch that has it.
pub(crate) fn league_writer(shape: TeamShape) -> impl Fn(&mut ParamWriter<'_>) {
    move |w: &mut ParamWriter<'_>| {
        let s = shape.scratch;
        w.push(shape.league);
        w.push(shape.team_size);
        w.push(shape.vector_length);
        for level in 0..2 {
            w.push(s.team[level]);
            w.push(s.thread[level]);
        }
        w.push(s.pattern_offset());
        w.push(s.block_stride);
    }
}

/// The iteration space of a league of `shape`.
fn league_space<'a>(
    shape: TeamShape,
    write: &'a dyn Fn(&mut ParamWriter<'_>),
    label: &'a str,
) -> Space<'a> {
    Space {
        count: shape.league,
        iterate: Iterate::Right,
        max_extent: shape.league,
        write,
        label,
        tiles: None,
        proof: None,
        team: Some(shape),
    }
}

/// The shape of `policy`'s launch of `dk` as `kind` (`what` describes it): checked against the
/// device's limits, then (for a league that runs) loads the entry and checks against its
/// function's threads per block.
fn shape_for<S: GpuSpace>(
    policy: &TeamPolicy<S>,
    what: &dyn Fn() -> String,
    dk: &dyn DeviceKernel,
    (kind, to_place): (Kind<'_>, bool),
    reducer_type: &'static str,
) -> Result<TeamShape> {
    let inst = policy.space().gpu_instance();
    let value_size = match kind {
        Kind::TeamReduce(r) => r.size,
        _ => 0,
    };
    let device_limit = inst.shared().info.max_threads_per_block();
    let ask = TeamAsk::of(policy);
    let shape = resolve(&ask, &block_limits(inst, device_limit, 0, value_size), what)?;
    if shape.league == 0 {
        return Ok(shape);
    }
    // The entry does not depend on the team's size: load it, then resolve with its own limits.
    let space = league_space(shape, &|_| {}, "");
    let loaded = launch::load(inst, what, dk, (kind, to_place), reducer_type, &space)?;
    let max_threads = loaded.main.max_threads_per_block(what)?;
    let static_shared = loaded.main.static_shared_bytes(what)?;
    let limits = block_limits(inst, max_threads, static_shared, value_size);
    resolve(&ask, &limits, what)
}

/// `parallel_for` over a league of teams.
pub(crate) fn team_for<S: GpuSpace, K: TeamForFunctor>(
    policy: TeamPolicy<S>,
    label: &str,
    kernel: K,
) -> Result<()> {
    entered(
        policy.space(),
        Pattern::For,
        label,
        type_name::<K>(),
        || kernel.device_kernel(Token::new()),
        |what, dk| {
            let shape = shape_for(&policy, what, dk, (Kind::TeamFor, false), "")?;
            if shape.league == 0 {
                return Ok(());
            }
            let write = league_writer(shape);
            let space = league_space(shape, &write, label);
            let inst = policy.space().gpu_instance();
            launch::launch(inst, what, dk, Kind::TeamFor, "", space, None).map(drop)
        },
    )
}

/// `parallel_reduce` over a league of teams: to a host value or a device place, as a range's
/// (a league of 0 teams gives the reducer's identity, finalized).
pub(crate) fn team_reduce<S: GpuSpace, K, T>(
    policy: TeamPolicy<S>,
    label: &str,
    kernel: K,
    target: T,
) -> Result<T::Output>
where
    T: ReduceTarget,
    K: TeamReduceFunctor<<T::Reducer as Reducer>::Value>,
{
    entered(
        policy.space(),
        Pattern::Reduce,
        label,
        type_name::<K>(),
        || kernel.device_kernel(Token::new()),
        |what, dk| {
            let cxx = reducer_cxx::<T::Reducer>(what)?;
            let reducer_type = type_name::<T::Reducer>();
            let kind = Kind::TeamReduce(&cxx);
            // The entry's limits are those of the variant the launch runs (a result that stays
            // in a device place is finalized there).
            let (reducer, sink) = target.split();
            let to_place = T::device_place(&sink, Token::new()).is_some();
            let shape = shape_for(&policy, what, dk, (kind, to_place), reducer_type)?;
            let write = league_writer(shape);
            let space = league_space(shape, &write, label);
            let inst = policy.space().gpu_instance();
            reduce_into::<T, _>(inst, what, dk, (reducer, sink), space)
        },
    )
}

/// The limits on this instance's device. With a `parallel_for` team kernel, its compiled
/// function's threads per block bound the team and its static shared memory comes off level 0
/// (the kernel is compiled now if it is not yet); otherwise (no kernel, or a reduction, whose
/// entry needs its reducer) the device's. Level-0 scratch is bounded by the block's opt-in
/// shared memory (a reduction's values per thread come off it at launch); level 1 by the
/// device's memory only (`usize::MAX`).
pub(crate) fn team_limits<S: GpuSpace>(
    policy: &TeamPolicy<S>,
    kernel: Option<&dyn DeviceKernel>,
) -> Result<TeamLimits> {
    let what = || format!("TeamPolicy limits on {}", S::NAME);
    let inst = policy.space().gpu_instance();
    inst.shared().check_alive(what)?;
    let v = shape::vector_length(inst.shared().info.gpu_arch(), &TeamAsk::of(policy), &what)?;
    let mut max_threads = inst.shared().info.max_threads_per_block();
    let mut static_shared = 0;
    if let Some(dk) = kernel
        && dk.device_body(&[]).kind == BodyKind::TeamFor
    {
        let shape = TeamShape {
            league: policy.league_size() as u64,
            team_size: 1,
            vector_length: v,
            scratch: ScratchLayout::default(),
        };
        let space = league_space(shape, &|_| {}, "");
        let loaded = launch::load(inst, &what, dk, (Kind::TeamFor, false), "", &space)?;
        max_threads = loaded.main.max_threads_per_block(what)?;
        static_shared = loaded.main.static_shared_bytes(what)?;
    }
    let limits = block_limits(inst, max_threads, static_shared, 0);
    Ok(shape::limits(v, &limits))
}
