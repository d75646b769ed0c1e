//! `ferrokkos stencil`: a 2D 9-point stencil sweep and a matrix-free CG iteration on an n x n grid
//! with one halo layer, written with ferrokkos (`kernel!`s over rank-2 `MDRangePolicy`s) and
//! measured against peers.
//!
//! ferrokkos runs on Serial, Threads or Cuda as chosen at run time (`--space`). `--compare` on the
//! host spaces adds, in the same process and taking turns with it run by run, the same loop nests
//! hand-written in Rust (plain nested loops over slices on Serial, rayon's `par_chunks_mut` over
//! the rows on Threads) and in C with OpenMP (`csrc/stencil_omp.c`), each on as many threads as the
//! space. Every peer's final sweep field must equal ferrokkos' bit for bit and its CG residual
//! norms and solution must agree within 1e-8 (relative: the dot products add in different orders,
//! and CG amplifies the difference); a mismatch is exit status 1. The report gives the best and
//! median time per sweep step and per CG iteration, the effective bandwidth, and the ratios
//! peer / ferrokkos.

mod cg;
mod ferrokkos_impl;
#[cfg(all(feature = "peers", not(ferrokkos_no_openmp)))]
mod openmp_peer;
mod ping_pong;
mod problem;
mod report;
#[cfg(feature = "peers")]
mod rust_peer;
mod validate;

use std::time::Instant;

use ferrokkos::{InitSettings, Launch, SpaceChoice, SpaceTask};

use crate::Failure;
use crate::options::{Options, parse_space};
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

/// `ferrokkos stencil --help`.
const USAGE: &str = "\
usage: ferrokkos stencil [options]

Two kernels on an n x n grid of f64 with one halo layer, written with ferrokkos as kernel!s over
rank-2 MDRangePolicies:
  sweep  v = 0.5 u + 0.1 (4 edge neighbours) + 0.025 (4 corners) on the interior, the halo fixed
         (Dirichlet), two fields taking turns; timed per step
  cg     conjugate gradients on the 5-point Laplacian of the interior (zero halo) from x = 0, a
         fixed number of iterations (one operator apply, two dot products with Sum, three
         updates each; no convergence test); timed per iteration
Prints the best and median time per step and per iteration, and the effective bandwidth (sweep 16
bytes, cg iteration 112 bytes per interior cell).

options:
  -n N             interior cells per direction (default 4096)
      --steps S    sweep steps per run (default 10)
      --iters I    CG iterations per run (default 20)
      --runs R     timed runs per implementation, after one warm-up (default 10)
      --space NAME serial, threads or cuda (default: cuda when the process has a GPU, else
                   threads)
      --compare    on serial and threads, also run the same loop nests hand-written in Rust (plain
                   nested loops on serial, rayon par_chunks_mut over the rows on threads) and in C
                   with OpenMP (parallel for over the rows), as many threads as the space, taking
                   turns with ferrokkos run by run; print peer time / ferrokkos time, and check
                   that each peer's sweep field equals ferrokkos' bit for bit and its CG residual
                   norms and solution agree within 1e-8 (else exit status 1)
      --csv        print CSV instead of tables
  -h, --help       this text";

/// The parsed options.
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

/// The value of the count option `name`, at least 1 and at most `max`.
fn count(opts: &mut Options, name: &str, max: usize) -> Result<usize, Failure> {
    let v: usize = opts.value(name).map_err(Failure::Usage)?;
    if v == 0 || v > max {
        return Err(Failure::Usage(format!(
            "stencil: {name} must be between 1 and {max}, got {v}"
        )));
    }
    Ok(v)
}

/// Parses the options; `None` for `--help` (after printing the usage).
fn parse(args: &[String]) -> Result<Option<Config>, Failure> {
    let mut cfg = Config {
        grid: Grid { n: DEFAULT_N },
        steps: 10,
        iters: 20,
        runs: 10,
        space: SpaceChoice::Best,
        compare: false,
        csv: false,
    };
    // Steps, iterations and runs: any count a person would wait for.
    let many = 1 << 30;
    let mut opts = Options::new("stencil", args);
    while let Some(name) = opts.next_name() {
        match name.as_str() {
            "-n" => cfg.grid.n = count(&mut opts, &name, MAX_N)?,
            "--steps" => cfg.steps = count(&mut opts, &name, many)?,
            "--iters" => cfg.iters = count(&mut opts, &name, many)?,
            "--runs" => cfg.runs = count(&mut opts, &name, many)?,
            "--compare" => cfg.compare = true,
            "--csv" => cfg.csv = true,
            "--space" => {
                let which: String = opts.value(&name).map_err(Failure::Usage)?;
                cfg.space = parse_space("stencil", &which).map_err(Failure::Usage)?;
            }
            "-h" | "--help" => {
                println!("{USAGE}");
                return Ok(None);
            }
            other => return Err(Failure::Usage(opts.unknown(other))),
        }
    }
    Ok(Some(cfg))
}

/// Runs `ferrokkos stencil` with the arguments after the command name.
pub fn main(settings: InitSettings, args: &[String]) -> Result<(), Failure> {
    let Some(cfg) = parse(args)? else {
        return Ok(());
    };
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
        return Ok((
            list,
            vec!["no peers on cuda: --compare compares on serial and threads".into()],
        ));
    }
    host_peers(cfg, exec, list)
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

/// Runs one timed unit of `kernel` on `imp`: `steps` sweeps, or CG from its start for `iters`
/// iterations (the reset and the start's `r . r` not timed). Returns the seconds per step or
/// iteration, and CG's residual norms.
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
    let mut times = vec![[Times::default(), Times::default()]; impls.len()];
    let mut norms = vec![Vec::new(); impls.len()];
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
                    norms[m] = cg_norms;
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

/// Each implementation's line, its results (final sweep field; CG's residual `norms` and
/// solution) checked against ferrokkos', the first implementation's.
fn validate_all(
    cfg: &Config,
    impls: &[Box<dyn Implementation>],
    times: Vec<[Times; 2]>,
    norms: &[Vec<f64>],
) -> Result<Vec<Line>, Failure> {
    let mut lines = Vec::new();
    let mut reference: Option<(Vec<f64>, Vec<f64>, &[f64])> = None;
    for ((imp, times), norms) in impls.iter().zip(times).zip(norms) {
        let (field, x) = (imp.field()?, imp.cg_solution()?);
        let mut failures = Vec::new();
        match &reference {
            None => reference = Some((field, x, norms)),
            Some((ref_field, ref_x, ref_norms)) => {
                if let Some(m) = validate::sweep_mismatch(&field, ref_field, cfg.grid) {
                    failures.push(format!("sweep: {m}"));
                }
                if let Some(m) = validate::cg_mismatch(norms, ref_norms, &x, ref_x, cfg.grid) {
                    failures.push(format!("cg: {m}"));
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

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn defaults() {
        let cfg = parse(&[]).unwrap().unwrap();
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
        let cfg = parse(&args(&[
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
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(
            (cfg.grid.n, cfg.steps, cfg.iters, cfg.runs),
            (256, 5, 10, 2)
        );
        assert_eq!(
            (cfg.space, cfg.compare, cfg.csv),
            (SpaceChoice::Serial, true, true)
        );
        let cfg = parse(&args(&["--space=cuda", "-n", "1"])).unwrap().unwrap();
        assert_eq!((cfg.space, cfg.grid.n), (SpaceChoice::Cuda, 1));
        assert!(parse(&args(&["--help"])).unwrap().is_none());
    }

    #[test]
    fn bad_options_are_usage_errors_naming_the_option() {
        let too_big = (MAX_N + 1).to_string();
        for (bad, says) in [
            (&["-n", "0"][..], "-n must be between 1 and 1048576, got 0"),
            (&["-n", &too_big], "-n must be between"),
            (&["-n", "-3"], "invalid value \"-3\" for -n"),
            (&["-n"], "option -n needs a value"),
            (&["--steps", "0"], "--steps must be between"),
            (&["--iters", "0"], "--iters must be between"),
            (&["--runs", "0"], "--runs must be between"),
            (&["--runs", "many"], "invalid value"),
            (&["--space", "gpu"], "unknown space \"gpu\""),
            (&["--only", "cg"], "unknown option \"--only\""),
        ] {
            match parse(&args(bad)) {
                Err(Failure::Usage(m)) => {
                    assert!(
                        m.starts_with("stencil: ") && m.contains(says),
                        "{bad:?}: {m}"
                    )
                }
                other => panic!("{bad:?}: {other:?}"),
            }
        }
    }
}
