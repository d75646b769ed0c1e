//! The options of `ferrokkos latency` and its usage text.

use ferrokkos::SpaceChoice;

use crate::Failure;
use crate::options::{Options, parse_space};

/// `ferrokkos latency --help`.
pub const USAGE: &str = "\
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

Then graphs (kernel!s on every space), in microseconds per call with the same three figures
(a call: the launches of one step, or one graph submit; M calls per timed loop, default 1000),
medians of 5 rounds:
  halo: 8 launches       a halo update of a 512 x 512 grid with one ghost layer: 8 kernels of 512
                         iterations in a chain (4 pack the edges into buffers, 4 add the buffers
                         to the opposite ghost rows and columns), launched one by one
  halo: create_graph     the same 8 as a graph, a chain of then_parallel_for: one submit per call
  halo: Graph::capture   the same 8 launches captured as a graph: one submit per call
  graph of 1 kernel      a graph of one kernel of 1 iteration (its throughput: a graph launch)
  graph of 65 kernels    a chain of 65 such kernels
  per kernel (65 - 1)/64 what one more kernel costs in a graph
followed by 8 launches / graph and the issue's targets (a halo update as a graph <= 15 us, a
kernel in a graph <= 1.5 us, latency figures). On Cuda the same rows are measured with raw CUDA
for comparison: the kernels by hand (NVRTC), 8 cuLaunchKernel, and the same launches captured
from a stream into CUDA graphs replayed by cuGraphLaunch (cuStreamSynchronize as the fence); the
table gives raw / ferrokkos (higher: ferrokkos faster).

options:
  --space NAME             serial, threads or cuda (default: cuda when the process has a GPU,
                           else threads)
  -m M                     launches per timed loop (default 20000 up to N = 10000, then fewer:
                           2000 for N = 100000); for the graph rows, calls per timed loop
                           (default 1000)
  -n N                     this loop length only
  --csv                    CSV rows instead of a table
  --compare                on serial and threads, also launch with rayon (a pool of as many
                           threads; no fence) and print rayon / ferrokkos (higher: ferrokkos
                           faster); on cuda the raw CUDA launches are always measured
  --kernels                on serial and threads, launch kernel!s (as on cuda: capturing the array
                           and a View) instead of closures
  --no-graphs              without the graph rows
  -h, --help               this text";

/// The loop lengths run by default.
const LENGTHS: [usize; 2] = [1, 100_000];

/// The command's options.
#[derive(Debug)]
pub struct Config {
    /// `--space` (by default Cuda when the process has a GPU, else Threads, as Kokkos' default
    /// execution space).
    pub space: SpaceChoice,
    /// `-m`: launches per timed loop; by default it depends on N ([`default_m`]).
    pub m: Option<usize>,
    /// `-n`: a single loop length.
    pub n: Option<usize>,
    /// `--csv`.
    pub csv: bool,
    /// `--compare`.
    pub compare: bool,
    /// `--kernels`: on the host spaces, `kernel!`s instead of closures.
    pub kernels: bool,
    /// `--no-graphs`: without the graph rows.
    pub no_graphs: bool,
}

impl Config {
    /// Parses the options; `None` for `--help`.
    pub fn parse(args: &[String]) -> Result<Option<Config>, Failure> {
        let mut config = Config {
            space: SpaceChoice::Best,
            m: None,
            n: None,
            csv: false,
            compare: false,
            kernels: false,
            no_graphs: false,
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
                "--no-graphs" => config.no_graphs = true,
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
    pub fn plan(&self) -> Vec<(usize, usize)> {
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
        let Ok(Some(c)) = parse(&["--kernels", "--no-graphs"]) else {
            panic!("--kernels --no-graphs rejected");
        };
        assert!(c.kernels && c.no_graphs);
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
