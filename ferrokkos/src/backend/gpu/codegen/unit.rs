//! Translation units: a kernel's body ([`KernelBody`]) wrapped into CUDA entry functions, after the
//! device header.
//!
//! Every entry is `extern "C" __global__` (its symbol is its name) and takes, in this order, the
//! pattern's launch parameters and then the kernel's captures (scalars by value, Views as
//! `fk::View` descriptors). The body is a lambda, so that `return` ends one iteration.

use super::header::{HeaderParts, Target, device_header};
use super::parts::{Pattern, Text, UnitOptions};
use super::reduce_entry::{reduce_blocks, reduce_start};
use super::walk::{
    GridStrideWalk, index_args, iteration_space, push_ordered_loop, push_tiled_walk,
};
use super::{scan_entry, team_entry};
use crate::kernel::{KernelBody, KernelInfo, escape_text};

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
    let caps: Vec<String> = body.captures.iter().map(|(_, n)| n.clone()).collect();
    let entry = entry_name(info);
    let program = format!("{entry}.cu");
    let cap_decls = capture_decls(body, options);
    let body_text = body.render(2);
    let parts = header_parts(body, &pattern, &cap_decls, &body_text);
    let mut t = Text {
        out: String::new(),
        lines: 0,
    };
    t.push(&device_header(parts, Target::Cuda));
    let (generated_from, header_lines) = (t.out.len(), t.lines);
    let (definitions, value) = pattern.value_type();
    push_definitions(&mut t, body, &program, &definitions);
    let lambda = lambda_params(body, &pattern, &value);
    let rank = body.rank();
    let by_pointer = options.captures_by_pointer && !cap_decls.is_empty();
    // Scans and ordered reductions walk contiguous runs per thread; only the other for and reduce
    // entries count in 32 bits.
    let kt = if options.index32 && !matches!(pattern, Pattern::Scan { .. }) && !pattern.ordered() {
        "u32"
    } else {
        "u64"
    };
    let tiled = options.tiled && rank >= 2 && matches!(pattern, Pattern::For { .. });
    let walk = Walk {
        ty: body.index_type,
        kt,
        rank,
        tiled,
    };
    // The launch parameters of the iteration space and the expression of iteration `k`'s index.
    let (space_params, call_index) = if pattern.is_team() {
        (team_entry::league_params(), String::new())
    } else {
        iteration_space(walk.ty, kt, rank, &pattern)
    };
    let mut params_all = space_params;
    params_all.extend(pattern_params(&pattern, &walk, &value, options));
    if by_pointer {
        push_captures_struct(&mut t, &cap_decls);
        params_all.push("const FkCaptures* __restrict__ fk_caps".to_string());
    } else {
        params_all.extend(cap_decls);
    }
    t.push("");
    t.push(&format!(
        "extern \"C\" __global__ void {entry}({}) {{",
        params_all.join(", ")
    ));
    // Whether the body's `at_proven` accesses skip their checks (`UnitOptions::proven`).
    t.push(&format!(
        "    [[maybe_unused]] constexpr fk::Proof<{}> fk_proven{{}};",
        options.proven && !pattern.is_team()
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
    push_walks(
        &mut t,
        &pattern,
        &walk,
        &call_index,
        &entry,
        &value,
        options,
    );
    finish(t, entry, &pattern, generated_from, header_lines, parts)
}

/// How an entry walks its iterations: the index type, the type counting them (`u32` or `u64`),
/// the rank, and whether a multidimensional `parallel_for` walks tiles.
struct Walk {
    ty: &'static str,
    kt: &'static str,
    rank: usize,
    tiled: bool,
}

/// The captures' declarations as entry parameters. A kernel with `unsafe` may alias a read-only
/// capture with a written one: its read-only Views are declared like written ones, without the
/// read-only cache (see `UnitOptions`).
fn capture_decls(body: &KernelBody, options: UnitOptions) -> Vec<String> {
    body.captures
        .iter()
        .map(|(t, n)| {
            let writable = ["fk::View<", "fk::OffsetView<"].iter().find_map(|k| {
                let rest = t.strip_prefix(k)?.strip_prefix("const ")?;
                Some(format!("{k}{rest} {n}"))
            });
            match writable {
                Some(decl) if options.unsafe_aliasing => decl,
                _ => format!("{t} {n}"),
            }
        })
        .collect()
}

/// The header's optional parts: those the unit's own code uses (see `HeaderParts`).
fn header_parts(
    body: &KernelBody,
    pattern: &Pattern,
    cap_decls: &[String],
    body_text: &str,
) -> HeaderParts {
    let mut code: Vec<&str> = vec![];
    code.extend(cap_decls.iter().map(String::as_str));
    code.extend(body.types.iter().map(String::as_str));
    code.extend(body.functions.iter().map(String::as_str));
    code.extend(body.reducer_code.iter().map(String::as_str));
    let pattern_text = pattern.text();
    // A team entry declares its `fk::Team`.
    let team = HeaderParts {
        team: pattern.is_team(),
        ..HeaderParts::default()
    };
    code.iter()
        .fold(HeaderParts::used_by(body_text), |p, c| {
            p.union(HeaderParts::used_by(c))
        })
        .union(HeaderParts::used_by(&pattern_text))
        .union(team)
}

/// What the entries use, after the device header: where the kernel is, its types, its device
/// functions, its reducer's code and definitions.
fn push_definitions(t: &mut Text, body: &KernelBody, program: &str, definitions: &str) {
    let info = &body.info;
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
    for ty in &body.types {
        t.push("");
        t.push(ty);
        t.resync(program);
    }
    for f in &body.functions {
        t.push("");
        t.push(f);
        t.resync(program);
    }
    // A custom reducer's structs call the device functions above; a tuple's names them.
    for code in &body.reducer_code {
        t.push(code);
    }
    if !definitions.is_empty() {
        t.push(definitions);
    }
}

/// The parameters of the body's lambda: the index, then the pattern's (accumulator, scan flag,
/// team member).
fn lambda_params(body: &KernelBody, pattern: &Pattern, value: &str) -> Vec<String> {
    let (ty, params) = (body.index_type, &body.params);
    let mut lambda: Vec<String> = body
        .index
        .iter()
        .map(|n| format!("const {ty} {n}"))
        .collect();
    match pattern {
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
    lambda
}

/// The launch parameters after the iteration space's and before the captures: the tiles, a
/// reduction's partial values (and its fused join's), a scan's blocks.
fn pattern_params(
    pattern: &Pattern,
    walk: &Walk,
    value: &str,
    options: UnitOptions,
) -> Vec<String> {
    let mut params = vec![];
    if walk.tiled {
        params.extend((0..walk.rank).map(|r| format!("const u64 fk_tile{r}")));
    }
    match pattern {
        Pattern::For { .. } | Pattern::TeamFor => {}
        Pattern::Reduce { .. } | Pattern::TeamReduce { .. } => {
            params.push(format!("{value}* fk_partials"));
            if options.fused_join {
                params.push("unsigned int* fk_done".to_string());
                params.push(format!("{value}* fk_result"));
            }
        }
        Pattern::Scan { .. } => params.extend([
            "const u64 fk_per_block".to_string(),
            format!("{value}* fk_block_totals"),
            format!("const {value}* fk_block_prefix"),
            "const bool fk_final_pass".to_string(),
        ]),
    }
    params
}

/// The captures' struct, when they travel through device memory.
fn push_captures_struct(t: &mut Text, cap_decls: &[String]) {
    t.push("");
    t.push("// The captures, in device memory (too large for kernel parameters).");
    t.push("struct FkCaptures {");
    for d in cap_decls {
        t.push(&format!("    {d};"));
    }
    t.push("};");
}

/// The rest of the main entry after the body's lambda (its walk over the iterations or league
/// ranks, and the join of a reduction's values), and the pattern's other entries.
fn push_walks(
    t: &mut Text,
    pattern: &Pattern,
    walk: &Walk,
    call_index: &str,
    entry: &str,
    value: &str,
    options: UnitOptions,
) {
    let Walk { ty, kt, rank, .. } = *walk;
    // The result is finalized on the device when the launch asks and the reducer has a step.
    let final_step = options.finalize && pattern.has_final_step();
    // The launch parameters are 64-bit; the 32-bit variant narrows them (the launch checked that
    // they fit).
    let narrow = if kt == "u32" { "(u32)" } else { "" };
    let grid_stride = format!(
        "for ({kt} fk_k = ({kt})blockIdx.x * blockDim.x + threadIdx.x; fk_k < {narrow}fk_count; \
         fk_k += ({kt})gridDim.x * blockDim.x) {{"
    );
    match pattern {
        Pattern::For { iterate } if walk.tiled => push_tiled_walk(t, ty, rank, *iterate),
        Pattern::For { iterate } => {
            let walk = GridStrideWalk::new(ty, kt, rank, *iterate);
            walk.push_loop(t, &grid_stride, call_index, &index_args(rank));
            t.push("}");
        }
        Pattern::Reduce {
            reducer,
            iterate,
            ordered,
            ..
        } => {
            let args = format!("{}, fk_acc", index_args(rank));
            reduce_start(t, reducer, value, None);
            if *ordered {
                push_ordered_loop(t, call_index, &args);
            } else {
                let walk = GridStrideWalk::new(ty, kt, rank, *iterate);
                walk.push_loop(t, &grid_stride, call_index, &args);
            }
            reduce_blocks(t, entry, reducer, value, (options, final_step));
        }
        Pattern::TeamFor => {
            team_entry::league_start(t);
            team_entry::league_loop(t, "");
            t.push("}");
        }
        Pattern::TeamReduce {
            reducer, ordered, ..
        } => {
            team_entry::league_start(t);
            reduce_start(t, reducer, value, Some(team_entry::PATTERN_SHARED));
            if *ordered {
                team_entry::ordered_league_loop(t, value);
            } else {
                team_entry::league_loop(t, ", fk_acc");
            }
            reduce_blocks(t, entry, reducer, value, (options, final_step));
        }
        Pattern::Scan { reducer, .. } => {
            scan_entry::push_passes(t, reducer, value, call_index, &index_args(rank));
            scan_entry::push_prefix_entry(t, entry, reducer, value);
        }
    }
}

/// The unit made of `t`, whose generated part starts at `generated_from`.
fn finish(
    t: Text,
    entry: String,
    pattern: &Pattern,
    generated_from: usize,
    header_lines: usize,
    parts: HeaderParts,
) -> TranslationUnit {
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
