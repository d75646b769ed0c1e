//! The entries of team kernels (`BodyKind::TeamFor`, `BodyKind::TeamReduce`): a league of teams,
//! one league rank per block at a time.
//!
//! Mapping (see `device/team.cuh`): the block is one-dimensional, of `team_size * vector_length`
//! threads; thread `threadIdx.x` is vector lane `threadIdx.x % vector_length` of team thread
//! `threadIdx.x / vector_length`. Block `b` runs league ranks `b, b + gridDim.x, ...` (grid-stride:
//! a league larger than the grid runs in turns), and every thread of the block runs the same ones,
//! so that the team's collectives are reached by all of its threads. A reduction's accumulator is
//! the thread's, over all its league ranks; the blocks then join as a range reduction's do
//! (`unit.rs`).

use super::unit::Text;

/// The launch parameters of a league: its size, the team size and the vector length.
pub(super) fn league_params() -> Vec<String> {
    vec![
        "const u64 fk_league_size".to_string(),
        "const u32 fk_team_size".to_string(),
        "const u32 fk_vector_length".to_string(),
    ]
}

/// The loop over the block's league ranks, calling the body with the team member and `more` (the
/// accumulator's argument, with its comma, or nothing).
pub(super) fn league_loop(t: &mut Text, more: &str) {
    t.push(
        "    // League rank l runs as block l (grid-stride beyond the grid): every thread of the",
    );
    t.push("    // block runs the same league ranks, so the team's collectives are uniform.");
    t.push("    fk::Team fk_team;");
    t.push("    fk_team.league_size = fk_league_size;");
    t.push("    fk_team.team_size = fk_team_size;");
    t.push("    fk_team.vector_length = fk_vector_length;");
    t.push("    for (u64 fk_l = blockIdx.x; fk_l < fk_league_size; fk_l += gridDim.x) {");
    t.push("        fk_team.league_rank = fk_l;");
    t.push(&format!("        fk_body(fk_team{more});"));
    t.push("    }");
}
