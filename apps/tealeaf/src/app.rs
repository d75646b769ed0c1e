//! The command line and the run on the chosen execution space.

use std::io::Write;
use std::path::{Path, PathBuf};
use std::rc::Rc;

use ferrokkos::traits::{GraphSpace, Launch};
use ferrokkos::{SpaceChoice, SpaceTask, run_on};

use crate::comms::local::LocalComms;
use crate::comms::{Comms, Solo};
use crate::deck::Deck;
use crate::diffuse::{self, Outcome};
use crate::error::{Result, TeaError};
use crate::problems::Problems;
use crate::settings::{Graphs, Nccl, Solver};

/// The usage text.
pub const USAGE: &str = "\
tealeaf [options] [--kokkos-... options]
options:
  -i, --in, -f, --file FILE   the input deck (default: tea.in)
  -p, --problems FILE         the problems table (default: tea.problems here, else next to the deck)
  -s, --solver NAME           cg, cheby, ppcg or jacobi (overrides the deck)
  -x N, -y N                  cells in x, y (override the deck)
  --space NAME                serial, threads, cuda or best (default: best: Cuda with a GPU, else Threads)
  --profile                   print the per-kernel and per-phase profile (as the deck's profiler_on)
  --ranks N                   split the mesh over N ranks run as threads of this process (with
                              MPI, built with the feature mpi: mpirun -n N tealeaf instead)
  --graphs auto|on|off        CG's iterations as graphs: auto (the default) on a GPU when one rank
                              holds the mesh, on wherever one rank does, or off (same results)
  --nccl auto|on|off          GPU ranks exchange halos and sum through NCCL on the device: auto
                              (the default) where NCCL loads, on (an error where it does not), off
  -h, --help                  this text";

/// What the command line asks for.
#[derive(Clone, Debug, PartialEq)]
pub struct Options {
    /// The deck.
    pub deck: PathBuf,
    /// The problems table, if given.
    pub problems: Option<PathBuf>,
    /// The execution space.
    pub space: SpaceChoice,
    /// A solver overriding the deck's.
    pub solver: Option<Solver>,
    /// Cells in x overriding the deck's.
    pub x_cells: Option<usize>,
    /// Cells in y overriding the deck's.
    pub y_cells: Option<usize>,
    /// Profile (as `profiler_on`).
    pub profile: bool,
    /// Ranks run as threads of this process.
    pub ranks: usize,
    /// Whether CG iterates through graphs, overriding the default.
    pub graphs: Option<Graphs>,
    /// Whether GPU ranks talk through NCCL, overriding the default.
    pub nccl: Option<Nccl>,
    /// Print the usage and stop.
    pub help: bool,
}

impl Default for Options {
    fn default() -> Options {
        Options {
            deck: PathBuf::from("tea.in"),
            problems: None,
            space: SpaceChoice::Best,
            solver: None,
            x_cells: None,
            y_cells: None,
            profile: false,
            ranks: 1,
            graphs: None,
            nccl: None,
            help: false,
        }
    }
}

impl Options {
    /// Parses the arguments left once ferrokkos took its own (`InitSettings::from_args`), the
    /// program name excluded.
    pub fn parse(args: &[String]) -> Result<Options> {
        let mut options = Options::default();
        let mut args = args.iter();
        while let Some(arg) = args.next() {
            let (name, inline) = match arg.split_once('=') {
                Some((n, v)) if n.starts_with("--") => (n, Some(v.to_string())),
                _ => (arg.as_str(), None),
            };
            let mut value = || {
                inline
                    .clone()
                    .or_else(|| args.next().cloned())
                    .ok_or_else(|| TeaError::Usage(format!("{name} needs a value")))
            };
            let cells = |v: String| {
                v.parse::<usize>()
                    .ok()
                    .filter(|&n| n > 0)
                    .ok_or_else(|| TeaError::Usage(format!("{name}: {v:?} is not a count")))
            };
            match name {
                "-i" | "--in" | "-f" | "--file" => options.deck = PathBuf::from(value()?),
                "-p" | "--problems" => options.problems = Some(PathBuf::from(value()?)),
                "-s" | "-solver" | "--solver" => options.solver = Some(value()?.parse()?),
                "-x" => options.x_cells = Some(cells(value()?)?),
                "-y" => options.y_cells = Some(cells(value()?)?),
                "--space" => options.space = value()?.parse()?,
                "--profile" => options.profile = true,
                "--ranks" => options.ranks = cells(value()?)?,
                "--graphs" => options.graphs = Some(value()?.parse()?),
                "--nccl" => options.nccl = Some(value()?.parse()?),
                "-h" | "-help" | "--help" => options.help = true,
                other => {
                    return Err(TeaError::Usage(format!(
                        "unknown argument {other:?}\n{USAGE}"
                    )));
                }
            }
        }
        Ok(options)
    }

    /// The problems table to read: the one given, else `tea.problems` in the working directory,
    /// else next to the deck.
    pub fn problems_path(&self) -> PathBuf {
        if let Some(p) = &self.problems {
            return p.clone();
        }
        let here = PathBuf::from("tea.problems");
        if here.exists() {
            return here;
        }
        let beside = self
            .deck
            .parent()
            .unwrap_or(Path::new("."))
            .join("tea.problems");
        if beside.exists() { beside } else { here }
    }

    /// Reads the deck and applies the command line's overrides.
    pub fn load_deck(&self) -> Result<Deck> {
        let mut deck = Deck::read(&self.deck)?;
        let s = &mut deck.settings;
        if let Some(solver) = self.solver {
            s.solver = solver;
        }
        s.x_cells = self.x_cells.unwrap_or(s.x_cells);
        s.y_cells = self.y_cells.unwrap_or(s.y_cells);
        s.profiler_on |= self.profile;
        s.graphs = self.graphs.unwrap_or(s.graphs);
        s.nccl = self.nccl.unwrap_or(s.nccl);
        s.validate().map_err(|message| TeaError::Input {
            path: self.deck.clone(),
            message,
        })?;
        Ok(deck)
    }
}

/// The run as work for any execution space.
struct Task<'a> {
    deck: &'a Deck,
    problems: Option<&'a Problems>,
    comms: Rc<dyn Comms>,
    out: &'a mut dyn Write,
}

impl SpaceTask for Task<'_> {
    type Output = Result<Outcome>;

    fn run<S: Launch + GraphSpace>(self, exec: &S) -> ferrokkos::Result<Result<Outcome>> {
        let header = writeln!(
            self.out,
            "Model:\n - Name:      ferrokkos {}\n - Execution: {} (concurrency {})\n \
             - Ranks:     {} ({})",
            env!("CARGO_PKG_VERSION"),
            S::NAME,
            exec.concurrency(),
            self.comms.ranks(),
            self.comms.name()
        );
        if let Err(e) = header {
            return Ok(Err(TeaError::Output(e)));
        }
        Ok(diffuse::run(
            exec.clone(),
            self.deck,
            self.problems,
            self.comms,
            self.out,
        ))
    }
}

/// Runs `deck` on the space `space` stands for, as one rank, writing TeaLeaf's report to
/// `out`.
pub fn run(
    deck: &Deck,
    problems: Option<&Problems>,
    space: SpaceChoice,
    out: &mut dyn Write,
) -> Result<Outcome> {
    run_rank(deck, problems, space, Rc::new(Solo), out)
}

/// Runs this rank's part of `deck` (the rank and its peers are `comms`'), on the space `space`
/// stands for, writing the report to `out` (give the other ranks a sink).
pub fn run_rank(
    deck: &Deck,
    problems: Option<&Problems>,
    space: SpaceChoice,
    comms: Rc<dyn Comms>,
    out: &mut dyn Write,
) -> Result<Outcome> {
    run_on(
        space,
        Task {
            deck,
            problems,
            comms,
            out,
        },
    )?
}

/// Runs `deck` split over `ranks` ranks, each a thread of this process on the space `space`
/// stands for; rank 0 runs on the calling thread and writes the report to `out`. Returns rank
/// 0's outcome, or the first error of any rank (the others then stop too).
pub fn run_threads(
    deck: &Deck,
    problems: Option<&Problems>,
    space: SpaceChoice,
    ranks: usize,
    out: &mut dyn Write,
) -> Result<Outcome> {
    let mut group = LocalComms::group(ranks).into_iter();
    let Some(first) = group.next() else {
        return Err(TeaError::Usage("no ranks to run".to_string()));
    };
    std::thread::scope(|scope| {
        let others: Vec<_> = group
            .map(|comms| {
                scope.spawn(move || {
                    let this = Rc::new(comms);
                    let shared: Rc<dyn Comms> = this.clone();
                    let outcome = run_rank(deck, problems, space, shared, &mut std::io::sink());
                    finish(this, &outcome);
                    outcome
                })
            })
            .collect();
        let this = Rc::new(first);
        let shared: Rc<dyn Comms> = this.clone();
        let outcome = run_rank(deck, problems, space, shared, out);
        finish(this, &outcome);
        let mut first_error = None;
        for (rank, handle) in others.into_iter().enumerate() {
            let result = handle
                .join()
                .unwrap_or_else(|_| Err(TeaError::Comms(format!("rank {} panicked", rank + 1))));
            if let Err(e) = result {
                first_error.get_or_insert(e);
            }
        }
        match (outcome, first_error) {
            (Err(e), _) => Err(e),
            (Ok(_), Some(e)) => Err(e),
            (Ok(o), None) => Ok(o),
        }
    })
}

/// Ends a thread rank: finished if its run succeeded, else the group is stopped so that no
/// other rank waits for it.
fn finish(comms: Rc<LocalComms>, outcome: &Result<Outcome>) {
    match outcome {
        Err(e) => comms.abort(&e.to_string()),
        Ok(_) => {
            if let Ok(c) = Rc::try_unwrap(comms) {
                c.finish();
            }
        }
    }
}
