//! Tests of the team entries' code (`codegen/team_entry.rs`) on hand-made team kernels: their
//! parameters and league loop, each variant (captures by pointer, a fused or a separate join), the
//! header's team part, NVRTC compiling every one (alone and in a batch), and the internal error for
//! a body asked for another pattern's entries.

use super::test_kernels::{count, sweep};
use crate::backend::cuda::nvrtc::{compile_cubin, require_or_skip};
use crate::backend::gpu::codegen::{
    DevicePattern, TranslationUnit, UnitOptions, batch_program, translation_unit,
};
use crate::dispatch::{TeamForFunctor, TeamReduceFunctor};
use crate::error::Error;
use crate::kernel::{BodyKind, KernelBody};
use crate::policy::Iterate;
use crate::reducer::{Reducer, ReducerCxx, Sum};
use crate::seal::Token;

/// The scratch parameters of a team entry, after the league's.
const SCRATCH: &str = "const u64 fk_team_scratch0, const u64 fk_thread_scratch0, const u64 \
                       fk_team_scratch1, const u64 fk_thread_scratch1, const u64 \
                       fk_pattern_shared, const u64 fk_block_scratch1, unsigned char* const \
                       fk_scratch1";

fn sum() -> ReducerCxx {
    Sum::<f64>::device_cxx(Token::new()).expect("Sum<f64> has a device form")
}

fn sweep_body() -> KernelBody {
    let k = sweep(2.0);
    k.device_kernel(Token::new())
        .expect("device")
        .device_body(&[])
}

fn count_body(r: &ReducerCxx) -> KernelBody {
    let k = count();
    k.device_kernel(Token::new())
        .expect("device")
        .device_body(&r.emit)
}

/// Compiles `unit` with NVRTC for sm_90, and its HIP translation with hiprtc for gfx90a (each when
/// its compiler is there).
fn compiles(unit: &TranslationUnit) {
    if require_or_skip() {
        let cubin = compile_cubin(&unit.source, &unit.program_name(), 90)
            .unwrap_or_else(|e| panic!("{e}\n{}", unit.generated()));
        assert!(cubin.image.starts_with(b"\x7fELF"));
    }
    #[cfg(feature = "hip")]
    if crate::hiprtc::require_or_skip() {
        let object = unit
            .compile_hip("gfx90a")
            .unwrap_or_else(|e| panic!("{e}\n{}", unit.to_hip().generated()));
        assert!(object.image.starts_with(b"\x7fELF"));
    }
}

fn fused() -> UnitOptions {
    UnitOptions {
        fused_join: true,
        ..UnitOptions::default()
    }
}

#[test]
fn a_team_for_runs_the_blocks_league_ranks_with_the_team_member() {
    let body = sweep_body();
    assert_eq!(body.kind, BodyKind::TeamFor);
    let unit = translation_unit(&body, &DevicePattern::TeamFor, fused()).unwrap();
    let g = unit.generated();
    let entry = &unit.entry;
    assert!(
        g.contains(&format!(
            "extern \"C\" __global__ void {entry}(const u64 fk_league_size, const u32 \
             fk_team_size, const u32 fk_vector_length, {SCRATCH}, const f64 x) {{"
        )),
        "{g}"
    );
    assert!(
        g.contains("    auto fk_body = [&](const fk::Team& team) {"),
        "{g}"
    );
    for line in [
        "    fk::Team fk_team;",
        "    fk_team.team_size = fk_team_size;",
        "    for (u64 fk_l = blockIdx.x; fk_l < fk_league_size; fk_l += gridDim.x) {",
        "        fk_team.league_rank = fk_l;",
        "        fk_body(fk_team);",
    ] {
        assert!(g.contains(line), "{line}\n{g}");
    }
    assert!(g.contains("fk::team_broadcast(") && g.contains("fk::vector_reduce<"));
    assert!(unit.parts.team, "the team part of the header");
    assert!(unit.source.contains("struct Team {"));
    assert_eq!(g.matches("extern \"C\" __global__").count(), 1);
    compiles(&unit);
}

#[test]
fn a_team_for_takes_large_captures_through_a_pointer() {
    let options = UnitOptions {
        captures_by_pointer: true,
        ..fused()
    };
    let unit = translation_unit(&sweep_body(), &DevicePattern::TeamFor, options).unwrap();
    let g = unit.generated();
    assert!(
        g.contains("struct FkCaptures {\n    const f64 x;\n};"),
        "{g}"
    );
    assert!(
        g.contains("unsigned char* const fk_scratch1, const FkCaptures* __restrict__ fk_caps)")
    );
    assert!(g.contains("    const auto& x = fk_caps->x;"), "{g}");
    compiles(&unit);
}

#[test]
fn a_team_reduction_keeps_each_threads_value_over_its_league_ranks_then_joins_the_blocks() {
    let r = sum();
    let body = count_body(&r);
    assert_eq!(body.kind, BodyKind::TeamReduce);
    let pattern = DevicePattern::TeamReduce { reducer: &r };
    let unit = translation_unit(&body, &pattern, fused()).unwrap();
    let (g, entry) = (unit.generated(), &unit.entry);
    assert!(
        g.contains(&format!(
            "void {entry}(const u64 fk_league_size, const u32 fk_team_size, const u32 \
             fk_vector_length, {SCRATCH}, f64* fk_partials, unsigned int* fk_done, f64* \
             fk_result) {{"
        )),
        "{g}"
    );
    assert!(
        g.contains("    auto fk_body = [&](const fk::Team& team, f64& acc) {"),
        "{g}"
    );
    // The accumulator starts before the league loop and the blocks join after it.
    let start = g
        .find("    f64 fk_acc = fk_reducer::identity();")
        .expect("acc");
    let call = g.find("        fk_body(fk_team, fk_acc);").expect("call");
    let join = g.find("fk::block_reduce<fk_reducer>(fk_acc").expect("join");
    assert!(start < call && call < join, "{g}");
    assert!(g.contains("fk_last = atomicAdd(fk_done, 1u) == gridDim.x - 1;"));
    assert!(!g.contains("_join("), "fused: no join entry\n{g}");
    compiles(&unit);

    let separate = translation_unit(&body, &pattern, UnitOptions::default()).unwrap();
    let g = separate.generated();
    assert!(
        g.contains(&format!("void {entry}_join(const u32 fk_n")),
        "{g}"
    );
    assert!(g.contains("fk_scratch1, f64* fk_partials) {"), "{g}"); // no counter nor result
    compiles(&separate);
}

#[test]
fn team_units_compile_in_one_batch() {
    let r = sum();
    let units = [
        translation_unit(&sweep_body(), &DevicePattern::TeamFor, fused()).unwrap(),
        translation_unit(
            &count_body(&r),
            &DevicePattern::TeamReduce { reducer: &r },
            fused(),
        )
        .unwrap(),
    ];
    let batch = batch_program(&units.iter().collect::<Vec<_>>());
    assert!(batch.source.contains("struct Team {"));
    assert_eq!(batch.source.matches("fk_batch_slot = ").count(), 2);
    if require_or_skip() {
        compile_cubin(&batch.source, &batch.program, 90).expect("the batch compiles");
    }
}

/// A team body asked for range entries, a range body asked for team entries, and a team body asked
/// for the other team pattern are internal errors naming the kernel, not panics.
#[test]
fn a_body_asked_for_another_patterns_entries_is_an_internal_error() {
    let r = sum();
    let check = |body: &KernelBody, pattern: DevicePattern<'_>, want: &str| match translation_unit(
        body,
        &pattern,
        UnitOptions::default(),
    ) {
        Err(Error::Internal { what, reason }) => {
            assert!(what.contains("test_kernels.rs"), "{what}");
            assert!(reason.contains(want), "{reason}");
        }
        other => panic!("expected an internal error, got {other:?}"),
    };
    let team_for = sweep_body();
    let for_range = DevicePattern::For {
        iterate: Iterate::Right,
    };
    check(
        &team_for,
        for_range,
        "TeamFor kernel was asked for parallel_for",
    );
    check(
        &team_for,
        DevicePattern::TeamReduce { reducer: &r },
        "TeamFor kernel was asked for team parallel_reduce",
    );
    check(
        &count_body(&r),
        DevicePattern::Reduce {
            iterate: Iterate::Right,
            reducer: &r,
        },
        "TeamReduce kernel was asked for parallel_reduce",
    );
    let a = 2.0f64;
    let range = crate::kernel!(|i| {
        let _twice = a * i as f64;
    });
    match translation_unit(
        &range.body(),
        &DevicePattern::TeamFor,
        UnitOptions::default(),
    ) {
        Err(Error::Internal { reason, .. }) => {
            assert!(
                reason.contains("For kernel was asked for team parallel_for"),
                "{reason}"
            )
        }
        other => panic!("expected an internal error, got {other:?}"),
    }
}

/// `kernel!`'s own team kernels (nested ranges of each kind, `single`, a broadcast) make team units
/// that NVRTC compiles.
#[test]
fn kernel_team_units_compile() {
    use crate::dispatch::{
        TeamMember, TeamThreadRange, TeamVectorRange, ThreadVectorRange, single,
    };
    use crate::policy::{PerTeam, PerThread};
    let n = 100usize;
    let scale = 0.5f64;
    let total = crate::kernel!(|team: &TeamMember, acc: &mut f64| {
        let lr = team.league_rank();
        let a = TeamThreadRange::new(team, 0, n).parallel_reduce(
            |i, s: &mut f64| {
                let lanes = ThreadVectorRange::new(team, 0, i)
                    .parallel_reduce(|k, t: &mut f64| *t += k as f64 * scale, Sum::new());
                *s += lanes;
            },
            Sum::new(),
        );
        let b = TeamVectorRange::new(team, 0, n)
            .parallel_reduce(|i, s: &mut f64| *s += (i + lr) as f64, Sum::new());
        let c = team.team_broadcast(a + b, 0);
        let d = single(PerThread(team), || c * 2.0);
        single(PerTeam(team), || *acc += d);
    });
    let unit = TranslationUnit::team_reduce_kernel::<Sum<f64>>(&total);
    assert!(unit.generated().contains("fk_body(fk_team, fk_acc);"));
    compiles(&unit);
    let by_pointer = TranslationUnit::team_reduce_kernel_with::<Sum<f64>>(
        &total,
        UnitOptions {
            captures_by_pointer: true,
            ..fused()
        },
    );
    assert!(by_pointer.generated().contains("struct FkCaptures"));
    compiles(&by_pointer);
}
