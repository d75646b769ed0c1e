//! `ferrokkos random`: `fill_random` of a View of f64 with both of Kokkos' pools, against cuRAND's
//! uniform doubles on Cuda (`--compare`: XORWOW, cuRAND's default, and Philox4x32-10) and against
//! the `rand` crate's per-thread generator and its `SmallRng`, from a rayon pool of as many threads
//! as the space (or in order on Serial). Each implementation's numbers are checked: all in [0, 1], their mean
//! near 1/2.

mod curand_peer;
mod host_peer;

use std::time::Instant;

use ferrokkos::prelude::*;
use ferrokkos::traits::{Generator, Launch};
use ferrokkos::{RandomPool, SpaceChoice, SpaceTask, XorShift64, XorShift1024, fill_random};

use crate::Failure;
use crate::cli::{SpaceArg, integer, space_choice};
use crate::spaces::on_device;
use crate::timing::Times;

/// `ferrokkos random --help`: what the command does, before the options.
pub const LONG_ABOUT: &str = "\
Uniform random doubles in [0, 1] written into a View of n elements by fill_random, from a
Random_XorShift64_Pool and a Random_XorShift1024_Pool of the space's concurrency (seeded once, not
timed); with --compare, on cuda cuRAND's curandGenerateUniformDouble (XORWOW, its default, and
Philox4x32-10) into a buffer of the same size, on serial and threads the rand crate's generators
into a Vec of the same size, chunks of 64Ki elements from a rayon pool of the space's threads: its
per-thread generator rand::rng() (ChaCha12) and SmallRng (xoshiro256++) seeded per chunk.
Each timed run ends with a fence. Prints the best and median time of each, its rate in GB/s written,
and its time over fill_random's with the XorShift64 pool (above 1: slower).";

/// The options of `ferrokkos random`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// elements
    #[arg(short = 'n', value_name = "N", default_value_t = 1 << 28,
        value_parser = integer::<usize>(1, 1 << 32))]
    n: usize,
    /// timed runs per implementation, after one warm-up
    #[arg(long, value_name = "R", default_value_t = 10, value_parser = integer::<usize>(1, 1 << 20))]
    runs: usize,
    #[command(flatten)]
    space: SpaceArg,
    /// also run the peers (see above)
    #[arg(long)]
    compare: bool,
}

/// Runs `ferrokkos random` with its options.
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

/// One implementation: fills its output once per call, waiting for the numbers.
pub trait Fill {
    /// Its name in the table.
    fn name(&self) -> String;
    /// One fill, complete when it returns.
    fn fill(&mut self) -> Result<(), Failure>;
    /// The numbers of the last fill.
    fn numbers(&self) -> Result<Vec<f64>, Failure>;
}

/// `fill_random` with a pool of generator `G`.
struct Ferrokkos<'a, G: Generator, S: Launch> {
    exec: &'a S,
    pool: RandomPool<G, S>,
    x: View<f64, 1, LayoutRight, S::MemorySpace>,
}

impl<G: Generator, S: Launch> Fill for Ferrokkos<'_, G, S> {
    fn name(&self) -> String {
        crate::spaces::ferrokkos_line(self.exec, &format!("fill_random, {}", G::KOKKOS_NAME))
    }
    fn fill(&mut self) -> Result<(), Failure> {
        fill_random(self.exec, &self.x, &self.pool, 0.0..1.0)?;
        self.exec.fence("fill_random")?;
        Ok(())
    }
    fn numbers(&self) -> Result<Vec<f64>, Failure> {
        let host = create_mirror_view(&self.x)?;
        deep_copy(&host, &self.x)?;
        Ok(host.to_vec()?)
    }
}

fn ferrokkos<'a, G: Generator, S: Launch>(
    exec: &'a S,
    n: usize,
) -> Result<Box<dyn Fill + 'a>, Failure> {
    Ok(Box::new(Ferrokkos::<G, S> {
        exec,
        pool: RandomPool::new(exec, 20_241_129)?,
        x: View::new(view_alloc("x").without_initializing(), [n])?,
    }))
}

fn run<S: Launch>(args: &Args, exec: &S) -> Result<(), Failure> {
    let mut imps: Vec<Box<dyn Fill + '_>> = vec![
        ferrokkos::<XorShift64, S>(exec, args.n)?,
        ferrokkos::<XorShift1024, S>(exec, args.n)?,
    ];
    let mut skipped = vec![];
    if args.compare {
        let peers = if on_device::<S>() {
            curand_peer::peers(args.n)
        } else {
            host_peer::peers(exec.concurrency(), args.n)
        };
        match peers {
            Ok(p) => imps.extend(p),
            Err(why) => skipped.push(why),
        }
    }
    println!(
        "random on {}: n = {} doubles ({:.2} GB), {} runs",
        crate::spaces::describe(exec),
        args.n,
        args.n as f64 * 8e-9,
        args.runs
    );
    let mut times: Vec<Times> = imps.iter().map(|_| Times::default()).collect();
    for round in 0..=args.runs {
        for (k, imp) in imps.iter_mut().enumerate() {
            let start = Instant::now();
            imp.fill()?;
            if round > 0 {
                times[k].0.push(start.elapsed().as_secs_f64());
            }
        }
    }
    for imp in &imps {
        check(&imp.name(), &imp.numbers()?)?;
    }
    report(&imps, &times, args.n);
    for why in skipped {
        println!("  (peer skipped: {why})");
    }
    Ok(())
}

/// Every number in [0, 1], and their mean within six standard errors of 1/2.
fn check(name: &str, v: &[f64]) -> Result<(), Failure> {
    if let Some(bad) = v.iter().find(|e| !(0.0..=1.0).contains(*e)) {
        return Err(Failure::Run(format!(
            "random: {name} gave {bad}, outside [0, 1]"
        )));
    }
    let mean = v.iter().sum::<f64>() / v.len() as f64;
    let tolerance = 6.0 * (1.0 / 12.0 / v.len() as f64).sqrt();
    if (mean - 0.5).abs() > tolerance {
        return Err(Failure::Run(format!(
            "random: {name}'s {} numbers have the mean {mean}, more than {tolerance} from 1/2",
            v.len()
        )));
    }
    Ok(())
}

fn report(imps: &[Box<dyn Fill + '_>], times: &[Times], n: usize) {
    let base = times[0].best();
    println!(
        "  {:<72} {:>10} {:>10} {:>8} {:>10}",
        "implementation", "best s", "median s", "GB/s", "best/fill_random"
    );
    for (imp, t) in imps.iter().zip(times) {
        println!(
            "  {:<72} {:>10.6} {:>10.6} {:>8.1} {:>10.3}",
            imp.name(),
            t.best(),
            t.median(),
            n as f64 * 8e-9 / t.best(),
            t.best() / base
        );
    }
}
