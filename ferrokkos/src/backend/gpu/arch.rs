//! What launch planning needs to know of a GPU programming model besides the device's numbers: its
//! name in messages, the width of its SIMD group (a CUDA warp, an AMD wavefront) and its limits on
//! a launch's grid. The grid and team planning (`launch/grid.rs`, `team/shape.rs`) take one of
//! these instead of assuming CUDA's 32 lanes.

/// A GPU programming model's lanes and launch limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct GpuArch {
    /// The execution space's name in messages (`Cuda`, `HIP`).
    pub(crate) name: &'static str,
    /// What the model calls its SIMD group in messages (`warp`, `wavefront`).
    pub(crate) group: &'static str,
    /// The lanes of a SIMD group: 32 on NVIDIA GPUs and AMD RDNA GPUs, 64 on AMD CDNA GPUs
    /// (MI100, MI250X, MI300). Blocks are multiples of it; a team thread's vector lanes are lanes
    /// of one group, so it bounds the vector length.
    pub(crate) wave: u32,
    /// The most blocks of a launch's `x` dimension.
    pub(crate) max_grid: u64,
    /// The most threads of a launch's `x` dimension (grid times block). HIP refuses a launch whose
    /// `gridDim.x * blockDim.x` does not fit 32 bits (the ROCm runtime counts the grid in threads),
    /// and the generated grid-stride loops step by that product; CUDA has no such bound.
    pub(crate) max_threads: u64,
}

impl GpuArch {
    /// CUDA: warps of 32, up to `2^31 - 1` blocks of any size.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))] // the CUDA driver's
    pub(crate) const CUDA: GpuArch = GpuArch {
        name: "Cuda",
        group: "warp",
        wave: 32,
        max_grid: i32::MAX as u64,
        max_threads: u64::MAX,
    };

    /// HIP on a device whose wavefronts have `wave` lanes (its `warpSize`: 64 on CDNA, 32 on
    /// RDNA): up to `2^31 - 1` blocks, and fewer than `2^32` threads in all.
    #[cfg_attr(not(feature = "hip"), allow(dead_code))] // a build without HIP has no such GPU
    pub(crate) const fn hip(wave: u32) -> GpuArch {
        GpuArch {
            name: "HIP",
            group: "wavefront",
            wave,
            max_grid: i32::MAX as u64,
            max_threads: u32::MAX as u64,
        }
    }

    /// The most blocks of `block` threads a launch may have: [`GpuArch::max_grid`], and
    /// [`GpuArch::max_threads`] divided by the block (at least 1).
    pub(crate) fn max_blocks(&self, block: u32) -> u64 {
        self.max_grid
            .min(self.max_threads / u64::from(block.max(1)))
            .max(1)
    }

    /// `threads` rounded up to whole SIMD groups (at least one group).
    pub(crate) fn round_to_groups(&self, threads: u64) -> u64 {
        threads
            .next_multiple_of(u64::from(self.wave))
            .max(u64::from(self.wave))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hip_launches_stay_under_two_to_the_32_threads_and_cuda_ones_under_its_grid_limit() {
        assert_eq!(GpuArch::CUDA.max_blocks(1024), i32::MAX as u64);
        assert_eq!(GpuArch::hip(64).max_blocks(1024), (1 << 22) - 1);
        assert_eq!(GpuArch::hip(64).max_blocks(256), (1 << 24) - 1);
        assert_eq!(GpuArch::hip(64).max_blocks(1), i32::MAX as u64);
        assert_eq!(GpuArch::hip(64).max_blocks(0), i32::MAX as u64);
    }

    #[test]
    fn threads_round_up_to_whole_warps_or_wavefronts() {
        assert_eq!(GpuArch::CUDA.round_to_groups(0), 32);
        assert_eq!(GpuArch::CUDA.round_to_groups(33), 64);
        assert_eq!(GpuArch::hip(64).round_to_groups(33), 64);
        assert_eq!(GpuArch::hip(64).round_to_groups(65), 128);
        assert_eq!(GpuArch::hip(32).round_to_groups(65), 96);
    }
}
