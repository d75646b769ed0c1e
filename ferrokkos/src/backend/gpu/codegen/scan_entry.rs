//! The scan entries' code: the main entry's two passes after the body's lambda (each block scans
//! its iterations, thread t a contiguous run of them), and the `_prefix` entry turning the blocks'
//! totals into exclusive prefixes.

use super::parts::Text;

/// The main entry's passes over the block's iterations, with `args` the index arguments of
/// `fk_body`. Ends the entry.
pub(super) fn push_passes(t: &mut Text, reducer: &str, value: &str, call_index: &str, args: &str) {
    t.push(&format!("    typedef {reducer} fk_reducer;"));
    t.push("    extern __shared__ __align__(16) unsigned char fk_shared[];");
    t.push(&format!(
        "    {value}* fk_smem = reinterpret_cast<{value}*>(fk_shared);"
    ));
    t.push("    // Block b scans iterations [first, last); thread t a contiguous run of them.");
    t.push("    const u64 fk_first = (u64)blockIdx.x * fk_per_block;");
    t.push("    const u64 fk_last = fk_first + fk_per_block < fk_count ? fk_first + fk_per_block : fk_count;");
    t.push("    const u64 fk_per_thread = (fk_per_block + blockDim.x - 1) / blockDim.x;");
    t.push("    const u64 fk_lo = fk_first + threadIdx.x * fk_per_thread < fk_last ? fk_first + threadIdx.x * fk_per_thread : fk_last;");
    t.push(
        "    const u64 fk_hi = fk_lo + fk_per_thread < fk_last ? fk_lo + fk_per_thread : fk_last;",
    );
    t.push(&format!("    {value} fk_acc = fk_reducer::identity();"));
    t.push("    for (u64 fk_k = fk_lo; fk_k < fk_hi; ++fk_k) {");
    t.push(call_index);
    t.push(&format!("        fk_body({args}, fk_acc, false);"));
    t.push("    }");
    // Both passes scan the block (the first keeps only its total): one block-wide
    // collective to compile instead of a scan and a reduction (an eighth less time).
    t.push(&format!("    {value} fk_total;"));
    t.push(&format!(
        "    const {value} fk_before = fk::block_exclusive_scan<fk_reducer>(fk_acc, fk_smem, fk_total);"
    ));
    t.push("    if (!fk_final_pass) {");
    t.push("        if (threadIdx.x == 0) fk_block_totals[blockIdx.x] = fk_total;");
    t.push("        return;");
    t.push("    }");
    t.push(&format!(
        "    {value} fk_run = fk_block_prefix[blockIdx.x];"
    ));
    t.push("    fk_reducer::join(fk_run, fk_before);");
    t.push("    for (u64 fk_k = fk_lo; fk_k < fk_hi; ++fk_k) {");
    t.push(call_index);
    t.push(&format!("        fk_body({args}, fk_run, true);"));
    t.push("    }");
    t.push("}");
}

/// The `_prefix` entry (one thread): turns the blocks' totals into exclusive prefixes, in place,
/// and writes the total.
pub(super) fn push_prefix_entry(t: &mut Text, entry: &str, reducer: &str, value: &str) {
    t.push("");
    t.push("// Turns the blocks' totals into exclusive prefixes, in place, and writes the total.");
    t.push(&format!(
        "extern \"C\" __global__ void {entry}_prefix(const u32 fk_n, {value}* fk_totals, {value}* fk_total) {{"
    ));
    t.push(&format!("    typedef {reducer} fk_reducer;"));
    t.push("    if (blockIdx.x != 0 || threadIdx.x != 0) return;");
    t.push(&format!("    {value} fk_run = fk_reducer::identity();"));
    t.push("    for (u32 fk_b = 0; fk_b < fk_n; ++fk_b) {");
    t.push(&format!("        const {value} fk_t = fk_totals[fk_b];"));
    t.push("        fk_totals[fk_b] = fk_run;");
    t.push("        fk_reducer::join(fk_run, fk_t);");
    t.push("    }");
    t.push("    *fk_total = fk_run;");
    t.push("}");
}
