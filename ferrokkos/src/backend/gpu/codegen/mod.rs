//! The CUDA code generator: a kernel's backend-neutral body ([`crate::kernel::KernelBody`]) becomes
//! a CUDA C++ translation unit (the device header, the `#[device]` functions it calls, and the
//! `extern "C" __global__` entry points of its pattern) that NVRTC compiles.
//!
//! The seam is "body → backend emitter": nothing here runs a shadow or knows the kernel language,
//! and nothing outside the CUDA backend knows thread, block or grid indices. A second GPU backend
//! is a sibling folder with its own header and entries over the same bodies.
//!
//! - `header.rs` + `device/*`: the device header (types, the target prelude, Views, math, atomics and reducers,
//!   block-level reduction and scan);
//! - `parts.rs`: [`UnitOptions`], the pattern and line-counted text the entry writers share;
//!   `unit.rs`: [`TranslationUnit`] and the steps that write the entries of each pattern; `walk.rs`: how an entry walks its iterations (grid-stride, digit walk, tiles);
//!   `reduce_entry.rs`, `scan_entry.rs`, `team_entry.rs`: the code of reduce, scan and team entries;
//! - `batch.rs`: several units as one program (ahead-of-time compilation in batches);
//! - `source.rs`: the public ways to see a kernel's unit (the constructors of [`TranslationUnit`]:
//!   [`TranslationUnit::for_kernel`], [`TranslationUnit::reduce_kernel`], ...).

#[cfg(test)]
pub(crate) mod atomic_coverage;
mod batch;
pub(crate) mod header;
mod parts;
mod reduce_entry;
mod scan_entry;
mod source;
mod team_entry;
mod unit;
mod walk;

#[cfg_attr(not(feature = "cuda"), allow(unused_imports))] // used by the CUDA backend
pub(crate) use batch::batch_program;
pub use header::Target;
pub use parts::UnitOptions;
pub use unit::TranslationUnit;

use crate::error::{Error, Result};
use crate::kernel::{BodyKind, KernelBody};
use crate::policy::Iterate;
use crate::reducer::ReducerCxx;
use parts::Pattern;

/// The pattern a launch asks a kernel's unit for.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))] // only the runtime (built with CUDA) calls it
#[derive(Debug, Clone, Copy)]
pub(crate) enum DevicePattern<'a> {
    /// `parallel_for`, walking a multidimensional index in `iterate` order.
    For {
        /// The walk order of a multidimensional index.
        iterate: Iterate,
    },
    /// `parallel_reduce` with the reducer `reducer`.
    Reduce {
        /// The walk order of a multidimensional index.
        iterate: Iterate,
        /// The reducer's device description.
        reducer: &'a ReducerCxx,
    },
    /// `parallel_scan` with the reducer `reducer`.
    Scan {
        /// The reducer's device description.
        reducer: &'a ReducerCxx,
    },
    /// `parallel_for` over a league of teams.
    TeamFor,
    /// `parallel_reduce` over a league of teams with the reducer `reducer`.
    TeamReduce {
        /// The reducer's device description.
        reducer: &'a ReducerCxx,
    },
}

/// The entries to generate for a body of `kind` asked for `pattern`: a `for` body always gets `for`
/// entries, a reduce body reduce entries (a scan asks with its reducer; the walk order of a scan is
/// `Right`), a scan body scan entries. A team body gets the team entries of its own pattern only.
/// A reduce or scan body asked for a `for`, a team body asked for a range pattern or the other
/// way round, is a broken invariant (the typed launch APIs never do it).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))] // only the runtime (built with CUDA) calls it
fn entries(body: &KernelBody, pattern: &DevicePattern<'_>) -> Result<Pattern> {
    let reducer_pattern = |iterate: Iterate, r: &ReducerCxx| match body.kind {
        BodyKind::Scan => Pattern::scan(r),
        _ => Pattern::reduce(r, iterate),
    };
    let broken = |kind: BodyKind, asked: &str| Error::Internal {
        what: format!(
            "the kernel at {}:{}:{}",
            body.info.file, body.info.line, body.info.column
        ),
        reason: format!("a {kind:?} kernel was asked for {asked} entries"),
    };
    let team_body = matches!(body.kind, BodyKind::TeamFor | BodyKind::TeamReduce);
    Ok(match (body.kind, pattern) {
        (BodyKind::TeamFor, DevicePattern::TeamFor) => Pattern::TeamFor,
        (BodyKind::TeamReduce, DevicePattern::TeamReduce { reducer }) => {
            Pattern::team_reduce(reducer)
        }
        (kind, asked) if team_body || asked.is_team() => {
            return Err(broken(kind, asked.name()));
        }
        (BodyKind::For, DevicePattern::For { iterate })
        | (BodyKind::For, DevicePattern::Reduce { iterate, .. }) => {
            Pattern::For { iterate: *iterate }
        }
        (BodyKind::For, DevicePattern::Scan { .. }) => Pattern::For {
            iterate: Iterate::Right,
        },
        (_, DevicePattern::Reduce { iterate, reducer }) => reducer_pattern(*iterate, reducer),
        (_, DevicePattern::Scan { reducer }) => reducer_pattern(Iterate::Right, reducer),
        // A `for`, or (never: matched above) a team pattern.
        (
            kind,
            asked @ (DevicePattern::For { .. }
            | DevicePattern::TeamFor
            | DevicePattern::TeamReduce { .. }),
        ) => return Err(broken(kind, asked.name())),
    })
}

#[cfg_attr(not(feature = "cuda"), allow(dead_code))] // only the runtime (built with CUDA) calls it
impl DevicePattern<'_> {
    /// The reducer's definitions that the kernel's emission makes ([`ReducerCxx::emit`]).
    pub(crate) fn emit(&self) -> &[fn() -> String] {
        match self {
            DevicePattern::For { .. } | DevicePattern::TeamFor => &[],
            DevicePattern::Reduce { reducer, .. }
            | DevicePattern::Scan { reducer }
            | DevicePattern::TeamReduce { reducer } => &reducer.emit,
        }
    }

    /// Whether the pattern runs a league of teams.
    fn is_team(&self) -> bool {
        matches!(
            self,
            DevicePattern::TeamFor | DevicePattern::TeamReduce { .. }
        )
    }

    /// The pattern's name in errors.
    fn name(&self) -> &'static str {
        match self {
            DevicePattern::For { .. } => "parallel_for",
            DevicePattern::Reduce { .. } => "parallel_reduce",
            DevicePattern::Scan { .. } => "parallel_scan",
            DevicePattern::TeamFor => "team parallel_for",
            DevicePattern::TeamReduce { .. } => "team parallel_reduce",
        }
    }
}

/// The translation unit of `body` for `pattern`, in the entry variant `options`. A body whose
/// `#[device]` functions call each other in a cycle is refused (a GPU thread's stack is small and
/// fixed: a deep recursion would fault and end the context), before anything is compiled or run.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))] // only the runtime (built with CUDA) calls it
pub(crate) fn translation_unit(
    body: &KernelBody,
    pattern: &DevicePattern<'_>,
    options: UnitOptions,
) -> Result<TranslationUnit> {
    if let Some(cycle) = &body.recursion {
        return Err(Error::Unsupported {
            what: format!(
                "the kernel at {}:{}:{}",
                body.info.file, body.info.line, body.info.column
            ),
            reason: recursion_reason(cycle),
        });
    }
    Ok(unit::generate(body, entries(body, pattern)?, options))
}

/// Why a body with the call cycle `cycle` (`f -> g -> f`) does not run on a GPU.
pub(crate) fn recursion_reason(cycle: &str) -> String {
    format!(
        "its #[device] functions call each other in a cycle ({cycle}); a GPU thread runs on a \
         small stack of fixed size, where recursion would overflow and end the context, so device \
         code cannot recurse (write the recursion as a loop, with an explicit stack in a local \
         array if it needs one)"
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::reducer::{Reducer, Sum};
    use crate::seal::Token;

    /// Each `#line N "<program>"` directive of `unit` says that the line after it is line N.
    fn assert_lines_point_into_the_unit(unit: &TranslationUnit) -> usize {
        let program = format!("\"{}\"", unit.program_name());
        let mut seen = 0;
        for (k, line) in unit.source.lines().enumerate() {
            if let Some(rest) = line.strip_prefix("#line ")
                && let Some((n, file)) = rest.split_once(' ')
                && file == program
            {
                assert_eq!(n.parse::<usize>().unwrap(), k + 2, "line {}: {line}", k + 1);
                seen += 1;
            }
        }
        seen
    }

    /// The HIP unit is the CUDA one with HIP's header: the same generated entries, and the
    /// directives back into the unit still point at their own lines (the headers differ in length).
    #[test]
    fn a_unit_for_hip_keeps_its_entries_and_its_line_directives() {
        let a = 2.0f64;
        let sum = Sum::<f64>::device_cxx(Token::new()).unwrap();
        let reduce = crate::kernel!(|i, acc: &mut f64| {
            if i % 2 == 0 {
                return;
            }
            *acc += a * i as f64
        });
        let body = reduce.body();
        let pattern = DevicePattern::Reduce {
            iterate: Iterate::Right,
            reducer: &sum,
        };
        let cuda = translation_unit(&body, &pattern, UnitOptions::default()).unwrap();
        assert_eq!(cuda.target(), Target::Cuda);
        let hip = cuda.for_target(Target::Hip);
        assert_eq!(
            (hip.target(), hip.entry.as_str()),
            (Target::Hip, cuda.entry.as_str())
        );
        assert_eq!(hip.program_name(), format!("{}.hip", cuda.entry));
        assert!(hip.source.contains("__AMDGCN_WAVEFRONT_SIZE"));
        assert!(!hip.source.contains("__shfl_down_sync"));
        assert!(cuda.source.contains("__shfl_down_sync"));
        let directives = assert_lines_point_into_the_unit(&cuda);
        assert!(directives >= 1, "{}", cuda.generated());
        assert_eq!(assert_lines_point_into_the_unit(&hip), directives);
        // Apart from the program's name in those directives, the generated parts are one text.
        let renamed = hip.generated().replace(".hip\"", ".cu\"");
        let strip = |text: &str| -> Vec<String> {
            text.lines()
                .map(|l| match l.strip_prefix("#line ") {
                    Some(rest) if rest.ends_with(".cu\"") => "#line".to_string(),
                    _ => l.to_string(),
                })
                .collect()
        };
        assert_eq!(strip(&renamed), strip(cuda.generated()));
        // And back: the same unit.
        assert_eq!(hip.for_target(Target::Cuda).source, cuda.source);
    }

    /// A launch gets the entries of the body's own pattern; a reduce body asked for `parallel_for`
    /// entries is an internal error naming the kernel, not a panic.
    #[test]
    fn entries_follow_the_body_kind() {
        let a = 2.0f64;
        let sum = Sum::<f64>::device_cxx(Token::new()).unwrap();
        let reduce = crate::kernel!(|i, acc: &mut f64| *acc += a * i as f64);
        let body = reduce.body();
        let asked_scan = DevicePattern::Scan { reducer: &sum };
        let unit = translation_unit(&body, &asked_scan, UnitOptions::default()).unwrap();
        assert!(
            unit.generated()
                .contains(&format!("void {}_join(", unit.entry))
        );
        let asked_for = DevicePattern::For {
            iterate: Iterate::Right,
        };
        match translation_unit(&body, &asked_for, UnitOptions::default()) {
            Err(Error::Internal { what, reason }) => {
                assert!(what.contains("mod.rs"), "{what}");
                assert!(
                    reason.contains("Reduce kernel was asked for parallel_for"),
                    "{reason}"
                );
            }
            other => panic!("expected an internal error, got {other:?}"),
        }
        let fill = crate::kernel!(|i| {
            let _twice = a * i as f64;
        });
        let asked_reduce = DevicePattern::Reduce {
            iterate: Iterate::Left,
            reducer: &sum,
        };
        let unit = translation_unit(&fill.body(), &asked_reduce, UnitOptions::default()).unwrap();
        assert!(!unit.generated().contains("_join("));
        assert!(
            unit.generated().contains("const f64 _twice = a * f64(i);"),
            "{}",
            unit.generated()
        );
    }

    /// `Prepare` balances its batches by a unit's estimated compile cost: its generated code, twice
    /// over for a scan (whose block-wide scan and second pass compile in about twice the time of a
    /// reduction of the same length).
    #[test]
    fn compile_cost_is_the_generated_code_twice_for_a_scan() {
        let sum = Sum::<f64>::device_cxx(Token::new()).unwrap();
        let a = 2.0f64;
        let scan = crate::kernel!(|i, partial: &mut f64, last: bool| {
            if last {
                let _seen = *partial;
            }
            *partial += a * i as f64;
        });
        let scan_unit = translation_unit(
            &scan.body(),
            &DevicePattern::Scan { reducer: &sum },
            UnitOptions::default(),
        )
        .unwrap();
        assert!(scan_unit.generated().contains("block_exclusive_scan"));
        assert_eq!(scan_unit.compile_cost(), 2 * scan_unit.generated().len());

        let reduce = crate::kernel!(|i, acc: &mut f64| *acc += i as f64);
        let reduce_unit = translation_unit(
            &reduce.body(),
            &DevicePattern::Reduce {
                iterate: Iterate::Right,
                reducer: &sum,
            },
            UnitOptions::default(),
        )
        .unwrap();
        assert_eq!(reduce_unit.compile_cost(), reduce_unit.generated().len());
        assert!(scan_unit.compile_cost() > reduce_unit.compile_cost());
    }
}
