//! The command line and the run on the chosen execution space.

use std::io::Write;
use std::path::{Path, PathBuf};

use ferrokkos::{Launch, SpaceChoice, SpaceTask, run_on};

use crate::deck::Deck;
use crate::diffuse::{self, Outcome};
use crate::error::{Result, TeaError};
use crate::problems::Problems;
use crate::settings::Solver;

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
                    .ok_or_else(|| TeaError::Usage(format!("{name}: {v:?} is not a cell count")))
            };
            match name {
                "-i" | "--in" | "-f" | "--file" => options.deck = PathBuf::from(value()?),
                "-p" | "--problems" => options.problems = Some(PathBuf::from(value()?)),
                "-s" | "-solver" | "--solver" => options.solver = Some(value()?.parse()?),
                "-x" => options.x_cells = Some(cells(value()?)?),
                "-y" => options.y_cells = Some(cells(value()?)?),
                "--space" => options.space = value()?.parse()?,
                "--profile" => options.profile = true,
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
    out: &'a mut dyn Write,
}

impl SpaceTask for Task<'_> {
    type Output = Result<Outcome>;

    fn run<S: Launch>(self, exec: &S) -> ferrokkos::Result<Result<Outcome>> {
        let header = writeln!(
            self.out,
            "Model:\n - Name:      ferrokkos {}\n - Execution: {} (concurrency {})",
            env!("CARGO_PKG_VERSION"),
            S::NAME,
            exec.concurrency()
        );
        if let Err(e) = header {
            return Ok(Err(TeaError::Output(e)));
        }
        Ok(diffuse::run(
            exec.clone(),
            self.deck,
            self.problems,
            self.out,
        ))
    }
}

/// Runs `deck` on the space `space` stands for, writing TeaLeaf's report to `out`.
pub fn run(
    deck: &Deck,
    problems: Option<&Problems>,
    space: SpaceChoice,
    out: &mut dyn Write,
) -> Result<Outcome> {
    run_on(
        space,
        Task {
            deck,
            problems,
            out,
        },
    )?
}
