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

use ferrokkos::traits::Launch;
#[cfg(feature = "peers")]
use ferrokkos::{ExecutionSpace, Threads};
use ferrokkos::{InitSettings, SpaceChoice, SpaceTask};

use crate::Failure;
use crate::cli::{SpaceArg, integer, space_choice};
use ferrokkos_range::{FerrokkosRange, on_device};
use ferrokkos_team::FerrokkosTeam;
use matrix::Csr;
use report::{Line, Problem, Times};

/// The default grid size: 120^3 = 1,728,000 rows and 12,009,600 nonzeros (at least 10 million).
const DEFAULT_SIZE: usize = 120;

/// The default number of timed products per implementation.
const DEFAULT_RUNS: usize = 100;

/// `ferrokkos spmv --help`: what the command does, before the options.
pub const LONG_ABOUT: &str = "\
The sparse matrix-vector product y = A x, A the 3D 7-point Laplacian on an n x n x n grid (6 on
the diagonal, -1 for each neighbour, Dirichlet boundaries) in CSR form (u32 row offsets, u32
column indices, f64 values). ferrokkos runs it as a kernel! over a RangePolicy of the rows (one
row per iteration) and as a kernel! over a TeamPolicy (blocks of rows per team: 256 on the host
spaces, team size x rows per thread on cuda; a TeamThreadRange over them, a ThreadVectorRange
reduction over each row). Every implementation's y is checked against a serial reference
(relative error at most 1e-12, else exit status 1). Prints the best and median time per product
and the effective bandwidth, from the bytes
nnz*(8+4) + (rows+1)*4 + rows*8*2 (values and column indices, row offsets, x read once, y written).";

/// How the team line's league is dealt to the host threads (`--team-schedule`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, clap::ValueEnum)]
pub enum TeamSchedule {
    /// Blocks of teams fixed in advance.
    Static,
    /// Teams taken as threads come free.
    Dynamic,
}

/// The options of `ferrokkos spmv`.
#[derive(Debug, clap::Args)]
#[command(args_override_self = true)]
pub struct Args {
    /// grid size n (default 120: 1728000 rows, 12009600 nonzeros; the
    /// nonzeros must fit 32-bit indices)
    #[arg(
        short = 's',
        long,
        value_name = "N",
        default_value_t = DEFAULT_SIZE,
        value_parser = integer::<usize>(1, matrix::max_size()),
        allow_negative_numbers = true,
        hide_default_value = true,
        verbatim_doc_comment
    )]
    size: usize,
    /// timed products per implementation, after one warm-up
    #[arg(
        short = 'n',
        long,
        value_name = "K",
        default_value_t = DEFAULT_RUNS,
        value_parser = integer::<usize>(1, u64::MAX),
        allow_negative_numbers = true
    )]
    runs: usize,
    #[command(flatten)]
    space: SpaceArg,
    /// also run peers, taking turns with ferrokkos, and print peer time /
    /// ferrokkos time: on serial and threads a plain serial loop and rayon
    /// (par_chunks_mut of 256 rows); on cuda a hand-written one-thread-per-row
    /// CUDA kernel (compiled by NVRTC) and cuSPARSE's cusparseSpMV (CSR,
    /// CUSPARSE_SPMV_CSR_ALG1; reported as unavailable when libcusparse
    /// cannot be loaded)
    #[arg(long, verbatim_doc_comment)]
    compare: bool,
    /// the team line's vector length (power of two up to 32; default 1)
    #[arg(long, value_name = "V", value_parser = vector_length, allow_negative_numbers = true)]
    vector_length: Option<usize>,
    /// the team line's rows per team thread (default 1 on cuda, 256 on the
    /// host spaces, whose teams have one thread)
    #[arg(
        long,
        value_name = "R",
        value_parser = integer::<usize>(1, u64::MAX),
        allow_negative_numbers = true,
        verbatim_doc_comment
    )]
    rows_per_thread: Option<usize>,
    /// static or dynamic: how the team line's league is dealt to the host
    /// threads (default dynamic)
    #[arg(
        long,
        value_name = "S",
        hide_possible_values = true,
        verbatim_doc_comment
    )]
    team_schedule: Option<TeamSchedule>,
}

/// The value of `--vector-length`: a power of two from 1 to 32.
fn vector_length(text: &str) -> Result<usize, String> {
    text.parse::<usize>()
        .ok()
        .filter(|v| v.is_power_of_two() && *v <= 32)
        .ok_or_else(|| "expected a power of two from 1 to 32".into())
}

/// The options, as the benchmark uses them.
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
    /// `--vector-length`, `--rows-per-thread` and `--team-schedule`: the team line's shape
    /// (`None`: the space's default).
    team: ferrokkos_team::TeamShape,
}

impl From<Args> for Config {
    fn from(args: Args) -> Config {
        Config {
            n: args.size,
            runs: args.runs,
            space: space_choice(args.space),
            compare: args.compare,
            team: ferrokkos_team::TeamShape {
                vector_length: args.vector_length,
                rows_per_thread: args.rows_per_thread,
                schedule: args.team_schedule.map(|s| match s {
                    TeamSchedule::Static => ferrokkos::Schedule::Static,
                    TeamSchedule::Dynamic => ferrokkos::Schedule::Dynamic,
                }),
            },
        }
    }
}

/// Runs `ferrokkos spmv` with its options.
pub fn main(settings: InitSettings, args: Args) -> Result<(), Failure> {
    let cfg = Config::from(args);
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

    /// `ferrokkos spmv ARGS`, parsed as the program parses it.
    fn parse(args: &[&str]) -> Result<Config, clap::Error> {
        let line = ["ferrokkos", "spmv"].iter().chain(args);
        match crate::cli::parse(line)?.command {
            Some(crate::cli::Command::Spmv(args)) => Ok(Config::from(args)),
            other => panic!("{args:?} parsed as {other:?}"),
        }
    }

    #[test]
    fn defaults_have_at_least_ten_million_nonzeros() {
        let cfg = parse(&[]).unwrap();
        assert_eq!(
            (cfg.n, cfg.runs, cfg.space, cfg.compare),
            (120, 100, SpaceChoice::Best, false)
        );
        assert_eq!(cfg.team, ferrokkos_team::TeamShape::default());
        assert!(matrix::nnz_of(cfg.n as u64).unwrap() >= 10_000_000);
    }

    #[test]
    fn options_parse() {
        let cfg = parse(&["--size", "60", "--runs=3", "--space", "Serial", "--compare"]).unwrap();
        assert_eq!(
            (cfg.n, cfg.runs, cfg.space, cfg.compare),
            (60, 3, SpaceChoice::Serial, true)
        );
        let cfg = parse(&["-s", "7", "-n", "1", "--space=cuda"]).unwrap();
        assert_eq!((cfg.n, cfg.runs, cfg.space), (7, 1, SpaceChoice::Cuda));
        assert_eq!(cfg.team, ferrokkos_team::TeamShape::default());
        let cfg = parse(&[
            "--vector-length",
            "4",
            "--rows-per-thread=3",
            "--team-schedule",
            "static",
        ])
        .unwrap();
        assert_eq!(
            cfg.team,
            ferrokkos_team::TeamShape {
                vector_length: Some(4),
                rows_per_thread: Some(3),
                schedule: Some(ferrokkos::Schedule::Static),
            }
        );
        let cfg = parse(&["--team-schedule=dynamic", "--vector-length", "32"]).unwrap();
        assert_eq!(cfg.team.schedule, Some(ferrokkos::Schedule::Dynamic));
        assert_eq!(cfg.team.vector_length, Some(32));
    }

    #[test]
    fn bad_options_are_usage_errors_saying_what_is_expected() {
        let max = matrix::max_size();
        let too_big = (max + 1).to_string();
        let size = format!("expected an integer from 1 to {max}");
        for (bad, says) in [
            (&["--size", "0"][..], size.as_str()),
            (&["--size", &too_big], &size),
            (&["--size", "99999999999999999999999"], &size),
            (&["--size", "-3"], &size),
            (&["--size", "ten"], &size),
            (&["--size"], "a value is required for '--size <N>'"),
            (&["--runs", "0"], "expected a positive integer"),
            (
                &["--space", "gpu"],
                "[possible values: serial, threads, cuda]",
            ),
            (
                &["--space", "best"],
                "[possible values: serial, threads, cuda]",
            ),
            (&["--only", "dot"], "unexpected argument '--only'"),
            (
                &["--vector-length", "3"],
                "expected a power of two from 1 to 32",
            ),
            (
                &["--vector-length", "64"],
                "expected a power of two from 1 to 32",
            ),
            (
                &["--vector-length", "0"],
                "expected a power of two from 1 to 32",
            ),
            (&["--rows-per-thread", "0"], "expected a positive integer"),
            (
                &["--team-schedule", "guided"],
                "[possible values: static, dynamic]",
            ),
        ] {
            let e = parse(bad).map(|_| ()).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad:?}");
            let e = e.to_string();
            assert!(e.contains(says), "{bad:?}: {e}");
            assert!(e.contains("\n\nUsage: ferrokkos spmv "), "{bad:?}: {e}");
        }
        assert_eq!(parse(&["--size", &max.to_string()]).unwrap().n as u64, max);
    }
}
