//! `ferrokkos spmv`: the sparse matrix-vector product y = A x in CSR form, A the 3D 7-point
//! Laplacian on an n x n x n grid, written with ferrokkos and measured against peers.
//!
//! ferrokkos runs it two ways, each a `kernel!` written once and run on Serial, Threads or Cuda as
//! chosen at run time (`--space`): over a `RangePolicy` of the rows (one row per iteration), and
//! over a `TeamPolicy` with blocks of rows per team, a `TeamThreadRange` over the rows and a
//! `ThreadVectorRange` reduction over each row. `--compare` adds, in the same
//! process and taking turns with them, peers: on the host a plain serial loop and rayon; on Cuda a
//! hand-written one-thread-per-row CUDA kernel (NVRTC) and cuSPARSE's SpMV. Every implementation's
//! y is checked against a serial reference computed once on the host; the report gives the best
//! and median time per product, the effective bandwidth, and the ratios peer / ferrokkos.

#[cfg(feature = "peers")]
mod cuda_peers;
#[cfg(feature = "peers")]
mod cusparse_peer;
mod ferrokkos_range;
mod ferrokkos_team;
mod host_peers;
mod matrix;
mod report;
mod validate;
mod views;

use std::sync::Arc;
use std::time::Instant;

#[cfg(feature = "peers")]
use ferrokkos::{ExecutionSpace, Threads};
use ferrokkos::{InitSettings, Launch, SpaceChoice, SpaceTask};

use crate::Failure;
use crate::options::{Options, parse_space};
use ferrokkos_range::{FerrokkosRange, on_device};
use ferrokkos_team::FerrokkosTeam;
use matrix::Csr;
use report::{Line, Problem, Times};

/// The default grid size: 120^3 = 1,728,000 rows and 12,009,600 nonzeros (at least 10 million).
const DEFAULT_SIZE: usize = 120;

/// The default number of timed products per implementation.
const DEFAULT_RUNS: usize = 100;

/// `ferrokkos spmv --help`.
const USAGE: &str = "\
usage: ferrokkos spmv [options]

The sparse matrix-vector product y = A x, A the 3D 7-point Laplacian on an n x n x n grid (6 on
the diagonal, -1 for each neighbour, Dirichlet boundaries) in CSR form (u32 row offsets, u32
column indices, f64 values). ferrokkos runs it as a kernel! over a RangePolicy of the rows (one
row per iteration) and as a kernel! over a TeamPolicy (blocks of rows per team: 256 on the host
spaces, team size x rows per thread on cuda; a TeamThreadRange over them, a ThreadVectorRange
reduction over each row). Every implementation's y
is checked against a serial reference (relative error at most 1e-12, else exit status 1). Prints
the best and median time per product and the effective bandwidth, from the bytes
nnz*(8+4) + (rows+1)*4 + rows*8*2 (values and column indices, row offsets, x read once, y written).

options:
  -s, --size N     grid size n (default 120: 1728000 rows, 12009600 nonzeros)
  -n, --runs K     timed products per implementation, after one warm-up (default 100)
      --space NAME serial, threads or cuda (default: cuda when the process has a GPU, else
                   threads)
      --compare    also run peers, taking turns with ferrokkos, and print peer time / ferrokkos
                   time: on serial and threads a plain serial loop and rayon (par_chunks_mut of
                   256 rows); on cuda a hand-written one-thread-per-row CUDA kernel (compiled by
                   NVRTC) and cuSPARSE's cusparseSpMV (CSR, CUSPARSE_SPMV_CSR_ALG1; reported as
                   unavailable when libcusparse cannot be loaded)
      --vector-length V    the team line's vector length (power of two up to 32; default 1)
      --rows-per-thread R  the team line's rows per team thread (default 1 on cuda, 256 on the
                           host spaces, whose teams have one thread)
      --team-schedule S    static or dynamic: how the team line's league is dealt to the host
                           threads (default dynamic)
  -h, --help       this text";

/// The parsed options.
#[derive(Debug)]
struct Config {
    /// `--size`: the grid size n.
    n: usize,
    /// `--runs`: timed products per implementation.
    runs: usize,
    /// `--space`: the execution space of the ferrokkos implementations.
    space: SpaceChoice,
    /// `--compare`.
    compare: bool,
    /// `--vector-length` and `--rows-per-thread`: the team line's shape (`None`: the space's
    /// default).
    team: ferrokkos_team::TeamShape,
}

/// Parses the options; `None` for `--help` (after printing the usage).
fn parse(args: &[String]) -> Result<Option<Config>, Failure> {
    let mut cfg = Config {
        n: DEFAULT_SIZE,
        runs: DEFAULT_RUNS,
        space: SpaceChoice::Best,
        compare: false,
        team: ferrokkos_team::TeamShape::default(),
    };
    let mut opts = Options::new("spmv", args);
    while let Some(name) = opts.next_name() {
        match name.as_str() {
            "-s" | "--size" => {
                cfg.n = opts.value(&name).map_err(Failure::Usage)?;
                let max = matrix::max_size();
                if cfg.n == 0 || cfg.n as u64 > max {
                    return Err(Failure::Usage(format!(
                        "spmv: the grid size must be between 1 and {max} (the nonzeros must fit \
                         32-bit indices), got {}",
                        cfg.n
                    )));
                }
            }
            "-n" | "--runs" => {
                cfg.runs = opts.value(&name).map_err(Failure::Usage)?;
                if cfg.runs == 0 {
                    return Err(Failure::Usage(
                        "spmv: the number of runs must be 1 or more".into(),
                    ));
                }
            }
            "--compare" => cfg.compare = true,
            "--vector-length" => {
                let v: usize = opts.value(&name).map_err(Failure::Usage)?;
                if !v.is_power_of_two() || v > 32 {
                    return Err(Failure::Usage(format!(
                        "spmv: the vector length must be a power of two from 1 to 32, got {v}"
                    )));
                }
                cfg.team.vector_length = Some(v);
            }
            "--team-schedule" => {
                let which: String = opts.value(&name).map_err(Failure::Usage)?;
                cfg.team.schedule = Some(match which.as_str() {
                    "static" => ferrokkos::Schedule::Static,
                    "dynamic" => ferrokkos::Schedule::Dynamic,
                    other => {
                        return Err(Failure::Usage(format!(
                            "spmv: the team schedule is static or dynamic, got {other:?}"
                        )));
                    }
                });
            }
            "--rows-per-thread" => {
                let r: usize = opts.value(&name).map_err(Failure::Usage)?;
                if r == 0 {
                    return Err(Failure::Usage(
                        "spmv: the rows per team thread must be 1 or more".into(),
                    ));
                }
                cfg.team.rows_per_thread = Some(r);
            }
            "--space" => {
                let which: String = opts.value(&name).map_err(Failure::Usage)?;
                cfg.space = parse_space("spmv", &which).map_err(Failure::Usage)?;
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

/// Runs `ferrokkos spmv` with the arguments after the command name.
pub fn main(settings: InitSettings, args: &[String]) -> Result<(), Failure> {
    let Some(cfg) = parse(args)? else {
        return Ok(());
    };
    crate::spaces::run_benchmark(settings, cfg.space, SpmvTask(&cfg), || {
        if cfg.space.resolve() == SpaceChoice::Cuda
            && let Ok(jit) = ferrokkos::Cuda::jit_stats()
        {
            println!(
                "Kernels: {} compiled by NVRTC (the first {:.1} ms), {} loaded from the disk \
                 cache, each from its first launch to loaded code",
                jit.compiled,
                jit.first_compile.as_secs_f64() * 1e3,
                jit.from_disk,
            );
        }
    })
}

/// The host side of the benchmark: the matrix, x and the serial reference y = A x.
struct Host {
    /// The matrix.
    a: Arc<Csr>,
    /// The input vector.
    x: Arc<Vec<f64>>,
    /// The reference product.
    reference: Vec<f64>,
}

impl Host {
    /// Builds the matrix of grid size `n` and x, and computes the reference once.
    fn new(n: usize) -> Result<Host, Failure> {
        let a = Csr::laplacian_3d(n).map_err(Failure::Run)?;
        let x = a.input().map_err(Failure::Run)?;
        let reference = a.reference(&x).map_err(Failure::Run)?;
        Ok(Host {
            a: Arc::new(a),
            x: Arc::new(x),
            reference,
        })
    }
}

/// One way of computing y = A x: ferrokkos, or a peer. Each has its own copy of the matrix and
/// vectors (the plain loop shares the reference's), and its y starts as NaN.
pub trait Implementation {
    /// The full name, for the list of implementations.
    fn name(&self) -> String;
    /// A short name, for the table and the comparison.
    fn short_name(&self) -> &'static str;
    /// Whether it is one of ferrokkos' implementations (the others are peers).
    fn is_ferrokkos(&self) -> bool {
        false
    }
    /// One product, to completion (fenced or synchronized).
    fn run(&mut self) -> Result<(), Failure>;
    /// y, on the host.
    fn result(&self) -> Result<Vec<f64>, Failure>;
}

/// An implementation that could not run here, and why (a peer whose library is missing).
pub struct Unavailable {
    /// Its name.
    pub name: String,
    /// Why it did not run.
    pub reason: String,
}

/// The benchmark as a [`SpaceTask`]: [`ferrokkos::run_on`] calls its `run` with the instance of the
/// space chosen at run time (so an unusable space fails before the matrix is built).
struct SpmvTask<'c>(&'c Config);

impl SpaceTask for SpmvTask<'_> {
    type Output = Result<(), Failure>;

    fn run<S: Launch>(self, exec: &S) -> ferrokkos::Result<Self::Output> {
        Ok(Host::new(self.0.n).and_then(|host| run(self.0, &host, exec)))
    }
}

/// Implementations, and those that do not run here with why.
pub type Lineup = (Vec<Box<dyn Implementation>>, Vec<Unavailable>);

/// The ferrokkos implementations on `exec` (a range and a team kernel), then with
/// `--compare` the peers of the space.
fn implementations<S: Launch>(cfg: &Config, host: &Host, exec: &S) -> Result<Lineup, Failure> {
    let (a, x) = (&*host.a, &host.x[..]);
    let mut list: Vec<Box<dyn Implementation>> =
        vec![Box::new(FerrokkosRange::new(exec.clone(), a, x)?)];
    #[cfg_attr(not(feature = "peers"), allow(unused_mut))] // the device peers' missing ones
    let mut unavailable = Vec::new();
    list.push(Box::new(FerrokkosTeam::new(exec.clone(), a, x, cfg.team)?));
    if !cfg.compare {
        return Ok((list, unavailable));
    }
    if on_device::<S>() {
        #[cfg(feature = "peers")]
        {
            let (peers, missing) = cuda_peers::peers(a, x)?;
            list.extend(peers);
            unavailable.extend(missing);
        }
        #[cfg(not(feature = "peers"))]
        return Err(Failure::Run(
            "spmv: --compare on a device needs ferrokkos-cli built with the `peers` feature".into(),
        ));
    } else {
        list.push(Box::new(host_peers::PlainLoop::new(
            Arc::clone(&host.a),
            Arc::clone(&host.x),
        )));
        #[cfg(feature = "peers")]
        list.push(Box::new(host_peers::Rayon::new(
            a,
            x,
            Threads::default_instance()?.concurrency(),
        )?));
    }
    Ok((list, unavailable))
}

/// Runs the benchmark on `exec`: the header, every implementation's products taking turns,
/// validation, the tables.
fn run<S: Launch>(cfg: &Config, host: &Host, exec: &S) -> Result<(), Failure> {
    let problem = Problem {
        n: host.a.n,
        rows: host.a.rows(),
        nnz: host.a.nnz(),
        bytes: matrix::bytes_moved(host.a.rows(), host.a.nnz()),
        runs: cfg.runs,
    };
    problem.print_header(&crate::spaces::describe(exec));
    let (mut impls, unavailable) = implementations(cfg, host, exec)?;
    let mut times = vec![Times::default(); impls.len()];
    let orders = crate::schedule::permutations(impls.len());
    let mut next_order = orders.iter().cycle();
    // Repetition 0 is the warm-up (on Cuda it compiles the ferrokkos kernel), not timed.
    for rep in 0..=cfg.runs {
        for &m in next_order.next().into_iter().flatten() {
            let start = Instant::now();
            impls[m].run()?;
            let seconds = start.elapsed().as_secs_f64();
            if rep > 0 {
                times[m].0.push(seconds);
            }
        }
    }
    let mut lines = Vec::new();
    for (imp, times) in impls.iter().zip(times) {
        lines.push(Line {
            name: imp.name(),
            short: imp.short_name(),
            ferrokkos: imp.is_ferrokkos(),
            times,
            error: validate::relative_error(&imp.result()?, &host.reference),
        });
    }
    drop(impls);
    let not_run: Vec<(String, String)> = unavailable
        .into_iter()
        .map(|u| (u.name, u.reason))
        .collect();
    problem.print_table(&lines, &not_run);
    problem.print_comparison(&lines);
    let failed: Vec<String> = lines
        .iter()
        .filter(|l| !validate::passes(l.error))
        .map(|l| format!("{}: relative error {:.2e}", l.name, l.error))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Failure::Run(format!(
            "spmv: validation failed (tolerance {:e}): {}",
            validate::TOLERANCE,
            failed.join(" | ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(v: &[&str]) -> Vec<String> {
        v.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn defaults_have_at_least_ten_million_nonzeros() {
        let cfg = parse(&[]).unwrap().unwrap();
        assert_eq!(
            (cfg.n, cfg.runs, cfg.space, cfg.compare),
            (120, 100, SpaceChoice::Best, false)
        );
        assert!(matrix::nnz_of(cfg.n as u64).unwrap() >= 10_000_000);
    }

    #[test]
    fn options_parse() {
        let cfg = parse(&args(&[
            "--size",
            "60",
            "--runs=3",
            "--space",
            "Serial",
            "--compare",
        ]))
        .unwrap()
        .unwrap();
        assert_eq!(
            (cfg.n, cfg.runs, cfg.space, cfg.compare),
            (60, 3, SpaceChoice::Serial, true)
        );
        let cfg = parse(&args(&["-s", "7", "-n", "1", "--space=cuda"]))
            .unwrap()
            .unwrap();
        assert_eq!((cfg.n, cfg.runs, cfg.space), (7, 1, SpaceChoice::Cuda));
        assert_eq!(cfg.team, ferrokkos_team::TeamShape::default());
        let cfg = parse(&args(&["--vector-length", "4", "--rows-per-thread=3"]))
            .unwrap()
            .unwrap();
        assert_eq!(
            (cfg.team.vector_length, cfg.team.rows_per_thread),
            (Some(4), Some(3))
        );
    }

    #[test]
    fn bad_options_are_usage_errors() {
        let too_big = (matrix::max_size() + 1).to_string();
        for bad in [
            &["--size", "0"][..],
            &["--size", &too_big],
            &["--size", "99999999999999999999999"],
            &["--size", "-3"],
            &["--size", "ten"],
            &["--size"],
            &["--runs", "0"],
            &["--space", "gpu"],
            &["--space", "best"],
            &["--only", "dot"],
            &["--vector-length", "3"],
            &["--vector-length", "64"],
            &["--vector-length", "0"],
            &["--rows-per-thread", "0"],
            &["--team-schedule", "guided"],
        ] {
            assert!(
                matches!(parse(&args(bad)), Err(Failure::Usage(_))),
                "{bad:?}"
            );
        }
        let max = matrix::max_size().to_string();
        assert!(parse(&args(&["--size", &max])).is_ok());
    }
}
