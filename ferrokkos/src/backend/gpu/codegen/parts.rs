//! What the writers of a unit's entries share (`unit.rs`, `walk.rs`, `reduce_entry.rs`,
//! `scan_entry.rs`, `team_entry.rs`): the options a launch chooses ([`UnitOptions`]), the
//! pattern to write entries for ([`Pattern`]) and text that counts its lines ([`Text`]).

use crate::policy::Iterate;
use crate::reducer::ReducerCxx;

/// Variants of a unit's entries that a launch chooses.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct UnitOptions {
    /// Count iterations in 32-bit arithmetic (the launch guarantees that the iteration count plus
    /// the grid's thread count fits in `u32`). Scans always count in 64 bits.
    pub index32: bool,
    /// Take the captures through one pointer to a struct in device memory (`const FkCaptures*
    /// fk_caps`, the captures as members in order) instead of as parameters: for captures larger
    /// than the kernel parameter limit.
    pub captures_by_pointer: bool,
    /// Reductions: the last block to finish joins the blocks' partial values itself (in block
    /// order) and writes the result, so that no `_join` launch is needed (the unit then has no
    /// `_join` entry). The entry takes two more
    /// parameters after `fk_partials`: `unsigned int* fk_done` (a counter that is 0 before the
    /// launch and is 0 again after it) and `value_type* fk_result`.
    pub fused_join: bool,
    /// A multidimensional `parallel_for` maps each tile of the policy to one block: the entry takes
    /// the tile sizes (`const u64 fk_tile0, ...`) after the extents, is launched with blocks of the
    /// tile's point count, and block `b` (grid-stride over the tiles) runs tile `b` in walk order,
    /// thread `t` its point `t` (the fastest dimension first). Ignored for ranges and other patterns.
    pub tiled: bool,
    /// The kernel has `unsafe` code, which may alias a read-only capture with a written one:
    /// its read-only Views are then declared like written ones. Otherwise they are `const`, and
    /// a `const` View of a numeric element type (`fk::detail::ldg_able`) loads through the
    /// read-only data cache (`__ldg`), which also lets the compiler move those loads across the
    /// kernel's stores: sound because nothing writes such a View's memory while the kernel runs
    /// (its launch refuses a written View that shares its allocation with another capture,
    /// `Error::KernelAlias`, borrows a reduction's destination exclusively and orders itself
    /// after other work on its allocations; host access waits for it).
    pub unsafe_aliasing: bool,
    /// Reductions whose reducer has a final step (Kokkos' `final`, a `DeviceJoin` type's
    /// `finalize`): the entry applies it to the result before writing it. Launches that write
    /// their result into a device place ask for it; a value that comes back to the host is
    /// finalized there instead.
    pub finalize: bool,
    /// The launch proved every access the body writes `at_proven` inside its View at every index
    /// of its iteration box (`Kernel::with_device_bounds`): those accesses skip their bounds
    /// checks (the entry's `fk_proven` is an `fk::Proof<true>`). Every other access keeps its check.
    pub proven: bool,
}

/// The pattern to generate entries for.
pub(crate) enum Pattern {
    For {
        iterate: Iterate,
    },
    Reduce {
        iterate: Iterate,
        reducer: String,
        value: String,
        definitions: String,
        /// The reducer has a final step (`ReducerCxx::finalize`).
        finalize: bool,
        /// The join does not commute: contributions combine in index order.
        ordered: bool,
    },
    Scan {
        reducer: String,
        value: String,
        definitions: String,
    },
    /// `parallel_for` over a league of teams.
    TeamFor,
    /// `parallel_reduce` over a league of teams.
    TeamReduce {
        reducer: String,
        value: String,
        definitions: String,
        /// The reducer has a final step (`ReducerCxx::finalize`).
        finalize: bool,
        /// The join does not commute: contributions combine in league order.
        ordered: bool,
    },
}

impl Pattern {
    /// Reduce entries for the reducer described by `r`.
    pub(crate) fn reduce(r: &ReducerCxx, iterate: Iterate) -> Pattern {
        Pattern::Reduce {
            iterate,
            reducer: r.reducer.clone(),
            value: r.value.clone(),
            definitions: r.definitions.clone(),
            finalize: r.finalize,
            ordered: r.ordered,
        }
    }

    /// Scan entries for the reducer described by `r`.
    pub(crate) fn scan(r: &ReducerCxx) -> Pattern {
        Pattern::Scan {
            reducer: r.reducer.clone(),
            value: r.value.clone(),
            definitions: r.definitions.clone(),
        }
    }

    /// Team reduce entries for the reducer described by `r`.
    pub(crate) fn team_reduce(r: &ReducerCxx) -> Pattern {
        Pattern::TeamReduce {
            reducer: r.reducer.clone(),
            value: r.value.clone(),
            definitions: r.definitions.clone(),
            finalize: r.finalize,
            ordered: r.ordered,
        }
    }

    /// Whether the pattern is a reduction whose join does not commute (its contributions must
    /// combine in index order).
    pub(super) fn ordered(&self) -> bool {
        matches!(
            self,
            Pattern::Reduce { ordered: true, .. } | Pattern::TeamReduce { ordered: true, .. }
        )
    }

    /// Whether the pattern is a reduction whose reducer has a final step.
    pub(super) fn has_final_step(&self) -> bool {
        matches!(
            self,
            Pattern::Reduce { finalize: true, .. } | Pattern::TeamReduce { finalize: true, .. }
        )
    }

    /// Whether the entries run a league of teams.
    pub(super) fn is_team(&self) -> bool {
        matches!(self, Pattern::TeamFor | Pattern::TeamReduce { .. })
    }
}

impl Pattern {
    /// The reducer's definitions and value type (empty for `parallel_for`).
    pub(super) fn value_type(&self) -> (String, String) {
        match self {
            Pattern::For { .. } | Pattern::TeamFor => (String::new(), String::new()),
            Pattern::Reduce {
                definitions, value, ..
            }
            | Pattern::Scan {
                definitions, value, ..
            }
            | Pattern::TeamReduce {
                definitions, value, ..
            } => (definitions.clone(), value.clone()),
        }
    }

    /// The pattern's C++ (the reducer's definitions, value type and name), for the header parts it
    /// uses.
    pub(super) fn text(&self) -> String {
        match self {
            Pattern::For { .. } | Pattern::TeamFor => String::new(),
            Pattern::Reduce {
                definitions,
                value,
                reducer,
                ..
            }
            | Pattern::Scan {
                definitions,
                value,
                reducer,
            }
            | Pattern::TeamReduce {
                definitions,
                value,
                reducer,
                ..
            } => format!("{definitions} {value} {reducer}"),
        }
    }
}

/// Text with a line count, so that `#line` directives can point back into the unit itself.
pub(super) struct Text {
    pub(super) out: String,
    pub(super) lines: usize,
}

impl Text {
    pub(super) fn push(&mut self, s: &str) {
        if s.is_empty() {
            // A blank line (`lines()` of "" yields nothing).
            self.out.push('\n');
            self.lines += 1;
            return;
        }
        for line in s.lines() {
            self.out.push_str(line);
            self.out.push('\n');
            self.lines += 1;
        }
    }
    /// Makes the following lines count as lines of the unit `program` again.
    pub(super) fn resync(&mut self, program: &str) {
        let next = self.lines + 2;
        self.push(&format!("#line {next} \"{program}\""));
    }
}
