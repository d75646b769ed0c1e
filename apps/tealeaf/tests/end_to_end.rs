//! Whole runs of small decks on Serial and Threads, checked against the problems table.

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

use ferrokkos::{ExecutionSpace, InitSettings, Runtime, SpaceChoice};
use tealeaf::app::{self, Options};
use tealeaf::diffuse::Outcome;
use tealeaf::problems::Problems;
use tealeaf::settings::{Graphs, Nccl, Solver};

/// ferrokkos, initialized once for the test process (2 threads).
fn runtime() -> &'static Runtime {
    static RUNTIME: OnceLock<Runtime> = OnceLock::new();
    RUNTIME.get_or_init(|| {
        ferrokkos::initialize(InitSettings::new().num_threads(2)).expect("initialize")
    })
}

fn deck_path(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("decks")
        .join(name)
}

/// Runs a shipped deck with `solver` on `space`; returns the outcome and the report.
fn run(name: &str, solver: Solver, space: SpaceChoice, profile: bool) -> (Outcome, String) {
    run_ranks(name, solver, space, profile, 1)
}

/// [`run`] over `ranks` ranks (threads of this process).
fn run_ranks(
    name: &str,
    solver: Solver,
    space: SpaceChoice,
    profile: bool,
    ranks: usize,
) -> (Outcome, String) {
    let options = Options {
        solver: Some(solver),
        profile,
        ranks,
        ..Options::default()
    };
    run_with(name, space, options)
}

/// Runs a shipped deck on `space` with `options` (their deck replaced by `name`).
fn run_with(name: &str, space: SpaceChoice, options: Options) -> (Outcome, String) {
    runtime();
    let ranks = options.ranks;
    let options = Options {
        deck: deck_path(name),
        ..options
    };
    let deck = options.load_deck().unwrap();
    let problems = Problems::read(&options.problems_path()).unwrap();
    let mut out = Vec::new();
    let outcome = app::run_threads(&deck, Some(&problems), space, ranks, &mut out).unwrap();
    (outcome, String::from_utf8(out).unwrap())
}

/// How often the profile saw the kernel function `name` (0: never).
fn calls(outcome: &Outcome, name: &str) -> usize {
    let entry = outcome.profile.entries.iter().find(|e| e.name == name);
    entry.map_or(0, |e| e.calls)
}

fn assert_passed(outcome: &Outcome, report: &str) {
    assert!(outcome.passed(), "{report}");
    assert!(report.contains("This run PASSED"), "{report}");
}

#[test]
fn benchmark_1_passes_on_serial_and_threads_alike() {
    let (serial, report) = run("tea_bm_1.in", Solver::Cg, SpaceChoice::Serial, false);
    assert_passed(&serial, &report);
    assert_eq!(serial.space, "Serial");
    assert_eq!(serial.steps.len(), 10);
    assert!(
        report.contains(" Expected 1.575508418327929e+02"),
        "{report}"
    );
    let (threads, report) = run("tea_bm_1.in", Solver::Cg, SpaceChoice::Threads, false);
    assert_passed(&threads, &report);
    assert_eq!(threads.space, "Threads");
    for (a, b) in serial.steps.iter().zip(&threads.steps) {
        assert_eq!(a.solve.iterations, b.solve.iterations, "step {}", a.step);
        // The solution solves its step's system.
        assert!(
            a.residual < 1e-20 && b.residual < 1e-20,
            "{} {}",
            a.residual,
            b.residual
        );
    }
    let (t, u) = (threads.summary.temperature, serial.summary.temperature);
    assert!((t - u).abs() <= 1e-12 * u, "{t} vs {u}");
    // Summaries every 10 steps (the first step's) and at the end.
    assert!(serial.steps[0].summary.is_some() && serial.steps[1].summary.is_none());
}

#[test]
fn the_64_cell_deck_passes_with_every_solver() {
    for solver in [Solver::Cg, Solver::Jacobi, Solver::Chebyshev, Solver::Ppcg] {
        for space in [SpaceChoice::Serial, SpaceChoice::Threads] {
            let (outcome, report) = run("tea_64.in", solver, space, false);
            assert_passed(&outcome, &report);
            let solve = &outcome.steps[0].solve;
            assert_eq!(solve.solver, solver);
            if matches!(solver, Solver::Chebyshev | Solver::Ppcg) {
                // CG's 30 presteps, then the switch, with eigenvalue estimates.
                assert_eq!(solve.cg_iterations, 31, "{report}");
                assert!(solve.switched_iterations > 0, "{report}");
                let (min, max) = solve.eigenvalues.unwrap();
                assert!(0.0 < min && min < max, "{min} {max}");
            }
        }
    }
}

#[test]
fn benchmark_1_passes_with_the_other_solvers() {
    for solver in [Solver::Jacobi, Solver::Chebyshev, Solver::Ppcg] {
        let (outcome, report) = run("tea_bm_1.in", solver, SpaceChoice::Threads, false);
        assert_passed(&outcome, &report);
    }
}

#[test]
fn the_profile_covers_every_phase() {
    let options = Options {
        profile: true,
        graphs: Some(Graphs::On),
        ..Options::default()
    };
    let (outcome, report) = run_with("tea_bm_1.in", SpaceChoice::Threads, options);
    assert_passed(&outcome, &report);
    let names: Vec<&str> = outcome.profile.entries.iter().map(|e| e.name).collect();
    for name in [
        "set_chunk_data",
        "set_chunk_state",
        "cg_build_graphs",
        "local_halos",
        "cg_iterations",
        "field_summary",
    ] {
        assert!(names.contains(&name), "{name} missing from {names:?}");
    }
    // Per step: 1 before the solve, 1 after CG's set-up (u and p), 1 after the iterations (u),
    // 1 at the end; the iterations reflect p's halo inside their graphs. One more at start-up.
    let steps = outcome.steps.len();
    assert_eq!(calls(&outcome, "local_halos"), 1 + steps * 4);
    assert_eq!(calls(&outcome, "cg_iterations"), steps);
    assert_eq!(calls(&outcome, "cg_calc_w"), 0);
    assert!(
        report.contains("Profiling Results") && report.contains("start-up"),
        "{report}"
    );
    // One launch at a time, each kernel function is timed, and p's halo is reflected before
    // every iteration but the first.
    let options = Options {
        profile: true,
        graphs: Some(Graphs::Off),
        ..Options::default()
    };
    let (outcome, report) = run_with("tea_bm_1.in", SpaceChoice::Threads, options);
    assert_passed(&outcome, &report);
    let iterations: usize = outcome.steps.iter().map(|s| s.solve.iterations).sum();
    assert_eq!(
        calls(&outcome, "local_halos"),
        1 + steps * 4 + iterations - steps
    );
    assert_eq!(calls(&outcome, "cg_calc_w"), iterations);
    assert_eq!(calls(&outcome, "cg_iterations"), 0);
}

#[test]
fn cg_in_graphs_takes_the_steps_of_the_launch_loop_bit_for_bit() {
    for (deck, space) in [
        ("tea_bm_1.in", SpaceChoice::Serial),
        ("tea_64.in", SpaceChoice::Serial),
        ("tea_64.in", SpaceChoice::Threads),
    ] {
        let options = Options {
            graphs: Some(Graphs::On),
            ..Options::default()
        };
        let graphs = run_with(deck, space, options);
        let options = Options {
            graphs: Some(Graphs::Off),
            ..Options::default()
        };
        let loop_ = run_with(deck, space, options);
        for (outcome, report) in [&graphs, &loop_] {
            assert_passed(outcome, report);
        }
        let (a, b) = (&graphs.0, &loop_.0);
        assert_eq!(a.steps.len(), b.steps.len());
        for (x, y) in a.steps.iter().zip(&b.steps) {
            assert_eq!(x.solve.iterations, y.solve.iterations, "{deck} on {space}");
            assert_eq!(
                x.solve.error.to_bits(),
                y.solve.error.to_bits(),
                "{deck} on {space}"
            );
        }
        let (ta, tb) = (a.summary.temperature, b.summary.temperature);
        assert_eq!(ta.to_bits(), tb.to_bits(), "{deck} on {space}: {ta} {tb}");
    }
}

#[test]
fn a_problem_missing_from_the_table_fails() {
    runtime();
    let options = Options {
        deck: deck_path("tea_bm_1.in"),
        x_cells: Some(12),
        ..Options::default()
    };
    let deck = options.load_deck().unwrap();
    let problems = Problems::read(&options.problems_path()).unwrap();
    let mut out = Vec::new();
    let outcome = app::run(&deck, Some(&problems), SpaceChoice::Serial, &mut out).unwrap();
    let report = String::from_utf8(out).unwrap();
    assert!(
        !outcome.passed() && report.contains("This run FAILED"),
        "{report}"
    );
    assert!(report.contains("Problem was not found"), "{report}");
}

#[test]
fn the_run_stops_once_the_time_passes_end_time() {
    runtime();
    let text = std::fs::read_to_string(deck_path("tea_bm_1.in"))
        .unwrap()
        .replace("end_step=10", "end_step=10\nend_time=0.01");
    let deck = tealeaf::deck::Deck::parse(&text, Path::new("end_time.in")).unwrap();
    let exec = ferrokkos::Serial::default_instance().unwrap();
    let solo = std::rc::Rc::new(tealeaf::comms::Solo);
    let outcome = tealeaf::diffuse::run(exec, &deck, None, solo, &mut std::io::sink()).unwrap();
    // Steps of 0.004: after the third the time (0.012) has passed 0.01.
    assert_eq!(outcome.steps.len(), 3);
    // No table: the check fails, as TeaLeaf's does.
    assert!(!outcome.passed());
}

#[test]
fn benchmark_1_split_over_ranks_matches_one_rank() {
    let (one, _) = run("tea_bm_1.in", Solver::Cg, SpaceChoice::Serial, false);
    for (ranks, space) in [
        (2, SpaceChoice::Serial),
        (3, SpaceChoice::Threads),
        (4, SpaceChoice::Serial),
    ] {
        let (many, report) = run_ranks("tea_bm_1.in", Solver::Cg, space, false, ranks);
        assert_passed(&many, &report);
        assert!(report.contains(&format!("Ranks:     {ranks}")), "{report}");
        let (t, u) = (many.summary.temperature, one.summary.temperature);
        assert!((t - u).abs() <= 1e-11 * u, "{ranks} ranks: {t} vs {u}");
        let (m, n) = (many.summary.mass, one.summary.mass);
        assert!((m - n).abs() <= 1e-12 * n, "{ranks} ranks: mass {m} vs {n}");
        for (a, b) in one.steps.iter().zip(&many.steps) {
            let (i, j) = (a.solve.iterations as i64, b.solve.iterations as i64);
            assert!((i - j).abs() <= 1, "step {}: {i} vs {j} iterations", a.step);
        }
    }
}

#[test]
fn every_solver_passes_on_four_ranks() {
    for solver in [Solver::Cg, Solver::Jacobi, Solver::Chebyshev, Solver::Ppcg] {
        let (outcome, report) = run_ranks("tea_64.in", solver, SpaceChoice::Serial, false, 4);
        assert_passed(&outcome, &report);
        if matches!(solver, Solver::Chebyshev | Solver::Ppcg) {
            assert_eq!(outcome.steps[0].solve.cg_iterations, 31, "{report}");
        }
    }
}

#[test]
fn a_mesh_too_small_for_the_ranks_is_refused_by_every_rank() {
    runtime();
    let options = Options {
        deck: deck_path("tea_bm_1.in"),
        ..Options::default()
    };
    let deck = options.load_deck().unwrap();
    let e = app::run_threads(&deck, None, SpaceChoice::Serial, 32, &mut std::io::sink())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("tea_bm_1.in") && e.contains("fewer than the halo depth 2"),
        "{e}"
    );
}

#[test]
fn the_profile_of_a_split_run_has_the_exchange() {
    let (outcome, report) = run_ranks("tea_bm_1.in", Solver::Cg, SpaceChoice::Serial, true, 2);
    assert_passed(&outcome, &report);
    let iterations: usize = outcome.steps.iter().map(|s| s.solve.iterations).sum();
    // Rank 0 of 1 x 2 chunks has one neighbour (above): one exchange per halo update, and
    // sums of pw and rr per iteration.
    assert_eq!(
        calls(&outcome, "send_recv_halos"),
        calls(&outcome, "local_halos")
    );
    assert!(
        calls(&outcome, "sum_over_ranks") >= 2 * iterations,
        "{report}"
    );
    assert!(report.contains("comms"), "{report}");
}

#[test]
fn cg_with_device_scalars_on_many_ranks_takes_the_launch_loops_steps() {
    // `--graphs on` with neighbours: the scalars on the device, one launch at a time, the sums
    // through the host (NCCL's path without NCCL); r's halo exchanged before each iteration,
    // the direction's formed in the halo layer next to each neighbour by `cg_calc_pw` itself. The launch loop sums the operator's parts in another
    // order, so the errors agree to rounding, the iteration counts exactly.
    for (ranks, space) in [(2, SpaceChoice::Threads), (4, SpaceChoice::Serial)] {
        let run = |graphs| {
            let options = Options {
                graphs: Some(graphs),
                ranks,
                ..Options::default()
            };
            run_with("tea_64.in", space, options)
        };
        let (device, looped) = (run(Graphs::On), run(Graphs::Off));
        for (outcome, report) in [&device, &looped] {
            assert_passed(outcome, report);
        }
        let (a, b) = (&device.0, &looped.0);
        assert_eq!(a.steps.len(), b.steps.len());
        for (x, y) in a.steps.iter().zip(&b.steps) {
            assert_eq!(x.solve.iterations, y.solve.iterations, "{ranks} ranks");
            let (e, f) = (x.solve.error, y.solve.error);
            assert!((e - f).abs() <= 1e-6 * f.abs(), "{ranks} ranks: {e} vs {f}");
        }
        let (ta, tb) = (a.summary.temperature, b.summary.temperature);
        assert!((ta - tb).abs() <= 1e-12 * tb, "{ranks} ranks: {ta} vs {tb}");
    }
}

#[test]
fn nccl_on_is_refused_where_the_ranks_cannot_use_it() {
    runtime();
    let options = Options {
        deck: deck_path("tea_bm_1.in"),
        nccl: Some(Nccl::On),
        ..Options::default()
    };
    let deck = options.load_deck().unwrap();
    let e = app::run_threads(&deck, None, SpaceChoice::Threads, 2, &mut std::io::sink())
        .unwrap_err()
        .to_string();
    assert!(e.contains("--nccl on") && e.contains("of 2 ranks"), "{e}");
}
