//! Translation units: a kernel's body ([`KernelBody`]) wrapped into CUDA entry functions, after the
//! device header.
//!
//! Every entry is `extern "C" __global__` (its symbol is its name) and takes, in this order, the
//! pattern's launch parameters and then the kernel's captures (scalars by value, Views as
//! `fk::View` descriptors). The body is a lambda, so that `return` ends one iteration.

use super::header::{HeaderParts, Target, device_header};
use super::team_entry;
use crate::kernel::{KernelBody, KernelInfo, escape_text};
use crate::policy::Iterate;
use crate::reducer::ReducerCxx;

/// One kernel's CUDA C++ source, ready for NVRTC.
///
/// Entries (launch parameters first, then the captures):
/// - for: `<entry>(I begin[, ...], u64 count[, u64 extent0, ...], captures...)` walks `count`
///   iterations with a grid-stride loop (range: `begin + k`; multidimensional: `lower_r + coordinate_r`,
///   with `begin0, extent0, begin1, extent1, ...`);
/// - reduce: as for, plus `value_type* partials` before the captures: block `b` writes the join of its
///   iterations to `partials[b]` (dynamic shared memory: `blockDim.x * sizeof(value_type)`); then
///   `<entry>_join(u32 n, const value_type* partials, value_type* result)`, one block, joins them in
///   order (with [`UnitOptions::fused_join`], which launches use, the last block joins them and
///   there is no `_join` entry);
/// - scan: `<entry>(I begin, u64 count, u64 per_block, value_type* block_totals,
///   const value_type* block_prefix, bool final_pass, captures...)`: a first launch with
///   `final_pass = false` writes each block's total, `<entry>_prefix(u32 n, value_type* totals_to_prefix,
///   value_type* total)` (one thread) turns them into exclusive prefixes, and a second launch with
///   `final_pass = true` runs the final pass;
/// - team for: `<entry>(u64 league_size, u32 team_size, u32 vector_length, u64 team_scratch0,
///   u64 thread_scratch0, u64 team_scratch1, u64 thread_scratch1, u64 pattern_shared,
///   u64 block_scratch1, unsigned char* scratch1, captures...)`, launched with one-dimensional
///   blocks of `team_size * vector_length` threads and the level-0 scratch (then the pattern's
///   values) as dynamic shared memory: block `b` runs league ranks `b, b + gridDim.x, ...` (every
///   thread of a block the same ones, so that the team's collectives are reached by all its
///   threads), each thread as lane `threadIdx.x % vector_length` of team thread
///   `threadIdx.x / vector_length` (see `device/team.cuh`; the scratch: `team_entry.rs`);
/// - team reduce: as team for, plus the reduce parameters (`partials`, and with
///   [`UnitOptions::fused_join`] `done` and `result`) before the captures; each thread's accumulator
///   runs over all its league ranks, then the blocks join as for a reduce (its values in dynamic
///   shared memory from `pattern_shared` on, after the level-0 scratch).
#[derive(Clone, Debug)]
pub struct TranslationUnit {
    /// The main entry's name (also the program name, `<entry>.cu`).
    pub entry: String,
    /// The C++ text.
    pub source: String,
    /// Where the generated part starts in `source` (after the device header).
    generated_from: usize,
    /// The estimated cost of compiling the unit, in bytes of generated code (see
    /// [`TranslationUnit::compile_cost`]).
    cost: usize,
    /// The optional parts of the device header the unit includes (what its code uses).
    pub(crate) parts: HeaderParts,
    /// The language of `source`: its device header's target prelude and its program's name.
    target: Target,
    /// The lines of `source` before the generated part (the device header's).
    header_lines: usize,
}

impl TranslationUnit {
    /// The generated part of the source: everything after the device header (what snapshot tests
    /// and people review).
    pub fn generated(&self) -> &str {
        &self.source[self.generated_from..]
    }

    /// An estimate of what compiling the unit costs, in bytes of simple generated code: what
    /// [`crate::Prepare`] balances its batches by. NVRTC's time grows with the generated code,
    /// about 30–45 ms per thousand bytes on an H100 machine's core, except that a scan's block-wide
    /// exclusive scan (and its second call of the body) costs about as much again as all its
    /// text: heat_cg's scan (2.6 KB) compiles in about 150 ms, its reductions (2.1 KB) in 90 ms.
    pub fn compile_cost(&self) -> usize {
        self.cost
    }

    /// The program name: `<entry>.cu` (NVRTC), `<entry>.hip` (hiprtc).
    pub fn program_name(&self) -> String {
        format!("{}.{}", self.entry, self.target.extension())
    }

    /// The language the source is written for.
    pub fn target(&self) -> Target {
        self.target
    }

    /// The same unit for `target`: its device header with `target`'s prelude, then the same
    /// generated part, whose `#line` directives back into the unit (`#line N "<program>"`) are
    /// moved by the difference in the headers' lengths and name the new program.
    pub fn for_target(&self, target: Target) -> TranslationUnit {
        if target == self.target {
            return self.clone();
        }
        let header = device_header(self.parts, target);
        let header_lines = header.lines().count();
        let old_program = format!("\"{}\"", self.program_name());
        let new_program = format!("\"{}.{}\"", self.entry, target.extension());
        let mut source = String::with_capacity(header.len() + self.generated().len() + 64);
        source.push_str(&header);
        let generated_from = source.len();
        for line in self.generated().lines() {
            let moved = line
                .strip_prefix("#line ")
                .and_then(|rest| rest.split_once(' '))
                .filter(|(_, file)| *file == old_program)
                .and_then(|(n, _)| n.parse::<usize>().ok());
            match moved {
                Some(n) => {
                    let n = (n + header_lines).saturating_sub(self.header_lines);
                    source.push_str(&format!("#line {n} {new_program}"));
                }
                None => source.push_str(line),
            }
            source.push('\n');
        }
        TranslationUnit {
            entry: self.entry.clone(),
            source,
            generated_from,
            cost: self.cost,
            parts: self.parts,
            target,
            header_lines,
        }
    }
}

/// Variants of a unit's entries that a launch chooses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UnitOptions {
    /// Count iterations in 32-bit arithmetic (the launch guarantees that the iteration count plus
    /// the grid's thread count fits in `u32`). Scans always count in 64 bits.
    pub index32: bool,
    /// Take the captures through one pointer to a struct in device memory (`const FkCaptures*
    /// fk_caps`, the captures as members in order) instead of as parameters: for captures larger
    /// than the kernel parameter limit.
    pub captures_by_pointer: bool,
    /// Reductions: the last block to finish joins the blocks' partial values itself (in block
    /// order) and writes the result, so that no `_join` launch is needed (the unit then has no
    /// `_join` entry). The entry takes two more
    /// parameters after `fk_partials`: `unsigned int* fk_done` (a counter that is 0 before the
    /// launch and is 0 again after it) and `value_type* fk_result`.
    pub fused_join: bool,
    /// A multidimensional `parallel_for` maps each tile of the policy to one block: the entry takes
    /// the tile sizes (`const u64 fk_tile0, ...`) after the extents, is launched with blocks of the
    /// tile's point count, and block `b` (grid-stride over the tiles) runs tile `b` in walk order,
    /// thread `t` its point `t` (the fastest dimension first). Ignored for ranges and other patterns.
    pub tiled: bool,
    /// The kernel has `unsafe` code, which may alias a read-only capture with a written one:
    /// its read-only Views are then declared like written ones. Otherwise they are `const`, and
    /// a `const` View of a numeric element type (`fk::detail::ldg_able`) loads through the
    /// read-only data cache (`__ldg`), which also lets the compiler move those loads across the
    /// kernel's stores: sound because nothing writes such a View's memory while the kernel runs
    /// (its launch refuses a written View that shares its allocation with another capture,
    /// `Error::KernelAlias`, borrows a reduction's destination exclusively and orders itself
    /// after other work on its allocations; host access waits for it).
    pub unsafe_aliasing: bool,
}

/// The pattern to generate entries for.
pub(crate) enum Pattern {
    For {
        iterate: Iterate,
    },
    Reduce {
        iterate: Iterate,
        reducer: String,
        value: String,
        definitions: String,
    },
    Scan {
        reducer: String,
        value: String,
        definitions: String,
    },
    /// `parallel_for` over a league of teams.
    TeamFor,
    /// `parallel_reduce` over a league of teams.
    TeamReduce {
        reducer: String,
        value: String,
        definitions: String,
    },
}

impl Pattern {
    /// Reduce entries for the reducer described by `r`.
    pub(crate) fn reduce(r: &ReducerCxx, iterate: Iterate) -> Pattern {
        Pattern::Reduce {
            iterate,
            reducer: r.reducer.clone(),
            value: r.value.clone(),
            definitions: r.definitions.clone(),
        }
    }

    /// Scan entries for the reducer described by `r`.
    pub(crate) fn scan(r: &ReducerCxx) -> Pattern {
        Pattern::Scan {
            reducer: r.reducer.clone(),
            value: r.value.clone(),
            definitions: r.definitions.clone(),
        }
    }

    /// Team reduce entries for the reducer described by `r`.
    pub(crate) fn team_reduce(r: &ReducerCxx) -> Pattern {
        Pattern::TeamReduce {
            reducer: r.reducer.clone(),
            value: r.value.clone(),
            definitions: r.definitions.clone(),
        }
    }

    /// Whether the entries run a league of teams.
    fn is_team(&self) -> bool {
        matches!(self, Pattern::TeamFor | Pattern::TeamReduce { .. })
    }
}

/// Text with a line count, so that `#line` directives can point back into the unit itself.
pub(super) struct Text {
    out: String,
    lines: usize,
}

impl Text {
    pub(super) fn push(&mut self, s: &str) {
        if s.is_empty() {
            // A blank line (`lines()` of "" yields nothing).
            self.out.push('\n');
            self.lines += 1;
            return;
        }
        for line in s.lines() {
            self.out.push_str(line);
            self.out.push('\n');
            self.lines += 1;
        }
    }
    /// Makes the following lines count as lines of the unit `program` again.
    fn resync(&mut self, program: &str) {
        let next = self.lines + 2;
        self.push(&format!("#line {next} \"{program}\""));
    }
}

/// The entry name of a kernel: stable for a given source location and body.
pub(crate) fn entry_name(info: &KernelInfo) -> String {
    format!("fk_kernel_l{}_{:08x}", info.line, info.hash as u32)
}

/// Wraps `body` into the entries of `pattern` (whose parameters the body has: the caller matched
/// the body's kind to the pattern).
pub(crate) fn generate(
    body: &KernelBody,
    pattern: Pattern,
    options: UnitOptions,
) -> TranslationUnit {
    let info = &body.info;
    let (caps, index, params) = (
        body.captures
            .iter()
            .map(|(_, n)| n.clone())
            .collect::<Vec<_>>(),
        &body.index,
        &body.params,
    );
    let entry = entry_name(info);
    let program = format!("{entry}.cu");
    // A kernel with `unsafe` may alias a read-only capture with a written one: its read-only
    // Views are declared like written ones, without the read-only cache (see `UnitOptions`).
    let cap_decls: Vec<String> = body
        .captures
        .iter()
        .map(|(t, n)| match t.strip_prefix("fk::View<const ") {
            Some(rest) if options.unsafe_aliasing => format!("fk::View<{rest} {n}"),
            _ => format!("{t} {n}"),
        })
        .collect();
    let ty = body.index_type;
    let mut lambda: Vec<String> = index.iter().map(|n| format!("const {ty} {n}")).collect();

    // The header's optional parts are those the unit's own code uses (see `HeaderParts`).
    let body_text = body.render(2);
    let parts = {
        let mut code: Vec<&str> = vec![];
        code.extend(cap_decls.iter().map(String::as_str));
        code.extend(body.types.iter().map(String::as_str));
        code.extend(body.functions.iter().map(String::as_str));
        code.extend(body.reducer_code.iter().map(String::as_str));
        let pattern_text = match &pattern {
            Pattern::For { .. } | Pattern::TeamFor => String::new(),
            Pattern::Reduce {
                definitions,
                value,
                reducer,
                ..
            }
            | Pattern::Scan {
                definitions,
                value,
                reducer,
            }
            | Pattern::TeamReduce {
                definitions,
                value,
                reducer,
            } => format!("{definitions} {value} {reducer}"),
        };
        // A team entry declares its `fk::Team`.
        let team = HeaderParts {
            team: pattern.is_team(),
            ..HeaderParts::default()
        };
        code.iter()
            .fold(HeaderParts::used_by(&body_text), |p, c| {
                p.union(HeaderParts::used_by(c))
            })
            .union(HeaderParts::used_by(&pattern_text))
            .union(team)
    };
    let mut t = Text {
        out: String::new(),
        lines: 0,
    };
    t.push(&device_header(parts, Target::Cuda));
    let (generated_from, header_lines) = (t.out.len(), t.lines);
    t.push(&format!(
        "\n// Generated by ferrokkos from the kernel at {}:{}:{}.",
        escape_text(info.file),
        info.line,
        info.column
    ));
    // A unit of a recursive body never compiles (launches refuse it before: `translation_unit`).
    if let Some(cycle) = &body.recursion {
        t.push(&format!(
            "#error \"{}\"",
            escape_text(&super::recursion_reason(cycle))
        ));
    }
    let (definitions, value) = match &pattern {
        Pattern::For { .. } | Pattern::TeamFor => (String::new(), String::new()),
        Pattern::Reduce {
            definitions, value, ..
        }
        | Pattern::Scan {
            definitions, value, ..
        }
        | Pattern::TeamReduce {
            definitions, value, ..
        } => (definitions.clone(), value.clone()),
    };
    for ty in &body.types {
        t.push("");
        t.push(ty);
        t.resync(&program);
    }
    for f in &body.functions {
        t.push("");
        t.push(f);
        t.resync(&program);
    }
    // A custom reducer's structs call the device functions above; a tuple's names them.
    for code in &body.reducer_code {
        t.push(code);
    }
    if !definitions.is_empty() {
        t.push(&definitions);
    }
    match &pattern {
        Pattern::Reduce { .. } => lambda.push(format!("{value}& {}", params[0])),
        Pattern::Scan { .. } => {
            lambda.push(format!("{value}& {}", params[0]));
            lambda.push(format!("const bool {}", params[1]));
        }
        Pattern::For { .. } => {}
        Pattern::TeamFor => lambda.push(format!("const fk::Team& {}", params[0])),
        Pattern::TeamReduce { .. } => {
            lambda.push(format!("const fk::Team& {}", params[0]));
            lambda.push(format!("{value}& {}", params[1]));
        }
    }
    let rank = body.rank();
    // The launch parameters of the iteration space and the expression of iteration `k`'s index.
    let by_pointer = options.captures_by_pointer && !cap_decls.is_empty();
    // Scans walk contiguous runs per thread; only for and reduce count in 32 bits.
    let kt = if options.index32 && !matches!(pattern, Pattern::Scan { .. }) {
        "u32"
    } else {
        "u64"
    };
    let tiled = options.tiled && rank >= 2 && matches!(pattern, Pattern::For { .. });
    let (space_params, call_index) = if pattern.is_team() {
        (team_entry::league_params(), String::new())
    } else {
        iteration_space(ty, kt, rank, &pattern)
    };
    let mut params_all = space_params;
    if tiled {
        params_all.extend((0..rank).map(|r| format!("const u64 fk_tile{r}")));
    }
    match &pattern {
        Pattern::For { .. } | Pattern::TeamFor => {}
        Pattern::Reduce { .. } | Pattern::TeamReduce { .. } => {
            params_all.push(format!("{value}* fk_partials"));
            if options.fused_join {
                params_all.push("unsigned int* fk_done".to_string());
                params_all.push(format!("{value}* fk_result"));
            }
        }
        Pattern::Scan { .. } => params_all.extend([
            "const u64 fk_per_block".to_string(),
            format!("{value}* fk_block_totals"),
            format!("const {value}* fk_block_prefix"),
            "const bool fk_final_pass".to_string(),
        ]),
    }
    if by_pointer {
        t.push("");
        t.push("// The captures, in device memory (too large for kernel parameters).");
        t.push("struct FkCaptures {");
        for d in &cap_decls {
            t.push(&format!("    {d};"));
        }
        t.push("};");
        params_all.push("const FkCaptures* __restrict__ fk_caps".to_string());
    } else {
        params_all.extend(cap_decls);
    }
    t.push("");
    t.push(&format!(
        "extern \"C\" __global__ void {entry}({}) {{",
        params_all.join(", ")
    ));
    if by_pointer {
        for n in &caps {
            t.push(&format!("    const auto& {n} = fk_caps->{n};"));
        }
    }
    t.push(&format!("    auto fk_body = [&]({}) {{", lambda.join(", ")));
    t.push(&body_text);
    t.resync(&program);
    t.push("    };");
    // The launch parameters are 64-bit; the 32-bit variant narrows them (the launch checked that
    // they fit).
    let narrow = if kt == "u32" { "(u32)" } else { "" };
    let grid_stride = format!(
        "for ({kt} fk_k = ({kt})blockIdx.x * blockDim.x + threadIdx.x; fk_k < {narrow}fk_count; \
         fk_k += ({kt})gridDim.x * blockDim.x) {{"
    );
    match &pattern {
        Pattern::For { iterate } if tiled => {
            let order = fastest_first(*iterate, rank);
            t.push("    // One tile per block, grid-stride over the tiles; thread t is point t of the tile.");
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
        Pattern::For { iterate } => {
            let walk = GridStrideWalk::new(ty, kt, rank, *iterate);
            walk.push_loop(&mut t, &grid_stride, &call_index, &index_args(rank));
            t.push("}");
        }
        Pattern::Reduce {
            reducer, iterate, ..
        } => {
            let args = format!("{}, fk_acc", index_args(rank));
            reduce_start(&mut t, reducer, &value, None);
            let walk = GridStrideWalk::new(ty, kt, rank, *iterate);
            walk.push_loop(&mut t, &grid_stride, &call_index, &args);
            reduce_blocks(&mut t, &entry, reducer, &value, options);
        }
        Pattern::TeamFor => {
            team_entry::league_start(&mut t);
            team_entry::league_loop(&mut t, "");
            t.push("}");
        }
        Pattern::TeamReduce { reducer, .. } => {
            team_entry::league_start(&mut t);
            reduce_start(&mut t, reducer, &value, Some(team_entry::PATTERN_SHARED));
            team_entry::league_loop(&mut t, ", fk_acc");
            reduce_blocks(&mut t, &entry, reducer, &value, options);
        }
        Pattern::Scan { reducer, .. } => {
            let args = index_args(rank);
            t.push(&format!("    typedef {reducer} fk_reducer;"));
            t.push("    extern __shared__ __align__(16) unsigned char fk_shared[];");
            t.push(&format!(
                "    {value}* fk_smem = reinterpret_cast<{value}*>(fk_shared);"
            ));
            t.push(
                "    // Block b scans iterations [first, last); thread t a contiguous run of them.",
            );
            t.push("    const u64 fk_first = (u64)blockIdx.x * fk_per_block;");
            t.push("    const u64 fk_last = fk_first + fk_per_block < fk_count ? fk_first + fk_per_block : fk_count;");
            t.push("    const u64 fk_per_thread = (fk_per_block + blockDim.x - 1) / blockDim.x;");
            t.push("    const u64 fk_lo = fk_first + threadIdx.x * fk_per_thread < fk_last ? fk_first + threadIdx.x * fk_per_thread : fk_last;");
            t.push("    const u64 fk_hi = fk_lo + fk_per_thread < fk_last ? fk_lo + fk_per_thread : fk_last;");
            t.push(&format!("    {value} fk_acc = fk_reducer::identity();"));
            t.push("    for (u64 fk_k = fk_lo; fk_k < fk_hi; ++fk_k) {");
            t.push(&call_index);
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
            t.push(&call_index);
            t.push(&format!("        fk_body({args}, fk_run, true);"));
            t.push("    }");
            t.push("}");
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
    }
    let generated = t.out.len() - generated_from;
    let cost = match pattern {
        Pattern::Scan { .. } => 2 * generated,
        Pattern::For { .. }
        | Pattern::Reduce { .. }
        | Pattern::TeamFor
        | Pattern::TeamReduce { .. } => generated,
    };
    debug_assert_eq!(
        HeaderParts::used_by(&t.out[generated_from..]).union(parts),
        parts,
        "the generated code uses a header part its pieces did not mention"
    );
    TranslationUnit {
        entry,
        source: t.out,
        generated_from,
        cost,
        parts,
        target: Target::Cuda,
        header_lines,
    }
}

/// The start of a reduce entry's code: the reducer's name, the block's shared memory for its
/// values (`fk_shared`: the dynamic shared memory, or the expression `at` in it) and the thread's
/// accumulator.
fn reduce_start(t: &mut Text, reducer: &str, value: &str, at: Option<&str>) {
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
fn reduce_blocks(t: &mut Text, entry: &str, reducer: &str, value: &str, options: UnitOptions) {
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
        t.push("                *fk_result = fk_acc;");
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
        t.push("    if (threadIdx.x == 0) *fk_result = fk_acc;");
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

/// The index arguments of `fk_body`: `fk_index` for a range, `fk_i0, fk_i1, ...` otherwise.
fn index_args(rank: usize) -> String {
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
fn iteration_space(ty: &str, kt: &str, rank: usize, pattern: &Pattern) -> (Vec<String>, String) {
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
struct GridStrideWalk {
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
    fn new(ty: &str, kt: &'static str, rank: usize, iterate: Iterate) -> Self {
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
    fn push_loop(&self, t: &mut Text, grid_stride: &str, call_index: &str, args: &str) {
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
