//! The run: set-up of the chunk (TeaLeaf's `initialise_application`), the time steps
//! (`diffuse`: per step a halo update, a solve and its finalisation, a field summary every
//! `summary_frequency` steps) and the final check against the problems table.

use std::io::Write;
use std::rc::Rc;

use crate::Space;
use crate::TeaError;
use crate::chunk::Chunk;
use crate::comms::Comms;
use crate::deck::Deck;
use crate::decompose;
use crate::format::sci;
use crate::halo::FieldId;
use crate::problems::{Check, Problems};
use crate::profile::{Phase, Profile, Timer};
use crate::settings::Solver;
use crate::solvers::cg_graph::CgMode;
use crate::solvers::{self, SolveReport};
use crate::states::{Shape, State};
use crate::summary::Summary;

/// What one time step did.
#[derive(Clone, Debug, PartialEq)]
pub struct StepReport {
    /// The step, from 1.
    pub step: usize,
    /// The solve.
    pub solve: SolveReport,
    /// The squared norm of the solution's residual `u0 - A u` (TeaLeaf computes it when
    /// checking results).
    pub residual: f64,
    /// The field summary, on the steps that have one.
    pub summary: Option<Summary>,
    /// Wallclock seconds of the steps so far.
    pub wallclock: f64,
}

/// What a run did.
#[derive(Clone, Debug, PartialEq)]
pub struct Outcome {
    /// The execution space's name.
    pub space: &'static str,
    /// Every step.
    pub steps: Vec<StepReport>,
    /// The field summary after the last step.
    pub summary: Summary,
    /// The final temperature against the problems table.
    pub check: Check,
    /// Seconds from allocating the chunk to the first step.
    pub startup: f64,
    /// Seconds of the time steps.
    pub wallclock: f64,
    /// Kernels compiled ahead of the first step (Cuda).
    pub prepared: usize,
    /// Per kernel function and phase, when profiling.
    pub profile: Profile,
}

impl Outcome {
    /// Whether the check passed.
    pub fn passed(&self) -> bool {
        self.check.passed()
    }
}

/// Writes a line of the report.
macro_rules! say {
    ($out:expr, $($arg:tt)*) => {
        writeln!($out, $($arg)*).map_err(TeaError::Output)?
    };
}

/// Names every kernel the run will launch to the chunk's launcher, so that they compile before
/// the first step (only the chosen solver's, and CG's, which Chebyshev and PPCG start with).
fn prepare_kernels<S: Space>(chunk: &Chunk<S>, deck: &Deck) -> crate::Result<usize> {
    let settings = &deck.settings;
    let shapes = [
        Shape::Background,
        Shape::Rectangle {
            x_min: 0.0,
            y_min: 0.0,
            x_max: 0.0,
            y_max: 0.0,
        },
        Shape::Circle {
            x: 0.0,
            y: 0.0,
            radius: 0.0,
        },
        Shape::Point { x: 0.0, y: 0.0 },
    ];
    let states: Vec<State> = shapes
        .into_iter()
        .filter(|s| {
            deck.states
                .iter()
                .any(|t| std::mem::discriminant(&t.shape) == std::mem::discriminant(s))
        })
        .map(|shape| State {
            density: 1.0,
            energy: 1.0,
            shape,
        })
        .collect();
    let c = chunk;
    let (report, _requests) = chunk.launch.prepare(|| -> crate::Result<()> {
        c.set_chunk_data(settings)?;
        c.set_chunk_state(&states, 1.0, 1.0)?;
        c.update_halo(&[FieldId::Density], 1)?;
        c.field_summary()?;
        c.calculate_residual()?;
        c.calculate_2norm(&c.r)?;
        c.finalise()?;
        c.copy_u()?;
        if settings.solver == Solver::Jacobi {
            c.jacobi_init(settings.coefficient, 1.0, 1.0)?;
            c.jacobi_iterate()?;
        } else {
            c.cg_init(settings.coefficient, 1.0, 1.0)?;
            c.cg_calc_w()?;
            c.cg_calc_w_exchanging()?;
            c.cg_calc_ur(0.0)?;
            c.cg_calc_p(0.0)?;
        }
        if settings.solver == Solver::Cg && c.cg_mode(settings) != CgMode::Host {
            c.cg_iteration_kernels(
                &c.launch,
                c.cg_directions(0),
                settings.eps,
                settings.max_iters,
            )?;
        }
        if settings.solver == Solver::Chebyshev {
            c.cheby_init()?;
            c.cheby_iterate(0.0, 0.0)?;
        }
        if settings.solver == Solver::Ppcg {
            c.ppcg_init()?;
            c.ppcg_inner_iteration(0.0, 0.0)?;
        }
        Ok(())
    })?;
    Ok(report.compiled + report.from_disk)
}

/// Allocates and fills this rank's chunk (TeaLeaf's `initialise_application`).
fn initialise<S: Space>(
    exec: S,
    deck: &Deck,
    comms: Rc<dyn Comms>,
) -> crate::Result<(Chunk<S>, usize)> {
    let settings = &deck.settings;
    let tile = decompose::tile(
        settings.x_cells,
        settings.y_cells,
        settings.halo_depth,
        comms.ranks(),
        comms.rank(),
    )
    .map_err(|message| TeaError::Input {
        path: deck.path.clone(),
        message,
    })?;
    let chunk = Chunk::of_tile(exec, settings, &tile, comms)?;
    let timer = Timer::start();
    let prepared = prepare_kernels(&chunk, deck)?;
    if chunk.profile.borrow().enabled {
        chunk
            .profile
            .borrow_mut()
            .record("prepare_kernels", Phase::StartUp, timer.seconds());
    }
    chunk.set_chunk_data(settings)?;
    chunk.set_chunk_state(&deck.states, settings.dx(), settings.dy())?;
    chunk.update_halo(&[FieldId::Density, FieldId::Energy0, FieldId::Energy1], 2)?;
    chunk.store_energy()?;
    if settings.solver == Solver::Cg && chunk.cg_mode(settings) == CgMode::Graphs {
        chunk.timed("cg_build_graphs", Phase::StartUp, || {
            chunk.cg_build_graphs(settings)
        })?;
    }
    Ok((chunk, prepared))
}

/// Runs this rank's part of the deck on `exec`, writing TeaLeaf's report to `out` (the caller
/// gives the other ranks a sink); `problems` gives the expected temperature (`None`: the table
/// could not be read, and the check fails as in TeaLeaf). Every rank returns the same sums.
pub fn run<S: Space>(
    exec: S,
    deck: &Deck,
    problems: Option<&Problems>,
    comms: Rc<dyn Comms>,
    out: &mut dyn Write,
) -> crate::Result<Outcome> {
    let settings = &deck.settings;
    let start = Timer::start();
    let (mut chunk, prepared) = initialise(exec, deck, comms)?;
    chunk.exec.fence("start-up")?;
    let startup = start.seconds();
    if prepared > 0 {
        say!(out, " Prepared {prepared} kernels before the first step");
    }
    say!(out, " Start-up: \t\t{startup:.3}s");
    say!(out, "# ---- \nOutput: |+1");
    let (dx, dy) = (settings.dx(), settings.dy());
    let cells = (settings.x_cells * settings.y_cells) as f64;
    let mut steps = Vec::new();
    let (mut wallclock, mut time) = (0.0, 0.0);
    for tt in 0..settings.end_step {
        say!(out, "\n Timestep {}", tt + 1);
        let timer = Timer::start();
        let dt = chunk.dt_init.min(settings.dt_init);
        let (rx, ry) = (dt / (dx * dx), dt / (dy * dy));
        chunk.update_halo(&[FieldId::Energy1, FieldId::Density], 2)?;
        let solve = solvers::solve(&mut chunk, settings, rx, ry)?;
        // TeaLeaf's solve_finished: the solution's residual, energy from u, the energy's halo.
        let residual = if settings.check_result {
            chunk.calculate_residual()?;
            chunk.calculate_2norm(&chunk.r)?
        } else {
            0.0
        };
        chunk.finalise()?;
        let mut exchange = solve.exchange.clone();
        if !exchange.contains(&FieldId::Energy1) {
            exchange.push(FieldId::Energy1);
        }
        chunk.update_halo(&exchange, 1)?;
        for line in solve.lines(settings) {
            say!(out, "{line}");
        }
        let summary = if tt % settings.summary_frequency == 0 {
            let s = chunk.field_summary()?;
            say!(out, "{}\n{}", Summary::header(), s.line(tt + 1));
            Some(s)
        } else {
            None
        };
        chunk.exec.fence("time step")?;
        wallclock += timer.seconds();
        say!(out, " Wallclock: \t\t{wallclock:.3}s");
        say!(out, " Avg. time per cell: \t{}", sci(wallclock / cells, 6));
        say!(out, " Error: \t\t{}", sci(solve.error, 6));
        steps.push(StepReport {
            step: tt + 1,
            solve,
            residual,
            summary,
            wallclock,
        });
        time += dt;
        if time + 1e-16 > settings.end_time {
            break;
        }
    }
    let summary = chunk.field_summary()?;
    say!(
        out,
        "\n{}\n{}",
        Summary::header(),
        summary.line(steps.len())
    );
    let expected =
        problems.and_then(|p| p.expected(settings.x_cells, settings.y_cells, steps.len()));
    if problems.is_some() && expected.is_none() {
        say!(
            out,
            "\n WARNING: Problem was not found in the test problems file, expected value will be invalid."
        );
    }
    let check = Check::new(expected, summary.temperature);
    say!(out, "\n Checking results...");
    say!(out, " Expected {}", sci(check.expected, 15));
    say!(out, " Actual   {}", sci(check.actual, 15));
    say!(
        out,
        " This run {} (Difference is within {:.8}%)",
        if check.passed() { "PASSED" } else { "FAILED" },
        check.difference_percent
    );
    let profile = chunk.profile.borrow().clone();
    if profile.enabled {
        say!(out, "{}", profile.report(wallclock));
    }
    Ok(Outcome {
        space: S::NAME,
        steps,
        summary,
        check,
        startup,
        wallclock,
        prepared,
        profile,
    })
}
