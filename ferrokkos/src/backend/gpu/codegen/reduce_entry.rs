//! The reduce entries' code around the body's walk: the reducer and the thread's accumulator
//! before it, the blocks' join after it (fused into the last block, or a `_join` entry).

use super::parts::{Text, UnitOptions};

/// The start of a reduce entry's code: the reducer's name, the block's shared memory for its
/// values (`fk_shared`: the dynamic shared memory, or the expression `at` in it) and the thread's
/// accumulator.
pub(super) fn reduce_start(t: &mut Text, reducer: &str, value: &str, at: Option<&str>) {
    t.push(&format!("    typedef {reducer} fk_reducer;"));
    match at {
        None => t.push("    extern __shared__ __align__(16) unsigned char fk_shared[];"),
        Some(at) => t.push(&format!("    unsigned char* const fk_shared = {at};")),
    }
    t.push(&format!("    {value} fk_acc = fk_reducer::identity();"));
}

/// The end of a reduce entry, after each thread's `fk_acc` holds the join of its iterations: the
/// block's join, then (with [`UnitOptions::fused_join`]) the last block's join of the blocks'
/// partial values into `fk_result`, or else the partial value of the block and a `_join` entry.
/// With `final_step`, the reducer's `finalize` is applied to the result before it is written.
pub(super) fn reduce_blocks(
    t: &mut Text,
    entry: &str,
    reducer: &str,
    value: &str,
    (options, final_step): (UnitOptions, bool),
) {
    let finalize = if final_step {
        "fk_reducer::finalize(fk_acc); "
    } else {
        ""
    };
    let block_reduce =
        format!("fk::block_reduce<fk_reducer>(fk_acc, reinterpret_cast<{value}*>(fk_shared));");
    if options.fused_join {
        // One call of the block reduction, in a loop of two rounds, instead of two inlined
        // copies: the unit compiles in about three quarters of the time.
        t.push(
            "    // Two rounds through one block reduction: the block's iterations, then, in the",
        );
        t.push("    // last block to finish, the blocks' partial values in block order.");
        t.push("    for (bool fk_joining = false;; fk_joining = true) {");
        t.push(&format!("        {block_reduce}"));
        t.push("        if (fk_joining) {");
        t.push("            if (threadIdx.x == 0) {");
        t.push(&format!("                {finalize}*fk_result = fk_acc;"));
        t.push("                *fk_done = 0;");
        t.push("            }");
        t.push("            return;");
        t.push("        }");
        t.push("        if (threadIdx.x == 0) fk_partials[blockIdx.x] = fk_acc;");
        t.push("        __shared__ bool fk_last;");
        t.push("        if (threadIdx.x == 0) {");
        t.push("            __threadfence();");
        t.push("            fk_last = atomicAdd(fk_done, 1u) == gridDim.x - 1;");
        t.push("        }");
        t.push("        __syncthreads();");
        t.push("        if (!fk_last) return;");
        t.push("        __threadfence();");
        t.push("        const u32 fk_n = gridDim.x;");
        join_partials(t, "        ", value, "fk_acc", false);
        t.push("    }");
    } else {
        t.push(&format!("    {block_reduce}"));
        t.push("    if (threadIdx.x == 0) fk_partials[blockIdx.x] = fk_acc;");
    }
    t.push("}");
    // A fused entry joins in its last block: the separate join entry would be dead code
    // that NVRTC compiles anyway (about a third of a reduction unit's compile time).
    if !options.fused_join {
        t.push("");
        t.push("// Joins the blocks' partial values in block order (one block).");
        t.push(&format!(
            "extern \"C\" __global__ void {entry}_join(const u32 fk_n, const {value}* fk_partials, {value}* fk_result) {{"
        ));
        t.push(&format!("    typedef {reducer} fk_reducer;"));
        t.push("    extern __shared__ __align__(16) unsigned char fk_shared[];");
        t.push(
            "    // Thread t joins a contiguous run of partials, so the order is the block order.",
        );
        join_partials(t, "    ", value, "fk_acc", true);
        t.push(&if final_step {
            format!("    if (threadIdx.x == 0) {{ {finalize}*fk_result = fk_acc; }}")
        } else {
            "    if (threadIdx.x == 0) *fk_result = fk_acc;".to_string()
        });
        t.push("}");
    }
}

/// The join of the blocks' partial values `fk_partials[0..fk_n)` into `acc` by one block, in block
/// order: thread t joins a contiguous run of them into its `acc`; with `declare_and_reduce`, `acc` is
/// declared here and the block then reduces the threads' values (else `acc` exists and the caller
/// reduces).
fn join_partials(t: &mut Text, indent: &str, value: &str, acc: &str, declare_and_reduce: bool) {
    let start = if declare_and_reduce {
        format!("{value} {acc} = fk_reducer::identity();")
    } else {
        format!("{acc} = fk_reducer::identity();")
    };
    let mut lines = vec![
        "const u32 fk_per = (fk_n + blockDim.x - 1) / blockDim.x;".to_string(),
        "const u32 fk_lo = threadIdx.x * fk_per < fk_n ? threadIdx.x * fk_per : fk_n;".to_string(),
        "const u32 fk_hi = fk_lo + fk_per < fk_n ? fk_lo + fk_per : fk_n;".to_string(),
        start,
        format!(
            "for (u32 fk_b = fk_lo; fk_b < fk_hi; ++fk_b) fk_reducer::join({acc}, fk_partials[fk_b]);"
        ),
    ];
    if declare_and_reduce {
        lines.push(format!(
            "fk::block_reduce<fk_reducer>({acc}, reinterpret_cast<{value}*>(fk_shared));"
        ));
    }
    for line in lines {
        t.push(&format!("{indent}{line}"));
    }
}
