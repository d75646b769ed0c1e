//! Tests of `plan.rs`, on an H100-like device: a 32764-byte parameter limit, blocks of 1024 from
//! the occupancy calculator, 132 SMs x 2 blocks per wave.

use super::*;
use crate::backend::gpu::launch::entry::TeamInput;
use crate::policy::Iterate;

const LIMIT: usize = 32764;
const BLOCK: u32 = 1024;
const FULL_GRID: u32 = 264;

/// A range of `count` iterations with `captures_len` bytes of captures.
fn input(pattern: Pattern, count: u64, captures_len: usize) -> PlanInput {
    PlanInput {
        pattern,
        count,
        max_extent: count,
        iterate: Iterate::Right,
        tiles: None,
        team: None,
        captures_len,
        max_param_bytes: LIMIT,
        proven: false,
    }
}

fn plan(input: &PlanInput) -> Plan {
    Plan::new(input, Entry::choose(input), BLOCK, FULL_GRID, u64::MAX)
}

const F64_SUM: Pattern = Pattern::Reduce { value_size: 8 };
const F64_SCAN: Pattern = Pattern::Scan { value_size: 8 };

#[test]
fn a_small_range_for_takes_the_32_bit_entry_with_captures_as_parameters() {
    let entry = Entry::choose(&input(Pattern::For, 1000, 64));
    assert_eq!(
        entry,
        Entry {
            index32: true,
            by_pointer: false,
            tiled: false,
            proven: false,
            variant: 1 << 3,
            extra: None,
            value_size: 0,
        }
    );
}

#[test]
fn the_variant_bits_name_pattern_walk_order_index_width_captures_and_tiles() {
    let reduce = Entry::choose(&input(F64_SUM, 1 << 20, 8));
    assert_eq!(
        (reduce.variant, reduce.extra, reduce.value_size),
        (1 | 8, None, 8)
    );
    let scan = Entry::choose(&input(F64_SCAN, 1 << 20, 8));
    assert_eq!(
        (scan.variant, scan.extra, scan.value_size),
        (2 | 8, Some("_prefix"), 8)
    );
    let left = PlanInput {
        iterate: Iterate::Left,
        ..input(Pattern::For, 1 << 20, 8)
    };
    assert_eq!(Entry::choose(&left).variant, 4 | 8);
    let wide = input(Pattern::For, 1 << 31, 8);
    assert_eq!(Entry::choose(&wide).variant, 0);
    let tiled = PlanInput {
        tiles: Some((256, 64)),
        ..input(Pattern::For, 1 << 14, 8)
    };
    let entry = Entry::choose(&tiled);
    assert!(entry.tiled);
    assert_eq!(entry.variant, 8 | 32);
    let big = Entry::choose(&input(Pattern::For, 10, LIMIT));
    assert!(big.by_pointer);
    assert_eq!(big.variant, 8 | 16);
}

#[test]
fn an_extent_of_2_to_the_31_needs_64_bit_indices_even_for_a_small_count() {
    let md = PlanInput {
        max_extent: 1 << 31,
        ..input(Pattern::For, 2, 0)
    };
    assert!(!Entry::choose(&md).index32);
    let md = PlanInput {
        max_extent: (1 << 31) - 1,
        ..input(Pattern::For, (1 << 31) - 1, 0)
    };
    assert!(Entry::choose(&md).index32);
}

#[test]
fn captures_go_by_pointer_past_the_limit_less_the_fixed_parameters() {
    // 16 values of the iteration space (128 bytes) plus the pattern's own.
    for (pattern, fixed) in [(Pattern::For, 128), (F64_SUM, 152), (F64_SCAN, 160)] {
        let fits = Entry::choose(&input(pattern, 100, LIMIT - fixed));
        let over = Entry::choose(&input(pattern, 100, LIMIT - fixed + 1));
        assert!(!fits.by_pointer, "{pattern:?}");
        assert!(over.by_pointer, "{pattern:?}");
    }
    // A device with the old 4 KiB limit.
    let old = PlanInput {
        max_param_bytes: 4096,
        ..input(Pattern::For, 100, 4096 - 127)
    };
    assert!(Entry::choose(&old).by_pointer);
}

#[test]
fn only_a_for_is_tiled() {
    let tiles = Some((256, 64));
    let reduce = PlanInput {
        tiles,
        ..input(F64_SUM, 1 << 14, 8)
    };
    assert!(!Entry::choose(&reduce).tiled);
    // An untiled plan ignores the tiles: one wave of blocks as for any reduction.
    let p = plan(&reduce);
    assert_eq!((p.grid, p.block), (16, 1024));
}

#[test]
fn a_long_for_gets_four_iterations_per_thread_and_no_scratch() {
    let p = plan(&input(Pattern::For, 1 << 25, 64));
    assert_eq!(
        p,
        Plan {
            pattern: Pattern::For,
            entry: Entry::choose(&input(Pattern::For, 1 << 25, 64)),
            grid: 8192,
            block: 1024,
            shared_bytes: 0,
            work: Work::For,
        }
    );
    assert_eq!(p.scratch_bytes(), 0);
    assert_eq!(p.pattern.name(), "parallel_for");
}

#[test]
fn a_tiled_for_runs_one_block_of_the_tile_per_tile() {
    let tiled = PlanInput {
        tiles: Some((256, 5000)),
        ..input(Pattern::For, 1 << 20, 8)
    };
    let p = plan(&tiled);
    assert_eq!((p.grid, p.block, p.shared_bytes), (5000, 256, 0));
}

#[test]
fn a_reduction_runs_one_wave_with_a_value_of_shared_memory_per_thread() {
    let p = plan(&input(F64_SUM, 1 << 25, 8));
    assert_eq!((p.grid, p.block), (264, 1024));
    assert_eq!(p.shared_bytes, 1024 * 8);
    // 264 partials of 8 bytes (2112) padded to 2304 (the result goes to pinned memory or a View).
    assert_eq!(
        p.work,
        Work::Reduce {
            partials_bytes: 2304
        }
    );
    assert_eq!(p.scratch_bytes(), 2304);
    assert_eq!(p.pattern.name(), "parallel_reduce");
    // A short one: one block of 64 threads, a 16-byte value (a MinLoc of f64 and an index).
    let short = plan(&input(Pattern::Reduce { value_size: 16 }, 50, 8));
    assert_eq!((short.grid, short.block, short.shared_bytes), (1, 64, 1024));
    assert_eq!(short.scratch_bytes(), 256);
}

#[test]
fn a_scan_spreads_the_count_over_its_blocks() {
    let p = plan(&input(F64_SCAN, 10_000, 8));
    assert_eq!((p.grid, p.block, p.shared_bytes), (10, 1024, 8192));
    assert_eq!(
        p.work,
        Work::Scan {
            per_block: 1000,
            totals_bytes: 256
        }
    );
    assert_eq!(p.scratch_bytes(), 256 + 8);
    assert_eq!(p.pattern.name(), "parallel_scan");
    let long = plan(&input(F64_SCAN, 1 << 25, 8));
    assert_eq!(long.grid, 264);
    // 2^25 / 264 = 127100.1: 127101 per block; 264 totals (2112 bytes) padded to 2304.
    assert_eq!(
        long.work,
        Work::Scan {
            per_block: 127_101,
            totals_bytes: 2304
        }
    );
}

#[test]
fn scan_blocks_drop_blocks_the_rounding_leaves_empty() {
    assert_eq!(scan_blocks(9, 4), (3, 3));
    assert_eq!(scan_blocks(10, 4), (3, 4));
    assert_eq!(scan_blocks(1, 264), (1, 1));
    assert_eq!(scan_blocks(1 << 25, 264), (127_101, 264));
}

#[test]
fn the_wave_override_reaches_the_plan() {
    let i = input(Pattern::For, 1 << 25, 8);
    let one_wave = Plan::new(&i, Entry::choose(&i), BLOCK, FULL_GRID, 1);
    assert_eq!(one_wave.grid, 264);
    let per_iteration = Plan::new(&i, Entry::choose(&i), BLOCK, FULL_GRID, 0);
    assert_eq!(per_iteration.grid, 32768);
}

/// A league of `league` teams of `block` threads, with `captures_len` bytes of captures.
fn league(pattern: Pattern, league: u64, block: u32, captures_len: usize) -> PlanInput {
    PlanInput {
        team: Some(TeamInput {
            league,
            block,
            scratch_shared: 0,
            level1: false,
        }),
        ..input(pattern, league, captures_len)
    }
}

#[test]
fn a_league_takes_its_own_entry_variant_and_never_32_bit_indices_or_tiles() {
    let team = league(Pattern::For, 100, 256, 64);
    let e = Entry::choose(&team);
    assert!(!e.index32 && !e.tiled && !e.by_pointer);
    assert_eq!(e.variant, 1 << 6);
    let range = Entry::choose(&input(Pattern::For, 100, 64));
    assert_ne!(e.variant, range.variant);
    let tiled = PlanInput {
        tiles: Some((256, 10)),
        ..team
    };
    assert_eq!(Entry::choose(&tiled), e);
    let reduce = Entry::choose(&league(F64_SUM, 100, 256, LIMIT));
    assert!(reduce.by_pointer);
    assert_eq!(reduce.variant, 1 | 1 << 4 | 1 << 6);
}

#[test]
fn a_league_runs_blocks_of_its_team_one_rank_each_up_to_its_waves() {
    // 100 teams: a block each, of the team's threads (not the occupancy calculator's block).
    let input = league(Pattern::For, 100, 96, 0);
    let p = Plan::new(&input, Entry::choose(&input), BLOCK, FULL_GRID, u64::MAX);
    assert_eq!(
        (p.grid, p.block, p.shared_bytes, p.work),
        (100, 96, 0, Work::For)
    );
    // A large league runs grid-stride: at least eight waves, about four league ranks per block.
    let input = league(Pattern::For, 1 << 20, 96, 0);
    let p = Plan::new(&input, Entry::choose(&input), BLOCK, FULL_GRID, u64::MAX);
    assert_eq!(p.grid, 1 << 18);
    // A reduction: one wave, a value of shared memory per thread, the partials and the result.
    let input = league(F64_SUM, 10_000, 96, 0);
    let p = Plan::new(&input, Entry::choose(&input), BLOCK, FULL_GRID, u64::MAX);
    assert_eq!((p.grid, p.block, p.shared_bytes), (264, 96, 96 * 8));
    assert_eq!(
        p.work,
        Work::Reduce {
            partials_bytes: 2304
        }
    );
    assert_eq!(p.scratch_bytes(), 2304);
}

/// A league's level-0 scratch comes first in the block's dynamic shared memory, a reduction's
/// values after it.
#[test]
fn a_leagues_shared_memory_is_its_scratch_then_the_patterns_values() {
    let with_scratch = |pattern| PlanInput {
        team: Some(TeamInput {
            league: 1000,
            block: 128,
            scratch_shared: 64 << 10,
            level1: false,
        }),
        ..league(pattern, 1000, 128, 0)
    };
    let input = with_scratch(Pattern::For);
    let p = Plan::new(&input, Entry::choose(&input), BLOCK, FULL_GRID, u64::MAX);
    assert_eq!((p.block, p.shared_bytes), (128, 64 << 10));
    let input = with_scratch(F64_SUM);
    let p = Plan::new(&input, Entry::choose(&input), BLOCK, FULL_GRID, u64::MAX);
    assert_eq!(p.shared_bytes, (64 << 10) + 128 * 8);
    // The scratch does not change the entry.
    assert_eq!(
        Entry::choose(&input),
        Entry::choose(&league(F64_SUM, 1000, 128, 0))
    );
}

/// With level-1 scratch (device memory per block), a league's grid is one wave at most.
#[test]
fn a_league_with_level_1_scratch_runs_one_wave_at_most() {
    let input = |level1| PlanInput {
        team: Some(TeamInput {
            league: 10_000,
            block: 128,
            scratch_shared: 0,
            level1,
        }),
        ..league(Pattern::For, 10_000, 128, 0)
    };
    let plan = |i: PlanInput| Plan::new(&i, Entry::choose(&i), BLOCK, FULL_GRID, u64::MAX).grid;
    assert_eq!(plan(input(false)), 2500);
    assert_eq!(plan(input(true)), u64::from(FULL_GRID));
    let small = PlanInput {
        team: Some(TeamInput {
            league: 100,
            block: 128,
            scratch_shared: 0,
            level1: true,
        }),
        ..league(Pattern::For, 100, 128, 0)
    };
    assert_eq!(plan(small), 100);
}

#[test]
fn a_proven_launch_has_its_own_variant_but_never_a_league() {
    let checked = Entry::choose(&input(Pattern::For, 100, 64));
    let proven = Entry::choose(&PlanInput {
        proven: true,
        ..input(Pattern::For, 100, 64)
    });
    assert!(!checked.proven && proven.proven);
    assert_eq!(proven.variant, checked.variant | 1 << 8);
    let league = Entry::choose(&PlanInput {
        proven: true,
        team: Some(TeamInput {
            league: 10,
            block: 64,
            scratch_shared: 0,
            level1: false,
        }),
        ..input(Pattern::For, 10, 64)
    });
    assert!(!league.proven);
    assert_eq!(league.variant & 1 << 8, 0);
}
