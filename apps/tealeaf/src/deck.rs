//! Reading TeaLeaf's input deck.
//!
//! A deck is a `*tea` ... `*endtea` block of lines; `#` starts a comment. A line is a key with an
//! optional value, written `key=value` or `key value` (`x_cells=512`, `eps 1.0e-15`), a flag
//! (`use_cg`, `profiler_on`), or a state:
//!
//! ```text
//! state 1 density=100.0 energy=0.0001
//! state 2 density=0.1 energy=25.0 geometry=rectangle xmin=0.0 xmax=1.0 ymin=1.0 ymax=2.0
//! state 3 density=0.1 energy=0.1 geometry=circular xmin=5.0 ymin=5.0 radius=2.0
//! state 4 density=0.1 energy=0.1 geometry=point xmin=5.0 ymin=5.0
//! ```
//!
//! State 1 is the background; later states are applied in order over it. Keys TeaLeaf does not
//! know are ignored with a warning ([`Deck::warnings`]); a bad value, a flag with a value or a key
//! without one is an error naming the file and line.

use std::path::{Path, PathBuf};

use crate::error::{Result, TeaError};
use crate::settings::{Coefficient, Settings, Solver};
use crate::states::{Shape, State};

/// A parsed deck: the settings and the states, in state order.
#[derive(Clone, Debug, PartialEq)]
pub struct Deck {
    /// The file the deck came from.
    pub path: PathBuf,
    /// TeaLeaf's defaults overridden by the deck.
    pub settings: Settings,
    /// The states, state 1 (the background) first.
    pub states: Vec<State>,
    /// What was ignored (unknown keys), one message per line, naming the line.
    pub warnings: Vec<String>,
}

/// A line being read: its number (from 1) and file, for errors.
struct At<'a> {
    path: &'a Path,
    line: usize,
}

impl At<'_> {
    fn error(&self, message: impl Into<String>) -> TeaError {
        TeaError::Line {
            path: self.path.to_path_buf(),
            line: self.line,
            message: message.into(),
        }
    }

    fn number<T: std::str::FromStr>(&self, key: &str, value: &str, what: &str) -> Result<T> {
        value
            .parse()
            .map_err(|_| self.error(format!("{key}: {value:?} is not {what}")))
    }

    fn real(&self, key: &str, value: &str) -> Result<f64> {
        let v: f64 = self.number(key, value, "a number")?;
        if v.is_finite() {
            Ok(v)
        } else {
            Err(self.error(format!("{key}: {value:?} is not a finite number")))
        }
    }

    fn count(&self, key: &str, value: &str) -> Result<usize> {
        self.number(key, value, "a non-negative integer")
    }
}

/// Where a key's value goes in the settings.
type Slot<T> = fn(&mut Settings) -> &mut T;

/// Keys that take a real value, and where it goes.
const REALS: [(&str, Slot<f64>); 8] = [
    ("initial_timestep", |s| &mut s.dt_init),
    ("end_time", |s| &mut s.end_time),
    ("xmin", |s| &mut s.x_min),
    ("ymin", |s| &mut s.y_min),
    ("xmax", |s| &mut s.x_max),
    ("ymax", |s| &mut s.y_max),
    ("epslim", |s| &mut s.eps_lim),
    ("eps", |s| &mut s.eps),
];

/// Keys that take an integer value, and where it goes.
const COUNTS: [(&str, Slot<usize>); 9] = [
    ("end_step", |s| &mut s.end_step),
    ("x_cells", |s| &mut s.x_cells),
    ("y_cells", |s| &mut s.y_cells),
    ("summary_frequency", |s| &mut s.summary_frequency),
    ("presteps", |s| &mut s.presteps),
    ("ppcg_inner_steps", |s| &mut s.ppcg_inner_steps),
    ("max_iters", |s| &mut s.max_iters),
    ("num_chunks_per_rank", |s| &mut s.num_chunks_per_rank),
    ("halo_depth", |s| &mut s.halo_depth),
];

/// Applies a flag (a key without a value); `false` if `key` is no flag.
fn flag(settings: &mut Settings, key: &str) -> bool {
    match key {
        "check_result" => settings.check_result = true,
        "errswitch" => settings.error_switch = true,
        "preconditioner_on" => settings.preconditioner = true,
        "use_jacobi" => settings.solver = Solver::Jacobi,
        "use_cg" => settings.solver = Solver::Cg,
        "use_chebyshev" => settings.solver = Solver::Chebyshev,
        "use_ppcg" => settings.solver = Solver::Ppcg,
        "coefficient_density" => settings.coefficient = Coefficient::Conductivity,
        "coefficient_inverse_density" => settings.coefficient = Coefficient::ReciprocalConductivity,
        "profiler_on" => settings.profiler_on = true,
        // TeaLeaf chooses between its C and Fortran kernels; there is one kernel language here.
        "use_c_kernels" | "use_fortran_kernels" => {}
        _ => return false,
    }
    true
}

impl Deck {
    /// Reads and parses the deck at `path`; a missing file is an error naming it.
    pub fn read(path: &Path) -> Result<Deck> {
        let text = std::fs::read_to_string(path).map_err(|source| TeaError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Deck::parse(&text, path)
    }

    /// Parses the text of a deck; `path` names it in errors and warnings.
    pub fn parse(text: &str, path: &Path) -> Result<Deck> {
        let mut settings = Settings::default();
        let mut warnings = Vec::new();
        // (state number, its tokens, line number), read at the end (they may come in any order).
        let mut state_lines: Vec<(usize, Vec<&str>, usize)> = Vec::new();
        let mut inside = false;
        let mut seen_block = false;
        for (n, raw) in text.lines().enumerate() {
            let at = At { path, line: n + 1 };
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            match line {
                "*tea" => {
                    inside = true;
                    seen_block = true;
                    continue;
                }
                "*endtea" => {
                    if !inside {
                        return Err(at.error("*endtea without *tea"));
                    }
                    inside = false;
                    continue;
                }
                _ if !inside => continue,
                _ => {}
            }
            let tokens: Vec<&str> = line
                .split(|c: char| c == '=' || c.is_whitespace())
                .filter(|t| !t.is_empty())
                .collect();
            let (key, rest) = (tokens[0], &tokens[1..]);
            if key == "state" {
                let number = rest
                    .first()
                    .ok_or_else(|| at.error("state: expected its number"))?;
                let number = at.count("state", number)?;
                if number == 0 {
                    return Err(at.error("state numbers start at 1"));
                }
                state_lines.push((number, rest[1..].to_vec(), at.line));
                continue;
            }
            let real = REALS.iter().find(|(k, _)| *k == key).map(|(_, f)| f);
            let count = COUNTS.iter().find(|(k, _)| *k == key).map(|(_, f)| f);
            if real.is_some() || count.is_some() || key == "test_problem" {
                let [value] = rest else {
                    return Err(match rest {
                        [] => at.error(format!("{key}: expected a value")),
                        _ => at.error(format!("{key}: expected one value, got {rest:?}")),
                    });
                };
                if let Some(slot) = real {
                    *slot(&mut settings) = at.real(key, value)?;
                } else if let Some(slot) = count {
                    *slot(&mut settings) = at.count(key, value)?;
                } else {
                    settings.test_problem = Some(at.count(key, value)?);
                }
            } else if flag(&mut settings, key) {
                if !rest.is_empty() {
                    return Err(at.error(format!("{key} takes no value, got {rest:?}")));
                }
            } else {
                warnings.push(format!(
                    "{}:{}: unknown key {key:?} ignored",
                    path.display(),
                    at.line
                ));
            }
        }
        let input_error = |message: String| TeaError::Input {
            path: path.to_path_buf(),
            message,
        };
        if !seen_block {
            return Err(input_error("no *tea block".into()));
        }
        if inside {
            return Err(input_error("the *tea block has no *endtea".into()));
        }
        settings.validate().map_err(input_error)?;
        let states = read_states(&state_lines, path, &mut warnings)?;
        Ok(Deck {
            path: path.to_path_buf(),
            settings,
            states,
            warnings,
        })
    }
}

/// Builds the states from their lines, in state order, each defined once, none missing.
fn read_states(
    lines: &[(usize, Vec<&str>, usize)],
    path: &Path,
    warnings: &mut Vec<String>,
) -> Result<Vec<State>> {
    let count = lines.iter().map(|(n, ..)| *n).max().unwrap_or(0);
    let mut states: Vec<Option<State>> = vec![None; count];
    for (number, tokens, line) in lines {
        let at = At { path, line: *line };
        if states[number - 1].is_some() {
            return Err(at.error(format!("state {number} defined twice")));
        }
        let state = read_state(*number, tokens, &at, warnings)?;
        states[number - 1] = Some(state);
    }
    if count == 0 {
        return Err(TeaError::Input {
            path: path.to_path_buf(),
            message: "no states: state 1 (the background) is needed".into(),
        });
    }
    states
        .into_iter()
        .enumerate()
        .map(|(i, s)| {
            s.ok_or_else(|| TeaError::Input {
                path: path.to_path_buf(),
                message: format!(
                    "state {} is not defined (states 1 to {count} are used)",
                    i + 1
                ),
            })
        })
        .collect()
}

/// One state from the `key value` pairs after `state N`.
fn read_state(
    number: usize,
    tokens: &[&str],
    at: &At,
    warnings: &mut Vec<String>,
) -> Result<State> {
    if !tokens.len().is_multiple_of(2) {
        return Err(at.error(format!(
            "state {number}: expected key=value pairs, got {tokens:?}"
        )));
    }
    let pairs: Vec<(&str, &str)> = tokens.chunks(2).map(|p| (p[0], p[1])).collect();
    let find = |key: &str| pairs.iter().find(|(k, _)| *k == key).map(|(_, v)| *v);
    let real = |key: &str| -> Result<f64> {
        let value =
            find(key).ok_or_else(|| at.error(format!("state {number}: no value for {key}")))?;
        at.real(key, value)
    };
    const KNOWN: [&str; 8] = [
        "density", "energy", "geometry", "xmin", "xmax", "ymin", "ymax", "radius",
    ];
    for (key, _) in &pairs {
        if !KNOWN.contains(key) {
            warnings.push(format!(
                "{}:{}: state {number}: unknown key {key:?} ignored",
                at.path.display(),
                at.line
            ));
        }
    }
    let (density, energy) = (real("density")?, real("energy")?);
    // State 1 is the background: its geometry, if any, is irrelevant.
    if number == 1 {
        return Ok(State {
            density,
            energy,
            shape: Shape::Background,
        });
    }
    // The bounds as written: the chunk moves them inwards by a hundredth of a cell when it
    // applies the state (`Shape::nudged`), once the cell size is final.
    let shape = match find("geometry") {
        Some("rectangle") => Shape::Rectangle {
            x_min: real("xmin")?,
            y_min: real("ymin")?,
            x_max: real("xmax")?,
            y_max: real("ymax")?,
        },
        Some("circular" | "circle") => Shape::Circle {
            x: real("xmin")?,
            y: real("ymin")?,
            radius: real("radius")?,
        },
        Some("point") => Shape::Point {
            x: real("xmin")?,
            y: real("ymin")?,
        },
        Some(other) => {
            return Err(at.error(format!(
                "state {number}: unknown geometry {other:?}; expected rectangle, circular or point"
            )));
        }
        None => return Err(at.error(format!("state {number}: no geometry"))),
    };
    Ok(State {
        density,
        energy,
        shape,
    })
}
