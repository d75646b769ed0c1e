//! `ferrokkos latency`: the launch latency of `parallel_for` and `parallel_reduce`, measured as Kokkos'
//! `benchmarks/launch_latency` does; with `--compare` the same launches with rayon on the host
//! spaces, and on Cuda always raw launches of hand-written kernels with parameters of the same size.
//!
//! Kokkos' benchmark launches a functor holding `double values[V]` and a View `a` of N doubles, whose
//! body is `for j in 0..K { a(i) += 1.0 * i * values[j] }` (and `lsum += a(i)` for the reductions),
//! with K = 1. On the host spaces the functor is a closure capturing `[f64; V]` by value, so it is
//! as big as Kokkos' functor; on Cuda it is a `kernel!` capturing the array and a View in CudaSpace.
//!
//! After that table, the graph rows (`graph.rs`): a halo update of 8 kernels launched one
//! by one and as graphs (chains, and a DAG whose 4 packs may run at once), and the cost of a graph launch and of one more kernel in a graph; on Cuda
//! against raw CUDA launches and raw CUDA graphs (`graph_raw.rs`).

mod config;
mod device;
mod graph;
#[cfg(feature = "peers")]
mod graph_raw;
#[cfg(feature = "peers")]
mod graph_raw_dag;
#[cfg(feature = "peers")]
mod graph_raw_kernels;
mod graph_report;
mod halo;
mod measure;
#[cfg(feature = "peers")]
mod peer;
#[cfg(feature = "peers")]
mod raw;
mod report;

use ferrokkos::traits::{GraphSpace, HostExecutionSpace, Launch};
use ferrokkos::{Cuda, ExecutionSpace, InitSettings, Serial, SpaceChoice, Threads};

use crate::Failure;
use config::Config;
pub use config::{Args, LONG_ABOUT};
use measure::{Ferrokkos, Implementation, Kinds};
use report::{Block, Report};

/// The measurements of one loop length and capture size: N, M, the capture in bytes, the figures.
type Measured = (usize, usize, usize, Kinds);

/// Runs the latency benchmark with its options.
pub fn main(settings: InitSettings, args: Args) -> Result<(), Failure> {
    let config = Config::try_from(args)?;
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
fn run<S: HostExecutionSpace + Launch + GraphSpace>(
    exec: &S,
    config: &Config,
) -> Result<(), Failure> {
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
    if !config.no_graphs {
        // The graph rows are kernel!s whatever --kernels says: titled by the space alone.
        let report = Report::new(config.csv, false, S::NAME.to_string(), exec.concurrency());
        graph::run(exec, config.m, &report, &mut |_| Ok(None))?;
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
    let progress = crate::progress::Progress::new("latency: rows", plan.len() as u64);
    for &(n, m) in plan {
        all.push(one::<I, 1>(imp, n, m)?);
        all.push(one::<I, 200>(imp, n, m)?);
        all.push(one::<I, 3000>(imp, n, m)?);
        progress.step();
    }
    Ok(all)
}
