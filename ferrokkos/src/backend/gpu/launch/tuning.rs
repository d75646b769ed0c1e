//! The tuning overrides of CUDA launch grids, read once from the environment:
//! `FERROKKOS_CUDA_MAX_WAVES=w` caps a `parallel_for`'s grid at `w` waves (0: one thread per
//! iteration) and `FERROKKOS_CUDA_BLOCK=b` sets the block of a range `parallel_for` (see
//! `backend/gpu/launch/grid.rs`, which applies them); `FERROKKOS_CUDA_BOUNDS=always` keeps every
//! device bounds check, also where a launch proved the accesses in bounds (to measure what the
//! checks cost, or to rule the proof out when hunting a fault).

use std::sync::OnceLock;

/// The `FERROKKOS_CUDA_MAX_WAVES` override (`u64::MAX` when not set or not a number).
pub(super) fn max_waves() -> u64 {
    static WAVES: OnceLock<u64> = OnceLock::new();
    *WAVES.get_or_init(|| read("FERROKKOS_CUDA_MAX_WAVES").unwrap_or(u64::MAX))
}

/// The `FERROKKOS_CUDA_BLOCK` override (`None` when not set or not a number).
pub(super) fn for_block() -> Option<u32> {
    static BLOCK: OnceLock<Option<u32>> = OnceLock::new();
    *BLOCK.get_or_init(|| read("FERROKKOS_CUDA_BLOCK"))
}

/// Whether `FERROKKOS_CUDA_BOUNDS=always` asks for every device bounds check.
pub(super) fn always_check_bounds() -> bool {
    static ALWAYS: OnceLock<bool> = OnceLock::new();
    *ALWAYS.get_or_init(|| {
        std::env::var("FERROKKOS_CUDA_BOUNDS")
            .is_ok_and(|v| v.trim().eq_ignore_ascii_case("always"))
    })
}

/// The variable `name` parsed as a number, if it is set and one.
fn read<T: std::str::FromStr>(name: &str) -> Option<T> {
    std::env::var(name).ok().and_then(|v| v.trim().parse().ok())
}
