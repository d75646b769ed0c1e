//! Which compiled entry a launch needs: its pattern, walk order, 32-bit indexing, captures by
//! pointer, tiles, a league of teams. Pure: chosen from the iteration space, the captures' size and
//! the device's parameter limit (tested with the plan, in `plan/tests.rs`).

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
    /// The launch proved the kernel's device-proven accesses over its whole iteration box
    /// (`UnitOptions::proven`).
    pub(super) proven: bool,
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
    /// The kernel's device-proven accesses skip their bounds checks (never for a league of teams).
    pub(super) proven: bool,
    /// The cache key's variant: the pattern (bits 0-1: for 0, reduce 1, scan 2), walk order Left
    /// (bit 2), `index32` (bit 3), `by_pointer` (bit 4), `tiled` (bit 5), a league of teams (bit 6:
    /// a team kernel's entries, which take the league instead of a range), `proven` (bit 8); the
    /// launch adds bit 7 for a reduction finalized on the device (`UnitOptions::finalize`).
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
        let proven = !team && input.proven;
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
            | (team as u32) << 6
            | (proven as u32) << 8;
        Entry {
            index32,
            by_pointer,
            tiled,
            proven,
            variant,
            extra,
            value_size,
        }
    }
}
