//! The entries of team kernels (`BodyKind::TeamFor`, `BodyKind::TeamReduce`): a league of teams,
//! one league rank per block at a time.
//!
//! Mapping (see `device/team.cuh`): the block is one-dimensional, of `team_size * vector_length`
//! threads; thread `threadIdx.x` is vector lane `threadIdx.x % vector_length` of team thread
//! `threadIdx.x / vector_length`. Block `b` runs league ranks `b, b + gridDim.x, ...` (grid-stride:
//! a league larger than the grid runs in turns), and every thread of the block runs the same ones,
//! so that the team's collectives are reached by all of its threads. A reduction's accumulator is
//! the thread's, over all its league ranks; the blocks then join as a range reduction's do
//! (`reduce_entry.rs`).
//!
//! Scratch (layout: `backend/gpu/team/scratch.rs`): the entry takes the team and thread parts of
//! levels 0 and 1, where the pattern's dynamic shared memory starts after level 0, the stride of
//! level 1's block slices and the level-1 buffer; the `fk::Team` points at its parts once (a block
//! uses the same ones for every league rank it runs), and with any scratch the block waits at a
//! barrier before each league rank after its first, so that no thread writes the next league
//! rank's scratch while another still reads the last one's.

use super::parts::Text;

/// The launch parameters of a league: its size, the team size and the vector length, then its
/// scratch (see the module documentation).
pub(super) fn league_params() -> Vec<String> {
    [
        "const u64 fk_league_size",
        "const u32 fk_team_size",
        "const u32 fk_vector_length",
        "const u64 fk_team_scratch0",
        "const u64 fk_thread_scratch0",
        "const u64 fk_team_scratch1",
        "const u64 fk_thread_scratch1",
        "const u64 fk_pattern_shared",
        "const u64 fk_block_scratch1",
        "unsigned char* const fk_scratch1",
    ]
    .map(String::from)
    .to_vec()
}

/// Where a team reduction's values per thread are in dynamic shared memory: after level-0
/// scratch.
pub(super) const PATTERN_SHARED: &str = "fk_dynamic + fk_pattern_shared";

/// The start of a team entry: the block's dynamic shared memory and the team member, with its
/// scratch.
pub(super) fn league_start(t: &mut Text) {
    t.push("    extern __shared__ __align__(16) unsigned char fk_dynamic[];");
    t.push("    fk::Team fk_team;");
    t.push("    fk_team.league_size = fk_league_size;");
    t.push("    fk_team.team_size = fk_team_size;");
    t.push("    fk_team.vector_length = fk_vector_length;");
    t.push(
        "    // Level 0 in shared memory, level 1 in this block's slice: the same for every league",
    );
    t.push("    // rank the block runs.");
    t.push("    fk::set_scratch(fk_team, fk_dynamic, fk_scratch1 + (u64)blockIdx.x * fk_block_scratch1,");
    t.push("                    fk_team_scratch0, fk_thread_scratch0, fk_team_scratch1, fk_thread_scratch1);");
    t.push("    const bool fk_scratch_any = (fk_team_scratch0 | fk_thread_scratch0 | fk_team_scratch1 |");
    t.push("                                 fk_thread_scratch1) != 0;");
}

/// The loop over the block's league ranks, calling the body with the team member and `more` (the
/// accumulator's argument, with its comma, or nothing). After [`league_start`].
pub(super) fn league_loop(t: &mut Text, more: &str) {
    t.push(
        "    // League rank l runs as block l (grid-stride beyond the grid): every thread of the",
    );
    t.push("    // block runs the same league ranks, so the team's collectives are uniform.");
    t.push("    for (u64 fk_l = blockIdx.x; fk_l < fk_league_size; fk_l += gridDim.x) {");
    t.push("        // The last league rank's scratch is no longer read when the next one's is written.");
    t.push("        if (fk_scratch_any && fk_l != blockIdx.x) __syncthreads();");
    t.push("        fk_team.league_rank = fk_l;");
    t.push(&format!("        fk_body(fk_team{more});"));
    t.push("    }");
}

/// The loop over the block's league ranks for a reduction whose join does not commute: block `b`
/// runs the `b`-th contiguous run of league ranks, in order, and after each the block joins its
/// threads' values in thread order into thread 0's `fk_ordered`, so that the result is in league
/// order (then thread order). After [`league_start`] and the reduction's start; leaves the block's
/// value in thread 0's `fk_acc` (the identity in the others').
pub(super) fn ordered_league_loop(t: &mut Text, value: &str) {
    t.push("    // The join does not commute: block b runs the b-th contiguous run of league ranks and");
    t.push("    // joins its threads' values after each one, in thread order.");
    t.push(&format!("    {value} fk_ordered = fk_reducer::identity();"));
    t.push("    const u64 fk_per = (fk_league_size + gridDim.x - 1) / gridDim.x;");
    t.push("    const u64 fk_first = (u64)blockIdx.x * fk_per < fk_league_size ? (u64)blockIdx.x * fk_per : fk_league_size;");
    t.push("    const u64 fk_end = fk_first + fk_per < fk_league_size ? fk_first + fk_per : fk_league_size;");
    t.push("    for (u64 fk_l = fk_first; fk_l < fk_end; ++fk_l) {");
    t.push("        // The last league rank's scratch is no longer read when the next one's is written.");
    t.push("        if (fk_scratch_any && fk_l != fk_first) __syncthreads();");
    t.push("        fk_team.league_rank = fk_l;");
    t.push("        fk_acc = fk_reducer::identity();");
    t.push("        fk_body(fk_team, fk_acc);");
    t.push(&format!(
        "        fk::block_reduce<fk_reducer>(fk_acc, reinterpret_cast<{value}*>(fk_shared));"
    ));
    t.push("        if (threadIdx.x == 0) fk_reducer::join(fk_ordered, fk_acc);");
    t.push("    }");
    t.push("    fk_acc = fk_ordered;");
}
