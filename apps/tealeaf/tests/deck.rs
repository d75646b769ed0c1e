//! Reading decks, the problems table and the command line.

use std::path::{Path, PathBuf};

use ferrokkos::SpaceChoice;
use tealeaf::TeaError;
use tealeaf::app::Options;
use tealeaf::deck::Deck;
use tealeaf::problems::{Check, Problems};
use tealeaf::settings::{Coefficient, Settings, Solver};
use tealeaf::states::Shape;

fn decks() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("decks")
}

fn parse(text: &str) -> Result<Deck, TeaError> {
    Deck::parse(text, Path::new("test.in"))
}

/// A deck of `body` lines with a background state.
fn deck(body: &str) -> String {
    format!("*tea\nstate 1 density=1.0 energy=2.0\n{body}\n*endtea\n")
}

fn error(text: &str) -> String {
    parse(text).unwrap_err().to_string()
}

#[test]
fn the_first_benchmark_deck() {
    let deck = Deck::read(&decks().join("tea_bm_1.in")).unwrap();
    let s = &deck.settings;
    assert_eq!((s.x_cells, s.y_cells, s.end_step), (10, 10, 10));
    assert_eq!((s.x_min, s.y_min, s.x_max, s.y_max), (0.0, 0.0, 10.0, 10.0));
    assert_eq!((s.dt_init, s.eps, s.max_iters), (0.004, 1e-15, 10_000));
    assert_eq!((s.solver, s.test_problem), (Solver::Cg, Some(1)));
    assert_eq!(deck.states.len(), 5);
    assert_eq!(deck.states[0].shape, Shape::Background);
    assert_eq!((deck.states[1].density, deck.states[1].energy), (0.1, 25.0));
    assert_eq!(
        deck.states[1].shape,
        Shape::Rectangle {
            x_min: 0.0,
            y_min: 1.0,
            x_max: 1.0,
            y_max: 2.0
        }
    );
    assert!(deck.warnings.is_empty(), "{:?}", deck.warnings);
}

#[test]
fn defaults_are_tealeafs() {
    let deck = parse(&deck("")).unwrap();
    assert_eq!(deck.settings, Settings::default());
    let s = &deck.settings;
    assert_eq!((s.x_cells, s.y_cells, s.halo_depth), (10, 10, 2));
    assert_eq!(
        (s.dt_init, s.end_time, s.end_step),
        (0.1, 10.0, i32::MAX as usize)
    );
    assert_eq!(
        (s.eps, s.eps_lim, s.presteps, s.ppcg_inner_steps),
        (1e-15, 1e-5, 30, 10)
    );
    assert_eq!(
        (s.summary_frequency, s.coefficient),
        (10, Coefficient::Conductivity)
    );
    assert!(s.check_result && !s.error_switch && !s.profiler_on);
}

#[test]
fn both_value_forms_comments_and_flags() {
    let deck = parse(&deck(
        "x_cells 64\ny_cells=32   # trailing comment\n  eps   1.0e-10\nepslim=1e-3\n\
         #use_jacobi\nuse_chebyshev\ncoefficient_inverse_density\nerrswitch\nprofiler_on\n\
         use_c_kernels\ntest_problem 4\nhalo_depth=3\npresteps 12",
    ))
    .unwrap();
    let s = &deck.settings;
    assert_eq!(
        (s.x_cells, s.y_cells, s.halo_depth, s.presteps),
        (64, 32, 3, 12)
    );
    assert_eq!((s.eps, s.eps_lim), (1e-10, 1e-3));
    assert_eq!(s.solver, Solver::Chebyshev);
    assert_eq!(s.coefficient, Coefficient::ReciprocalConductivity);
    assert!(s.error_switch && s.profiler_on);
    assert_eq!(s.test_problem, Some(4));
    assert_eq!((s.dx(), s.dy()), (100.0 / 64.0, 100.0 / 32.0));
}

#[test]
fn the_last_solver_flag_wins() {
    let s = parse(&deck("use_ppcg\nuse_jacobi")).unwrap().settings;
    assert_eq!(s.solver, Solver::Jacobi);
}

#[test]
fn lines_outside_the_block_are_ignored() {
    let text = format!("x_cells=7\n{}y_cells=9\n", deck(""));
    assert_eq!(parse(&text).unwrap().settings.x_cells, 10);
}

#[test]
fn unknown_keys_are_warnings_naming_the_line() {
    let deck = parse(&deck("x_cells=8\nvisit_frequency=5\nstate 2 density=1 energy=1 geometry=point xmin=1 ymin=1 colour=red")).unwrap();
    assert_eq!(deck.settings.x_cells, 8);
    assert_eq!(deck.warnings.len(), 2, "{:?}", deck.warnings);
    assert!(deck.warnings[0].contains("test.in:4: unknown key \"visit_frequency\""));
    assert!(deck.warnings[1].contains("test.in:5: state 2: unknown key \"colour\""));
}

#[test]
fn bad_values_are_errors_naming_the_line() {
    assert_eq!(
        error(&deck("x_cells=ten")),
        "test.in:3: x_cells: \"ten\" is not a non-negative integer"
    );
    assert_eq!(
        error(&deck("eps=small")),
        "test.in:3: eps: \"small\" is not a number"
    );
    assert_eq!(
        error(&deck("end_time=inf")),
        "test.in:3: end_time: \"inf\" is not a finite number"
    );
    assert_eq!(
        error(&deck("end_step")),
        "test.in:3: end_step: expected a value"
    );
    assert_eq!(
        error(&deck("end_step 1 2")),
        "test.in:3: end_step: expected one value, got [\"1\", \"2\"]"
    );
    assert_eq!(
        error(&deck("use_cg=1")),
        "test.in:3: use_cg takes no value, got [\"1\"]"
    );
}

#[test]
fn settings_a_run_cannot_use_are_errors() {
    assert_eq!(
        error(&deck("x_cells=0")),
        "test.in: x_cells must be at least 1"
    );
    assert_eq!(
        error(&deck("summary_frequency=0")),
        "test.in: summary_frequency must be at least 1"
    );
    assert!(error(&deck("xmax=-1")).contains("is empty"));
    assert!(error(&deck("num_chunks_per_rank=4")).contains("one chunk"));
}

#[test]
fn states() {
    let deck = parse(&deck(
        "state 3 density=3 energy=4 geometry=point xmin=5.0 ymin=6.0\n\
         state 2 density=0.5 energy=8 geometry=circular xmin=1 ymin=2 radius=3",
    ))
    .unwrap();
    assert_eq!(deck.states.len(), 3);
    assert_eq!(deck.states[2].shape, Shape::Point { x: 5.0, y: 6.0 });
    assert_eq!(
        deck.states[1].shape,
        Shape::Circle {
            x: 1.0,
            y: 2.0,
            radius: 3.0
        }
    );
    assert_eq!(deck.states[1].density, 0.5);
    // TeaLeaf moves the bounds a hundredth of a cell inwards when applying them.
    let nudged = Shape::Rectangle {
        x_min: 1.0,
        y_min: 1.0,
        x_max: 2.0,
        y_max: 2.0,
    }
    .nudged(0.5, 2.0);
    assert_eq!(
        nudged,
        Shape::Rectangle {
            x_min: 1.005,
            y_min: 1.02,
            x_max: 1.995,
            y_max: 1.98
        }
    );
}

#[test]
fn bad_states_are_errors() {
    assert_eq!(
        error(&deck("state 1 density=1 energy=1")),
        "test.in:3: state 1 defined twice"
    );
    assert_eq!(
        error(&deck(
            "state 3 density=1 energy=1 geometry=point xmin=1 ymin=1"
        )),
        "test.in: state 2 is not defined (states 1 to 3 are used)"
    );
    assert_eq!(
        error(&deck("state 2 density=1 energy=1 geometry=hexagon")),
        "test.in:3: state 2: unknown geometry \"hexagon\"; expected rectangle, circular or point"
    );
    assert_eq!(
        error(&deck(
            "state 2 density=1 energy=1 geometry=circular xmin=1 ymin=1"
        )),
        "test.in:3: state 2: no value for radius"
    );
    assert_eq!(
        error(&deck("state 2 density=1 energy=1 xmin=1")),
        "test.in:3: state 2: no geometry"
    );
    assert_eq!(
        error(&deck("state 0 density=1 energy=1")),
        "test.in:3: state numbers start at 1"
    );
    assert_eq!(
        error("*tea\nx_cells=4\n*endtea\n"),
        "test.in: no states: state 1 (the background) is needed"
    );
}

#[test]
fn the_block_must_be_there_and_closed() {
    assert_eq!(error("x_cells=4\n"), "test.in: no *tea block");
    assert_eq!(
        error("*tea\nstate 1 density=1 energy=1\n"),
        "test.in: the *tea block has no *endtea"
    );
}

#[test]
fn a_missing_deck_names_its_path() {
    let e = Deck::read(Path::new("/no/such/dir/tea.in"))
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("cannot read /no/such/dir/tea.in: "), "{e}");
}

#[test]
fn the_problems_table() {
    let problems = Problems::read(&decks().join("tea.problems")).unwrap();
    assert_eq!(problems.expected(10, 10, 10), Some(157.55084183279294));
    assert_eq!(problems.expected(64, 64, 1), Some(108.4697720003111));
    assert_eq!(problems.expected(512, 512, 20), Some(103.4697091898282));
    assert_eq!(problems.expected(64, 64, 2), None);
    let e = Problems::parse("1 2 3\n", Path::new("p"))
        .unwrap_err()
        .to_string();
    assert_eq!(
        e,
        "p:1: expected `x_cells y_cells end_step expected_temperature`, got \"1 2 3\""
    );
}

#[test]
fn the_check_uses_tealeafs_tolerance() {
    assert!(Check::new(Some(100.0), 100.0009).passed());
    assert!(!Check::new(Some(100.0), 100.0011).passed());
    assert!(!Check::new(Some(100.0), f64::NAN).passed());
    // A problem not in the table is compared with 1.0, as TeaLeaf does, and fails.
    let missing = Check::new(None, 157.5);
    assert!(!missing.found && !missing.passed() && missing.expected == 1.0);
}

#[test]
fn the_command_line() {
    let args = |a: &[&str]| a.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    let o = Options::parse(&args(&[
        "-i",
        "x.in",
        "--space=serial",
        "-s",
        "ppcg",
        "-x",
        "20",
        "--profile",
        "--ranks",
        "3",
    ]))
    .unwrap();
    assert_eq!(o.ranks, 3);
    assert_eq!(o.deck, PathBuf::from("x.in"));
    assert_eq!(o.space, SpaceChoice::Serial);
    assert_eq!(
        (o.solver, o.x_cells, o.profile),
        (Some(Solver::Ppcg), Some(20), true)
    );
    assert_eq!(Options::parse(&[]).unwrap().space, SpaceChoice::Best);
    assert!(Options::parse(&args(&["--space", "gpu"])).is_err());
    assert!(
        Options::parse(&args(&["-x", "0"]))
            .unwrap_err()
            .to_string()
            .contains("-x: \"0\" is not a count")
    );
    assert!(
        Options::parse(&args(&["--frobnicate"]))
            .unwrap_err()
            .to_string()
            .contains("unknown argument")
    );
    assert!(
        Options::parse(&args(&["-i"]))
            .unwrap_err()
            .to_string()
            .contains("-i needs a value")
    );
    let missing = Options {
        deck: PathBuf::from("missing/tea.in"),
        ..Options::default()
    };
    assert!(
        missing
            .load_deck()
            .unwrap_err()
            .to_string()
            .starts_with("cannot read missing/tea.in")
    );
}
