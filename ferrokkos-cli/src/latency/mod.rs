//! `ferrokkos latency`: the launch latency of `parallel_for` and `parallel_reduce`, measured as Kokkos'
//! `benchmarks/launch_latency` does; with `--compare` the same launches with rayon on the host
//! spaces, and on Cuda always raw launches of hand-written kernels with parameters of the same size.
//!
//! Kokkos' benchmark launches a functor holding `double values[V]` and a View `a` of N doubles, whose
//! body is `for j in 0..K { a(i) += 1.0 * i * values[j] }` (and `lsum += a(i)` for the reductions),
//! with K = 1. On the host spaces the functor is a closure capturing `[f64; V]` by value, so it is
//! as big as Kokkos' functor; on Cuda it is a `kernel!` capturing the array and a View in CudaSpace.

mod device;
mod measure;
#[cfg(feature = "peers")]
mod peer;
#[cfg(feature = "peers")]
mod raw;
mod report;

use ferrokkos::{
    Cuda, ExecutionSpace, HostExecutionSpace, InitSettings, Serial, SpaceChoice, Threads,
};

use crate::Failure;
use crate::options::{Options, parse_space};
use measure::{Ferrokkos, Implementation, Kinds};
use report::{Block, Report};

/// The measurements of one loop length and capture size: N, M, the capture in bytes, the figures.
type Measured = (usize, usize, usize, Kinds);

/// `ferrokkos latency --help`.
const USAGE: &str = "\
usage: ferrokkos latency [options]

The launch latency of parallel_for, parallel_reduce into a scalar and parallel_reduce into a rank-0
View (Kokkos' benchmarks/launch_latency), for loop lengths N = 1 and 100000 and kernels capturing
8 B, 1.6 kB and 24 kB. For each, in microseconds per launch, after 4 warm-up launches:
  dispatch     (M launches) / M
  throughput   (M launches + one fence) / M
  latency      M x (launch + fence) / M

On Cuda the kernels are kernel!s capturing the array and a View in CudaSpace, and the same run
measures raw launches of hand-written CUDA kernels (compiled by NVRTC) for comparison: a
cuLaunchKernel with a parameter struct of the same size (parallel_for, unfenced and fenced), a
single-pass reduce kernel plus a copy of the result to the host (parallel_reduce); the table gives
ferrokkos - raw in microseconds.

options:
  --space NAME             serial, threads or cuda (default: cuda when the process has a GPU,
                           else threads)
  -m M                     launches per timed loop (default 20000 up to N = 10000, then fewer:
                           2000 for N = 100000)
  -n N                     this loop length only
  --csv                    CSV rows instead of a table
  --compare                on serial and threads, also launch with rayon (a pool of as many
                           threads; no fence) and print rayon / ferrokkos (higher: ferrokkos
                           faster); on cuda the raw CUDA launches are always measured
  --kernels                on serial and threads, launch kernel!s (as on cuda: capturing the array
                           and a View) instead of closures
  -h, --help               this text";

/// The loop lengths run by default.
const LENGTHS: [usize; 2] = [1, 100_000];

/// The command's options.
#[derive(Debug)]
struct Config {
    /// `--space` (by default Cuda when the process has a GPU, else Threads, as Kokkos' default
    /// execution space).
    space: SpaceChoice,
    /// `-m`: launches per timed loop; by default it depends on N ([`default_m`]).
    m: Option<usize>,
    /// `-n`: a single loop length.
    n: Option<usize>,
    /// `--csv`.
    csv: bool,
    /// `--compare`.
    compare: bool,
    /// `--kernels`: on the host spaces, `kernel!`s instead of closures.
    kernels: bool,
}

impl Config {
    /// Parses the options; `None` for `--help`.
    fn parse(args: &[String]) -> Result<Option<Config>, Failure> {
        let mut config = Config {
            space: SpaceChoice::Best,
            m: None,
            n: None,
            csv: false,
            compare: false,
            kernels: false,
        };
        let mut options = Options::new("latency", args);
        while let Some(name) = options.next_name() {
            match name.as_str() {
                "-h" | "--help" => return Ok(None),
                "--space" => {
                    let space: String = options.value(&name).map_err(Failure::Usage)?;
                    config.space = parse_space("latency", &space).map_err(Failure::Usage)?;
                }
                "-m" => {
                    let m: usize = options.value(&name).map_err(Failure::Usage)?;
                    if m == 0 {
                        return Err(Failure::Usage("latency: -m must be at least 1".into()));
                    }
                    config.m = Some(m);
                }
                "-n" => config.n = Some(options.value(&name).map_err(Failure::Usage)?),
                "--csv" => config.csv = true,
                "--kernels" => config.kernels = true,
                "--compare" if cfg!(feature = "peers") => config.compare = true,
                "--compare" => {
                    return Err(Failure::Usage(
                        "latency: --compare needs ferrokkos-cli built with the `peers` feature"
                            .into(),
                    ));
                }
                _ => return Err(Failure::Usage(options.unknown(&name))),
            }
        }
        Ok(Some(config))
    }
}

impl Config {
    /// The `(N, M)` pairs to measure: the loop lengths (`-n`, else [`LENGTHS`]) with their launch
    /// counts (`-m`, else [`default_m`]).
    fn plan(&self) -> Vec<(usize, usize)> {
        let lengths = self.n.map_or(LENGTHS.to_vec(), |n| vec![n]);
        lengths
            .into_iter()
            .map(|n| (n, self.m.unwrap_or_else(|| default_m(n))))
            .collect()
    }
}

/// Launches per timed loop for loop length `n` when `-m` is not given: 20000 up to N = 10000, then
/// fewer so that each loop does about the same work (2000 for N = 100000), at least 20.
fn default_m(n: usize) -> usize {
    (200_000_000 / n.max(10_000)).max(20)
}

/// Runs the latency benchmark with the options `args`.
pub fn main(settings: InitSettings, args: &[String]) -> Result<(), Failure> {
    let Some(config) = Config::parse(args)? else {
        println!("{USAGE}");
        return Ok(());
    };
    let runtime = ferrokkos::initialize(settings)?;
    let outcome = match config.space.resolve() {
        SpaceChoice::Serial => Serial::default_instance()
            .map_err(Failure::from)
            .and_then(|exec| run(&exec, &config)),
        // An unusable Cuda (no GPU) is an error naming why.
        SpaceChoice::Cuda => Cuda::default_instance()
            .map_err(Failure::from)
            .and_then(|exec| device::run(&exec, &config)),
        SpaceChoice::Threads | SpaceChoice::Best => Threads::default_instance()
            .map_err(Failure::from)
            .and_then(|exec| run(&exec, &config)),
    };
    let finalized = runtime.finalize();
    outcome?;
    Ok(finalized?)
}

/// Measures every loop length and capture size on `exec` (all of ferrokkos, then all of rayon, so
/// that neither runs while the other's workers are busy), then prints the results.
fn run<S: HostExecutionSpace>(exec: &S, config: &Config) -> Result<(), Failure> {
    let plan = config.plan();
    let ferrokkos = if config.kernels {
        measure_all(&device::FerrokkosKernels(exec), &plan)?
    } else {
        measure_all(&Ferrokkos(exec), &plan)?
    };
    #[cfg(feature = "peers")]
    let rayon = match config.compare {
        true => Some(measure_all(&peer::Rayon::new(exec.concurrency())?, &plan)?),
        false => None,
    };
    #[cfg(not(feature = "peers"))]
    let rayon: Option<Vec<Measured>> = None;

    let space = match config.kernels {
        true => format!("{} (kernel!s)", S::NAME),
        false => S::NAME.to_string(),
    };
    let report = Report::new(config.csv, config.compare, space, exec.concurrency());
    report.header();
    for (i, &(n, m, capture, ferrokkos)) in ferrokkos.iter().enumerate() {
        let rayon = rayon.as_ref().map(|r| r[i].3);
        report.block(&Block {
            n,
            capture,
            m,
            ferrokkos,
            peer: rayon,
        });
    }
    Ok(())
}

/// Settles `imp`, then measures each `(N, M)` of `plan` with the three capture sizes, in that order.
fn measure_all<I: Implementation>(
    imp: &I,
    plan: &[(usize, usize)],
) -> Result<Vec<Measured>, Failure> {
    /// One capture size: `V` doubles.
    fn one<I: Implementation, const V: usize>(
        imp: &I,
        n: usize,
        m: usize,
    ) -> Result<Measured, Failure> {
        Ok((n, m, V * std::mem::size_of::<f64>(), imp.kinds::<V>(n, m)?))
    }
    imp.settle()?;
    let mut all = Vec::new();
    for &(n, m) in plan {
        all.push(one::<I, 1>(imp, n, m)?);
        all.push(one::<I, 200>(imp, n, m)?);
        all.push(one::<I, 3000>(imp, n, m)?);
    }
    Ok(all)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Option<Config>, Failure> {
        Config::parse(&args.iter().map(|a| a.to_string()).collect::<Vec<_>>())
    }

    #[test]
    fn options_parse() {
        let Ok(Some(c)) = parse(&["--space=serial", "-m", "7", "-n", "3", "--csv"]) else {
            panic!("valid options rejected");
        };
        assert_eq!(c.space, SpaceChoice::Serial);
        assert_eq!(
            (c.m, c.n, c.csv, c.compare, c.kernels),
            (Some(7), Some(3), true, false, false)
        );
        let Ok(Some(c)) = parse(&["--kernels"]) else {
            panic!("--kernels rejected");
        };
        assert!(c.kernels);
        assert!(matches!(
            parse(&[]),
            Ok(Some(Config {
                space: SpaceChoice::Best,
                ..
            }))
        ));
        for (name, space) in [
            ("serial", SpaceChoice::Serial),
            ("threads", SpaceChoice::Threads),
            ("cuda", SpaceChoice::Cuda),
            ("Cuda", SpaceChoice::Cuda),
        ] {
            let Ok(Some(c)) = parse(&["--space", name]) else {
                panic!("--space {name} rejected");
            };
            assert_eq!(c.space, space);
        }
        assert!(matches!(parse(&["--csv", "-h", "--bogus"]), Ok(None)));
    }

    #[test]
    fn bad_options_are_usage_errors() {
        let bad: [&[&str]; 8] = [
            &["-m", "0"],
            &["-m", "x"],
            &["-n"],
            &["--space", "gpu"],
            &["--space", "best"],
            &["--space"],
            &["--bogus"],
            &["--csv=yes"],
        ];
        for args in bad {
            assert!(matches!(parse(args), Err(Failure::Usage(_))), "{args:?}");
        }
    }

    #[test]
    fn default_m_keeps_the_work_per_loop_about_constant() {
        assert_eq!(
            (default_m(0), default_m(1), default_m(10_000)),
            (20_000, 20_000, 20_000)
        );
        assert_eq!((default_m(100_000), default_m(1 << 40)), (2_000, 20));
    }
}
