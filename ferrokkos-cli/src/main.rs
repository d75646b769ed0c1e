//! `ferrokkos`: the command-line front end of ferrokkos.
//!
//! - `ferrokkos info`: the version, the execution spaces with their concurrency, the CUDA device
//!   (or why Cuda is not available), the memory spaces.
//! - `ferrokkos stream`: the BabelStream memory-bandwidth benchmark, written once with ferrokkos and
//!   run on Serial, Threads or Cuda (`--space`); `--compare` adds, in the same process, a plain loop,
//!   rayon and C with OpenMP on the host, hand-written CUDA kernels and a memcpy on Cuda.
//! - `ferrokkos latency`: the launch latency of the parallel patterns (Kokkos' launch_latency
//!   benchmark; `--compare` adds rayon on the host; on Cuda, raw CUDA launches are always measured),
//!   then of graphs (a halo update's 8 kernels one by one and as a graph; on Cuda raw CUDA graphs).
//! - `ferrokkos spmv`: the CSR sparse matrix-vector product of the 3D 7-point Laplacian, as a
//!   ferrokkos `kernel!` (RangePolicy, every space) and TeamPolicy (host spaces); `--compare` adds
//!   a plain loop and rayon on the host, a hand-written CUDA kernel and cuSPARSE on Cuda.
//! - `ferrokkos map`: concurrent inserts and lookups into an `UnorderedMap`, against a
//!   hand-written open-addressing table and (host, `--compare`) std's `HashMap` or dashmap;
//! - `ferrokkos scatter`: a histogram and a particle deposition through a `ScatterView`, against
//!   atomics and (with `--compare`) plain Rust and rayon.
//! - `ferrokkos stencil`: a 2D 9-point stencil sweep and a matrix-free CG iteration, `kernel!`s over
//!   rank-2 MDRangePolicies on every space; `--compare` adds the same loop nests hand-written in
//!   Rust (plain loops, or rayon) and in C with OpenMP on the host, validated against ferrokkos.
//! - `ferrokkos timeline`: draws a Chrome trace file (what `FERROKKOS_TRACE` writes) as a PNG
//!   picture: lanes of spans by category, nesting, instants, memory counters, a time axis.
//!
//! Kokkos options (`--kokkos-num-threads=N`) and the `FERROKKOS_*` / `KOKKOS_*` environment variables
//! are honoured by every command: [`InitSettings::from_args`] takes them out of the command line,
//! and clap (`cli.rs`) parses the rest.

mod cli;
#[cfg(test)]
mod in_child;
mod info;
mod latency;
mod map;
mod openmp;
mod progress;
mod random;
mod scatter;
mod schedule;
mod sort;
mod spaces;
mod spmv;
mod stencil;
mod stream;
mod timeline;
mod timing;

use std::process::ExitCode;

use ferrokkos::InitSettings;

use cli::Command;

/// How a command failed: a usage error (exit code 2) or a run-time failure (exit code 1).
#[derive(Debug)]
pub enum Failure {
    /// Bad command-line input that clap's parsing could not catch (options that contradict each
    /// other), with the command's usage: [`cli::usage_error`].
    Usage(clap::Error),
    /// The command ran and failed (an error, or a failed validation).
    Run(String),
}

impl From<ferrokkos::Error> for Failure {
    fn from(e: ferrokkos::Error) -> Self {
        Failure::Run(e.to_string())
    }
}

/// Lets a closed pipe end the program as it ends other Unix tools (`ferrokkos info | head -1`).
/// Rust starts programs with SIGPIPE ignored, so a write to a closed pipe fails and `println!`
/// panics; with the default action restored the kernel ends the process quietly at that write
/// (status 141 in a shell).
fn end_quietly_on_closed_pipes() {
    #[cfg(unix)]
    // SAFETY: called first in `main`, before any other thread exists; restoring the default
    // action of one signal touches no memory of this program.
    unsafe {
        libc::signal(libc::SIGPIPE, libc::SIG_DFL);
    }
}

/// Parses the Kokkos options, then the command line with clap, runs the command, and maps its
/// outcome to the exit code (0, 1 for a run-time failure, 2 for a usage error).
fn main() -> ExitCode {
    end_quietly_on_closed_pipes();
    let (settings, rest) = match InitSettings::from_args(std::env::args()) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("ferrokkos: {e}");
            return ExitCode::from(2);
        }
    };
    let command = match cli::parse(rest) {
        Ok(cli) => {
            progress::set_quiet(cli.quiet);
            cli.command
        }
        // Help and the version (on standard output, exit code 0) or a usage error (standard
        // error, exit code 2).
        Err(e) => return clap_exit(&e),
    };
    // A spinner while GPU kernels compile (first runs), on every command that runs kernels.
    let compiles = progress::CompileWatch::start();
    let outcome = match command {
        Some(Command::Info) => info::info(settings).map_err(Failure::from),
        Some(Command::Stream(args)) => stream::main(settings, args),
        Some(Command::Spmv(args)) => spmv::main(settings, args),
        Some(Command::Scatter(args)) => scatter::main(settings, args),
        Some(Command::Map(args)) => map::main(settings, args),
        Some(Command::Random(args)) => random::main(settings, args),
        Some(Command::Sort(args)) => sort::main(settings, args),
        Some(Command::Stencil(args)) => stencil::main(settings, args),
        Some(Command::Latency(args)) => latency::main(settings, args),
        Some(Command::Timeline(args)) => timeline::main(args),
        Some(Command::Completions { shell }) => {
            cli::completions(shell, &mut std::io::stdout());
            Ok(())
        }
        Some(Command::Version) => {
            println!("ferrokkos {}", env!("CARGO_PKG_VERSION"));
            Ok(())
        }
        None => {
            print!("{}", cli::help());
            Ok(())
        }
    };
    drop(compiles);
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(e)) => clap_exit(&e),
        Err(Failure::Run(msg)) => {
            eprintln!("ferrokkos: {msg}");
            ExitCode::FAILURE
        }
    }
}

/// Prints what clap has to say (help, the version, a usage error) and returns its exit code.
fn clap_exit(e: &clap::Error) -> ExitCode {
    // A closed standard output ends the process at this write (SIGPIPE); any other failure to
    // print leaves nothing better to do than to exit with the code.
    let _ = e.print();
    ExitCode::from(u8::try_from(e.exit_code()).unwrap_or(2))
}
