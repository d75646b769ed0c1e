//! Grid sizing: the grid and block of a launch from the iteration count, the pattern, the
//! occupancy calculator's block, the device's full wave and the programming model's lanes and
//! limits ([`GpuArch`]) (pure, unit-tested below). The CUDA backend reads its tuning overrides
//! (`FERROKKOS_CUDA_MAX_WAVES`, `FERROKKOS_CUDA_BLOCK`) and passes them in.

use crate::backend::gpu::arch::GpuArch;

/// The grid of a `parallel_for` gives each thread about this many iterations (grid-stride), but has
/// at least [`MIN_WAVES`] times the grid that fills the device (resident blocks per multiprocessor
/// times multiprocessors). Measured with BabelStream on an H100: one thread per element is 4-6%
/// slower than a capped grid on Copy and Mul; a grid of one or two waves is 3% slower on Add and
/// Triad; about 4 iterations per thread matches the best hand-written kernel on every kernel at
/// 2^25 and 2^27 doubles. A `max_waves` override of `w` caps the grid at `w` waves instead (0: one
/// thread per iteration), for tuning.
const ITERATIONS_PER_THREAD: u64 = 4;

/// See [`ITERATIONS_PER_THREAD`].
const MIN_WAVES: u64 = 8;

/// Threads per block of a range `parallel_for` (fewer when the occupancy calculator says so).
/// Measured with BabelStream on an H100 against BabelStream's current CUDA model (blocks of 256,
/// about 4 elements per thread): blocks of 1024 were 3-5% slower on Copy and Mul at 2^25 and 2^27
/// doubles; blocks of 256 are within 1% on every kernel; unrolling the grid-stride loop 4 times
/// changed nothing measurable. An override sets it instead, for tuning.
const FOR_BLOCK: u32 = 256;

/// The block of a range `parallel_for` whose kernel's occupancy block is `occupancy`, with the
/// tuning override `wanted`: [`FOR_BLOCK`] or `wanted`, a multiple of the SIMD group between one
/// group and 1024 threads, at most `occupancy` (but at least one group).
pub(crate) fn for_block(arch: GpuArch, occupancy: u32, wanted: Option<u32>) -> u32 {
    let wave = arch.wave;
    let wanted = wanted.unwrap_or(FOR_BLOCK).clamp(wave, 1024) / wave * wave;
    wanted.min(occupancy).max(wave)
}

/// What the grid of a launch depends on.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GridInput {
    /// The programming model: its SIMD group and grid limits.
    pub(crate) arch: GpuArch,
    /// The number of iterations.
    pub(crate) count: u64,
    /// A `parallel_for` (grid-stride loops; reductions and scans run one wave at most).
    pub(crate) for_pattern: bool,
    /// The occupancy calculator's block size for the kernel.
    pub(crate) block: u32,
    /// The blocks of one full wave on the device.
    pub(crate) full_grid: u32,
    /// A tiled multidimensional `parallel_for`: points per tile (the block) and tiles (the grid).
    pub(crate) tiles: Option<(u32, u64)>,
    /// The waves override (`u64::MAX`: none; 0: one thread per iteration).
    pub(crate) max_waves: u64,
}

/// The grid and block of a launch (pure: unit-tested below). A short range gets a block just big
/// enough, a multiple of the SIMD group at most the occupancy calculator's size (launching and
/// retiring idle threads costs device time). A `parallel_for` takes enough blocks for about
/// [`ITERATIONS_PER_THREAD`] iterations per thread but at least [`MIN_WAVES`] waves; reductions
/// and scans one wave. A tiled launch runs one block per tile, of the tile's points. Every grid is
/// at least one block and at most [`GpuArch::max_blocks`] (the generated loops stride over the
/// rest).
pub(crate) fn grid_size(g: GridInput) -> (u64, u32) {
    let block = g
        .block
        .min(g.arch.round_to_groups(g.count).min(u64::from(u32::MAX)) as u32);
    if let Some((points, tiles)) = g.tiles {
        return (tiles.clamp(1, g.arch.max_blocks(points)), points);
    }
    let wanted = g.count.div_ceil(u64::from(block)).max(1);
    let full = u64::from(g.full_grid);
    let cap = match (g.for_pattern, g.max_waves) {
        (true, u64::MAX) => {
            (full * MIN_WAVES).max(g.count.div_ceil(u64::from(block) * ITERATIONS_PER_THREAD))
        }
        (true, 0) => u64::MAX,
        (true, waves) => full.saturating_mul(waves),
        (false, _) => full,
    };
    (wanted.min(cap).clamp(1, g.arch.max_blocks(block)), block)
}

/// The grid of a league of `league` teams of `block` threads, one league rank per block at a time
/// (grid-stride beyond the grid), with `full_grid` the wave of blocks of the team's size: as for a
/// range, a `parallel_for` gives each block about [`ITERATIONS_PER_THREAD`] league ranks but takes
/// at least [`MIN_WAVES`] waves (never more blocks than league ranks), and a reduction one wave at
/// most; `max_waves` is the waves override. At least one block, at most [`GpuArch::max_blocks`].
pub(crate) fn team_grid(
    arch: GpuArch,
    block: u32,
    league: u64,
    for_pattern: bool,
    full_grid: u32,
    max_waves: u64,
) -> u64 {
    let full = u64::from(full_grid);
    let cap = match (for_pattern, max_waves) {
        (true, u64::MAX) => (full * MIN_WAVES).max(league.div_ceil(ITERATIONS_PER_THREAD)),
        (true, 0) => u64::MAX,
        (true, waves) => full.saturating_mul(waves),
        (false, _) => full,
    };
    league.min(cap).clamp(1, arch.max_blocks(block))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An H100-like device: blocks of 1024 from the occupancy calculator, 132 SMs x 2 blocks.
    fn input(count: u64, for_pattern: bool) -> GridInput {
        GridInput {
            arch: GpuArch::CUDA,
            count,
            for_pattern,
            block: 1024,
            full_grid: 264,
            tiles: None,
            max_waves: u64::MAX,
        }
    }

    #[test]
    fn range_for_blocks_are_256_threads_unless_occupancy_or_the_override_says_less() {
        assert_eq!(for_block(GpuArch::CUDA, 1024, None), 256);
        assert_eq!(for_block(GpuArch::CUDA, 128, None), 128);
        assert_eq!(for_block(GpuArch::CUDA, 1024, Some(512)), 512);
        assert_eq!(for_block(GpuArch::CUDA, 1024, Some(100)), 96);
        assert_eq!(for_block(GpuArch::CUDA, 1024, Some(0)), 32);
        assert_eq!(for_block(GpuArch::CUDA, 1024, Some(5000)), 1024);
        assert_eq!(for_block(GpuArch::CUDA, 16, None), 32);
    }

    #[test]
    fn short_ranges_get_one_small_block() {
        assert_eq!(grid_size(input(1, true)), (1, 32));
        assert_eq!(grid_size(input(33, true)), (1, 64));
        assert_eq!(grid_size(input(1000, false)), (1, 1024));
    }

    #[test]
    fn long_for_ranges_give_each_thread_about_four_iterations_but_at_least_eight_waves() {
        // 2^25 iterations: 2^25 / (1024 * 4) = 8192 blocks, more than 8 waves (2112).
        assert_eq!(grid_size(input(1 << 25, true)), (8192, 1024));
        // 2^22: 1024 blocks would be under 8 waves, and 2^22 / 1024 = 4096 wanted: 2112.
        assert_eq!(grid_size(input(1 << 22, true)), (2112, 1024));
    }

    #[test]
    fn reductions_run_one_wave_at_most() {
        assert_eq!(grid_size(input(1 << 25, false)), (264, 1024));
        assert_eq!(grid_size(input(10_000, false)), (10, 1024));
    }

    #[test]
    fn the_wave_override_caps_or_lifts_the_grid() {
        let capped = GridInput {
            max_waves: 1,
            ..input(1 << 25, true)
        };
        assert_eq!(grid_size(capped), (264, 1024));
        let one_per_iteration = GridInput {
            max_waves: 0,
            ..input(1 << 25, true)
        };
        assert_eq!(grid_size(one_per_iteration), (32768, 1024));
    }

    #[test]
    fn tiled_launches_run_a_block_per_tile() {
        let tiled = GridInput {
            tiles: Some((256, 5000)),
            ..input(1 << 20, true)
        };
        assert_eq!(grid_size(tiled), (5000, 256));
        let none = GridInput {
            tiles: Some((256, 0)),
            ..input(0, true)
        };
        assert_eq!(grid_size(none), (1, 256));
    }

    /// A league runs a block per league rank up to eight waves (or a quarter of the league, when
    /// larger); a reduction one wave; the override caps it.
    #[test]
    fn a_league_gets_a_block_per_rank_up_to_its_waves() {
        assert_eq!(team_grid(GpuArch::CUDA, 256, 100, true, 264, u64::MAX), 100);
        assert_eq!(
            team_grid(GpuArch::CUDA, 256, 5000, true, 264, u64::MAX),
            2112
        );
        assert_eq!(
            team_grid(GpuArch::CUDA, 256, 10_000, true, 264, u64::MAX),
            2500
        );
        assert_eq!(
            team_grid(GpuArch::CUDA, 256, 1 << 20, true, 264, u64::MAX),
            1 << 18
        );
        assert_eq!(
            team_grid(GpuArch::CUDA, 256, 10_000, false, 264, u64::MAX),
            264
        );
        assert_eq!(
            team_grid(GpuArch::CUDA, 256, 100, false, 264, u64::MAX),
            100
        );
        assert_eq!(team_grid(GpuArch::CUDA, 256, 10_000, true, 264, 1), 264);
        assert_eq!(team_grid(GpuArch::CUDA, 256, 10_000, true, 264, 0), 10_000);
        assert_eq!(team_grid(GpuArch::CUDA, 256, 0, true, 264, u64::MAX), 1);
    }

    /// An MI250X-like GCD: wavefronts of 64, blocks of 1024 from the occupancy calculator, 110
    /// compute units x 2 blocks.
    fn hip_input(count: u64, for_pattern: bool) -> GridInput {
        GridInput {
            arch: GpuArch::hip(64),
            full_grid: 220,
            ..input(count, for_pattern)
        }
    }

    #[test]
    fn hip_blocks_are_whole_wavefronts() {
        let hip = GpuArch::hip(64);
        assert_eq!(for_block(hip, 1024, None), 256);
        assert_eq!(for_block(hip, 1024, Some(100)), 64);
        assert_eq!(for_block(hip, 1024, Some(0)), 64);
        assert_eq!(for_block(hip, 32, None), 64);
        assert_eq!(grid_size(hip_input(1, true)), (1, 64));
        assert_eq!(grid_size(hip_input(65, true)), (1, 128));
        // RDNA's wavefronts of 32 round as CUDA's warps do.
        let rdna = GridInput {
            arch: GpuArch::hip(32),
            ..hip_input(33, true)
        };
        assert_eq!(grid_size(rdna), (1, 64));
    }

    /// HIP counts a launch's `x` dimension in threads, which must fit 32 bits: a grid that would
    /// pass `2^32` threads stops below it (the generated loops stride over the rest); CUDA's grids
    /// go on to `2^31 - 1` blocks.
    #[test]
    fn hip_grids_stay_under_two_to_the_32_threads() {
        let one_per_iteration = |input: GridInput| GridInput {
            max_waves: 0,
            ..input
        };
        assert_eq!(
            grid_size(one_per_iteration(hip_input(1 << 40, true))),
            ((1 << 22) - 1, 1024)
        );
        assert_eq!(
            grid_size(one_per_iteration(input(1 << 40, true))),
            (1 << 30, 1024)
        );
        assert_eq!(
            grid_size(one_per_iteration(input(1 << 42, true))),
            (i32::MAX as u64, 1024)
        );
        // Four iterations per thread of 2^40 would be 2^28 blocks of 1024.
        assert_eq!(grid_size(hip_input(1 << 40, true)), ((1 << 22) - 1, 1024));
        let tiled = GridInput {
            tiles: Some((256, 1 << 30)),
            ..hip_input(1 << 38, true)
        };
        assert_eq!(grid_size(tiled), ((1 << 24) - 1, 256));
        let hip = GpuArch::hip(64);
        assert_eq!(team_grid(hip, 1024, 1 << 40, true, 220, 0), (1 << 22) - 1);
        assert_eq!(team_grid(hip, 64, 1 << 40, true, 220, 0), (1 << 26) - 1);
        assert_eq!(team_grid(hip, 1024, 5000, true, 220, u64::MAX), 1760);
    }
}
