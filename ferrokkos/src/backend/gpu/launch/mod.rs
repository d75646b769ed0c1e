//! One launch of a kernel on a GPU instance (the patterns' entry points are in
//! `backend/gpu/patterns.rs`), and the planning of its grid and blocks.
//!
//! A launch checks and borrows the kernel's captured Views (they must be reachable by the GPU),
//! takes the compiled entry from the kernel cache, packs the parameters (the iteration space, the
//! pattern's buffers, the captures; captures beyond the parameter limit go through a buffer in
//! device memory that the launch allocates and frees stream-ordered), orders itself after device
//! work on other instances that uses the same allocations, enqueues, and stamps the allocations
//! with its sequence number. Only reductions and scans that return a value to the host wait.
//!
//! A league of teams (`backend/gpu/team/launch.rs`) launches the same way, with its team kernel's
//! entries, blocks of the team's size and the league as its launch parameters.
//!
//! One launch walks the parts in one direction, each file once from here, and no part calls back
//! into one that called it: `params.rs` takes the thread's parameter buffers and measures the
//! captures; `entry.rs` chooses the compiled entry; the kernel cache (`super::kernels`) compiles or
//! loads it; [`super::grid`] and `tuning.rs` size its blocks; `plan.rs` plans the grid, shared
//! memory and scratch; `submit.rs` enqueues on the instance's stream, packing the parameters into
//! the buffers (`params.rs`' packing) as it goes. `entry.rs` and `plan.rs` are pure.

mod entry;
mod params;
mod plan;
mod submit;
mod tuning;

use super::codegen::{self, DevicePattern, TranslationUnit, UnitOptions};
use super::device::Device;
use super::driver::{DeviceInfo as _, Driver};
use super::grid;
use super::instance::Instance;
use super::kernels::{JitKey, Loaded, Wanted};
use super::queue::Submission;
use super::team::shape::TeamShape;
use std::collections::HashMap;
use std::sync::Arc;

use crate::dispatch::{Job, Obtained, Work};
use crate::error::{Error, Result};
use crate::kernel::{DeviceKernel, ParamWriter};
use crate::policy::Iterate;
use crate::reducer::{DevicePlace, ReducerCxx};
use crate::view::kernel_access::{LaunchBorrows, Reach};
use entry::{Entry, Pattern, PlanInput, TeamInput};
use plan::Plan;
use submit::Planned;

/// Which pattern a launch runs, with the reducer of reductions and scans.
#[derive(Clone, Copy)]
pub(crate) enum Kind<'a> {
    For,
    Reduce(&'a ReducerCxx),
    Scan(&'a ReducerCxx),
    /// `parallel_for` over a league of teams (the space's `team` gives its shape).
    TeamFor,
    /// `parallel_reduce` over a league of teams.
    TeamReduce(&'a ReducerCxx),
}

/// The iteration space of a launch: its iteration count, its walk order, and how to write its
/// launch parameters.
pub(crate) struct Space<'a> {
    /// The number of iterations.
    pub(crate) count: u64,
    /// The walk order of a multidimensional index.
    pub(crate) iterate: Iterate,
    /// The largest extent (for 32-bit decomposition of multidimensional indices).
    pub(crate) max_extent: u64,
    /// Writes the launch parameters of the iteration space.
    pub(crate) write: &'a dyn Fn(&mut ParamWriter<'_>),
    /// The launch's label.
    pub(crate) label: &'a str,
    /// For a tiled multidimensional `parallel_for`: the points per tile (the block size) and the
    /// number of tiles (the parameters then include the tile sizes).
    pub(crate) tiles: Option<(u32, u64)>,
    /// For a league of teams: its shape (`count` is then the league size; the parameters are the
    /// league's).
    pub(crate) team: Option<TeamShape>,
    /// The iteration box of a range or multidimensional launch (per index coordinate `[begin,
    /// end)`) and its index type's width in bits, over which the kernel's device-proven accesses
    /// may be proved (`None` for a league of teams).
    pub(crate) proof: Option<(&'a [(i128, i128)], u32)>,
}

/// The result of one launch's enqueueing.
pub(crate) enum Done<'a, D: Driver> {
    /// Enqueued; nothing to wait for.
    Async,
    /// Enqueued and waited for; the locked submission holds the result in its pinned scratch.
    Waited(Submission<'a, D>, *const u8),
}

impl Kind<'_> {
    /// The pattern as the plan sees it.
    fn pattern(self) -> Pattern {
        match self {
            Kind::For | Kind::TeamFor => Pattern::For,
            Kind::Reduce(r) | Kind::TeamReduce(r) => Pattern::Reduce { value_size: r.size },
            Kind::Scan(r) => Pattern::Scan { value_size: r.size },
        }
    }
}

/// Runs one launch of `dk` on `inst`.
#[allow(clippy::too_many_arguments)]
pub(crate) fn launch<'q, D: Driver>(
    inst: &'q Instance<D>,
    what: &dyn Fn() -> String,
    dk: &dyn DeviceKernel,
    kind: Kind<'_>,
    reducer_type: &'static str,
    space: Space<'_>,
    dest: Option<&DevicePlace<'_>>,
) -> Result<Done<'q, D>> {
    let shared = inst.shared();
    shared.check_alive(what)?;
    // The place a reduction writes its result to, borrowed for the launch like a written View.
    let _dest_borrow = match dest {
        Some(d) => {
            d.alloc.borrow_exclusive_async()?;
            Some(ReleaseOnDrop(d.alloc))
        }
        None => None,
    };
    let borrows = LaunchBorrows::take(
        |f| dk.device_accesses(f),
        dk.device_is_unsafe(),
        Reach::Device,
        what,
    )?;
    let info = &shared.info;
    let mut buffers = params::Buffers::for_kernel(dk);
    let chosen = Chosen::new(
        dk,
        (kind, dest.is_some()),
        reducer_type,
        &space,
        buffers.captures_len,
        info.max_param_bytes(),
    );
    let (input, entry) = (chosen.input, chosen.entry);
    let loaded = chosen.load(inst, dk)?;
    let (block, full_grid) = blocks(inst, &loaded, &space, &input, entry, what)?;
    let plan = Plan::new(&input, entry, block, full_grid, tuning::max_waves());
    let planned = Planned {
        what,
        dk,
        space: &space,
        dest,
        borrows: &borrows,
        loaded: &loaded,
        plan,
    };
    submit::submit(inst, &planned, &mut buffers)
}

/// The block size of a launch of `loaded` over `space`, and the grid of blocks of that size that
/// fills the device (one wave).
fn blocks<D: Driver>(
    inst: &Instance<D>,
    loaded: &Loaded<D>,
    space: &Space<'_>,
    input: &PlanInput,
    entry: Entry,
    what: &dyn Fn() -> String,
) -> Result<(u32, u32)> {
    let info = &inst.shared().info;
    // A league's blocks have the team's size and its scratch: its wave is theirs.
    let full_grid = match space.team {
        Some(team) => {
            let shared_bytes = team_shared_bytes(team, entry.value_size, what)?;
            loaded.allow_dynamic_shared(shared_bytes, what)?;
            loaded
                .resident_blocks(team.block(), shared_bytes, what)?
                .saturating_mul(info.sm_count())
        }
        None => loaded.full_grid,
    };
    // A range parallel_for runs smaller blocks than the occupancy calculator's
    // (`grid::for_block`), and its wave is that block's.
    let for_block = grid::for_block(info.gpu_arch(), loaded.block, tuning::for_block());
    match (space.team, input.pattern) {
        (None, Pattern::For) if for_block < loaded.block => {
            let per_sm = loaded.resident_blocks(for_block, 0, what)?;
            Ok((
                for_block,
                per_sm.saturating_mul(info.sm_count()).max(info.sm_count()),
            ))
        }
        _ => Ok((loaded.block, full_grid)),
    }
}

/// The dynamic shared memory of a block of `team` whose pattern keeps `value_size` bytes per
/// thread after the scratch (`super::team::resolve` checked it against the device).
fn team_shared_bytes(
    team: TeamShape,
    value_size: usize,
    what: &dyn Fn() -> String,
) -> Result<usize> {
    team.scratch
        .shared_bytes(team.block() as usize * value_size)
        .ok_or_else(|| Error::Internal {
            what: what(),
            reason: "the level-0 scratch overflows (it was checked before)".into(),
        })
}

/// The compiled entry that a launch of `dk` over `space` needs, compiled or loaded now if it is
/// not yet (a team launch asks for its function's limits before it plans): `kind`, and whether
/// the launch writes its result into a device place.
pub(crate) fn load<D: Driver>(
    inst: &Instance<D>,
    what: &dyn Fn() -> String,
    dk: &dyn DeviceKernel,
    kind: (Kind<'_>, bool),
    reducer_type: &'static str,
    space: &Space<'_>,
) -> Result<Arc<Loaded<D>>> {
    let shared = inst.shared();
    shared.check_alive(what)?;
    let captures_len = params::Buffers::for_kernel(dk).captures_len;
    let max_param_bytes = shared.info.max_param_bytes();
    Chosen::new(dk, kind, reducer_type, space, captures_len, max_param_bytes).load(inst, dk)
}

/// The compiled entry a launch needs, chosen from its pattern, iteration space and captures.
struct Chosen<'a> {
    input: PlanInput,
    entry: Entry,
    key: JitKey,
    options: UnitOptions,
    pattern: DevicePattern<'a>,
}

impl<'a> Chosen<'a> {
    /// The entry to look up or compile.
    fn wanted(&self) -> Wanted {
        Wanted {
            key: self.key,
            extra: self.entry.extra,
            shared_per_thread: self.entry.value_size,
        }
    }

    /// The entry from the kernel cache, compiled or loaded on first use.
    fn load<D: Driver>(&self, inst: &Instance<D>, dk: &dyn DeviceKernel) -> Result<Arc<Loaded<D>>> {
        let shared = inst.shared();
        shared
            .kernels
            .get(&shared.ctx, &shared.info, self.wanted(), || {
                codegen::translation_unit(
                    &dk.device_body(self.pattern.emit()),
                    &self.pattern,
                    self.options,
                )
            })
    }

    /// The entry of a launch of `kind` (`to_place`: writing its result into a device place).
    fn new(
        dk: &dyn DeviceKernel,
        (kind, to_place): (Kind<'a>, bool),
        reducer_type: &'static str,
        space: &Space<'_>,
        captures_len: usize,
        max_param_bytes: usize,
    ) -> Chosen<'a> {
        let input = PlanInput {
            pattern: kind.pattern(),
            count: space.count,
            max_extent: space.max_extent,
            iterate: space.iterate,
            tiles: space.tiles,
            team: space.team.map(|t| TeamInput {
                league: t.league,
                block: t.block(),
                scratch_shared: t.scratch.pattern_offset(),
                level1: t.scratch.block_stride > 0,
            }),
            captures_len,
            max_param_bytes,
            // Only a `parallel_for` or reduction (scans keep every check: their entries call the
            // body twice, and proving is for the common patterns).
            proven: matches!(kind, Kind::For | Kind::Reduce(_))
                && space
                    .proof
                    .is_some_and(|(ranges, bits)| dk.device_proven_over(ranges, bits))
                && !tuning::always_check_bounds(),
        };
        let entry = Entry::choose(&input);
        // A result written into a device place gets the reducer's final step there.
        let finalize =
            to_place && matches!(kind, Kind::Reduce(r) | Kind::TeamReduce(r) if r.finalize);
        let options = UnitOptions {
            index32: entry.index32,
            captures_by_pointer: entry.by_pointer,
            fused_join: true,
            tiled: entry.tiled,
            // Only a kernel with `unsafe` may alias a read-only capture with a written one.
            unsafe_aliasing: dk.device_is_unsafe(),
            finalize,
            proven: entry.proven,
        };
        let pattern = match kind {
            Kind::For => DevicePattern::For {
                iterate: space.iterate,
            },
            Kind::Reduce(r) => DevicePattern::Reduce {
                iterate: space.iterate,
                reducer: r,
            },
            Kind::Scan(r) => DevicePattern::Scan { reducer: r },
            Kind::TeamFor => DevicePattern::TeamFor,
            Kind::TeamReduce(r) => DevicePattern::TeamReduce { reducer: r },
        };
        let key = JitKey {
            kernel: dk.device_key(),
            reducer: reducer_type,
            variant: entry.variant | u32::from(finalize) << 7,
        };
        Chosen {
            input,
            entry,
            key,
            options,
            pattern,
        }
    }
}

/// The job that compiles and loads, ahead of time, the entry that a launch of `dk` over `space`
/// would need (see [`crate::Prepare`]): the choice and the C++ are made now, the compilation when
/// the job runs.
pub(crate) fn prepare<D: Driver>(
    inst: &Instance<D>,
    what: &dyn Fn() -> String,
    dk: &dyn DeviceKernel,
    kind: Kind<'_>,
    reducer_type: &'static str,
    space: &Space<'_>,
) -> Result<Job> {
    let shared = inst.shared();
    shared.check_alive(what)?;
    let captures_len = params::Buffers::for_kernel(dk).captures_len;
    let max_param_bytes = shared.info.max_param_bytes();
    // Ahead of time, the entry of a value that comes back to the host.
    let chosen = Chosen::new(
        dk,
        (kind, false),
        reducer_type,
        space,
        captures_len,
        max_param_bytes,
    );
    let unit = codegen::translation_unit(
        &dk.device_body(chosen.pattern.emit()),
        &chosen.pattern,
        chosen.options,
    )?;
    Ok(Job::new(Compile {
        shared: Arc::clone(shared),
        whats: vec![what()],
        items: vec![(chosen.wanted(), unit)],
        threads: 1,
    }))
}

/// The compilation of one or more kernels for one GPU (a [`Job`]'s work): kernels of the same
/// device join, and compile as one program (see `KernelCache::prepare_batch`).
struct Compile<D: Driver> {
    shared: Arc<Device<D>>,
    /// What each kernel is, for errors.
    whats: Vec<String>,
    items: Vec<(Wanted, TranslationUnit)>,
    /// The threads the batch's program compiles on (NVRTC's split compilation).
    threads: u32,
}

impl<D: Driver> Work for Compile<D> {
    fn run(self: Box<Self>) -> Vec<Result<Obtained>> {
        let Compile {
            shared,
            whats,
            items,
            threads,
        } = *self;
        // After finalize, every kernel's result is that error (naming the kernel).
        let alive: Vec<Result<()>> = whats
            .into_iter()
            .map(|what| shared.check_alive(|| what))
            .collect();
        if alive.iter().any(Result::is_err) {
            return alive
                .into_iter()
                .map(|r| r.map(|()| Obtained::AlreadyLoaded))
                .collect();
        }
        shared
            .kernels
            .prepare_batch(&shared.ctx, &shared.info, &items, threads)
    }

    fn absorb(&mut self, mut other: Box<dyn Work>) -> Option<Box<dyn Work>> {
        match other.as_any_mut().downcast_mut::<Compile<D>>() {
            Some(o) if Arc::ptr_eq(&o.shared, &self.shared) => {
                self.whats.append(&mut o.whats);
                self.items.append(&mut o.items);
                None
            }
            _ => Some(other),
        }
    }

    fn as_any_mut(&mut self) -> &mut dyn std::any::Any {
        self
    }

    /// Requests of one kernel stay together (the batch compiles it once); distinct kernels go,
    /// costliest first, into the batch with the least estimated compile cost so far
    /// ([`TranslationUnit::compile_cost`]).
    fn split(
        self: Box<Self>,
        threads: usize,
        per_batch: usize,
        program_threads: usize,
    ) -> Vec<(Vec<usize>, Box<dyn Work>)> {
        let Compile {
            shared,
            whats,
            items,
            ..
        } = *self;
        let program_threads = u32::try_from(program_threads).unwrap_or(u32::MAX);
        let mut kernels: Vec<(usize, Vec<usize>)> = Vec::new();
        let mut first: HashMap<JitKey, usize> = HashMap::new();
        for (p, (wanted, unit)) in items.iter().enumerate() {
            match first.get(&wanted.key) {
                Some(&k) => kernels[k].1.push(p),
                None => {
                    first.insert(wanted.key, kernels.len());
                    kernels.push((unit.compile_cost(), vec![p]));
                }
            }
        }
        kernels.sort_by_key(|(cost, positions)| (std::cmp::Reverse(*cost), positions[0]));
        let count = threads.min(kernels.len().div_ceil(per_batch.max(1))).max(1);
        let mut bins: Vec<(usize, Vec<usize>)> = vec![(0, Vec::new()); count];
        for (cost, positions) in kernels {
            if let Some(bin) = bins.iter_mut().min_by_key(|(load, _)| *load) {
                bin.0 += cost;
                bin.1.extend(positions);
            }
        }
        let mut whats: Vec<Option<String>> = whats.into_iter().map(Some).collect();
        let mut items: Vec<Option<(Wanted, TranslationUnit)>> =
            items.into_iter().map(Some).collect();
        bins.into_iter()
            .filter(|(_, positions)| !positions.is_empty())
            .map(|(_, mut positions)| {
                positions.sort_unstable();
                let work = Compile {
                    shared: Arc::clone(&shared),
                    whats: positions.iter().filter_map(|&p| whats[p].take()).collect(),
                    items: positions.iter().filter_map(|&p| items[p].take()).collect(),
                    threads: program_threads,
                };
                (positions, Box::new(work) as Box<dyn Work>)
            })
            .collect()
    }
}

/// Gives back an exclusive launch borrow.
struct ReleaseOnDrop<'a>(&'a crate::space::Allocation);

impl Drop for ReleaseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.release_exclusive();
    }
}

/// Describes a launch for error messages.
pub(crate) fn describe<'a>(
    space: &'static str,
    pattern: &'a str,
    label: &'a str,
) -> impl Fn() -> String + 'a {
    move || format!("{pattern} \"{label}\" on {space}")
}

/// The device translation of a functor; functors without one never get here (their launch on
/// a GPU does not compile), but the error is kept for safety.
pub(crate) fn device<'a>(
    kernel: Option<&'a dyn DeviceKernel>,
    what: &dyn Fn() -> String,
) -> Result<&'a dyn DeviceKernel> {
    kernel.ok_or_else(|| Error::Unsupported {
        what: what(),
        reason: "the functor has no device translation; write the kernel with kernel!".into(),
    })
}
