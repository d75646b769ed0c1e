//! `ferrokkos stencil`: a 2D 9-point stencil sweep, a matrix-free CG iteration and a
//! TeaLeaf-shaped CG iteration (its operator in a `#[device]` function) on an n x n grid with one
//! halo layer, written with ferrokkos (`kernel!`s over rank-2 `MDRangePolicy`s) and
//! measured against peers.
//!
//! ferrokkos runs on Serial, Threads or Cuda as chosen at run time (`--space`). `--compare` adds,
//! in the same process and taking turns with it run by run, the same kernels written by hand: on
//! the host spaces in Rust (plain nested loops over slices on Serial, rayon's `par_chunks_mut` over
//! the rows on Threads) and in C with OpenMP (`csrc/stencil_omp.c`), each on as many threads as the
//! space; on Cuda in CUDA C++ (`cuda_source.rs`, compiled by NVRTC). Every peer's final sweep
//! field must equal ferrokkos' bit for bit and both CGs' residual norms and solutions must agree
//! within 1e-8 (relative: the dot products add in different orders,
//! and CG amplifies the difference); a mismatch is exit status 1. The report gives the best and
//! median time per sweep step and per CG iteration, the effective bandwidth, and the ratios
//! peer / ferrokkos.

mod cg;
#[cfg(feature = "peers")]
mod cuda_peer;
#[cfg(feature = "peers")]
mod cuda_source;
mod ferrokkos_impl;
#[cfg(all(feature = "peers", not(ferrokkos_no_openmp)))]
mod openmp_peer;
mod ping_pong;
mod problem;
mod report;
#[cfg(feature = "peers")]
mod rust_peer;
mod tea;
mod validate;

use std::time::Instant;

use ferrokkos::traits::Launch;
use ferrokkos::{InitSettings, SpaceChoice, SpaceTask};

use crate::Failure;
use crate::cli::{SpaceArg, integer, space_choice};
use crate::timing::Times;
use cg::{Dot, Update};
use ferrokkos_impl::{FerrokkosStencil, on_device};
use problem::{Grid, KERNELS, Kernel};
use report::{Line, Setup};

/// The default grid: 4096 x 4096 interior cells (134 MB a field). A sweep step moves 268 MB at the
/// least: a few milliseconds at the 50-200 GB/s of a 16-core node (an estimate, not a measurement).
const DEFAULT_N: usize = 4096;

/// The largest grid `-n` accepts (a field of 2^20 x 2^20 doubles is 8 TiB).
const MAX_N: usize = 1 << 20;

/// The most steps, iterations and runs the options take: any count a person would wait for.
const MANY: u64 = 1 << 30;

/// `ferrokkos stencil --help`: what the command does, before the options.
pub const LONG_ABOUT: &str = "\
Three kernels on an n x n grid of f64 with one halo layer, written with ferrokkos as kernel!s over
rank-2 MDRangePolicies:
  sweep  v = 0.5 u + 0.1 (4 edge neighbours) + 0.025 (4 corners) on the interior, the halo fixed
         (Dirichlet), two fields taking turns; timed per step
  cg     conjugate gradients on the 5-point Laplacian of the interior (zero halo) from x = 0, a
         fixed number of iterations (one operator apply, two dot products with Sum, three
         updates each; no convergence test); timed per iteration
  tea    TeaLeaf-shaped CG: TeaLeaf's operator (variable face coefficients, in a #[device]
         function) fused with p.w, u and r updated with r.r, p updated: three kernels an
         iteration, a fixed number of iterations; timed per iteration
Prints the best and median time per step and per iteration, and the effective bandwidth (sweep 16
bytes, cg iteration 112, tea iteration 104 bytes per interior cell).";

/// The options of `ferrokkos stencil`.
#[derive(Debug, clap::Args)]
#[command(args_override_self = true)]
pub struct Args {
    /// interior cells per direction
    #[arg(
        short = 'n',
        value_name = "N",
        default_value_t = DEFAULT_N,
        value_parser = integer::<usize>(1, MAX_N as u64),
        allow_negative_numbers = true
    )]
    n: usize,
    /// sweep steps per run
    #[arg(
        long,
        value_name = "S",
        default_value_t = 10,
        value_parser = integer::<usize>(1, MANY),
        allow_negative_numbers = true
    )]
    steps: usize,
    /// CG iterations per run
    #[arg(
        long,
        value_name = "I",
        default_value_t = 20,
        value_parser = integer::<usize>(1, MANY),
        allow_negative_numbers = true
    )]
    iters: usize,
    /// timed runs per implementation, after one warm-up
    #[arg(
        long,
        value_name = "R",
        default_value_t = 10,
        value_parser = integer::<usize>(1, MANY),
        allow_negative_numbers = true
    )]
    runs: usize,
    #[command(flatten)]
    space: SpaceArg,
    /// also run the same kernels written by hand: on serial and threads in
    /// Rust (plain nested loops on serial, rayon par_chunks_mut over the rows
    /// on threads) and in C with OpenMP (parallel for over the rows), as many
    /// threads as the space; on cuda in CUDA C++ (compiled by NVRTC, one
    /// thread per cell in 2D blocks, int indices); taking turns with ferrokkos
    /// run by run; print peer time / ferrokkos time, and check that each
    /// peer's sweep field equals ferrokkos' bit for bit and its CG residual
    /// norms and solutions agree within 1e-8 (else exit status 1)
    #[arg(long, verbatim_doc_comment)]
    compare: bool,
    /// print CSV instead of tables
    #[arg(long)]
    csv: bool,
}

/// The options, as the benchmark uses them.
#[derive(Debug)]
struct Config {
    /// `-n`: the grid.
    grid: Grid,
    /// `--steps`: sweep steps per run.
    steps: usize,
    /// `--iters`: CG iterations per run.
    iters: usize,
    /// `--runs`: timed runs per implementation.
    runs: usize,
    /// `--space`: the execution space of the ferrokkos implementation.
    space: SpaceChoice,
    /// `--compare`.
    compare: bool,
    /// `--csv`.
    csv: bool,
}

impl From<Args> for Config {
    fn from(args: Args) -> Config {
        Config {
            grid: Grid { n: args.n },
            steps: args.steps,
            iters: args.iters,
            runs: args.runs,
            space: space_choice(args.space),
            compare: args.compare,
            csv: args.csv,
        }
    }
}

/// Runs `ferrokkos stencil` with its options.
pub fn main(settings: InitSettings, args: Args) -> Result<(), Failure> {
    let cfg = Config::from(args);
    crate::spaces::run_benchmark(settings, cfg.space, StencilTask(&cfg), || {})
}

/// One way of running the kernels: ferrokkos, or a peer. Each has its own fields and vectors.
pub trait Implementation {
    /// The full name, for the list of implementations.
    fn name(&self) -> String;
    /// A short name, for the tables.
    fn short_name(&self) -> &'static str;
    /// Whether it is ferrokkos (the others are peers).
    fn is_ferrokkos(&self) -> bool {
        false
    }
    /// `steps` sweeps, each from the current field into the other one, which becomes current.
    fn sweep(&mut self, steps: usize) -> Result<(), Failure>;
    /// Waits for the work launched so far (ferrokkos' launches may return before it is done).
    fn fence(&mut self) -> Result<(), Failure> {
        Ok(())
    }
    /// The current sweep field, halo included, row-major.
    fn field(&self) -> Result<Vec<f64>, Failure>;
    /// CG's start, on every cell: x = 0, r = p = the right-hand side (0 on the halo), ap = 0;
    /// finished when it returns.
    fn cg_reset(&mut self) -> Result<(), Failure>;
    /// `ap = A p` on the interior.
    fn cg_apply(&mut self) -> Result<(), Failure>;
    /// A dot product over the interior.
    fn cg_dot(&mut self, dot: Dot) -> Result<f64, Failure>;
    /// A vector update on the interior, with scalar `a`.
    fn cg_update(&mut self, update: Update, a: f64) -> Result<(), Failure>;
    /// CG's x, halo included, row-major.
    fn cg_solution(&self) -> Result<Vec<f64>, Failure>;
    /// TeaLeaf-shaped CG's start, on every cell: u = 0, r = p = the right-hand side (0 on the
    /// halo), w = 0 (kx and ky were set at construction); finished when it returns. Returns the
    /// start's `r . r` over the interior.
    fn tea_reset(&mut self) -> Result<f64, Failure>;
    /// `w = A p` (TeaLeaf's operator) on the interior; returns `p . w` over the interior.
    fn tea_w(&mut self) -> Result<f64, Failure>;
    /// `u += alpha p` and `r -= alpha w` on the interior; returns the new `r . r`.
    fn tea_ur(&mut self, alpha: f64) -> Result<f64, Failure>;
    /// `p = r + beta p` on the interior.
    fn tea_p(&mut self, beta: f64) -> Result<(), Failure>;
    /// TeaLeaf-shaped CG's u, halo included, row-major.
    fn tea_solution(&self) -> Result<Vec<f64>, Failure>;
}

/// The benchmark as a [`SpaceTask`]: [`ferrokkos::run_on`] calls its `run` with the instance of the
/// space chosen at run time.
struct StencilTask<'c>(&'c Config);

impl SpaceTask for StencilTask<'_> {
    type Output = Result<(), Failure>;

    fn run<S: Launch>(self, exec: &S) -> ferrokkos::Result<Self::Output> {
        Ok(run(self.0, exec))
    }
}

/// Implementations, and notes on the peers that do not run here.
type Lineup = (Vec<Box<dyn Implementation>>, Vec<String>);

/// ferrokkos on `exec`, then with `--compare` on a host space the Rust and OpenMP peers, on as
/// many threads as the space.
fn implementations<S: Launch>(cfg: &Config, exec: &S) -> Result<Lineup, Failure> {
    let list: Vec<Box<dyn Implementation>> =
        vec![Box::new(FerrokkosStencil::new(exec.clone(), cfg.grid)?)];
    if !cfg.compare {
        return Ok((list, Vec::new()));
    }
    if on_device::<S>() {
        return device_peers(cfg, list);
    }
    host_peers(cfg, exec, list)
}

/// `list` and the hand-written CUDA peer.
#[cfg(feature = "peers")]
fn device_peers(cfg: &Config, mut list: Vec<Box<dyn Implementation>>) -> Result<Lineup, Failure> {
    list.push(Box::new(cuda_peer::CudaPeer::new(cfg.grid)?));
    Ok((list, Vec::new()))
}

/// Without the `peers` feature, `--compare` has nothing to add.
#[cfg(not(feature = "peers"))]
fn device_peers(_cfg: &Config, _list: Vec<Box<dyn Implementation>>) -> Result<Lineup, Failure> {
    Err(Failure::Run(
        "stencil: --compare needs ferrokkos-cli built with the `peers` feature".into(),
    ))
}

/// `list` and the host peers on `exec`'s thread count.
#[cfg(feature = "peers")]
fn host_peers<S: Launch>(
    cfg: &Config,
    exec: &S,
    mut list: Vec<Box<dyn Implementation>>,
) -> Result<Lineup, Failure> {
    let threads = exec.concurrency();
    let fail = |e: String| Failure::Run(format!("stencil: {e}"));
    if S::DEVICE_TYPE == ferrokkos::DeviceType::Serial {
        list.push(Box::new(rust_peer::RustPeer::new(
            rust_peer::InOrder,
            cfg.grid,
        )?));
    } else {
        let rayon = rust_peer::Rayon::new(threads).map_err(fail)?;
        list.push(Box::new(rust_peer::RustPeer::new(rayon, cfg.grid)?));
    }
    #[cfg(not(ferrokkos_no_openmp))]
    list.push(Box::new(openmp_peer::OpenMpStencil::new(
        cfg.grid, threads,
    )?));
    Ok((list, crate::openmp::skipped_note().into_iter().collect()))
}

/// Without the `peers` feature, `--compare` has nothing to add.
#[cfg(not(feature = "peers"))]
fn host_peers<S: Launch>(
    _cfg: &Config,
    _exec: &S,
    _list: Vec<Box<dyn Implementation>>,
) -> Result<Lineup, Failure> {
    Err(Failure::Run(
        "stencil: --compare needs ferrokkos-cli built with the `peers` feature".into(),
    ))
}

/// Runs one timed unit of `kernel` on `imp`: `steps` sweeps, or CG or TeaLeaf-shaped CG from its
/// start for `iters` iterations (the reset and the start's `r . r` not timed). Returns the seconds
/// per step or iteration, and the residual norms of a CG.
fn time_one(
    cfg: &Config,
    imp: &mut dyn Implementation,
    kernel: Kernel,
) -> Result<(f64, Option<Vec<f64>>), Failure> {
    match kernel {
        Kernel::Sweep => {
            let start = Instant::now();
            imp.sweep(cfg.steps)?;
            imp.fence()?;
            Ok((start.elapsed().as_secs_f64() / cfg.steps as f64, None))
        }
        Kernel::Cg => {
            imp.cg_reset()?;
            let rr = imp.cg_dot(Dot::RR)?;
            let start = Instant::now();
            let norms = cg::iterate(imp, rr, cfg.iters)?;
            imp.fence()?;
            Ok((
                start.elapsed().as_secs_f64() / cfg.iters as f64,
                Some(norms),
            ))
        }
        Kernel::Tea => {
            let rr = imp.tea_reset()?;
            let start = Instant::now();
            let norms = tea::iterate(imp, rr, cfg.iters)?;
            imp.fence()?;
            Ok((
                start.elapsed().as_secs_f64() / cfg.iters as f64,
                Some(norms),
            ))
        }
    }
}

/// Runs the benchmark on `exec`: the header, every implementation's runs taking turns,
/// validation against ferrokkos, the tables.
fn run<S: Launch>(cfg: &Config, exec: &S) -> Result<(), Failure> {
    let setup = Setup {
        grid: cfg.grid,
        steps: cfg.steps,
        iters: cfg.iters,
        runs: cfg.runs,
    };
    if !cfg.csv {
        setup.print_header(&crate::spaces::describe(exec));
    }
    let (mut impls, notes) = implementations(cfg, exec)?;
    let mut times = vec![KERNELS.map(|_| Times::default()); impls.len()];
    // Per implementation, the residual norms of CG and of TeaLeaf-shaped CG (by kernel).
    let mut norms = vec![KERNELS.map(|_| Vec::new()); impls.len()];
    let orders = crate::schedule::permutations(impls.len());
    let mut next_order = orders.iter().cycle();
    // Run 0 is the warm-up (on Cuda it compiles the kernels), not timed.
    for run in 0..=cfg.runs {
        for (k, &kernel) in KERNELS.iter().enumerate() {
            for &m in next_order.next().into_iter().flatten() {
                let (seconds, cg_norms) = time_one(cfg, impls[m].as_mut(), kernel)?;
                if run > 0 {
                    times[m][k].0.push(seconds);
                }
                if let Some(cg_norms) = cg_norms {
                    norms[m][k] = cg_norms;
                }
            }
        }
    }
    let lines = validate_all(cfg, &impls, times, &norms)?;
    drop(impls);
    if cfg.csv {
        setup.print_csv(&lines);
        for note in &notes {
            eprintln!("{note}");
        }
    } else {
        setup.print_table(&lines, &notes);
        setup.print_comparison(&lines);
    }
    let failed: Vec<String> = lines
        .iter()
        .filter(|l| !l.failures.is_empty())
        .map(|l| format!("{}: {}", l.short, l.failures.join("; ")))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Failure::Run(format!(
            "stencil: validation failed: {}",
            failed.join(" | ")
        )))
    }
}

/// One implementation's results: the sweep's final field, and per CG kind its solution and
/// residual norms.
struct Results<'a> {
    field: Vec<f64>,
    cg: (Vec<f64>, &'a [f64]),
    tea: (Vec<f64>, &'a [f64]),
}

/// Each implementation's line, its results (final sweep field; the residual `norms` and solution
/// of CG and of TeaLeaf-shaped CG) checked against ferrokkos', the first implementation's.
fn validate_all(
    cfg: &Config,
    impls: &[Box<dyn Implementation>],
    times: Vec<[Times; 3]>,
    norms: &[[Vec<f64>; 3]],
) -> Result<Vec<Line>, Failure> {
    let mut lines = Vec::new();
    let mut reference: Option<Results<'_>> = None;
    let at = |kernel: Kernel| KERNELS.iter().position(|&k| k == kernel).unwrap_or(0);
    let (cg_at, tea_at) = (at(Kernel::Cg), at(Kernel::Tea));
    for ((imp, times), norms) in impls.iter().zip(times).zip(norms) {
        let results = Results {
            field: imp.field()?,
            cg: (imp.cg_solution()?, &norms[cg_at]),
            tea: (imp.tea_solution()?, &norms[tea_at]),
        };
        let mut failures = Vec::new();
        match &reference {
            None => reference = Some(results),
            Some(r) => {
                if let Some(m) = validate::sweep_mismatch(&results.field, &r.field, cfg.grid) {
                    failures.push(format!("sweep: {m}"));
                }
                for (name, ours, theirs) in
                    [("cg", &results.cg, &r.cg), ("tea", &results.tea, &r.tea)]
                {
                    if let Some(m) =
                        validate::cg_mismatch(ours.1, theirs.1, &ours.0, &theirs.0, cfg.grid)
                    {
                        failures.push(format!("{name}: {m}"));
                    }
                }
            }
        }
        lines.push(Line {
            name: imp.name(),
            short: imp.short_name(),
            ferrokkos: imp.is_ferrokkos(),
            times,
            failures,
        });
    }
    Ok(lines)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ferrokkos stencil ARGS`, parsed as the program parses it.
    fn parse(args: &[&str]) -> Result<Config, clap::Error> {
        let line = ["ferrokkos", "stencil"].iter().chain(args);
        match crate::cli::parse(line)?.command {
            Some(crate::cli::Command::Stencil(args)) => Ok(Config::from(args)),
            other => panic!("{args:?} parsed as {other:?}"),
        }
    }

    #[test]
    fn defaults() {
        let cfg = parse(&[]).unwrap();
        assert_eq!(
            (cfg.grid.n, cfg.steps, cfg.iters, cfg.runs),
            (4096, 10, 20, 10)
        );
        assert_eq!(
            (cfg.space, cfg.compare, cfg.csv),
            (SpaceChoice::Best, false, false)
        );
    }

    #[test]
    fn options_parse() {
        let cfg = parse(&[
            "-n",
            "256",
            "--steps",
            "5",
            "--iters=10",
            "--runs",
            "2",
            "--compare",
            "--space",
            "Serial",
            "--csv",
        ])
        .unwrap();
        assert_eq!(
            (cfg.grid.n, cfg.steps, cfg.iters, cfg.runs),
            (256, 5, 10, 2)
        );
        assert_eq!(
            (cfg.space, cfg.compare, cfg.csv),
            (SpaceChoice::Serial, true, true)
        );
        let cfg = parse(&["--space=cuda", "-n", "1"]).unwrap();
        assert_eq!((cfg.space, cfg.grid.n), (SpaceChoice::Cuda, 1));
        let max = parse(&["-n", &MAX_N.to_string(), "--runs", &MANY.to_string()]).unwrap();
        assert_eq!((max.grid.n, max.runs as u64), (MAX_N, MANY));
        let help = parse(&["--help"]).map(|_| ()).unwrap_err();
        assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
        assert!(
            help.to_string()
                .contains("Usage: ferrokkos stencil [OPTIONS]")
        );
    }

    #[test]
    fn bad_options_are_usage_errors_naming_the_option() {
        let too_big = (MAX_N + 1).to_string();
        for (bad, says) in [
            (
                &["-n", "0"][..],
                "invalid value '0' for '-n <N>': expected an integer from 1 to 1048576",
            ),
            (&["-n", &too_big], "expected an integer from 1 to 1048576"),
            (&["-n", "-3"], "invalid value '-3' for '-n <N>'"),
            (&["-n"], "a value is required for '-n <N>'"),
            (
                &["--steps", "0"],
                "'--steps <S>': expected an integer from 1 to 1073741824",
            ),
            (
                &["--iters", "0"],
                "'--iters <I>': expected an integer from 1",
            ),
            (&["--runs", "0"], "'--runs <R>': expected an integer from 1"),
            (&["--runs", "many"], "invalid value 'many' for '--runs <R>'"),
            (
                &["--space", "gpu"],
                "invalid value 'gpu' for '--space <NAME>'",
            ),
            (&["--only", "cg"], "unexpected argument '--only'"),
        ] {
            let e = parse(bad).map(|_| ()).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad:?}");
            let e = e.to_string();
            assert!(e.contains(says), "{bad:?}: {e}");
            assert!(e.contains("\n\nUsage: ferrokkos stencil "), "{bad:?}: {e}");
        }
    }
}
