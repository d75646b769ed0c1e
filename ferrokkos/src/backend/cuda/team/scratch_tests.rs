//! Tests of team scratch on Cuda through the generated entries: a `kernel!` team kernel's unit with
//! its body replaced by hand-written CUDA that uses `fk::Team`'s scratch and `fk::scratch_view`
//! (the `kernel!` front end has no scratch Views yet). NVRTC compiles them everywhere; on the GPU
//! (ignored without one) they run with the launch parameters of `league_writer` and the layout of
//! `scratch.rs`: every team writes its league rank into its team scratch and every thread into its
//! thread scratch, waits at a barrier, and checks every word its neighbours wrote, at levels 0
//! and 1, above 48 KiB at level 0, with more league ranks than blocks; a team reduction checks that
//! its values after the scratch leave the scratch alone.

use super::{ScratchLayout, TeamShape, league_writer};
use crate::backend::cuda::driver::{
    DeviceBuffer, Module, Stream, copy, device_info, launch, test_context,
};
use crate::backend::cuda::nvrtc::{compile_cubin, require_or_skip};
use crate::backend::gpu::codegen::{TranslationUnit, UnitOptions};
use crate::dispatch::{TeamMember, single};
use crate::kernel::ParamWriter;
use crate::policy::{PerTeam, ScratchRequest};
use crate::reducer::Sum;

/// The hand-written body: writes, a barrier, then checks every word another thread wrote; `bad`
/// counts the words that differ. `RESULT` (replaced) says what it does with `bad`.
const BODY: &str = r#"
        u64* const fk_out = (u64*)out_addr;
        const u64 l = team.league_rank;
        const u64 r = team.rank(), k = team.lane();
        const u64 T = team.team_size, V = team.vector_length;
        const u64 tid = threadIdx.x, block = blockDim.x;
        for (int level = 0; level < 2; ++level) {
            const u64 tw = team.team_scratch_bytes[level] / 8;
            const auto tv = fk::scratch_view<u64, 1>(team.team_scratch[level], 0, tw);
            for (u64 j = tid; j < tw; j += block) tv(j) = (l << 32) ^ ((u64)level << 31) ^ j;
            // A thread's part as a 2 x half View (right layout), and its odd last word.
            const u64 hw = team.thread_scratch_bytes[level] / 8, half = hw / 2;
            const auto hv = fk::scratch_view<u64, 2>(team.thread_scratch[level], 0, 2, half);
            u64* const th = (u64*)team.thread_scratch[level];
            for (u64 j = k; j < hw; j += V) {
                const u64 value = (l << 40) ^ (r << 24) ^ ((u64)level << 23) ^ j;
                if (j < 2 * half) hv(j / half, j % half) = value; else th[j] = value;
            }
        }
        fk::team_barrier();
        u64 bad = 0;
        for (int level = 0; level < 2; ++level) {
            const u64* ts = (const u64*)team.team_scratch[level];
            const u64 tw = team.team_scratch_bytes[level] / 8;
            for (u64 j = (tid + 1) % block; j < tw; j += block)
                bad += ts[j] != ((l << 32) ^ ((u64)level << 31) ^ j);
            const u64 hb = team.thread_scratch_bytes[level], hw = hb / 8;
            const u64 q = (r + 1) % T;
            const u64* nb = (const u64*)(team.thread_scratch[level] + ((i64)q - (i64)r) * (i64)hb);
            for (u64 j = (k + 1) % V; j < hw; j += V)
                bad += nb[j] != ((l << 40) ^ (q << 24) ^ ((u64)level << 23) ^ j);
        }
        RESULT
"#;

/// What a `parallel_for` does with `bad`: writes it and the sizes it saw, three words per thread of
/// each league rank.
const FOR_RESULT: &str = "u64* const o = fk_out + 3 * (l * block + tid);
        o[0] = bad;
        o[1] = team.team_scratch_bytes[0] + team.thread_scratch_bytes[0];
        o[2] = team.team_scratch_bytes[1] + team.thread_scratch_bytes[1];";

/// What a reduction does with `bad`: adds it times a million, plus one.
const REDUCE_RESULT: &str = "acc += bad * 1000000 + 1; (void)fk_out;";

/// `unit` with its body replaced by `body`.
fn with_body(unit: &TranslationUnit, body: &str) -> String {
    let src = &unit.source;
    let open = src.find("auto fk_body = [&](").expect("the body lambda");
    let start = open + src[open..].find('\n').expect("a line") + 1;
    let end = start + src[start..].find("\n    };\n").expect("the lambda's end");
    format!("{}{body}{}", &src[..start], &src[end..])
}

fn fused() -> UnitOptions {
    UnitOptions {
        fused_join: true,
        ..UnitOptions::default()
    }
}

/// The team `parallel_for` unit with the hand-written body, and its entry.
fn for_unit() -> (String, String) {
    let out_addr = 0u64;
    let k = crate::kernel!(|team: &TeamMember| {
        let _probe = out_addr + team.league_rank() as u64;
    });
    let unit = TranslationUnit::team_kernel_with(&k, fused());
    let body = BODY.replace("RESULT", FOR_RESULT);
    (with_body(&unit, &body), unit.entry.clone())
}

/// The team `parallel_reduce` unit (a `u64` sum) with the hand-written body, and its entry.
fn reduce_unit() -> (String, String) {
    let out_addr = 0u64;
    let k = crate::kernel!(|team: &TeamMember, acc: &mut u64| {
        let lr = team.league_rank() as u64;
        single(PerTeam(team), || *acc += out_addr + lr);
    });
    let unit = TranslationUnit::team_reduce_kernel_with::<Sum<u64>>(&k, fused());
    let body = BODY.replace("RESULT", REDUCE_RESULT);
    (with_body(&unit, &body), unit.entry.clone())
}

#[test]
fn team_entries_point_the_team_at_its_scratch_and_wait_between_league_ranks() {
    let (source, _) = for_unit();
    for line in [
        "    extern __shared__ __align__(16) unsigned char fk_dynamic[];",
        "    fk::set_scratch(fk_team, fk_dynamic, fk_scratch1 + (u64)blockIdx.x * fk_block_scratch1,",
        "        if (fk_scratch_any && fk_l != blockIdx.x) __syncthreads();",
    ] {
        assert!(source.contains(line), "{line}\n{source}");
    }
    let (source, _) = reduce_unit();
    assert!(
        source.contains("    unsigned char* const fk_shared = fk_dynamic + fk_pattern_shared;"),
        "{source}"
    );
    if require_or_skip() {
        for (source, name) in [
            (for_unit().0, "scratch_for.cu"),
            (source, "scratch_reduce.cu"),
        ] {
            let cubin = compile_cubin(&source, name, 90).unwrap_or_else(|e| panic!("{e}"));
            assert!(cubin.image.starts_with(b"\x7fELF"));
        }
    }
}

/// A launch's shape: a league of `league` teams of `team_size` x `vector_length` with `scratch`.
fn shape(
    league: u64,
    team_size: u32,
    vector_length: u32,
    scratch: [(usize, usize); 2],
) -> TeamShape {
    let requests = scratch.map(|(per_team, per_thread)| ScratchRequest {
        per_team,
        per_thread,
    });
    TeamShape {
        league,
        team_size,
        vector_length,
        scratch: ScratchLayout::new(&requests, team_size, &|| "test".into()).expect("layout"),
    }
}

/// The shapes the GPU tests run: level 0 small, level 0 above 48 KiB, level 1 alone, both levels
/// with a partial warp; more league ranks than blocks each.
fn shapes() -> Vec<TeamShape> {
    vec![
        shape(100, 64, 2, [(1000, 24), (0, 0)]),
        shape(100, 128, 1, [(64 << 10, 40), (0, 0)]),
        shape(100, 32, 4, [(0, 0), (1 << 20, 4096)]),
        shape(100, 33, 1, [(4096, 8), (100_000, 1000)]),
    ]
}

/// The blocks of each test launch (fewer than the league: grid-stride).
const GRID: u32 = 40;

/// Device memory of `bytes` holding `fill` in every byte.
fn buffer(
    ctx: &std::sync::Arc<crate::backend::cuda::driver::Context>,
    bytes: usize,
    fill: u8,
) -> DeviceBuffer {
    let b = DeviceBuffer::new(ctx, bytes.max(8), || "test buffer".into()).expect("alloc");
    let host = vec![fill; bytes.max(8)];
    // SAFETY: both hold `bytes.max(8)` bytes.
    unsafe {
        copy(b.ptr(), host.as_ptr() as u64, host.len(), ctx, || {
            "fill".into()
        })
    }
    .expect("fill");
    b
}

/// Reads `n` words of `b`.
fn read(
    ctx: &std::sync::Arc<crate::backend::cuda::driver::Context>,
    b: &DeviceBuffer,
    n: usize,
) -> Vec<u64> {
    let mut host = vec![0u64; n];
    // SAFETY: `b` holds at least `n` words; the launches that wrote it completed.
    unsafe {
        copy(host.as_mut_ptr() as u64, b.ptr(), n * 8, ctx, || {
            "read".into()
        })
    }
    .expect("read");
    host
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn every_team_and_thread_sees_its_scratch_at_both_levels() {
    let ctx = test_context();
    if !require_or_skip() {
        return;
    }
    let arch = device_info(ctx.ordinal()).expect("device info").arch();
    let stream = Stream::new(&ctx, || "stream".into()).expect("stream");
    for (pattern, (source, entry)) in [("for", for_unit()), ("reduce", reduce_unit())] {
        let cubin = compile_cubin(&source, "scratch.cu", arch).expect("compiles");
        let module = Module::load(&ctx, &cubin.image, || "loading".into()).expect("load");
        let f = module.function(&entry, || entry.clone()).expect("function");
        for s in shapes() {
            let what = format!("{pattern}: {s:?}");
            let threads = s.block() as usize;
            let values = if pattern == "reduce" { threads * 8 } else { 0 };
            let shared = s.scratch.shared_bytes(values).expect("fits");
            f.set_max_dynamic_shared(shared.max(48 << 10), || "opt in".into())
                .expect("opt in");
            let global = s
                .scratch
                .global_bytes(u64::from(GRID), &|| what.clone())
                .unwrap();
            let level1 = buffer(&ctx, global, 0);
            let out = buffer(&ctx, s.league as usize * threads * 3 * 8, 0xff);
            let partials = buffer(&ctx, GRID as usize * 8, 0);
            let counter = buffer(&ctx, 256, 0);
            let result = buffer(&ctx, 8, 0);
            let mut params = Vec::new();
            {
                let mut w = ParamWriter::new(&mut params);
                league_writer(s)(&mut w);
                w.push(if global > 0 { level1.ptr() } else { 0 });
                if pattern == "reduce" {
                    w.push(partials.ptr());
                    w.push(counter.ptr());
                    w.push(result.ptr());
                }
                w.push(out.ptr());
            }
            // SAFETY: the parameters follow the entry's signature (league, scratch, level 1, the
            // reduce's buffers, the one capture); every buffer has the room the kernel uses and
            // outlives it (synchronized below).
            unsafe {
                launch(
                    &f,
                    GRID,
                    s.block(),
                    shared as u32,
                    &stream,
                    &mut params,
                    || what.clone(),
                )
            }
            .expect("launch");
            stream.synchronize(|| what.clone()).expect("kernel ran");
            let sizes = |level: usize| s.scratch.team[level] + s.scratch.thread[level];
            if pattern == "reduce" {
                let total = read(&ctx, &result, 1)[0];
                assert_eq!(total, s.league * threads as u64, "{what}");
                continue;
            }
            let got = read(&ctx, &out, s.league as usize * threads * 3);
            for (t, o) in got.chunks(3).enumerate() {
                assert_eq!(
                    o,
                    [0, sizes(0), sizes(1)],
                    "{what}: league rank {}, thread {}",
                    t / threads,
                    t % threads
                );
            }
        }
    }
}
