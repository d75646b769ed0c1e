//! `ferrokkos scatter`: many iterations updating the same elements, two workloads (a histogram of
//! hashed keys, a bilinear particle-to-grid deposition), taken by a `ScatterView` (duplicated on
//! the host, atomic on the GPU), by an atomic View and (host spaces) by rows indexed by a
//! `UniqueToken` id; with `--compare` on a host space also by
//! plain Rust (a loop on Serial, rayon's fold/reduce of per-thread arrays on Threads). The
//! implementations take turns run by run; each result is checked against the others.

mod cases;
mod peers;

use std::time::Instant;

use ferrokkos::prelude::*;
use ferrokkos::traits::Launch;
use ferrokkos::{SpaceChoice, SpaceTask};

use crate::Failure;
use crate::cli::{SpaceArg, integer, space_choice};
use crate::spaces::on_device;
use crate::timing::Times;
use cases::Way;

/// `ferrokkos scatter --help`: what the command does, before the options.
pub const LONG_ABOUT: &str = "\
Two scatter workloads, written with ferrokkos as kernel!s over a RangePolicy:
  histogram  n keys (a multiplicative hash of the index) counted into --bins u32 bins
  deposit    n particles' unit charges on an m x m f64 grid (m = --grid), each on the 4 cells
             around it with bilinear weights
each into a ScatterView (duplicated per host thread on serial and threads, atomic on cuda), into
an atomic View, and on serial and threads into rows of per-thread copies indexed by a UniqueToken
id (then summed); with --compare on serial or threads also in plain Rust (a loop; rayon's fold of
per-thread arrays then reduce). Prints the best and median time of each, and each one's time over
the ScatterView's (above 1: slower than the ScatterView).";

/// The options of `ferrokkos scatter`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// updates (keys, particles) per run
    #[arg(short = 'n', value_name = "N", default_value_t = 1 << 24,
        value_parser = integer::<usize>(1, 1 << 34))]
    n: usize,
    /// histogram bins
    #[arg(long, value_name = "B", default_value_t = 1024, value_parser = integer::<usize>(1, 1 << 28))]
    bins: usize,
    /// deposition grid cells per direction
    #[arg(long, value_name = "M", default_value_t = 256, value_parser = integer::<usize>(2, 1 << 14))]
    grid: usize,
    /// timed runs per implementation, after one warm-up
    #[arg(long, value_name = "R", default_value_t = 10, value_parser = integer::<usize>(1, 1 << 20))]
    runs: usize,
    #[command(flatten)]
    space: SpaceArg,
    /// on serial and threads, also run plain Rust (see above)
    #[arg(long)]
    compare: bool,
}

/// Runs `ferrokkos scatter` with its options.
pub fn main(settings: InitSettings, args: Args) -> Result<(), Failure> {
    let space: SpaceChoice = space_choice(args.space.clone());
    crate::spaces::run_benchmark(settings, space, Task(&args), || {})
}

struct Task<'a>(&'a Args);

impl SpaceTask for Task<'_> {
    type Output = Result<(), Failure>;
    fn run<S: Launch>(self, exec: &S) -> ferrokkos::Result<Self::Output> {
        Ok(run(self.0, exec))
    }
}

/// All of `view`'s elements, in row-major order, on the host.
fn download<T: ferrokkos::traits::Element, const R: usize, M: MemorySpace>(
    view: &View<T, R, LayoutRight, M>,
) -> Result<Vec<T>, Failure> {
    Ok(ferrokkos::create_mirror_view_and_copy(HostSpace, view)?.to_vec()?)
}

/// One implementation: a ferrokkos way, or the peer.
#[derive(Clone, Copy)]
enum Imp {
    Ferrokkos(Way),
    Peer,
}

/// What one run of a workload leaves: the counts or the grid, as `f64`.
type Output = Vec<f64>;

fn run<S: Launch>(args: &Args, exec: &S) -> Result<(), Failure> {
    let peer = match (args.compare, on_device::<S>()) {
        (false, _) => None,
        (true, true) => {
            eprintln!("scatter: no peers on cuda: --compare compares on serial and threads");
            None
        }
        (true, false) => {
            let serial = S::DEVICE_TYPE == ferrokkos::DeviceType::Serial;
            Some(peers::Peer::new(serial, exec.concurrency()).map_err(Failure::Run)?)
        }
    };
    let mut imps = vec![Imp::Ferrokkos(Way::Scatter), Imp::Ferrokkos(Way::Atomic)];
    if !on_device::<S>() {
        imps.push(Imp::Ferrokkos(Way::Token));
    }
    if peer.is_some() {
        imps.push(Imp::Peer);
    }
    println!(
        "scatter on {}: n = {}, {} bins, {} x {} grid, {} runs",
        crate::spaces::describe(exec),
        args.n,
        args.bins,
        args.grid,
        args.grid,
        args.runs
    );
    let counts = View::<u32, 1, LayoutRight, S::MemorySpace>::new("counts", [args.bins])?;
    let grid = View::<f64, 2, LayoutRight, S::MemorySpace>::new("grid", [args.grid, args.grid])?;
    let name = |imp: Imp| match (imp, &peer) {
        (Imp::Ferrokkos(w), _) => format!("ferrokkos {}", w.name()),
        (Imp::Peer, Some(p)) => p.name().to_string(),
        (Imp::Peer, None) => "peer".to_string(),
    };
    for workload in ["histogram", "deposit"] {
        let mut one = |imp: Imp| -> Result<Output, Failure> {
            match (imp, workload, &peer) {
                (Imp::Ferrokkos(w), "histogram", _) => {
                    cases::histogram(exec, w, &counts, args.n)?;
                    Ok(download(&counts)?.into_iter().map(f64::from).collect())
                }
                (Imp::Ferrokkos(w), _, _) => {
                    cases::deposit(exec, w, &grid, args.n)?;
                    download(&grid)
                }
                (Imp::Peer, "histogram", Some(p)) => Ok(p
                    .histogram(args.n, args.bins)
                    .into_iter()
                    .map(f64::from)
                    .collect()),
                (Imp::Peer, _, Some(p)) => Ok(p.deposit(args.n, args.grid)),
                (Imp::Peer, _, None) => Err(Failure::Run("scatter: no peer".into())),
            }
        };
        let results = time_all(&imps, args.runs, &mut one)?;
        report(workload, &imps, &results, &name)?;
    }
    Ok(())
}

/// The runs of every implementation, taking turns (one warm-up each first): each one's times and
/// last output. A run's time includes reading its result back to the host (as the peers' results
/// are host arrays), the same small copy for each ferrokkos way.
fn time_all(
    imps: &[Imp],
    runs: usize,
    one: &mut dyn FnMut(Imp) -> Result<Output, Failure>,
) -> Result<Vec<(Times, Output)>, Failure> {
    let mut out: Vec<(Times, Output)> = imps.iter().map(|_| Default::default()).collect();
    for run in 0..=runs {
        for (k, &imp) in imps.iter().enumerate() {
            let start = Instant::now();
            let output = one(imp)?;
            let seconds = start.elapsed().as_secs_f64();
            if run > 0 {
                out[k].0.0.push(seconds);
            }
            out[k].1 = output;
        }
    }
    Ok(out)
}

/// The table of one workload, after checking every output against the first.
fn report(
    workload: &str,
    imps: &[Imp],
    results: &[(Times, Output)],
    name: &dyn Fn(Imp) -> String,
) -> Result<(), Failure> {
    let reference = &results[0].1;
    let base = results[0].0.best();
    println!("\n{workload}:");
    println!(
        "  {:<34} {:>12} {:>12} {:>10}",
        "implementation", "best s", "median s", "best/ScatterView"
    );
    for (imp, (times, output)) in imps.iter().zip(results) {
        let worst = output
            .iter()
            .zip(reference)
            .map(|(a, b)| (a - b).abs() / b.abs().max(1.0))
            .fold(0.0, f64::max);
        if output.len() != reference.len() || worst > 1e-9 {
            return Err(Failure::Run(format!(
                "scatter: {workload}: {} differs from the ScatterView's result (relative {worst:e})",
                name(*imp)
            )));
        }
        println!(
            "  {:<34} {:>12.6} {:>12.6} {:>10.3}",
            name(*imp),
            times.best(),
            times.median(),
            times.best() / base
        );
    }
    Ok(())
}
