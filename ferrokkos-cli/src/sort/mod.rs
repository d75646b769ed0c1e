//! `ferrokkos sort`: ferrokkos' `sort` of n uniform random u32 keys, `sort_by_key` of n (u32
//! key, u32 value) pairs and `sort_with` of the keys by a comparator (`a < b`) in the space's
//! memory, against CUB's `DeviceRadixSort::SortKeys`, `SortPairs` and `DeviceMergeSort::SortKeys`
//! on Cuda (`--compare`: a CUDA C++ program compiled by nvcc at run time) and rayon's parallel
//! sorts of a `Vec` from a pool of as many threads as the space (std's sorts on one thread for
//! Serial). Every implementation's result is checked: keys in order and a permutation of
//! the input, each value the original index of its key, equal keys in input order where the sort
//! is stable.

mod check;
mod cub_peer;
mod host_peer;

use std::sync::Arc;
use std::time::Instant;

use ferrokkos::prelude::*;
use ferrokkos::traits::Launch;
use ferrokkos::{
    SpaceChoice, SpaceTask, create_mirror_view_and_copy, kernel, sort, sort_by_key, sort_with,
};

use crate::Failure;
use crate::cli::{SpaceArg, integer, space_choice};
use crate::progress::Progress;
use crate::spaces::on_device;
use crate::timing::Times;

/// `ferrokkos sort --help`: what the command does, before the options.
pub const LONG_ABOUT: &str = "\
Sorts n uniform random u32 keys (splitmix64 from a fixed seed, generated once on the host and
copied into the space's memory) with ferrokkos' sort, and n (u32 key, u32 value) pairs, the values
being the keys' original indices 0..n, with sort_by_key (stable), and the keys again with sort_with
and the device comparator a < b (a merge sort, for orders a radix sort cannot give; with
--no-comparator left out). Before each run the unsorted input is restored by a deep_copy from a
second View that holds it (not timed); a run times the sort alone, ended by a fence. With
--compare, on cuda CUB's cub::DeviceRadixSort::SortKeys and SortPairs and
cub::DeviceMergeSort::SortKeys with a less-than functor (a CUDA C++ program that the command
writes, compiles with the nvcc it finds in $CUDA_HOME/bin, /usr/local/cuda/bin or PATH, and runs:
the same keys, one warm-up, then cudaEvent times around the sort call alone, the input restored by
cudaMemcpy before each; skipped, with the reason, when there is no nvcc or it fails); on serial and
threads rayon's par_sort_unstable of a Vec<u32>, par_sort_by_key (stable) and
par_sort_unstable_by_key of a Vec<(u32, u32)> by the key, and par_sort_by(|a, b| a.cmp(b)) (stable)
of the keys, in a rayon pool of the space's threads (std's sort_unstable, sort_by_key,
sort_unstable_by_key and sort_by on the calling thread for serial), the input restored before each
run (not timed). Every result is checked (keys in order and a permutation of the input, each value
the original index of its key, equal keys in input order for the stable sorts). Prints the best and
median time of each after one warm-up, its rate in Gkeys/s (n / best), and its time over ferrokkos'
of the same kind: sort for keys, sort_by_key for pairs, sort_with for the comparator's rows (above
1: slower).";

/// The seed of the keys' splitmix64 generator (the CUB peer generates the same keys from it).
const SEED: u64 = 20_241_129;

/// The options of `ferrokkos sort`.
#[derive(Debug, clap::Args)]
pub struct Args {
    /// keys (and pairs)
    #[arg(short = 'n', value_name = "N", default_value_t = 1 << 26,
        value_parser = integer::<usize>(1, u64::from(u32::MAX)))]
    n: usize,
    /// timed runs per implementation, after one warm-up
    #[arg(long, value_name = "R", default_value_t = 10, value_parser = integer::<usize>(1, 1 << 20))]
    runs: usize,
    #[command(flatten)]
    space: SpaceArg,
    /// also run the peers (see above)
    #[arg(long)]
    compare: bool,
    /// leave out the comparator sorts (sort_with and its peers)
    #[arg(long)]
    no_comparator: bool,
}

/// Runs `ferrokkos sort` with its options.
pub fn main(settings: InitSettings, args: Args) -> Result<(), Failure> {
    let space: SpaceChoice = space_choice(args.space.clone());
    crate::spaces::run_benchmark(settings, space, Task(&args), || {})
}

/// The benchmark, run on the space chosen at run time.
struct Task<'a>(&'a Args);

impl SpaceTask for Task<'_> {
    type Output = Result<(), Failure>;
    fn run<S: Launch>(self, exec: &S) -> ferrokkos::Result<Self::Output> {
        Ok(run(self.0, exec))
    }
}

/// What an implementation sorts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// u32 keys alone.
    Keys,
    /// (u32 key, u32 value) pairs, by the key.
    Pairs,
    /// u32 keys alone, by a comparator (`a < b`).
    Comparator,
}

impl Kind {
    /// What ferrokkos calls for this kind.
    fn call(self) -> &'static str {
        match self {
            Kind::Keys => "sort",
            Kind::Pairs => "sort_by_key",
            Kind::Comparator => "sort_with (a < b)",
        }
    }
}

/// The output of one sort, read back on the host.
pub struct Sorted {
    /// The keys, in the order the sort left them.
    pub keys: Vec<u32>,
    /// The values that moved with them (pairs only).
    pub values: Option<Vec<u32>>,
}

/// One implementation: sorts its own copy of the input once per call.
pub trait Sorter {
    /// Its name in the table.
    fn name(&self) -> String;
    /// Keys or pairs.
    fn kind(&self) -> Kind;
    /// Whether it keeps equal keys in their input order (checked if so).
    fn stable(&self) -> bool;
    /// Puts the unsorted input back (not timed).
    fn restore(&mut self) -> Result<(), Failure>;
    /// One sort, complete when it returns (timed).
    fn sort(&mut self) -> Result<(), Failure>;
    /// The output of the last sort.
    fn sorted(&self) -> Result<Sorted, Failure>;
}

/// One line of the report.
pub struct Row {
    /// The implementation.
    pub name: String,
    /// Keys or pairs.
    pub kind: Kind,
    /// The fastest run, in seconds.
    pub best: f64,
    /// The median run, in seconds.
    pub median: f64,
}

/// n u32 keys in the order splitmix64 from `seed` gives them: the high 32 bits of each output.
pub fn uniform_keys(n: usize, seed: u64) -> Vec<u32> {
    let mut state = seed;
    (0..n)
        .map(|_| (check::splitmix64(&mut state) >> 32) as u32)
        .collect()
}

/// A View of u32 in the memory space `M`.
type Array<M> = View<u32, 1, LayoutRight, M>;

/// ferrokkos' `sort` (no values), `sort_by_key` or `sort_with`, on `exec`.
struct Ferrokkos<'a, S: Launch> {
    /// The instance that sorts.
    exec: &'a S,
    /// Keys, pairs (then `values` is some) or keys by the comparator.
    kind: Kind,
    /// The keys that are sorted.
    keys: Array<S::MemorySpace>,
    /// The unsorted keys, copied into `keys` before each run.
    original: Array<S::MemorySpace>,
    /// For `sort_by_key`: the values.
    values: Option<Values<S::MemorySpace>>,
}

/// The values of `sort_by_key`.
struct Values<M: MemorySpace> {
    /// The values that are sorted with the keys.
    sorted: Array<M>,
    /// Their unsorted order (0..n), copied into `sorted` before each run.
    original: Array<M>,
}

impl<S: Launch> Sorter for Ferrokkos<'_, S> {
    fn name(&self) -> String {
        crate::spaces::ferrokkos_line(self.exec, self.kind.call())
    }
    fn kind(&self) -> Kind {
        self.kind
    }
    fn stable(&self) -> bool {
        true
    }
    fn restore(&mut self) -> Result<(), Failure> {
        deep_copy(&self.keys, &self.original)?;
        if let Some(values) = &self.values {
            deep_copy(&values.sorted, &values.original)?;
        }
        Ok(())
    }
    fn sort(&mut self) -> Result<(), Failure> {
        match (&self.values, self.kind) {
            (Some(values), _) => sort_by_key(self.exec, &self.keys, &values.sorted)?,
            (None, Kind::Comparator) => sort_with(
                self.exec,
                &self.keys,
                kernel!(|a: u32, b: u32| -> bool { a < b }),
            )?,
            (None, _) => sort(self.exec, &self.keys)?,
        }
        self.exec.fence("sort")?;
        Ok(())
    }
    fn sorted(&self) -> Result<Sorted, Failure> {
        let read = |v: &Array<S::MemorySpace>| -> Result<Vec<u32>, Failure> {
            Ok(create_mirror_view_and_copy(HostSpace, v)?.to_vec()?)
        };
        Ok(Sorted {
            keys: read(&self.keys)?,
            values: self.values.as_ref().map(|v| read(&v.sorted)).transpose()?,
        })
    }
}

/// A new View labelled `label` in `M` holding `data`: filled through a host mirror (the View
/// itself in host memory), then copied to the device where `M` is a device's.
fn upload<M: MemorySpace>(label: &str, data: &[u32]) -> Result<Array<M>, Failure> {
    let view = Array::<M>::new(view_alloc(label).without_initializing(), [data.len()])?;
    let mirror = create_mirror_view(&view)?;
    {
        let mut host = mirror.host_mut()?;
        let slice = host.as_mut_slice().ok_or_else(|| {
            Failure::Run(format!("sort: the mirror of {label} is not contiguous"))
        })?;
        slice.copy_from_slice(data);
    }
    deep_copy(&view, &mirror)?;
    Ok(view)
}

/// ferrokkos' implementations on `exec`: `sort` of `original`, `sort_by_key` of it with the
/// values 0..n, and, if `comparator`, `sort_with` of it.
fn ferrokkos<'a, S: Launch>(
    exec: &'a S,
    original: &[u32],
    comparator: bool,
) -> Result<Vec<Box<dyn Sorter + 'a>>, Failure> {
    let n = original.len();
    let keys_in = upload::<S::MemorySpace>("keys_original", original)?;
    let indices: Vec<u32> = (0..n).map(|i| i as u32).collect();
    let values_in = upload::<S::MemorySpace>("values_original", &indices)?;
    let scratch =
        |label: &str| Array::<S::MemorySpace>::new(view_alloc(label).without_initializing(), [n]);
    let keys = Ferrokkos {
        exec,
        kind: Kind::Keys,
        keys: scratch("keys")?,
        original: keys_in.clone(),
        values: None,
    };
    let pairs = Ferrokkos {
        exec,
        kind: Kind::Pairs,
        keys: scratch("pair_keys")?,
        original: keys_in.clone(),
        values: Some(Values {
            sorted: scratch("pair_values")?,
            original: values_in,
        }),
    };
    let mut imps: Vec<Box<dyn Sorter + 'a>> = vec![Box::new(keys), Box::new(pairs)];
    if comparator {
        imps.push(Box::new(Ferrokkos {
            exec,
            kind: Kind::Comparator,
            keys: scratch("comparator_keys")?,
            original: keys_in,
            values: None,
        }));
    }
    Ok(imps)
}

/// The benchmark on `exec`: generates the keys, times every implementation, checks their results
/// (not timed), runs the CUB peer on a GPU, and prints the table.
fn run<S: Launch>(args: &Args, exec: &S) -> Result<(), Failure> {
    let original = Arc::new(uniform_keys(args.n, SEED));
    let comparator = !args.no_comparator;
    let mut imps = ferrokkos(exec, &original, comparator)?;
    let mut skipped = vec![];
    if args.compare && !on_device::<S>() {
        match host_peer::peers(exec.concurrency(), &original, comparator) {
            Ok(p) => imps.extend(p),
            Err(why) => skipped.push(why),
        }
    }
    println!(
        "sort on {}: n = {} uniform random u32 keys ({:.1} MB), pairs with u32 values, {} runs",
        crate::spaces::describe(exec),
        args.n,
        args.n as f64 * 4e-6,
        args.runs
    );
    let times = time(&mut imps, args.runs)?;
    let mut rows = vec![];
    for (imp, t) in imps.iter().zip(times) {
        check::check(&imp.name(), imp.stable(), &original, &imp.sorted()?)?;
        rows.push(Row {
            name: imp.name(),
            kind: imp.kind(),
            best: t.best(),
            median: t.median(),
        });
    }
    drop(imps);
    if args.compare && on_device::<S>() {
        match cub_peer::rows(args.n, args.runs, SEED, comparator)? {
            Ok(r) => rows.extend(r),
            Err(why) => skipped.push(why),
        }
    }
    report(&rows, args.n);
    for why in skipped {
        println!("  {why}");
    }
    Ok(())
}

/// One warm-up round and `runs` timed rounds of every implementation in turn, each run after its
/// input was restored (not timed).
fn time(imps: &mut [Box<dyn Sorter + '_>], runs: usize) -> Result<Vec<Times>, Failure> {
    let mut times: Vec<Times> = imps.iter().map(|_| Times::default()).collect();
    let progress = Progress::new("sort: runs", ((runs + 1) * imps.len()) as u64);
    for round in 0..=runs {
        for (k, imp) in imps.iter_mut().enumerate() {
            imp.restore()?;
            let start = Instant::now();
            imp.sort()?;
            if round > 0 {
                times[k].0.push(start.elapsed().as_secs_f64());
            }
            progress.step();
        }
    }
    Ok(times)
}

/// The table: keys, then pairs, then the comparator's, each time over ferrokkos' of its kind.
fn report(rows: &[Row], n: usize) {
    println!(
        "  {:<72} {:>10} {:>10} {:>8} {:>15}",
        "implementation", "best s", "median s", "Gkeys/s", "best/ferrokkos"
    );
    for kind in [Kind::Keys, Kind::Pairs, Kind::Comparator] {
        let of_kind: Vec<&Row> = rows.iter().filter(|r| r.kind == kind).collect();
        // ferrokkos' row comes first in each kind.
        let base = of_kind.first().map_or(f64::NAN, |r| r.best);
        for row in of_kind {
            println!(
                "  {:<72} {:>10.6} {:>10.6} {:>8.3} {:>15.3}",
                row.name,
                row.best,
                row.median,
                n as f64 * 1e-9 / row.best,
                row.best / base
            );
        }
    }
}
