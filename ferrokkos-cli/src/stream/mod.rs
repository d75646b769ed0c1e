//! `ferrokkos stream`: BabelStream's memory-bandwidth benchmark, written with ferrokkos.
//!
//! The kernels, start values, byte counts, repetition rules (the first repetition is discarded) and
//! validation tolerances are BabelStream's, so the numbers line up with published BabelStream results.
//! The ferrokkos implementation is written once, generic over the execution space, and runs on
//! Serial, Threads or Cuda as chosen at run time (`--space`, through [`ferrokkos::run_on`]).
//! `--compare` runs the same kernels in the same process, interleaved kernel by kernel, with peers:
//! on the host spaces a plain serial loop, rayon, and C with OpenMP (BabelStream's OMP model, with
//! as many threads as the space; `csrc/`, compiled by `build.rs`); on Cuda hand-written CUDA C++ kernels (one
//! thread per element, grid-stride, and the way BabelStream's current CUDA model launches them) and a
//! device-to-device memcpy. It prints the ratios of the fastest repetitions (BabelStream's figure) and
//! of the median repetitions (steadier on a shared machine), a column per peer.
//!
//! Two kernels that are not BabelStream's, DeepCopy and Fill (`--only Copies`), time
//! [`ferrokkos::deep_copy`] itself, View to View and a value into a View, against memcpy and fill
//! peers; no BabelStream selection includes them.

#[cfg(feature = "peers")]
mod cuda_peers;
mod ferrokkos_impl;
mod float;
mod kernel;
#[cfg(all(feature = "peers", not(ferrokkos_no_openmp)))]
mod openmp_peer;
mod peers;
mod report;

use std::time::Instant;

#[cfg(feature = "peers")]
use ferrokkos::ExecutionSpace;
use ferrokkos::traits::Launch;
use ferrokkos::{InitSettings, SpaceChoice, SpaceTask};

use clap::builder::{PossibleValuesParser, TypedValueParser};

use crate::Failure;
use crate::cli::{SpaceArg, integer, space_choice};
use ferrokkos_impl::FerrokkosStream;
use float::StreamFloat;
use kernel::{Gold, Kernel};
use report::{Report, Shape, Times, Unit};

/// `ferrokkos stream --help`: what the command does, before the options.
pub const LONG_ABOUT: &str = "\
BabelStream (Copy c=a, Mul b=s*c, Add c=a+b, Triad a=b+s*c, Dot sum(a*b), Nstream a+=b+s*c) on
ferrokkos. Prints MBytes/sec (from the fastest repetition), min, max and average seconds per kernel,
the first repetition excluded, and validates the results. Two more kernels, not BabelStream's,
measure ferrokkos' deep_copy: DeepCopy c=a (deep_copy(&c, &a); 2 arrays moved) and Fill c=0.3
(deep_copy(&c, 0.3); 1 array written).";

/// The names `--only` takes (any case), as [`Kernel::parse_selection`] reads them.
const SELECTIONS: [&str; 11] = [
    "Copy", "Mul", "Add", "Triad", "Dot", "Nstream", "Classic", "All", "DeepCopy", "Fill", "Copies",
];

/// The value parser of `--only`: one of [`SELECTIONS`] (any case), as its kernels.
fn selection() -> impl TypedValueParser<Value = Vec<Kernel>> {
    PossibleValuesParser::new(SELECTIONS)
        .try_map(|name: String| Kernel::parse_selection(&name).ok_or("no such kernel"))
}

/// The options of `ferrokkos stream`.
#[derive(Debug, clap::Args)]
#[command(args_override_self = true)]
pub struct Args {
    /// elements per array (2^25)
    #[arg(
        short = 's',
        long,
        value_name = "N",
        default_value_t = 1 << 25,
        value_parser = integer::<usize>(1, u64::MAX),
        allow_negative_numbers = true
    )]
    arraysize: usize,
    /// repetitions, at least 2
    #[arg(
        short = 'n',
        long,
        value_name = "N",
        default_value_t = 100,
        value_parser = integer::<usize>(2, u64::MAX),
        allow_negative_numbers = true
    )]
    numtimes: usize,
    /// use f32 instead of f64
    #[arg(long)]
    float: bool,
    // (`std::vec::Vec` spelled out: one value, a list of kernels, which clap would take for a list
    // of values if it were a plain `Vec`.)
    /// Copy, Mul, Add, Triad, Dot, Nstream, Classic (the first five, default), All
    /// (BabelStream's six; not the deep_copy kernels), DeepCopy, Fill or Copies
    /// (DeepCopy then Fill)
    #[arg(
        short = 'o',
        long,
        value_name = "NAME",
        default_value = "Classic",
        value_parser = selection(),
        ignore_case = true,
        hide_possible_values = true,
        hide_default_value = true,
        verbatim_doc_comment
    )]
    only: std::vec::Vec<Kernel>,
    #[command(flatten)]
    space: SpaceArg,
    /// also run peers, interleaved, and print the ratios: on serial and threads a
    /// plain serial loop, rayon and C with OpenMP (as many OpenMP threads as the
    /// space has: 1 on serial); on cuda hand-written CUDA C++ kernels (compiled
    /// by NVRTC: cuda-1thread, one thread per element in blocks of 1024;
    /// cuda-gridstride, a grid-stride loop on a grid that fills the device once;
    /// babelstream-cuda, launched as BabelStream's current CUDA model does:
    /// blocks of 256, a grid-stride loop unrolled 4 times, about 4 elements per
    /// thread; every Dot on 4 blocks of 1024 per SM) and, for Copy and
    /// DeepCopy, a device-to-device memcpy. The host peers of DeepCopy copy
    /// with memcpy (copy_from_slice; one contiguous chunk per thread on rayon
    /// and OpenMP), those of Fill with a fill loop; on cuda, Fill's peers are
    /// hand-written fill kernels
    #[arg(long, verbatim_doc_comment)]
    compare: bool,
    /// print CSV instead of tables
    #[arg(long)]
    csv: bool,
    /// use MiB (2^20 bytes) instead of MB (10^6 bytes)
    #[arg(long)]
    mibibytes: bool,
}

/// The options, as the benchmark uses them.
struct Config {
    /// `-s`: elements per array.
    n: usize,
    /// `-n`: repetitions.
    reps: usize,
    /// `--float`.
    float: bool,
    /// `--csv`.
    csv: bool,
    /// `--only`: the kernels to run, in BabelStream's order (the `deep_copy` kernels after).
    kernels: Vec<Kernel>,
    /// `--space`: the execution space of the ferrokkos implementation.
    space: SpaceChoice,
    /// `--compare`.
    compare: bool,
    /// `--mibibytes`.
    unit: Unit,
}

impl From<Args> for Config {
    fn from(args: Args) -> Config {
        Config {
            n: args.arraysize,
            reps: args.numtimes,
            float: args.float,
            csv: args.csv,
            kernels: args.only,
            space: space_choice(args.space),
            compare: args.compare,
            unit: Unit {
                mibibytes: args.mibibytes,
            },
        }
    }
}

/// Runs `ferrokkos stream` with its options.
pub fn main(settings: InitSettings, args: Args) -> Result<(), Failure> {
    let cfg = Config::from(args);
    crate::spaces::run_benchmark(settings, cfg.space, StreamTask(&cfg), || {
        if cfg.space.resolve() == ferrokkos::SpaceChoice::Cuda
            && !cfg.csv
            && let Ok(jit) = ferrokkos::Cuda::jit_stats()
        {
            println!(
                "Kernels: {} compiled by NVRTC (the first {:.1} ms, slowest {:.1} ms), {} loaded \
                 from the disk cache (slowest {:.2} ms), each from its first launch to loaded code",
                jit.compiled,
                jit.first_compile.as_secs_f64() * 1e3,
                jit.slowest_compile.as_secs_f64() * 1e3,
                jit.from_disk,
                jit.slowest_from_disk.as_secs_f64() * 1e3
            );
        }
    })
}

/// The benchmark as a [`SpaceTask`]: [`ferrokkos::run_on`] calls its `run` with the instance of the
/// space chosen at run time.
struct StreamTask<'c>(&'c Config);

impl SpaceTask for StreamTask<'_> {
    type Output = Result<(), Failure>;

    fn run<S: Launch>(self, exec: &S) -> ferrokkos::Result<Self::Output> {
        Ok(if self.0.float {
            run::<S, f32>(self.0, exec)
        } else {
            run::<S, f64>(self.0, exec)
        })
    }
}

/// A function given the final arrays a, b and c.
pub type ArrayCheck<'a, T> = dyn FnMut(&[T], &[T], &[T]) + 'a;

/// One way of running the kernels: ferrokkos, or a peer.
pub trait Implementation<T> {
    /// The full name, for the table header.
    fn name(&self) -> String;
    /// A short name, for the comparison columns.
    fn short_name(&self) -> &'static str;
    /// Whether it runs `kernel` (the memcpy peer runs Copy and DeepCopy only); the others are
    /// skipped.
    fn supports(&self, _kernel: Kernel) -> bool {
        true
    }
    /// Runs one kernel to completion; returns the dot product for `Dot`.
    fn run(&mut self, kernel: Kernel) -> Result<Option<T>, Failure>;
    /// Calls `check` with the arrays a, b and c.
    fn arrays(&self, check: &mut ArrayCheck<'_, T>) -> Result<(), Failure>;
}

/// The implementations, ferrokkos on `exec` first. The order of allocation matters by a few percent
/// on the machines we measured (arrays allocated later ran up to 3% faster, whatever the code), so
/// ferrokkos, allocated first, is measured on the side of caution.
fn implementations<S: Launch, T: StreamFloat>(
    cfg: &Config,
    exec: &S,
) -> Result<Vec<Box<dyn Implementation<T>>>, Failure> {
    let mut list: Vec<Box<dyn Implementation<T>>> = Vec::new();
    list.push(Box::new(FerrokkosStream::<S, T>::new(exec.clone(), cfg.n)?));
    if !cfg.compare {
        return Ok(list);
    }
    if ferrokkos_impl::on_device::<S>() {
        #[cfg(feature = "peers")]
        list.extend(cuda_peers::peers::<T>(cfg.n)?);
        #[cfg(not(feature = "peers"))]
        return Err(Failure::Run(
            "stream: --compare on a device needs ferrokkos-cli built with the `peers` feature"
                .into(),
        ));
    } else {
        list.push(Box::new(peers::PlainLoop::new(cfg.n)));
        #[cfg(feature = "peers")]
        list.push(Box::new(
            peers::Rayon::new(cfg.n, ferrokkos::Threads::default_instance()?.concurrency())
                .map_err(Failure::Run)?,
        ));
        // As many OpenMP threads as the space has (1 on Serial).
        #[cfg(all(feature = "peers", not(ferrokkos_no_openmp)))]
        list.push(Box::new(openmp_peer::OpenMp::<T>::new(
            cfg.n,
            exec.concurrency(),
        )?));
    }
    Ok(list)
}

/// Runs the benchmark on `exec` with elements of type `T`: the header, every implementation's
/// kernels interleaved, validation, the tables.
fn run<S: Launch, T: StreamFloat>(cfg: &Config, exec: &S) -> Result<(), Failure> {
    let size_of = std::mem::size_of::<T>();
    if !cfg.csv {
        let scale = if cfg.unit.mibibytes {
            1.0 / (1u64 << 20) as f64
        } else {
            1e-6
        };
        let (small, big) = if cfg.unit.mibibytes {
            ("MiB", "GiB")
        } else {
            ("MB", "GB")
        };
        let array = (cfg.n * size_of) as f64 * scale;
        println!("BabelStream");
        println!(
            "Version: 5.0 (ferrokkos stream {})",
            env!("CARGO_PKG_VERSION")
        );
        println!("Running kernels {} times", cfg.reps);
        println!("Number of elements: {}", cfg.n);
        println!("Precision: {}", T::NAME);
        println!("Array size: {array:.1} {small} (={:.1} {big})", array / 1e3);
        println!(
            "Total size: {:.1} {small} (={:.1} {big})",
            3.0 * array,
            3.0 * array / 1e3
        );
        println!();
    }
    let mut impls = implementations::<S, T>(cfg, exec)?;
    let mut times = vec![vec![Times::default(); cfg.kernels.len()]; impls.len()];
    let mut dots: Vec<Option<T>> = vec![None; impls.len()];
    // Each kernel runs on every implementation back to back (each implementation keeps BabelStream's
    // kernel order on its own arrays), in an order that cycles through every permutation, so that all
    // see the same machine conditions and each follows each other one equally often (a peer's threads
    // still spinning after its launch slow whoever comes next).
    let orders = crate::schedule::permutations(impls.len());
    let mut next_order = orders.iter().cycle();
    let progress = crate::progress::Progress::new("stream: repetitions", cfg.reps as u64);
    for _ in 0..cfg.reps {
        for (k, &kernel) in cfg.kernels.iter().enumerate() {
            for &m in next_order.next().into_iter().flatten() {
                if !impls[m].supports(kernel) {
                    continue;
                }
                let start = Instant::now();
                let dot = impls[m].run(kernel)?;
                times[m][k].0.push(start.elapsed().as_secs_f64());
                if dot.is_some() {
                    dots[m] = dot;
                }
            }
        }
        progress.step();
    }
    drop(progress);
    let mut reports = Vec::new();
    for ((imp, times), dot) in impls.iter().zip(times).zip(dots) {
        // Each implementation is checked against the kernels it ran.
        let ran: Vec<Kernel> = cfg
            .kernels
            .iter()
            .copied()
            .filter(|&k| imp.supports(k))
            .collect();
        let gold = Gold::<T>::after(&ran, cfg.reps, cfg.n);
        let mut failures = Vec::new();
        imp.arrays(&mut |a, b, c| failures = report::validate(&gold, &ran, [a, b, c], dot))?;
        reports.push(Report {
            name: imp.name(),
            short: imp.short_name(),
            times,
            failures,
        });
    }
    drop(impls);
    let shape = Shape {
        kernels: cfg.kernels.clone(),
        reps: cfg.reps,
        n: cfg.n,
        size_of,
        unit: cfg.unit,
    };
    if cfg.csv {
        shape.print_csv(&reports);
    } else {
        for r in &reports {
            shape.print_table(r);
        }
        if reports.len() > 1 {
            shape.print_comparison(&reports);
        }
    }
    if let Some(note) =
        crate::openmp::skipped_note().filter(|_| cfg.compare && !ferrokkos_impl::on_device::<S>())
    {
        // On standard error with --csv, so that standard output stays CSV.
        if cfg.csv {
            eprintln!("{note}");
        } else {
            println!("{note}\n");
        }
    }
    let failed: Vec<String> = reports
        .iter()
        .filter(|r| !r.failures.is_empty())
        .map(|r| format!("{}: {}", r.name, r.failures.join("; ")))
        .collect();
    if failed.is_empty() {
        Ok(())
    } else {
        Err(Failure::Run(format!(
            "stream: validation failed: {}",
            failed.join(" | ")
        )))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn selections_follow_babelstream() {
        let classic = Kernel::parse_selection("Classic").unwrap();
        assert_eq!(classic.len(), 5);
        assert!(!classic.contains(&Kernel::Nstream));
        assert_eq!(Kernel::parse_selection("all").unwrap().len(), 6);
        assert_eq!(
            Kernel::parse_selection("triad").unwrap(),
            vec![Kernel::Triad]
        );
        assert!(Kernel::parse_selection("fma").is_none());
        // The deep_copy kernels are in no BabelStream selection.
        for selection in ["classic", "all"] {
            let kernels = Kernel::parse_selection(selection).unwrap();
            assert!(!kernels.contains(&Kernel::DeepCopy) && !kernels.contains(&Kernel::Fill));
        }
    }

    #[test]
    fn copies_select_the_deep_copy_kernels() {
        assert_eq!(
            Kernel::parse_selection("copies").unwrap(),
            vec![Kernel::DeepCopy, Kernel::Fill]
        );
        assert_eq!(
            Kernel::parse_selection("Copies"),
            Kernel::parse_selection("COPIES")
        );
        assert_eq!(
            Kernel::parse_selection("deepcopy").unwrap(),
            vec![Kernel::DeepCopy]
        );
        assert_eq!(Kernel::parse_selection("Fill").unwrap(), vec![Kernel::Fill]);
        assert_eq!((Kernel::DeepCopy.weight(), Kernel::Fill.weight()), (2, 1));
        assert!(!Kernel::DeepCopy.classic() && !Kernel::Fill.classic());
        let cfg = parse(&["--only", "Copies"]).unwrap();
        assert_eq!(cfg.kernels, vec![Kernel::DeepCopy, Kernel::Fill]);
    }

    #[test]
    fn gold_values_replay_the_deep_copy_kernels() {
        let (a0, b0, fill) = (0.1, 0.2, 0.3);
        // Copies: c = a, then c = FILL; a and b untouched.
        let g = Gold::<f64>::after(&[Kernel::DeepCopy, Kernel::Fill], 3, 10);
        assert_eq!((g.a, g.b, g.c, g.sum), (a0, b0, fill, 0.0));
        // DeepCopy alone replays like Copy.
        let g = Gold::<f64>::after(&[Kernel::DeepCopy], 2, 10);
        assert_eq!(g.c, a0);
        // Fill, then BabelStream's kernels reading the filled c: Mul b = s c sees FILL.
        let g = Gold::<f32>::after(&[Kernel::Fill, Kernel::Mul], 1, 10);
        assert_eq!((g.b, g.c), (0.4f32 * 0.3f32, 0.3f32));
        // Validation accepts the replayed arrays.
        let kernels = Kernel::parse_selection("copies").unwrap();
        let g = Gold::<f64>::after(&kernels, 3, 4);
        let (a, b, c) = (vec![g.a; 4], vec![g.b; 4], vec![g.c; 4]);
        assert!(report::validate(&g, &kernels, [&a, &b, &c], None).is_empty());
        assert_eq!(report::validate(&g, &kernels, [&a, &b, &a], None).len(), 1);
    }

    #[test]
    fn gold_values_replay_the_kernels() {
        let g = Gold::<f64>::after(&Kernel::parse_selection("classic").unwrap(), 1, 10);
        // c = a; b = s c; c = a + b; a = b + s c; dot = a b n
        let (a0, s) = (0.1, 0.4);
        let b = s * a0;
        let c = a0 + b;
        let a = b + s * c;
        assert_eq!((g.a, g.b, g.c), (a, b, c));
        assert_eq!(g.sum, a * b * 10.0);
    }

    #[test]
    fn validation_reports_a_wrong_element_and_a_wrong_sum() {
        let kernels = Kernel::parse_selection("classic").unwrap();
        let g = Gold::<f64>::after(&kernels, 3, 4);
        let good = |v: f64| vec![v; 4];
        let (a, b, c) = (good(g.a), good(g.b), good(g.c));
        assert!(report::validate(&g, &kernels, [&a, &b, &c], Some(g.sum)).is_empty());
        let mut bad = a.clone();
        bad[2] *= 1.0 + 1e-10;
        let failures = report::validate(&g, &kernels, [&bad, &b, &c], Some(g.sum * 1.1));
        assert_eq!(failures.len(), 2, "{failures:?}");
        assert!(failures[0].starts_with("sum:"));
        assert!(failures[1].starts_with("a[2]:"));
    }

    #[test]
    fn defaults_are_babelstreams() {
        let cfg = parse(&[]).unwrap();
        assert_eq!((cfg.n, cfg.reps), (1 << 25, 100));
        assert_eq!(cfg.kernels, Kernel::parse_selection("classic").unwrap());
        assert_eq!(
            (cfg.float, cfg.csv, cfg.compare, cfg.unit.mibibytes),
            (false, false, false, false)
        );
    }

    #[test]
    fn options_parse() {
        let cfg = parse(&["-s", "1000", "--only=triad", "--float"]).unwrap();
        assert_eq!(
            (cfg.n, cfg.kernels.clone(), cfg.float),
            (1000, vec![Kernel::Triad], true)
        );
        let cfg = parse(&[
            "--arraysize=7",
            "--numtimes",
            "2",
            "-o",
            "ALL",
            "--csv",
            "--compare",
            "--mibibytes",
        ])
        .unwrap();
        assert_eq!((cfg.n, cfg.reps, cfg.kernels.len()), (7, 2, 6));
        assert_eq!(
            (cfg.float, cfg.csv, cfg.compare, cfg.unit.mibibytes),
            (false, true, true, true)
        );
        // A repeated option: the last one counts.
        let cfg = parse(&["-s", "5", "-s", "8", "-n", "3", "--numtimes=4"]).unwrap();
        assert_eq!((cfg.n, cfg.reps), (8, 4));
    }

    #[test]
    fn bad_options_are_usage_errors_saying_what_is_expected() {
        for (bad, says) in [
            (&["-n", "1"][..], "expected an integer, 2 or more"),
            (&["-n", "-3"], "expected an integer, 2 or more"),
            (&["-s", "0"], "expected a positive integer"),
            (&["-s", "-5"], "expected a positive integer"),
            (&["-s", "lots"], "expected a positive integer"),
            (&["--only", "fma"], "DeepCopy, Fill, Copies]"),
            (
                &["--space", "gpu"],
                "[possible values: serial, threads, cuda]",
            ),
            (
                &["--space", "best"],
                "[possible values: serial, threads, cuda]",
            ),
            (&["--space"], "a value is required for '--space <NAME>'"),
            (&["-x"], "unexpected argument '-x'"),
            (&["--csv=yes"], "unexpected value 'yes' for '--csv'"),
        ] {
            let e = parse(bad).map(|_| ()).unwrap_err();
            assert_eq!(e.exit_code(), 2, "{bad:?}");
            let e = e.to_string();
            assert!(e.contains(says), "{bad:?}: {e}");
            assert!(e.contains("\n\nUsage: ferrokkos stream "), "{bad:?}: {e}");
        }
    }

    #[test]
    fn spaces_parse_and_default_to_the_best_one() {
        let space = |v: &[&str]| parse(v).ok().map(|c| c.space);
        assert_eq!(space(&[]), Some(SpaceChoice::Best));
        assert_eq!(space(&["--space", "serial"]), Some(SpaceChoice::Serial));
        assert_eq!(space(&["--space=Threads"]), Some(SpaceChoice::Threads));
        assert_eq!(space(&["--space", "cuda"]), Some(SpaceChoice::Cuda));
        assert_eq!(
            space(&["--space", "CUDA", "--compare"]),
            Some(SpaceChoice::Cuda)
        );
    }

    /// `ferrokkos stream ARGS`, parsed as the program parses it.
    fn parse(args: &[&str]) -> Result<Config, clap::Error> {
        let line = ["ferrokkos", "stream"].iter().chain(args);
        match crate::cli::parse(line)?.command {
            Some(crate::cli::Command::Stream(args)) => Ok(Config::from(args)),
            other => panic!("{args:?} parsed as {other:?}"),
        }
    }
}
