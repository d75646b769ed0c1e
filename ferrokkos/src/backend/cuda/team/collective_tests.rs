//! Tests of the device header's team collectives (`device/team.cuh`), ahead of the code generator
//! that calls them: a hand-written kernel calls each on teams of several shapes (partial warps,
//! one lane, a whole warp of lanes, 1024 threads), with a sum and with a join that does not
//! commute (composition of affine maps), and every thread's results must be the host's.

use std::sync::Arc;

use crate::backend::cuda::driver::{
    Context, DeviceBuffer, Module, Stream, copy, device_info, launch, test_context,
};
use crate::backend::gpu::codegen::header::{DEVICE_HEADER, HeaderParts, Target, device_header};
use crate::nvrtc::{compile_cubin, require_or_skip};

/// The kernel: thread (rank r, lane k) of league rank l computes each collective; f64 results go
/// to `out[8 t ..]`, the affine-map results to `maps[12 t ..]` (t the global thread index).
const KERNEL: &str = r#"
struct Aff { u64 a; u64 b; };
// x -> a x + b, joined as "first dst, then src": (dst.a src.a, dst.b src.a + src.b), wrapping.
struct Compose {
  typedef Aff value_type;
  static __device__ __forceinline__ Aff identity() { Aff r; r.a = 1; r.b = 0; return r; }
  static __device__ __forceinline__ void join(Aff& d, const Aff& s) {
    Aff r; r.a = d.a * s.a; r.b = d.b * s.a + s.b; d = r;
  }
};
__device__ __forceinline__ Aff aff(u64 r, u64 k) { Aff x; x.a = 2 * r + 3 + k; x.b = 7 * r + k + 1; return x; }

extern "C" __global__ void team_collectives(f64* out, u64* maps, u32 team_size, u32 vector_length) {
  fk::Team t;
  t.league_rank = blockIdx.x;
  t.league_size = gridDim.x;
  t.team_size = team_size;
  t.vector_length = vector_length;
  const u64 r = t.rank(), k = t.lane();
  const f64 mine = (f64)(r * 100 + k) + (f64)blockIdx.x * 0.5;
  const f64 per_rank = (f64)(r + 1) + (f64)k * 1000.0;  // lane 0's counts
  f64 vtot, ttot;
  const f64 vs = fk::vector_reduce<fk::Sum<f64>>(t, mine);
  const f64 ts = fk::team_thread_reduce<fk::Sum<f64>>(t, per_rank);
  const f64 all = fk::team_vector_reduce<fk::Sum<f64>>(t, mine);
  const f64 vex = fk::vector_exclusive_scan<fk::Sum<f64>>(t, mine, vtot);
  const f64 tex = fk::team_thread_exclusive_scan<fk::Sum<f64>>(t, per_rank, ttot);
  const f64 b = fk::team_broadcast(t, mine, team_size - 1);
  const f64 vb = fk::vector_broadcast(t, mine, vector_length - 1);
  fk::team_barrier();
  const u64 g = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  f64* o = out + 8 * g;
  o[0] = vs; o[1] = ts; o[2] = all; o[3] = vex; o[4] = vtot; o[5] = tex; o[6] = ttot; o[7] = b + vb;
  Aff mt, mv;
  const Aff m0 = fk::vector_reduce<Compose>(t, aff(r, k));
  const Aff m1 = fk::team_thread_reduce<Compose>(t, aff(r, k));
  const Aff m2 = fk::team_vector_reduce<Compose>(t, aff(r, k));
  const Aff m3 = fk::vector_exclusive_scan<Compose>(t, aff(r, k), mv);
  const Aff m4 = fk::team_thread_exclusive_scan<Compose>(t, aff(r, k), mt);
  u64* m = maps + 14 * g;
  m[0] = m0.a; m[1] = m0.b; m[2] = m1.a; m[3] = m1.b; m[4] = m2.a; m[5] = m2.b;
  m[6] = m3.a; m[7] = m3.b; m[8] = mv.a; m[9] = mv.b; m[10] = m4.a; m[11] = m4.b;
  m[12] = mt.a; m[13] = mt.b;
}

// Vector collectives in divergent control flow: team thread r runs r % 3 + 1 rounds (threads of one
// warp leave the loop at different rounds), and only odd ranks reduce once more. Each thread's
// lanes stay together, which is all a vector collective needs.
extern "C" __global__ void vector_divergent(f64* out, u32 team_size, u32 vector_length) {
  fk::Team t;
  t.league_rank = blockIdx.x;
  t.league_size = gridDim.x;
  t.team_size = team_size;
  t.vector_length = vector_length;
  const u64 r = t.rank(), k = t.lane();
  f64 sums = 0.0, scans = 0.0, totals = 0.0, casts = 0.0, odd = 0.0;
  for (u64 round = 0; round < r % 3 + 1; ++round) {
    const f64 mine = (f64)(r * 100 + k) + (f64)round * 0.25;
    f64 total;
    sums += fk::vector_reduce<fk::Sum<f64>>(t, mine);
    scans += fk::vector_exclusive_scan<fk::Sum<f64>>(t, mine, total);
    totals += total;
    casts += fk::vector_broadcast(t, mine, vector_length - 1);
  }
  if (r % 2 == 1) odd = fk::vector_reduce<fk::Sum<f64>>(t, (f64)(k + 1));
  const u64 g = (u64)blockIdx.x * blockDim.x + threadIdx.x;
  f64* o = out + 5 * g;
  o[0] = sums; o[1] = scans; o[2] = totals; o[3] = casts; o[4] = odd;
}
"#;

/// The program: the device header with its team part, then the kernel.
fn source() -> String {
    let parts = HeaderParts {
        team: true,
        ..HeaderParts::default()
    };
    format!("{}\n{KERNEL}", device_header(parts, Target::Cuda))
}

/// An affine map `x -> a x + b` over wrapping `u64`.
type Aff = (u64, u64);

fn aff(r: u64, k: u64) -> Aff {
    (2 * r + 3 + k, 7 * r + k + 1)
}

/// `d` then `s`.
fn compose(d: Aff, s: Aff) -> Aff {
    (
        d.0.wrapping_mul(s.0),
        d.1.wrapping_mul(s.0).wrapping_add(s.1),
    )
}

fn compose_all(maps: impl IntoIterator<Item = Aff>) -> Aff {
    maps.into_iter().fold((1, 0), compose)
}

#[test]
fn the_team_collectives_compile() {
    if !require_or_skip() {
        return;
    }
    let cubin = compile_cubin(&source(), "team_collectives.cu", 90).expect("compiles");
    assert!(cubin.image.starts_with(b"\x7fELF"));
    // The team part is optional, and in the full header.
    assert!(!device_header(HeaderParts::default(), Target::Cuda).contains("struct Team"));
    assert!(DEVICE_HEADER.contains("struct Team"));
    assert!(HeaderParts::used_by("fk::Team t;").team);
}

/// Runs the kernel on `leagues` teams of `team_size` threads of `vector_length` lanes and returns
/// the f64 and the map results.
fn run(
    ctx: &Arc<Context>,
    module: &Arc<Module>,
    leagues: u32,
    team_size: u32,
    vector_length: u32,
) -> (Vec<f64>, Vec<u64>) {
    let threads = (leagues * team_size * vector_length) as usize;
    let f = module
        .function("team_collectives", || "team_collectives".into())
        .expect("function");
    let stream = Stream::new(ctx, || "stream".into()).expect("stream");
    let out = DeviceBuffer::new(ctx, threads * 8 * 8, || "out".into()).expect("alloc");
    let maps = DeviceBuffer::new(ctx, threads * 14 * 8, || "maps".into()).expect("alloc");
    let mut params = Vec::new();
    params.extend_from_slice(&out.ptr().to_ne_bytes());
    params.extend_from_slice(&maps.ptr().to_ne_bytes());
    params.extend_from_slice(&team_size.to_ne_bytes());
    params.extend_from_slice(&vector_length.to_ne_bytes());
    // SAFETY: the buffer matches the kernel's parameters (two pointers, two u32); `out` and `maps`
    // hold what every thread writes and outlive the kernel (synchronized below).
    unsafe {
        launch(
            &f,
            leagues,
            team_size * vector_length,
            0,
            &stream,
            &mut params,
            || "launch".into(),
        )
    }
    .expect("launch");
    stream.synchronize(|| "sync".into()).expect("kernel ran");
    let mut host = vec![0f64; threads * 8];
    let mut host_maps = vec![0u64; threads * 14];
    // SAFETY: the host vectors hold as many bytes as the device buffers; the kernel completed.
    unsafe {
        copy(host.as_mut_ptr() as u64, out.ptr(), out.len(), ctx, || {
            "read".into()
        })
        .expect("read");
        copy(
            host_maps.as_mut_ptr() as u64,
            maps.ptr(),
            maps.len(),
            ctx,
            || "read".into(),
        )
        .expect("read");
    }
    (host, host_maps)
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn team_collectives_give_every_thread_the_hosts_results() {
    let ctx = test_context();
    if !require_or_skip() {
        return;
    }
    let arch = device_info(ctx.ordinal()).expect("device info").arch();
    let cubin = compile_cubin(&source(), "team_collectives.cu", arch).expect("compiles");
    let module = Module::load(&ctx, &cubin.image, || "loading".into()).expect("load");
    let leagues = 3u32;
    for (team, vector) in [
        (1u32, 1u32),
        (4, 8),
        (3, 32),
        (33, 1),
        (5, 4),
        (32, 32),
        (7, 2),
        (1, 16),
    ] {
        let (got, maps) = run(&ctx, &module, leagues, team, vector);
        let (t, v) = (team as u64, vector as u64);
        for l in 0..leagues as u64 {
            let mine = |r: u64, k: u64| (r * 100 + k) as f64 + l as f64 * 0.5;
            let per_rank = |r: u64| (r + 1) as f64;
            for r in 0..t {
                for k in 0..v {
                    let g = ((l * t + r) * v + k) as usize;
                    let o = &got[8 * g..8 * g + 8];
                    let vs: f64 = (0..v).map(|j| mine(r, j)).sum();
                    let ts: f64 = (0..t).map(per_rank).sum();
                    let all: f64 = (0..t)
                        .flat_map(|q| (0..v).map(move |j| (q, j)))
                        .map(|(q, j)| mine(q, j))
                        .sum();
                    let vex: f64 = (0..k).map(|j| mine(r, j)).sum();
                    let tex: f64 = (0..r).map(per_rank).sum();
                    let want = [
                        vs,
                        ts,
                        all,
                        vex,
                        vs,
                        tex,
                        ts,
                        mine(t - 1, 0) + mine(r, v - 1),
                    ];
                    assert_eq!(
                        o, want,
                        "team {team} x {vector}, league {l}, rank {r}, lane {k}"
                    );
                    let m = &maps[14 * g..14 * g + 14];
                    let lanes = compose_all((0..v).map(|j| aff(r, j)));
                    let ranks = compose_all((0..t).map(|q| aff(q, 0)));
                    let every = compose_all((0..t).flat_map(|q| (0..v).map(move |j| aff(q, j))));
                    let lanes_below = compose_all((0..k).map(|j| aff(r, j)));
                    let ranks_below = compose_all((0..r).map(|q| aff(q, 0)));
                    let want = [
                        lanes.0,
                        lanes.1,
                        ranks.0,
                        ranks.1,
                        every.0,
                        every.1,
                        lanes_below.0,
                        lanes_below.1,
                        lanes.0,
                        lanes.1,
                        ranks_below.0,
                        ranks_below.1,
                        ranks.0,
                        ranks.1,
                    ];
                    assert_eq!(
                        m, want,
                        "maps: team {team} x {vector}, league {l}, rank {r}, lane {k}"
                    );
                }
            }
        }
    }
}

/// Vector collectives called by the threads of one warp in different control flow (different
/// trip counts, only odd ranks) give each thread its own lanes' results.
#[test]
#[ignore = "needs a CUDA GPU"]
fn vector_collectives_work_in_divergent_control_flow() {
    let ctx = test_context();
    if !require_or_skip() {
        return;
    }
    let arch = device_info(ctx.ordinal()).expect("device info").arch();
    let cubin = compile_cubin(&source(), "team_collectives.cu", arch).expect("compiles");
    let module = Module::load(&ctx, &cubin.image, || "loading".into()).expect("load");
    let f = module
        .function("vector_divergent", || "vector_divergent".into())
        .expect("function");
    let stream = Stream::new(&ctx, || "stream".into()).expect("stream");
    let leagues = 2u32;
    for (team, vector) in [
        (32u32, 1u32),
        (16, 2),
        (8, 4),
        (7, 8),
        (3, 16),
        (5, 32),
        (33, 1),
    ] {
        let threads = (leagues * team * vector) as usize;
        let out = DeviceBuffer::new(&ctx, threads * 5 * 8, || "out".into()).expect("alloc");
        let mut params = Vec::new();
        params.extend_from_slice(&out.ptr().to_ne_bytes());
        params.extend_from_slice(&team.to_ne_bytes());
        params.extend_from_slice(&vector.to_ne_bytes());
        // SAFETY: the buffer matches the kernel's parameters (a pointer, two u32); `out` holds what
        // every thread writes and outlives the kernel (synchronized below).
        unsafe {
            launch(&f, leagues, team * vector, 0, &stream, &mut params, || {
                "launch".into()
            })
        }
        .expect("launch");
        stream.synchronize(|| "sync".into()).expect("kernel ran");
        let mut got = vec![0f64; threads * 5];
        // SAFETY: `got` holds as many bytes as `out`; the kernel completed.
        unsafe {
            copy(got.as_mut_ptr() as u64, out.ptr(), out.len(), &ctx, || {
                "read".into()
            })
            .expect("read");
        }
        let v = vector as u64;
        for g in 0..threads {
            let (r, k) = ((g as u64 % (team as u64 * v)) / v, g as u64 % v);
            let mine = |j: u64, round: u64| (r * 100 + j) as f64 + round as f64 * 0.25;
            let mut want = [0f64; 5];
            for round in 0..r % 3 + 1 {
                let all: f64 = (0..v).map(|j| mine(j, round)).sum();
                want[0] += all;
                want[1] += (0..k).map(|j| mine(j, round)).sum::<f64>();
                want[2] += all;
                want[3] += mine(v - 1, round);
            }
            if r % 2 == 1 {
                want[4] = (1..=v).map(|j| j as f64).sum();
            }
            assert_eq!(
                got[5 * g..5 * g + 5],
                want,
                "team {team} x {vector}, thread {g} (rank {r}, lane {k})"
            );
        }
    }
}
