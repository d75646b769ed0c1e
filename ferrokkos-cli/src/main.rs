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
//! - `ferrokkos stencil`: a 2D 9-point stencil sweep and a matrix-free CG iteration, `kernel!`s over
//!   rank-2 MDRangePolicies on every space; `--compare` adds the same loop nests hand-written in
//!   Rust (plain loops, or rayon) and in C with OpenMP on the host, validated against ferrokkos.
//! - `ferrokkos timeline`: draws a Chrome trace file (what `FERROKKOS_TRACE` writes) as a PNG
//!   picture: lanes of spans by category, nesting, instants, memory counters, a time axis.
//!
//! Kokkos options (`--kokkos-num-threads=N`) and the `FERROKKOS_*` / `KOKKOS_*` environment variables
//! are honoured by every command.

#[cfg(test)]
mod in_child;
mod info;
mod latency;
mod openmp;
mod options;
mod schedule;
mod spaces;
mod spmv;
mod stencil;
mod stream;
mod timeline;
mod timing;

use std::process::ExitCode;

use ferrokkos::InitSettings;

/// `ferrokkos help`.
const USAGE: &str = "\
usage: ferrokkos <command> [options]

commands:
  info      version, execution spaces, thread count, CUDA device and memory spaces of this process
  stream    BabelStream memory bandwidth benchmark on serial, threads or cuda
            (ferrokkos stream --help)
  spmv      CSR sparse matrix-vector product (3D Laplacian) on serial, threads or cuda
            (ferrokkos spmv --help)
  stencil   2D 9-point stencil sweep and matrix-free CG (MDRangePolicy) on serial, threads or cuda
            (ferrokkos stencil --help)
  latency   launch latency of parallel_for / parallel_reduce and graphs on serial, threads or cuda
            (ferrokkos latency --help)
  timeline  draw a Chrome trace file (FERROKKOS_TRACE) as a PNG picture
            (ferrokkos timeline --help)
  help      this text (also --help, -h)
  version   the version (also --version, -V)

options (any command; each also read from the environment variable in brackets):
  --kokkos-num-threads=N           threads of the Threads space, the calling thread included
                                   (FERROKKOS_NUM_THREADS, KOKKOS_NUM_THREADS; default: all
                                   hardware threads of this process)
  --ferrokkos-pin-threads          pin the pool's workers to cores (FERROKKOS_PIN_THREADS=1)
  --kokkos-device-id=N             the GPU to use (FERROKKOS_DEVICE, KOKKOS_DEVICE_ID; default 0)
  --kokkos-map-device-id-by=mpi_rank
                                   one GPU per MPI rank on the node, by local rank
  --kokkos-tools-libs=PATH         load a Kokkos Tools library (KOKKOS_TOOLS_LIBS)
  --kokkos-tools-args=ARGS         arguments for that library (KOKKOS_TOOLS_ARGS)
  --ferrokkos-trace=FILE.json      write a Chrome trace of the run (FERROKKOS_TRACE)
  --kokkos-disable-warnings        no warnings on stderr, e.g. for more threads than cores
                                   (KOKKOS_DISABLE_WARNINGS=1)

environment only:
  FERROKKOS_DISABLE_CUDA=1         start without the Cuda backend even with a GPU
  FERROKKOS_CACHE_DIR=DIR          where compiled GPU kernels are kept (off: no disk cache;
                                   default $XDG_CACHE_HOME/ferrokkos or ~/.cache/ferrokkos)
  FERROKKOS_STREAMING_STORES=0     no non-temporal stores in large host copies and fills
  FERROKKOS_WIDE_VECTORS=0         host kernels without AVX2, in the build's instructions only
  FERROKKOS_CUDA_BLOCK=B           threads per block of GPU range kernels (tuning; default 256)
  FERROKKOS_CUDA_MAX_WAVES=W       cap GPU grids at W waves of blocks (tuning)";

/// `ferrokkos info --help`.
const INFO_USAGE: &str = "\
usage: ferrokkos info

Prints the version, the execution spaces with their concurrency, the vector instructions of host
kernels, the CUDA device (or why Cuda is not available here) and the memory spaces with their
accounting. Takes no options but the runtime's (ferrokkos help).";

/// How a command failed: a usage error (exit code 2) or a run-time failure (exit code 1).
#[derive(Debug)]
pub enum Failure {
    /// Bad command-line input.
    Usage(String),
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

/// Parses the Kokkos options, runs the command, and maps its outcome to the exit code (0, 1 for a
/// run-time failure, 2 for a usage error).
fn main() -> ExitCode {
    end_quietly_on_closed_pipes();
    let (settings, rest) = match InitSettings::from_args(std::env::args()) {
        Ok(parsed) => parsed,
        Err(e) => {
            eprintln!("ferrokkos: {e}");
            return ExitCode::from(2);
        }
    };
    let command = rest.get(1).map(String::as_str);
    let extra = rest.get(2..).unwrap_or_default();
    let outcome = match command {
        Some("info") if extra.is_empty() => info::info(settings).map_err(Failure::from),
        Some("info") if matches!(extra, [h] if h == "--help" || h == "-h") => {
            println!("{INFO_USAGE}");
            return ExitCode::SUCCESS;
        }
        Some("info") => Err(Failure::Usage(format!(
            "info takes no arguments, got {extra:?}"
        ))),
        Some("stream") => stream::main(settings, extra),
        Some("spmv") => spmv::main(settings, extra),
        Some("stencil") => stencil::main(settings, extra),
        Some("latency") => latency::main(settings, extra),
        Some("timeline") => timeline::main(extra),
        Some("--version" | "-V" | "version") => {
            println!("ferrokkos {}", env!("CARGO_PKG_VERSION"));
            return ExitCode::SUCCESS;
        }
        None | Some("help" | "--help" | "-h") => {
            println!("{USAGE}");
            return ExitCode::SUCCESS;
        }
        Some(other) => Err(Failure::Usage(format!("unknown command {other:?}"))),
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure::Usage(msg)) => {
            eprintln!("ferrokkos: {msg}\n\n{USAGE}");
            ExitCode::from(2)
        }
        Err(Failure::Run(msg)) => {
            eprintln!("ferrokkos: {msg}");
            ExitCode::FAILURE
        }
    }
}
