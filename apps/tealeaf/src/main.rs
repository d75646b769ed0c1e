//! `tealeaf`: runs a TeaLeaf deck on the execution space chosen at run time and checks the
//! result against the problems table. Exit status: 0 passed, 1 failed the check, 2 an error.
#![forbid(unsafe_code)]

use std::io::Write;
use std::process::ExitCode;

use ferrokkos::InitSettings;
use tealeaf::TeaError;
use tealeaf::app::{self, Options, USAGE};
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

/// Whether the run passed its check.
fn run() -> Result<bool, TeaError> {
    let (settings, rest) = InitSettings::from_args(std::env::args())?;
    let options = Options::parse(rest.get(1..).unwrap_or_default())?;
    if options.help {
        println!("{USAGE}");
        return Ok(true);
    }
    let deck = options.load_deck()?;
    for warning in &deck.warnings {
        eprintln!("warning: {warning}");
    }
    let problems_path = options.problems_path();
    let mut out = std::io::stdout().lock();
    let s = &deck.settings;
    let say = |out: &mut dyn Write, text: String| writeln!(out, "{text}").map_err(TeaError::Output);
    say(
        &mut out,
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
                &mut out,
                format!("\n WARNING: {e}; the expected value will be invalid."),
            )?;
            None
        }
        Err(e) => return Err(e),
    };
    let _runtime = ferrokkos::initialize(settings)?;
    let outcome = app::run(&deck, problems.as_ref(), options.space, &mut out)?;
    say(
        &mut out,
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
