//! Batched small dense matrix products, C_b = A_b B_b, with hierarchical parallelism: one team per
//! matrix (the league rank is the batch index). The team stages A_b and B_b in its level-0 scratch
//! memory (shared memory on a GPU), waits at a barrier, and computes C_b from the tiles: a
//! `TeamThreadRange` over C's rows and a `ThreadVectorRange` over its columns, each entry a dot
//! product over k. A second team kernel
//! reduces: each team sums its C's diagonal with a nested reduction and contributes the trace once
//! (`single(PerTeam)`), and the launch sums the traces. Written once, run on Serial, Threads and
//! Cuda (when a GPU is present); every space's C must equal Serial's bit for bit (each entry is
//! summed in the same order everywhere) and the traces' sum agree within rounding.
//!
//! ```text
//! cargo run --release -p ferrokkos --example batched_gemm [-- BATCH N]
//! ```
//! With `FERROKKOS_REQUIRE_CUDA=1` a missing GPU is an error instead of a skipped space.

use std::time::Instant;

use ferrokkos::prelude::*;
use ferrokkos::{DeviceType, Error, Result};

type Batch<S> = View<f64, 3, LayoutRight, <S as ExecutionSpace>::MemorySpace>;

/// The products, the sum of their traces, and the best time of a product of the batch.
struct Outcome {
    c: Vec<f64>,
    traces: f64,
    seconds: f64,
}

/// A deterministic entry of matrix `b` (a = 0 for A, 1 for B), small integers over 8 so that
/// products are exact.
fn entry(a: usize, b: usize, i: usize, j: usize) -> f64 {
    (((a * 7 + b * 13 + i * 5 + j * 3) % 17) as f64 - 8.0) / 8.0
}

/// A batch of `batch` matrices n x n in the memory of `S`, filled by `f(b, i, j)`.
fn filled<S: Launch>(
    label: &str,
    batch: usize,
    n: usize,
    f: impl Fn(usize, usize, usize) -> f64,
) -> Result<Batch<S>> {
    let host = View::<f64, 3>::new(label, [batch, n, n])?;
    {
        let mut h = host.host_mut()?;
        for b in 0..batch {
            for i in 0..n {
                for j in 0..n {
                    h[(b, i, j)] = f(b, i, j);
                }
            }
        }
    }
    let v = Batch::<S>::new(label, [batch, n, n])?;
    deep_copy(&v, &host)?;
    Ok(v)
}

fn run<S: Launch>(exec: &S, batch: usize, n: usize) -> Result<Outcome> {
    let a = filled::<S>("A", batch, n, |b, i, j| entry(0, b, i, j))?;
    let b = filled::<S>("B", batch, n, |b, i, j| entry(1, b, i, j))?;
    let c = Batch::<S>::new("C", [batch, n, n])?;
    // On a GPU a thread's vector lanes take a row's columns (up to a warp); the host spaces run
    // teams of one thread and vector loops as plain loops.
    let lanes = if S::DEVICE_TYPE == DeviceType::Cuda {
        n.next_power_of_two().min(32)
    } else {
        1
    };
    let policy = TeamPolicy::new(exec, batch, AUTO)?.vector_length(lanes)?;
    let tiles = policy
        .clone()
        .set_scratch_size(0, PerTeam(2 * n * n * std::mem::size_of::<f64>()))?;
    let gemm = kernel!(|team: &TeamMember| {
        let m = team.league_rank();
        let ta = team.team_scratch(0).view::<f64, 2>([n, n]);
        let tb = team.team_scratch(0).view::<f64, 2>([n, n]);
        TeamThreadRange::new(team, 0, n).parallel_for(|i| {
            ThreadVectorRange::new(team, 0, n).parallel_for(|j| {
                ta[(i, j)] = a[(m, i, j)];
                tb[(i, j)] = b[(m, i, j)];
            });
        });
        team.team_barrier();
        TeamThreadRange::new(team, 0, n).parallel_for(|i| {
            ThreadVectorRange::new(team, 0, n).parallel_for(|j| {
                let mut sum = 0.0;
                for k in 0..n {
                    sum += ta[(i, k)] * tb[(k, j)];
                }
                c[(m, i, j)] = sum;
            });
        });
    });
    let mut seconds = f64::INFINITY;
    for _ in 0..5 {
        let start = Instant::now();
        parallel_for("batched gemm", tiles.clone(), &gemm)?;
        exec.fence("batched gemm")?;
        seconds = seconds.min(start.elapsed().as_secs_f64());
    }
    let traces = parallel_reduce(
        "traces",
        policy,
        kernel!(|team: &TeamMember, acc: &mut f64| {
            let m = team.league_rank();
            let trace = TeamVectorRange::new(team, 0, n)
                .parallel_reduce(|i, t: &mut f64| *t += c[(m, i, i)], Sum::new());
            single(PerTeam(team), || *acc += trace);
        }),
        Sum::new(),
    )?;
    let mirror = create_mirror_view(&c)?;
    deep_copy(&mirror, &c)?;
    Ok(Outcome {
        c: mirror.to_vec()?,
        traces,
        seconds,
    })
}

/// The products computed on the host in plain Rust.
fn reference(batch: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; batch * n * n];
    for m in 0..batch {
        for i in 0..n {
            for j in 0..n {
                let mut sum = 0.0;
                for k in 0..n {
                    sum += entry(0, m, i, k) * entry(1, m, k, j);
                }
                c[(m * n + i) * n + j] = sum;
            }
        }
    }
    c
}

fn report(space: &str, got: &Outcome, want: &[f64], traces: f64, batch: usize, n: usize) {
    assert_eq!(
        got.c, want,
        "{space}: the products differ from plain Rust's"
    );
    assert!(
        (got.traces - traces).abs() <= 1e-9 * traces.abs().max(1.0),
        "{space}: traces {} vs {traces}",
        got.traces
    );
    let flops = 2.0 * (batch * n * n * n) as f64;
    println!(
        "{space:8} C identical to plain Rust, traces {:.6}; best of 5: {:.3} ms ({:.1} GFLOP/s)",
        got.traces,
        got.seconds * 1e3,
        flops / got.seconds * 1e-9
    );
}

fn main() -> Result<()> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let number = |k: usize, default: usize| -> Result<usize> {
        match args.get(k) {
            None => Ok(default),
            Some(s) => s.parse().map_err(|_| Error::InvalidArgument {
                operation: "batched_gemm",
                reason: format!("expected a positive number (BATCH N), got {s:?}"),
            }),
        }
    };
    let (batch, n) = (number(0, 2048)?, number(1, 16)?);
    if batch == 0 || n == 0 {
        return Err(Error::InvalidArgument {
            operation: "batched_gemm",
            reason: format!("the batch and the matrix size must be positive, got {batch} and {n}"),
        });
    }
    let _rt = ferrokkos::initialize(InitSettings::from_env()?)?;
    let want = reference(batch, n);
    let traces: f64 = (0..batch)
        .flat_map(|m| (0..n).map(move |i| (m, i)))
        .map(|(m, i)| want[(m * n + i) * n + i])
        .sum();
    println!("{batch} products of {n}x{n} matrices, one team per matrix");
    report(
        "Serial:",
        &run(&Serial::default_instance()?, batch, n)?,
        &want,
        traces,
        batch,
        n,
    );
    report(
        "Threads:",
        &run(&Threads::default_instance()?, batch, n)?,
        &want,
        traces,
        batch,
        n,
    );

    #[cfg(feature = "cuda")]
    match ferrokkos::Cuda::default_instance() {
        Ok(cuda) => report("Cuda:", &run(&cuda, batch, n)?, &want, traces, batch, n),
        Err(e) if std::env::var_os("FERROKKOS_REQUIRE_CUDA").is_some_and(|v| v == "1") => {
            return Err(e);
        }
        Err(e) => println!("Cuda:    skipped ({e})"),
    }
    Ok(())
}
