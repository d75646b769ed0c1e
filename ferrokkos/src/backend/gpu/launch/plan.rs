//! The plan of a launch: which compiled entry it needs (pattern, walk order, 32-bit indexing,
//! captures by pointer, tiles, a league of teams) and, once that entry's occupancy is known, its grid, block, dynamic
//! shared memory and scratch layout. Pure: computed from the iteration space, the captures' size
//! and the device's limits, and unit-tested below.

use crate::backend::gpu::arch::GpuArch;
use crate::backend::gpu::grid::{GridInput, grid_size, team_grid};
use crate::policy::Iterate;

/// The pattern of a launch, with the size of a reduction's or scan's value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Pattern {
    For,
    Reduce { value_size: usize },
    Scan { value_size: usize },
}

impl Pattern {
    /// The pattern's name in notes and traces.
    pub(super) fn name(self) -> &'static str {
        match self {
            Pattern::For => "parallel_for",
            Pattern::Reduce { .. } => "parallel_reduce",
            Pattern::Scan { .. } => "parallel_scan",
        }
    }

    /// The bytes of the parameters an entry takes besides the captures: the iteration space's (at
    /// most 16 values of 8 bytes) and the pattern's (a reduction's partials, counter and result; a
    /// scan's iterations per block, totals in and out, and final-pass flag).
    fn fixed_param_bytes(self) -> usize {
        let extras = match self {
            Pattern::For => 0,
            Pattern::Reduce { .. } => 8 * 3,
            Pattern::Scan { .. } => 8 + 8 + 8 + 8,
        };
        8 * 16 + extras
    }
}

/// What a launch is planned from.
#[derive(Clone, Copy, Debug)]
pub(super) struct PlanInput {
    pub(super) pattern: Pattern,
    /// The number of iterations.
    pub(super) count: u64,
    /// The largest extent of a multidimensional index (a range's: its count).
    pub(super) max_extent: u64,
    /// The walk order of a multidimensional index.
    pub(super) iterate: Iterate,
    /// For a tiled multidimensional `parallel_for`: the points per tile and the number of tiles.
    pub(super) tiles: Option<(u32, u64)>,
    /// For a league of teams, its shape (`count` is then the league size).
    pub(super) team: Option<TeamInput>,
    /// The size of the captures as parameters (large captured arrays counted, not copied).
    pub(super) captures_len: usize,
    /// The device's limit on the size of a launch's parameters.
    pub(super) max_param_bytes: usize,
}

/// What a league of teams' plan depends on.
#[derive(Clone, Copy, Debug)]
pub(super) struct TeamInput {
    /// The league size.
    pub(super) league: u64,
    /// The threads of a team's block.
    pub(super) block: u32,
    /// The dynamic shared memory of its level-0 scratch, before the pattern's own.
    pub(super) scratch_shared: u64,
    /// Whether it has level-1 scratch: a slice of device memory per block, so its grid is one wave
    /// at most (the blocks that can run at once; more would only take more memory).
    pub(super) level1: bool,
}

/// Which compiled entry a launch needs: the variant of the kernel cache's key, the unit's options
/// and the second entry. Known before the kernel is looked up.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Entry {
    /// Index arithmetic in 32 bits: the count and every extent are below 2^31.
    pub(super) index32: bool,
    /// The captures travel through one pointer to a copy in device memory: as parameters they
    /// would exceed the device's limit.
    pub(super) by_pointer: bool,
    /// A tiled multidimensional `parallel_for` (one block per tile).
    pub(super) tiled: bool,
    /// The cache key's variant: the pattern (bits 0-1: for 0, reduce 1, scan 2), walk order Left
    /// (bit 2), `index32` (bit 3), `by_pointer` (bit 4), `tiled` (bit 5), a league of teams (bit 6:
    /// a team kernel's entries, which take the league instead of a range).
    pub(super) variant: u32,
    /// The suffix of the second entry (`_prefix` for scans).
    pub(super) extra: Option<&'static str>,
    /// The size of a reduction's or scan's value (0 for `parallel_for`), which is also the dynamic
    /// shared memory each thread of the main entry needs.
    pub(super) value_size: usize,
}

impl Entry {
    /// The entry that `input` needs.
    pub(super) fn choose(input: &PlanInput) -> Entry {
        let team = input.team.is_some();
        // A team entry has no index to count (its league rank is always 64-bit).
        let index32 = !team && input.count < (1 << 31) && input.max_extent < (1 << 31);
        let by_pointer =
            input.pattern.fixed_param_bytes() + input.captures_len > input.max_param_bytes;
        let tiled = !team && matches!(input.pattern, Pattern::For) && input.tiles.is_some();
        let (pattern_bits, extra, value_size) = match input.pattern {
            Pattern::For => (0, None, 0),
            Pattern::Reduce { value_size } => (1, None, value_size),
            Pattern::Scan { value_size } => (2, Some("_prefix"), value_size),
        };
        let variant = pattern_bits
            | (matches!(input.iterate, Iterate::Left) as u32) << 2
            | (index32 as u32) << 3
            | (by_pointer as u32) << 4
            | (tiled as u32) << 5
            | (team as u32) << 6;
        Entry {
            index32,
            by_pointer,
            tiled,
            variant,
            extra,
            value_size,
        }
    }
}

/// What the pattern's launches need besides the grid: their scratch layout. The device scratch
/// (see [`Plan::scratch_bytes`]) holds one value per block, padded to 256 bytes, then one value.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Work {
    /// One launch, no scratch.
    For,
    /// One fused launch: `partials_bytes` of block partials; the last block writes the result
    /// into the caller's device place or the instance's pinned scratch.
    Reduce { partials_bytes: usize },
    /// The totals pass, the `_prefix` launch (one thread), the final pass: each block runs
    /// `per_block` iterations; `totals_bytes` of block totals, then the total.
    Scan { per_block: u64, totals_bytes: usize },
}

/// A launch's plan: the entry, the main entry's grid, block and dynamic shared memory, and the
/// scratch layout.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct Plan {
    pub(super) pattern: Pattern,
    pub(super) entry: Entry,
    /// The blocks of each launch of the main entry.
    pub(super) grid: u64,
    /// The threads of each block.
    pub(super) block: u32,
    /// The dynamic shared memory of each block: a league's level-0 scratch, then one value per
    /// thread for reductions and scans.
    pub(super) shared_bytes: u32,
    pub(super) work: Work,
}

impl Plan {
    /// The plan of `input` with `entry` (from [`Entry::choose`]), whose occupancy is `block`
    /// threads per block and `full_grid` blocks per wave; `max_waves` is the
    /// `FERROKKOS_CUDA_MAX_WAVES` override (`u64::MAX`: none). A scan needs a count above 0 (a
    /// scan of nothing is not launched). A league of teams runs blocks of its team's threads, and
    /// `full_grid` is then the wave of blocks of that size (and of its dynamic shared memory); with
    /// level-1 scratch, one wave at most.
    pub(super) fn new(
        input: &PlanInput,
        entry: Entry,
        block: u32,
        full_grid: u32,
        max_waves: u64,
    ) -> Plan {
        let for_pattern = matches!(input.pattern, Pattern::For);
        let (grid, block) = match input.team {
            Some(t) => {
                let grid = team_grid(
                    GpuArch::CUDA,
                    t.block,
                    t.league,
                    for_pattern,
                    full_grid,
                    max_waves,
                );
                let grid = match t.level1 {
                    true => grid.min(u64::from(full_grid).max(1)),
                    false => grid,
                };
                (grid, t.block)
            }
            None => grid_size(GridInput {
                arch: GpuArch::CUDA,
                count: input.count,
                for_pattern,
                block,
                full_grid,
                tiles: input.tiles.filter(|_| entry.tiled),
                max_waves,
            }),
        };
        // A league's level-0 scratch comes first (its size was checked against the device's
        // shared memory before).
        let scratch = input.team.map_or(0, |t| t.scratch_shared as usize);
        let shared = |size: usize| (scratch + block as usize * size) as u32;
        let (grid, shared_bytes, work) = match input.pattern {
            Pattern::For => (grid, shared(0), Work::For),
            Pattern::Reduce { value_size } => {
                let partials_bytes = (grid as usize * value_size).next_multiple_of(256);
                (grid, shared(value_size), Work::Reduce { partials_bytes })
            }
            Pattern::Scan { value_size } => {
                let (per_block, grid) = scan_blocks(input.count, grid);
                let totals_bytes = (grid as usize * value_size).next_multiple_of(256);
                let work = Work::Scan {
                    per_block,
                    totals_bytes,
                };
                (grid, shared(value_size), work)
            }
        };
        Plan {
            pattern: input.pattern,
            entry,
            grid,
            block,
            shared_bytes,
            work,
        }
    }

    /// The bytes of device scratch the launches use (0 for `parallel_for`).
    pub(super) fn scratch_bytes(&self) -> usize {
        match self.work {
            Work::For => 0,
            Work::Reduce { partials_bytes } => partials_bytes,
            Work::Scan { totals_bytes, .. } => totals_bytes + self.entry.value_size,
        }
    }
}

/// A scan's iterations per block and its grid: `count` spread over at most `grid` blocks, without
/// blocks left empty by the rounding. `count` must be above 0.
fn scan_blocks(count: u64, grid: u64) -> (u64, u64) {
    let per_block = count.div_ceil(grid);
    (per_block, count.div_ceil(per_block).max(1))
}

#[cfg(test)]
mod tests;
