//! `ferrokkos latency`: the launch latency of `parallel_for` and `parallel_reduce`, measured as Kokkos'
//! `benchmarks/launch_latency` does, and with `--compare` the same launches with rayon.
//!
//! Kokkos' benchmark launches a functor holding `double values[V]` and a View `a` of N doubles, whose
//! body is `for j in 0..K { a(i) += 1.0 * i * values[j] }` (and `lsum += a(i)` for the reductions),
//! with K = 1. Here the functor is a closure capturing `[f64; V]` by value, so it is as big as
//! Kokkos' functor.

mod measure;
#[cfg(feature = "peers")]
mod peer;
mod report;

use ferrokkos::{ExecutionSpace, HostExecutionSpace, InitSettings, Serial, Threads};

use crate::Failure;
use crate::options::Options;
use measure::{Ferrokkos, Implementation, Kinds};
use report::{Block, Report};

/// The measurements of one loop length and capture size: N, M, the capture in bytes, the figures.
type Measured = (usize, usize, usize, Kinds);

const USAGE: &str = "\
usage: ferrokkos latency [options]

The launch latency of parallel_for, parallel_reduce into a scalar and parallel_reduce into a rank-0
View (Kokkos' benchmarks/launch_latency), for loop lengths N = 1 and 100000 and kernels capturing
8 B, 1.6 kB and 24 kB. For each, in microseconds per launch, after 4 warm-up launches:
  dispatch     (M launches) / M
  throughput   (M launches + one fence) / M
  latency      M x (launch + fence) / M

options:
  --space serial|threads   the execution space (default threads)
  -m M                     launches per timed loop (default 20000 up to N = 10000, then fewer:
                           2000 for N = 100000)
  -n N                     this loop length only
  --csv                    CSV rows instead of a table
  --compare                also launch with rayon (a pool of as many threads; no fence) and print
                           rayon / ferrokkos (higher: ferrokkos faster)
  -h, --help               this text";

/// The loop lengths run by default.
const LENGTHS: [usize; 2] = [1, 100_000];

/// The execution space to measure.
#[derive(Clone, Copy, Debug)]
enum Space {
    /// `ferrokkos::Serial`.
    Serial,
    /// `ferrokkos::Threads` (the default).
    Threads,
}

/// The command's options.
#[derive(Debug)]
struct Config {
    /// `--space`.
    space: Space,
    /// `-m`: launches per timed loop; by default it depends on N ([`default_m`]).
    m: Option<usize>,
    /// `-n`: a single loop length.
    n: Option<usize>,
    /// `--csv`.
    csv: bool,
    /// `--compare`.
    compare: bool,
}

impl Config {
    /// Parses the options; `None` for `--help`.
    fn parse(args: &[String]) -> Result<Option<Config>, Failure> {
        let mut config = Config {
            space: Space::Threads,
            m: None,
            n: None,
            csv: false,
            compare: false,
        };
        let mut options = Options::new("latency", args);
        while let Some(name) = options.next_name() {
            match name.as_str() {
                "-h" | "--help" => return Ok(None),
                "--space" => {
                    let space: String = options.value(&name).map_err(Failure::Usage)?;
                    config.space = match space.as_str() {
                        "serial" | "Serial" => Space::Serial,
                        "threads" | "Threads" => Space::Threads,
                        _ => {
                            return Err(Failure::Usage(format!(
                                "latency: unknown space {space:?} (serial or threads)"
                            )));
                        }
                    };
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
    let outcome = match config.space {
        Space::Serial => Serial::default_instance()
            .map_err(Failure::from)
            .and_then(|exec| run(&exec, &config)),
        Space::Threads => Threads::default_instance()
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
    let lengths = config.n.map_or(LENGTHS.to_vec(), |n| vec![n]);
    let plan: Vec<(usize, usize)> = lengths
        .into_iter()
        .map(|n| (n, config.m.unwrap_or_else(|| default_m(n))))
        .collect();
    let ferrokkos = measure_all(&Ferrokkos(exec), &plan)?;
    #[cfg(feature = "peers")]
    let rayon = match config.compare {
        true => Some(measure_all(&peer::Rayon::new(exec.concurrency())?, &plan)?),
        false => None,
    };
    #[cfg(not(feature = "peers"))]
    let rayon: Option<Vec<Measured>> = None;

    let report = Report::new(config.csv, config.compare, S::NAME, exec.concurrency());
    report.header();
    for (i, &(n, m, capture, ferrokkos)) in ferrokkos.iter().enumerate() {
        let rayon = rayon.as_ref().map(|r| r[i].3);
        report.block(&Block {
            n,
            capture,
            m,
            ferrokkos,
            rayon,
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
        assert!(matches!(c.space, Space::Serial));
        assert_eq!(
            (c.m, c.n, c.csv, c.compare),
            (Some(7), Some(3), true, false)
        );
        assert!(matches!(
            parse(&[]),
            Ok(Some(Config {
                space: Space::Threads,
                ..
            }))
        ));
        assert!(matches!(parse(&["--csv", "-h", "--bogus"]), Ok(None)));
    }

    #[test]
    fn bad_options_are_usage_errors() {
        let bad: [&[&str]; 6] = [
            &["-m", "0"],
            &["-m", "x"],
            &["-n"],
            &["--space", "gpu"],
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
