//! `tealeaf`: runs a TeaLeaf deck on the execution space chosen at run time and checks the
//! result against the problems table. Exit status: 0 passed, 1 failed the check, 2 an error.
#![forbid(unsafe_code)]

use std::io::Write;
use std::process::ExitCode;
use std::rc::Rc;

use ferrokkos::{InitSettings, SpaceChoice};
use tealeaf::TeaError;
use tealeaf::app::{self, Options, USAGE};
use tealeaf::comms::Comms;
use tealeaf::problems::Problems;

fn main() -> ExitCode {
    match run() {
        Ok(true) => ExitCode::SUCCESS,
        Ok(false) => ExitCode::from(1),
        Err(e) => {
            eprintln!("tealeaf: {e}");
            ExitCode::from(2)
        }
    }
}

/// The ranks of the run: MPI's world when built with the feature `mpi`, else one rank.
fn comms() -> Result<Rc<dyn Comms>, TeaError> {
    #[cfg(feature = "mpi")]
    return Ok(Rc::new(tealeaf::comms::mpi::MpiComms::initialize()?));
    #[cfg(not(feature = "mpi"))]
    Ok(Rc::new(tealeaf::comms::Solo))
}

/// Whether the run passed its check.
fn run() -> Result<bool, TeaError> {
    let comms = comms()?;
    let (mut settings, rest) = InitSettings::from_args(std::env::args())?;
    let options = Options::parse(rest.get(1..).unwrap_or_default())?;
    let lead = comms.rank() == 0;
    if options.help {
        if lead {
            println!("{USAGE}");
        }
        return Ok(true);
    }
    if comms.ranks() > 1 {
        if options.ranks > 1 {
            return Err(TeaError::Usage(format!(
                "--ranks {} asks for thread ranks, but this run already has {} MPI ranks",
                options.ranks,
                comms.ranks()
            )));
        }
        // One GPU per rank, by node-local rank, unless a device was named.
        settings = settings.map_device_id_by_mpi_rank(true);
    }
    if matches!(options.space, SpaceChoice::Serial | SpaceChoice::Threads) {
        // A run on a host space needs no GPU: starting the Cuda backend would only cost its
        // start and its teardown (about 0.2 s on an H100 machine).
        settings = settings.disable_cuda(true);
    }
    let deck = options.load_deck()?;
    for warning in deck.warnings.iter().filter(|_| lead) {
        eprintln!("warning: {warning}");
    }
    let problems_path = options.problems_path();
    let mut stdout = std::io::stdout().lock();
    let mut sink = std::io::sink();
    let out: &mut dyn Write = if lead { &mut stdout } else { &mut sink };
    let s = &deck.settings;
    let say = |out: &mut dyn Write, text: String| writeln!(out, "{text}").map_err(TeaError::Output);
    say(
        out,
        format!(
            "TeaLeaf:\n - Ver.:     2.000 (ferrokkos)\n - Deck:     {}\n - Problem:  {}\n \
             - Solver:   {}\n - Profiler: {}\n - Mesh:     {}x{} cells, halo depth {}, {} steps",
            deck.path.display(),
            problems_path.display(),
            s.solver,
            s.profiler_on,
            s.x_cells,
            s.y_cells,
            s.halo_depth,
            s.end_step
        ),
    )?;
    let problems = match Problems::read(&problems_path) {
        Ok(p) => Some(p),
        Err(e @ TeaError::Io { .. }) => {
            say(
                out,
                format!("\n WARNING: {e}; the expected value will be invalid."),
            )?;
            None
        }
        Err(e) => return Err(e),
    };
    let _runtime = ferrokkos::initialize(settings)?;
    let outcome = if options.ranks > 1 {
        app::run_threads(&deck, problems.as_ref(), options.space, options.ranks, out)?
    } else {
        app::run_rank(&deck, problems.as_ref(), options.space, comms, out)?
    };
    say(
        out,
        format!(
            "Result:\n - Problem: {}x{}@{}\n - Outcome: {}",
            s.x_cells,
            s.y_cells,
            outcome.steps.len(),
            if outcome.passed() { "PASSED" } else { "FAILED" }
        ),
    )?;
    Ok(outcome.passed())
}
