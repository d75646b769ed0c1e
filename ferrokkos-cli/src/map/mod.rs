//! `ferrokkos map`: concurrent inserts (with repeated keys) and lookups (half of absent keys) into
//! an `UnorderedMap` and into a hand-written open-addressing table; with `--compare` on a host
//! space also into std's `HashMap` (Serial) or dashmap from a rayon pool (Threads). The
//! implementations take turns run by run; each one's lookup sum is checked against the others.

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
use cases::{Tables, Way};

/// `ferrokkos map --help`: what the command does, before the options.
pub const LONG_ABOUT: &str = "\
A hash-map workload, written with ferrokkos as kernel!s over a RangePolicy:
  insert  n inserts of u64 keys, each among --distinct keys (so repeated about n / distinct times),
          with a value computed from the key
  lookup  n lookups, half of keys that were inserted and half of keys that were not, summing the
          values found (a parallel_reduce)
into an UnorderedMap<u64, u64> and into a hand-written open-addressing table (keys and values in
two atomic Views, compare-exchange and linear probing), both of 2 x distinct slots rounded up to a
power of two; with --compare on serial or threads also into std's HashMap (serial) or dashmap from
a rayon pool (threads). Prints the best and median time of each phase, and each one's time over the
UnorderedMap's (above 1: slower than the UnorderedMap).";

/// The options of `ferrokkos map`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// inserts and lookups per run
    #[arg(short = 'n', value_name = "N", default_value_t = 1 << 24,
        value_parser = integer::<usize>(1, 1 << 32))]
    n: usize,
    /// distinct keys
    #[arg(long, value_name = "D", default_value_t = 1 << 22, value_parser = integer::<usize>(1, 1 << 29))]
    distinct: usize,
    /// timed runs per implementation, after one warm-up
    #[arg(long, value_name = "R", default_value_t = 10, value_parser = integer::<usize>(1, 1 << 20))]
    runs: usize,
    #[command(flatten)]
    space: SpaceArg,
    /// on serial and threads, also run std's HashMap or dashmap (see above)
    #[arg(long)]
    compare: bool,
}

/// Runs `ferrokkos map` with its options.
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

/// One implementation: a ferrokkos way, or the peer.
#[derive(Clone, Copy)]
enum Imp {
    Ferrokkos(Way),
    Peer,
}

/// The times of one implementation's runs: inserts, lookups; and its last lookup sum.
#[derive(Default)]
struct Runs {
    inserts: Times,
    lookups: Times,
    sum: u64,
}

/// The times of one phase of an implementation's runs.
type Phase = fn(&Runs) -> &Times;

impl Runs {
    fn insert(&self) -> &Times {
        &self.inserts
    }

    fn lookup(&self) -> &Times {
        &self.lookups
    }
}

fn run<S: Launch>(args: &Args, exec: &S) -> Result<(), Failure> {
    let mut peer = match (args.compare, on_device::<S>()) {
        (false, _) => None,
        (true, true) => {
            eprintln!("map: no peers on cuda: --compare compares on serial and threads");
            None
        }
        (true, false) => {
            let serial = S::DEVICE_TYPE == ferrokkos::DeviceType::Serial;
            Some(
                peers::Peer::new(serial, exec.concurrency(), args.distinct)
                    .map_err(Failure::Run)?,
            )
        }
    };
    let mut imps = vec![
        Imp::Ferrokkos(Way::Container),
        Imp::Ferrokkos(Way::HandWritten),
    ];
    if peer.is_some() {
        imps.push(Imp::Peer);
    }
    let capacity = (2 * args.distinct).next_power_of_two();
    println!(
        "map on {}: n = {}, {} distinct keys, {} slots, {} runs",
        crate::spaces::describe(exec),
        args.n,
        args.distinct,
        capacity,
        args.runs
    );
    let tables = Tables::<S::MemorySpace>::new(capacity)?;
    let mut runs: Vec<Runs> = imps.iter().map(|_| Runs::default()).collect();
    for round in 0..=args.runs {
        for (k, &imp) in imps.iter().enumerate() {
            let (insert, lookup, sum) = match (imp, peer.as_mut()) {
                (Imp::Ferrokkos(way), _) => {
                    tables.clear(way)?;
                    let start = Instant::now();
                    cases::insert(exec, way, &tables, args.n, args.distinct)?;
                    let inserted = start.elapsed().as_secs_f64();
                    let start = Instant::now();
                    let sum = cases::lookup(exec, way, &tables, args.n, args.distinct)?;
                    (inserted, start.elapsed().as_secs_f64(), sum)
                }
                (Imp::Peer, Some(p)) => {
                    p.clear();
                    let start = Instant::now();
                    p.insert(args.n, args.distinct);
                    let inserted = start.elapsed().as_secs_f64();
                    let start = Instant::now();
                    let sum = p.lookup(args.n, args.distinct);
                    (inserted, start.elapsed().as_secs_f64(), sum)
                }
                (Imp::Peer, None) => return Err(Failure::Run("map: no peer".into())),
            };
            if round > 0 {
                runs[k].inserts.0.push(insert);
                runs[k].lookups.0.push(lookup);
            }
            runs[k].sum = sum;
        }
    }
    let keys = tables.map.size()?;
    if tables.map.failed_insert()? || keys == 0 || keys > args.distinct {
        return Err(Failure::Run(format!(
            "map: the UnorderedMap holds {keys} keys of {} distinct (failed insert: {})",
            args.distinct,
            tables.map.failed_insert()?
        )));
    }
    let name = |imp: Imp| match (imp, &peer) {
        (Imp::Ferrokkos(w), _) => format!("ferrokkos {}", w.name()),
        (Imp::Peer, Some(p)) => p.name().to_string(),
        (Imp::Peer, None) => "peer".to_string(),
    };
    report(&imps, &runs, &name)
}

/// The table of both phases, after checking every lookup sum against the first.
fn report(imps: &[Imp], runs: &[Runs], name: &dyn Fn(Imp) -> String) -> Result<(), Failure> {
    let reference = runs[0].sum;
    for (imp, r) in imps.iter().zip(runs) {
        if r.sum != reference || reference == 0 {
            return Err(Failure::Run(format!(
                "map: {}'s lookups sum to {}, the UnorderedMap's to {reference}",
                name(*imp),
                r.sum
            )));
        }
    }
    for (phase, times) in [("insert", Runs::insert as Phase), ("lookup", Runs::lookup)] {
        let base = times(&runs[0]).best();
        println!("\n{phase}:");
        println!(
            "  {:<34} {:>12} {:>12} {:>10}",
            "implementation", "best s", "median s", "best/UnorderedMap"
        );
        for (imp, r) in imps.iter().zip(runs) {
            let t = times(r);
            println!(
                "  {:<34} {:>12.6} {:>12.6} {:>10.3}",
                name(*imp),
                t.best(),
                t.median(),
                t.best() / base
            );
        }
    }
    Ok(())
}
