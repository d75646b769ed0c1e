//! The plan of a launch with its entry (from `entry.rs`), once that entry's occupancy is known: its
//! grid, block, dynamic shared memory and scratch layout. Pure: computed from the iteration space
//! and the device's limits, and unit-tested below.

use super::entry::{Entry, Pattern, PlanInput};
use crate::backend::gpu::arch::GpuArch;
use crate::backend::gpu::grid::{GridInput, grid_size, team_grid};

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
