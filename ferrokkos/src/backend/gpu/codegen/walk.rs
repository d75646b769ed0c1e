//! How an entry walks its iterations: the launch parameters of the iteration space, the
//! grid-stride loop (with the index computed per iteration, or walked digit by digit), the
//! contiguous runs of an ordered reduction, and the tiled walk of a multidimensional
//! `parallel_for`.

use super::parts::{Pattern, Text};
use crate::policy::Iterate;

/// The index arguments of `fk_body`: `fk_index` for a range, `fk_i0, fk_i1, ...` otherwise.
pub(super) fn index_args(rank: usize) -> String {
    if rank == 1 {
        "fk_index".to_string()
    } else {
        (0..rank)
            .map(|r| format!("fk_i{r}"))
            .collect::<Vec<_>>()
            .join(", ")
    }
}

/// The dimensions of a rank-`rank` index in `iterate`'s walk order, the fastest first.
fn fastest_first(iterate: Iterate, rank: usize) -> Vec<usize> {
    match iterate {
        Iterate::Right => (0..rank).rev().collect(),
        Iterate::Left => (0..rank).collect(),
    }
}

/// The launch parameters describing the iteration space, and the code computing iteration `fk_k`'s
/// index inside the loop.
pub(super) fn iteration_space(
    ty: &str,
    kt: &str,
    rank: usize,
    pattern: &Pattern,
) -> (Vec<String>, String) {
    if rank == 1 {
        return (
            vec![
                format!("const {ty} fk_begin"),
                "const u64 fk_count".to_string(),
            ],
            format!("        const {ty} fk_index = {ty}(fk_begin + fk_k);"),
        );
    }
    let iterate = match pattern {
        Pattern::For { iterate } | Pattern::Reduce { iterate, .. } => *iterate,
        Pattern::Scan { .. } | Pattern::TeamFor | Pattern::TeamReduce { .. } => Iterate::Right,
    };
    let mut params = Vec::new();
    for r in 0..rank {
        params.push(format!("const {ty} fk_lower{r}"));
    }
    params.push("const u64 fk_count".to_string());
    for r in 0..rank {
        params.push(format!("const u64 fk_extent{r}"));
    }
    // Decompose k: the fastest dimension first.
    let order = fastest_first(iterate, rank);
    let narrow = if kt == "u32" { "(u32)" } else { "" };
    let mut code = format!("        {kt} fk_rest = fk_k;\n");
    for (n, r) in order.iter().enumerate() {
        if n + 1 == rank {
            code.push_str(&format!(
                "        const {ty} fk_i{r} = {ty}(fk_lower{r} + fk_rest);\n"
            ));
        } else {
            code.push_str(&format!(
                "        const {ty} fk_i{r} = {ty}(fk_lower{r} + fk_rest % {narrow}fk_extent{r});\n        fk_rest /= {narrow}fk_extent{r};\n"
            ));
        }
    }
    code.pop();
    (params, code)
}

/// The grid-stride loop of a multidimensional `parallel_for` or reduction that walks the index
/// instead of dividing: iteration `fk_k`'s index digits (`fk_d{r}`, the fastest dimension first)
/// are computed once by division, and each step adds the stride's digits (`fk_s{r}`, also
/// computed once) with a carry. Per point that is an addition, a comparison and a select per
/// dimension instead of a 32- or 64-bit division and remainder per dimension but the slowest.
///
/// Invariant, kept by each step: `fk_d{r} < extent{r}` for every dimension but the slowest, and
/// the digits spell `fk_k` in the mixed radix of the extents. A step adds `s + c` to a digit `d`
/// (`s < extent`, carry `c` 0 or 1) without overflow: with `w = extent - s`, `t = d + c <= extent`,
/// and `t + s >= extent` exactly when `t >= w`, where the new digit is `t - w` and one carries.
pub(super) struct GridStrideWalk {
    /// The dimensions, the fastest first.
    order: Vec<usize>,
    /// The counting type (`u32` or `u64`).
    kt: &'static str,
    /// The index type.
    ty: String,
    /// The narrowing of the 64-bit launch parameters to `kt` (empty for `u64`).
    narrow: &'static str,
}

impl GridStrideWalk {
    pub(super) fn new(ty: &str, kt: &'static str, rank: usize, iterate: Iterate) -> Self {
        let order = fastest_first(iterate, rank);
        let narrow = if kt == "u32" { "(u32)" } else { "" };
        GridStrideWalk {
            order,
            kt,
            ty: ty.to_string(),
            narrow,
        }
    }

    /// Pushes the loop that calls `fk_body(args)` for each of this thread's iterations; a range
    /// (rank 1) keeps `grid_stride` with `call_index`.
    pub(super) fn push_loop(&self, t: &mut Text, grid_stride: &str, call_index: &str, args: &str) {
        if self.order.len() < 2 {
            t.push(&format!("    {grid_stride}"));
            t.push(call_index);
            t.push(&format!("        fk_body({args});"));
            t.push("    }");
            return;
        }
        let (kt, narrow) = (self.kt, self.narrow);
        t.push("    // The index walks (see the generator's `GridStrideWalk`): digits divided out once.");
        t.push(&format!(
            "    const {kt} fk_stride = ({kt})gridDim.x * blockDim.x;"
        ));
        t.push(&format!(
            "    {kt} fk_k = ({kt})blockIdx.x * blockDim.x + threadIdx.x;"
        ));
        t.push(&format!("    {kt} fk_rest = fk_k, fk_srest = fk_stride;"));
        let (slow, fast) = self.order.split_last().expect("rank 2 or more");
        for r in fast {
            // An empty extent means no iteration; 1 keeps the division defined.
            t.push(&format!(
                "    const {kt} fk_e{r} = {narrow}fk_extent{r} > 0 ? {narrow}fk_extent{r} : 1;"
            ));
            t.push(&format!(
                "    {kt} fk_d{r} = fk_rest % fk_e{r}; fk_rest /= fk_e{r};"
            ));
            t.push(&format!(
                "    const {kt} fk_s{r} = fk_srest % fk_e{r}; fk_srest /= fk_e{r};"
            ));
            t.push(&format!("    const {kt} fk_w{r} = fk_e{r} - fk_s{r};"));
        }
        t.push(&format!("    {kt} fk_d{slow} = fk_rest;"));
        t.push(&format!("    const {kt} fk_s{slow} = fk_srest;"));
        t.push(&format!(
            "    for (; fk_k < {narrow}fk_count; fk_k += fk_stride) {{"
        ));
        let ty = &self.ty;
        for r in 0..self.order.len() {
            t.push(&format!(
                "        const {ty} fk_i{r} = {ty}(fk_lower{r} + fk_d{r});"
            ));
        }
        t.push(&format!("        fk_body({args});"));
        for (n, r) in fast.iter().enumerate() {
            if n == 0 {
                t.push(&format!("        {kt} fk_c = fk_d{r} >= fk_w{r};"));
                t.push(&format!(
                    "        fk_d{r} = fk_c ? fk_d{r} - fk_w{r} : fk_d{r} + fk_s{r};"
                ));
            } else {
                t.push(&format!("        {{ const {kt} fk_t = fk_d{r} + fk_c; fk_c = fk_t >= fk_w{r}; fk_d{r} = fk_c ? fk_t - fk_w{r} : fk_t + fk_s{r}; }}"));
            }
        }
        t.push(&format!("        fk_d{slow} += fk_s{slow} + fk_c;"));
        t.push("    }");
    }
}

/// The loop of a reduction whose join does not commute: thread g of the grid (block-major) calls
/// `fk_body(args)` for the contiguous run `[g * per, (g + 1) * per)` of the iterations, in order,
/// so that the threads' values in thread order, then the blocks' in block order, are in index order.
/// Counts in 64 bits (`call_index` computes iteration `fk_k`'s index).
pub(super) fn push_ordered_loop(t: &mut Text, call_index: &str, args: &str) {
    t.push(
        "    // The join does not commute: thread g walks the g-th contiguous run of iterations.",
    );
    t.push("    const u64 fk_threads = (u64)gridDim.x * blockDim.x;");
    t.push("    const u64 fk_per = (fk_count + fk_threads - 1) / fk_threads;");
    t.push("    const u64 fk_g = (u64)blockIdx.x * blockDim.x + threadIdx.x;");
    t.push("    const u64 fk_lo = fk_g * fk_per < fk_count ? fk_g * fk_per : fk_count;");
    t.push("    const u64 fk_hi = fk_lo + fk_per < fk_count ? fk_lo + fk_per : fk_count;");
    t.push("    for (u64 fk_k = fk_lo; fk_k < fk_hi; ++fk_k) {");
    t.push(call_index);
    t.push(&format!("        fk_body({args});"));
    t.push("    }");
}

/// The walk of a tiled multidimensional `parallel_for`: one tile per block, grid-stride over the
/// tiles; thread t is point t of the tile. Ends the entry.
pub(super) fn push_tiled_walk(t: &mut Text, ty: &str, rank: usize, iterate: Iterate) {
    let order = fastest_first(iterate, rank);
    t.push(
        "    // One tile per block, grid-stride over the tiles; thread t is point t of the tile.",
    );
    let counts: Vec<String> = (0..rank)
        .map(|r| format!("((fk_extent{r} + fk_tile{r} - 1) / fk_tile{r})"))
        .collect();
    t.push(&format!("    const u64 fk_tiles = {};", counts.join(" * ")));
    t.push("    for (u64 fk_b = blockIdx.x; fk_b < fk_tiles; fk_b += gridDim.x) {");
    t.push("        u64 fk_brest = fk_b;");
    t.push("        u64 fk_trest = threadIdx.x;");
    t.push("        bool fk_in = true;");
    for r in &order {
        t.push(&format!(
            "        const u64 fk_p{r} = (fk_brest % {}) * fk_tile{r} + fk_trest % fk_tile{r};",
            counts[*r]
        ));
        t.push(&format!(
            "        fk_brest /= {}; fk_trest /= fk_tile{r}; fk_in = fk_in && fk_p{r} < fk_extent{r};",
            counts[*r]
        ));
    }
    t.push("        if (!fk_in) continue;");
    for r in 0..rank {
        t.push(&format!(
            "        const {ty} fk_i{r} = {ty}(fk_lower{r} + fk_p{r});"
        ));
    }
    t.push(&format!("        fk_body({});", index_args(rank)));
    t.push("    }");
    t.push("}");
}
