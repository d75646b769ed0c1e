//! The options of `ferrokkos latency` and its help.

use ferrokkos::SpaceChoice;

use crate::Failure;
use crate::cli::{SpaceArg, integer, space_choice};

/// `ferrokkos latency --help`: what the command measures, before the options.
pub const LONG_ABOUT: &str = "\
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
followed by 8 launches / graph and the targets (a halo update as a graph <= 15 us, a
kernel in a graph <= 1.5 us, latency figures). On Cuda the same rows are measured with raw CUDA
for comparison: the kernels by hand (NVRTC), 8 cuLaunchKernel, and the same launches captured
from a stream into CUDA graphs replayed by cuGraphLaunch (cuStreamSynchronize as the fence); the
table gives raw / ferrokkos (higher: ferrokkos faster).";

/// The options of `ferrokkos latency`, as clap parses them.
#[derive(Debug, clap::Args)]
#[command(args_override_self = true)]
pub struct Args {
    #[command(flatten)]
    space: SpaceArg,
    /// launches per timed loop (default 20000 up to N = 10000, then fewer:
    /// 2000 for N = 100000); for the graph rows, calls per timed loop
    /// (default 1000)
    #[arg(
        short = 'm',
        value_name = "M",
        value_parser = integer::<usize>(1, u64::MAX),
        allow_negative_numbers = true,
        verbatim_doc_comment
    )]
    m: Option<usize>,
    /// this loop length only
    #[arg(
        short = 'n',
        value_name = "N",
        value_parser = integer::<usize>(0, u64::MAX),
        allow_negative_numbers = true
    )]
    n: Option<usize>,
    /// CSV rows instead of a table
    #[arg(long)]
    csv: bool,
    /// on serial and threads, also launch with rayon (a pool of as many
    /// threads; no fence) and print rayon / ferrokkos (higher: ferrokkos
    /// faster); on cuda the raw CUDA launches are always measured
    #[arg(long, verbatim_doc_comment)]
    compare: bool,
    /// on serial and threads, launch kernel!s (as on cuda: capturing the array
    /// and a View) instead of closures
    #[arg(long, verbatim_doc_comment)]
    kernels: bool,
    /// without the graph rows
    #[arg(long)]
    no_graphs: bool,
}

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

impl TryFrom<Args> for Config {
    type Error = Failure;

    /// The options as the benchmark uses them; `--compare` is a usage error in a build without
    /// the peers.
    fn try_from(args: Args) -> Result<Config, Failure> {
        if args.compare && !cfg!(feature = "peers") {
            return Err(Failure::Usage(crate::cli::usage_error(
                "latency",
                "--compare needs ferrokkos-cli built with the `peers` feature",
            )));
        }
        Ok(Config {
            space: space_choice(args.space),
            m: args.m,
            n: args.n,
            csv: args.csv,
            compare: args.compare,
            kernels: args.kernels,
            no_graphs: args.no_graphs,
        })
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

    /// `ferrokkos latency ARGS`, parsed as the program parses it.
    fn parse(args: &[&str]) -> Result<Config, Failure> {
        let line = ["ferrokkos", "latency"].iter().chain(args);
        match crate::cli::parse(line).map_err(Failure::Usage)?.command {
            Some(crate::cli::Command::Latency(args)) => Config::try_from(args),
            other => panic!("{args:?} parsed as {other:?}"),
        }
    }

    #[test]
    fn options_parse() {
        let Ok(c) = parse(&["--space=serial", "-m", "7", "-n", "3", "--csv"]) else {
            panic!("valid options rejected");
        };
        assert_eq!(c.space, SpaceChoice::Serial);
        assert_eq!(
            (c.m, c.n, c.csv, c.compare, c.kernels, c.no_graphs),
            (Some(7), Some(3), true, false, false, false)
        );
        assert_eq!(c.plan(), [(3, 7)]);
        let Ok(c) = parse(&["--kernels", "--no-graphs", "-n", "0"]) else {
            panic!("--kernels --no-graphs -n 0 rejected");
        };
        assert!(c.kernels && c.no_graphs);
        assert_eq!((c.n, c.m), (Some(0), None));
        let Ok(c) = parse(&[]) else {
            panic!("no options rejected");
        };
        assert_eq!((c.space, c.m, c.n), (SpaceChoice::Best, None, None));
        assert_eq!(c.plan(), [(1, 20_000), (100_000, 2_000)]);
        for (name, space) in [
            ("serial", SpaceChoice::Serial),
            ("threads", SpaceChoice::Threads),
            ("cuda", SpaceChoice::Cuda),
            ("Cuda", SpaceChoice::Cuda),
        ] {
            let Ok(c) = parse(&["--space", name]) else {
                panic!("--space {name} rejected");
            };
            assert_eq!(c.space, space);
        }
        let Err(Failure::Usage(help)) = parse(&["--csv", "-h", "--bogus"]) else {
            panic!("-h is no help");
        };
        assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
        assert_eq!(help.exit_code(), 0);
    }

    #[test]
    fn compare_needs_the_peers() {
        let compare = parse(&["--compare"]);
        if cfg!(feature = "peers") {
            assert!(matches!(compare, Ok(Config { compare: true, .. })));
        } else {
            let Err(Failure::Usage(e)) = compare else {
                panic!("--compare without the peers accepted");
            };
            let e = e.to_string();
            assert!(e.contains("built with the `peers` feature"), "{e}");
            assert!(e.contains("Usage: ferrokkos latency [OPTIONS]"), "{e}");
        }
    }

    #[test]
    fn bad_options_are_usage_errors() {
        let bad: [(&[&str], &str); 8] = [
            (
                &["-m", "0"],
                "invalid value '0' for '-m <M>': expected a positive integer",
            ),
            (
                &["-m", "x"],
                "invalid value 'x' for '-m <M>': expected a positive integer",
            ),
            (&["-n"], "a value is required for '-n <N>'"),
            (&["-n", "-1"], "expected a non-negative integer"),
            (
                &["--space", "gpu"],
                "[possible values: serial, threads, cuda]",
            ),
            (
                &["--space", "best"],
                "[possible values: serial, threads, cuda]",
            ),
            (&["--bogus"], "unexpected argument '--bogus'"),
            (&["--csv=yes"], "unexpected value 'yes' for '--csv'"),
        ];
        for (args, says) in bad {
            let Err(Failure::Usage(e)) = parse(args) else {
                panic!("{args:?} accepted");
            };
            assert_eq!(e.exit_code(), 2, "{args:?}");
            let e = e.to_string();
            assert!(e.contains(says), "{args:?}: {e}");
            assert!(e.contains("\n\nUsage: ferrokkos latency "), "{args:?}: {e}");
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
