//! The table of known problems and their expected final temperature (TeaLeaf's `tea.problems`):
//! one problem a line, `x_cells y_cells end_step expected_temperature`; `#` starts a comment.

use std::path::{Path, PathBuf};

use crate::error::{Result, TeaError};

/// One known problem.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Problem {
    /// Cells in x.
    pub x_cells: usize,
    /// Cells in y.
    pub y_cells: usize,
    /// Steps run.
    pub end_step: usize,
    /// The field summary's temperature after the last step.
    pub expected: f64,
}

/// A problems table.
#[derive(Clone, Debug, PartialEq)]
pub struct Problems {
    /// The file it came from.
    pub path: PathBuf,
    /// Its problems, in file order.
    pub problems: Vec<Problem>,
}

/// The relative difference, in percent, below which a result passes (TeaLeaf's tolerance).
pub const TOLERANCE_PERCENT: f64 = 0.001;

impl Problems {
    /// Reads the table at `path`; a missing file is an error naming it.
    pub fn read(path: &Path) -> Result<Problems> {
        let text = std::fs::read_to_string(path).map_err(|source| TeaError::Io {
            path: path.to_path_buf(),
            source,
        })?;
        Problems::parse(&text, path)
    }

    /// Parses a table; a malformed line is an error naming it.
    pub fn parse(text: &str, path: &Path) -> Result<Problems> {
        let mut problems = Vec::new();
        for (n, raw) in text.lines().enumerate() {
            let line = raw.split('#').next().unwrap_or("").trim();
            if line.is_empty() {
                continue;
            }
            let bad = |message: String| TeaError::Line {
                path: path.to_path_buf(),
                line: n + 1,
                message,
            };
            let fields: Vec<&str> = line.split_whitespace().collect();
            let [x, y, steps, expected] = fields[..] else {
                return Err(bad(format!(
                    "expected `x_cells y_cells end_step expected_temperature`, got {line:?}"
                )));
            };
            let count = |what: &str, v: &str| {
                v.parse::<usize>()
                    .map_err(|_| bad(format!("{what}: {v:?} is not a non-negative integer")))
            };
            problems.push(Problem {
                x_cells: count("x_cells", x)?,
                y_cells: count("y_cells", y)?,
                end_step: count("end_step", steps)?,
                expected: expected
                    .parse()
                    .map_err(|_| bad(format!("{expected:?} is not a number")))?,
            });
        }
        Ok(Problems {
            path: path.to_path_buf(),
            problems,
        })
    }

    /// The expected temperature of the first problem of this size and step count.
    pub fn expected(&self, x_cells: usize, y_cells: usize, end_step: usize) -> Option<f64> {
        self.problems
            .iter()
            .find(|p| p.x_cells == x_cells && p.y_cells == y_cells && p.end_step == end_step)
            .map(|p| p.expected)
    }
}

/// The outcome of the check against the table.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Check {
    /// The expected temperature (TeaLeaf uses 1.0 when the problem is not in the table, which
    /// then fails).
    pub expected: f64,
    /// The computed temperature.
    pub actual: f64,
    /// `|100 · actual / expected - 100|`.
    pub difference_percent: f64,
    /// Whether the problem was found in the table.
    pub found: bool,
}

impl Check {
    /// Compares `actual` with `expected` (`None`: not in the table) as TeaLeaf does.
    pub fn new(expected: Option<f64>, actual: f64) -> Check {
        let value = expected.unwrap_or(1.0);
        Check {
            expected: value,
            actual,
            difference_percent: (100.0 * (actual / value) - 100.0).abs(),
            found: expected.is_some(),
        }
    }

    /// Within [`TOLERANCE_PERCENT`] and not NaN.
    pub fn passed(&self) -> bool {
        self.difference_percent < TOLERANCE_PERCENT && !self.actual.is_nan()
    }
}
