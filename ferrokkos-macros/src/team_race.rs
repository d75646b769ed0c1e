//! The race rules of a View a team kernel writes (see `analyze/team.rs` for agents and coverage).
//!
//! Outside `unsafe`, every access of the View is in one scope (one nested range's or `single`'s
//! closure) that one thread and lane runs, and all of them are at one index, which is one to one
//! in the scope's agents: each agent (the league rank, each enclosing range's index, each enclosing
//! loop's variable) is, in some coordinate of the index, `±agent + offset` (offset a launch
//! constant), or the league rank and a range `0..c`'s index together are `c · league_rank + index`.
//! Then no two threads of the launch touch one element, and a thread touches only elements no
//! other touches, as long as `c · league_size` fits the index type: each launch checks that
//! (`Kernel::with_league_blocks`). Anything else makes the View atomic-only (as in range kernels: an `AtomicView`
//! is fine, a plain View is an error naming the access).

use syn::Expr;

use crate::affine::{self, Coord};
use crate::analyze::{LEAGUE, TeamAccess, pretty, strip};
use crate::race::{Access, AccessKind, Findings};

/// The block that stands for "a league of one team" (see [`owned`]): the expansion asks each
/// launch for it instead of a stride.
pub const ONE_TEAM: &str = "__fk_one_team";

/// Checks the accesses `mine` of the written View `name`.
pub fn check(name: &str, mine: &[&Access], constant: &dyn Fn(&str) -> bool, found: &mut Findings) {
    check_with(
        name,
        mine,
        constant,
        found,
        &format!(
            "use an atomic (`{name}.atomic_add(k, v)`), an atomic View (`let {name} = \
             {name}.atomic();`) or an `unsafe {{ }}` block"
        ),
    );
}

/// The rules for a scratch View's accesses in one phase that writes it: those of a View, with the
/// league rank no agent (each team has its own scratch) and, for a thread's own scratch, one lane
/// per team thread enough. The errors are in `atomic_only`.
pub fn check_scratch(
    name: &str,
    accesses: &[&Access],
    per_thread: bool,
    constant: &dyn Fn(&str) -> bool,
) -> Findings {
    let adapted: Vec<Access> = accesses
        .iter()
        .map(|a| {
            let team = a.team.as_ref().map(|t| {
                let mut t = t.clone();
                t.agents.retain(|g| g != LEAGUE);
                t.blocks.clear();
                if per_thread {
                    t.covered = t.lanes_covered;
                }
                t
            });
            Access {
                kind: a.kind,
                index: a.index.clone(),
                in_unsafe: a.in_unsafe,
                tokens: a.tokens.clone(),
                team,
                held: a.held.clone(),
            }
        })
        .collect();
    let refs: Vec<&Access> = adapted.iter().collect();
    let mut found = Findings::default();
    check_with(
        name,
        &refs,
        constant,
        &mut found,
        &format!(
            "separate the phase that writes scratch View `{name}` from the code that reads other \
             agents' elements with `team.team_barrier()`, or use an `unsafe {{ }}` block"
        ),
    );
    found
}

fn check_with(
    name: &str,
    mine: &[&Access],
    constant: &dyn Fn(&str) -> bool,
    found: &mut Findings,
    advice: &str,
) {
    let mut found_blocks: Vec<String> = Vec::new();
    let mut witness = Vec::new();
    // The distinct write maps, each with its scope; reads with theirs.
    let mut writes: Vec<(&Access, usize, Vec<Coord>)> = Vec::new();
    let mut reads: Vec<(&Access, usize, Vec<Coord>)> = Vec::new();
    let mut fail = |a: &Access, why: String| {
        found.atomic_only.push((
            name.to_string(),
            syn::Error::new_spanned(
                &a.tokens,
                format!(
                    "the kernel {} View `{name}` at `{}`, but {why}; {advice}",
                    verb(a.kind),
                    pretty(&a.index)
                ),
            ),
        ));
    };
    for a in mine.iter().filter(|a| !a.in_unsafe) {
        let Some(t) = &a.team else { continue };
        witness.extend(t.witness.iter().cloned());
        let (coords, blocks) = match owned(t, constant) {
            Err(why) => {
                fail(a, why);
                continue;
            }
            Ok(found) => found,
        };
        for c in blocks {
            if !found_blocks.contains(&c) {
                found_blocks.push(c);
            }
        }
        if a.kind != AccessKind::Write {
            reads.push((a, t.scope, coords));
            continue;
        }
        if writes.iter().any(|(_, s, c)| *s == t.scope && *c == coords) {
            continue;
        }
        // Another map (or the same map in another scope, run by other threads) must never meet
        // this one.
        if let Some((w, _, _)) = writes.iter().find(|(_, _, c)| !apart(c, &coords)) {
            fail(
                a,
                format!(
                    "it also writes `{name}[{}]`{}, and the rules cannot tell the two apart (they \
                     can when a coordinate is a different literal in each)",
                    pretty(&w.index),
                    if writes.iter().any(|(_, _, c)| *c == coords) {
                        " in another nested range or `single`"
                    } else {
                        ""
                    }
                ),
            );
            continue;
        }
        writes.push((a, t.scope, coords));
    }
    // A read is of an element the reading agent itself writes.
    for (a, scope, coords) in reads {
        if !writes.iter().any(|(_, s, c)| *s == scope && *c == coords) {
            fail(
                a,
                "it is not an element the same agent writes in the same nested range or `single` \
                 (a team kernel reads a View it writes only there)"
                    .to_string(),
            );
        }
    }
    found.league_blocks.extend(found_blocks);
    found.team_witness.extend(witness);
}

/// Whether two index maps never meet: some coordinate is a different literal in each.
fn apart(a: &[Coord], b: &[Coord]) -> bool {
    a.len() == b.len()
        && a.iter().zip(b).any(|(x, y)| match (x, y) {
            (Coord::Fixed(p), Coord::Fixed(q)) => {
                p.terms.is_empty() && q.terms.is_empty() && p.literal != q.literal
            }
            _ => false,
        })
}

fn verb(kind: AccessKind) -> &'static str {
    match kind {
        AccessKind::Write => "writes",
        _ => "reads",
    }
}

/// The access's index map if it gives each agent its own element (with the constants `c` of the
/// `c · league_rank + i` coordinates it relies on), else why not.
fn owned(
    t: &TeamAccess,
    constant: &dyn Fn(&str) -> bool,
) -> Result<(Vec<Coord>, Vec<String>), String> {
    if !t.covered {
        return Err(
            "every thread or vector lane of the team runs this code (put it in \
             `single(PerTeam(team), ..)` or `single(PerThread(team), ..)`, or in a range that \
             spreads both the threads and the lanes)"
                .to_string(),
        );
    }
    if !t.unnamed_loops.is_empty() {
        return Err(
            "a `while` or `loop` around this code's range or `single` runs it again with no index \
             the rules can tell apart"
                .to_string(),
        );
    }
    let Some(index) = &t.index else {
        return Err("its index uses a local the rules cannot see through".to_string());
    };
    let (index, synthetic) = blocked(index, t);
    let mut params = t.agents.clone();
    params.extend(synthetic.iter().map(|(s, _)| s.clone()));
    let coords = affine::coords(&index, &params, constant);
    // A rank-0 View's one element (`s[()]`) in a scope one thread and lane of each team runs,
    // with no agent but the league rank: one writer in a league of one team, which each launch
    // checks (`ONE_TEAM` among the blocks).
    if matches!(strip(&index), Expr::Tuple(u) if u.elems.is_empty()) && t.agents == [LEAGUE] {
        return Ok((coords, vec![ONE_TEAM.to_string()]));
    }
    for (k, agent) in t.agents.iter().enumerate() {
        let covers = coords.iter().any(|c| match c {
            Coord::Param { param, coef, .. } if coef.abs() == 1 => {
                *param == k
                    || synthetic
                        .iter()
                        .enumerate()
                        .any(|(s, (_, of))| *param == t.agents.len() + s && of.contains(agent))
            }
            _ => false,
        });
        if !covers {
            let what = if agent == LEAGUE {
                "the league rank (`team.league_rank()`)".to_string()
            } else {
                "the index of an enclosing range or loop".to_string()
            };
            return Err(format!(
                "the index does not follow {what} one to one, so two agents of the launch could \
                 touch one element"
            ));
        }
    }
    let used = synthetic
        .iter()
        .enumerate()
        .filter(|(s, _)| {
            coords
                .iter()
                .any(|c| matches!(c, Coord::Param { param, .. } if *param == t.agents.len() + s))
        })
        .map(|(_, (_, [_, agent]))| {
            t.blocks
                .iter()
                .find(|(a, _)| a == agent)
                .map(|(_, c)| c.clone())
                .unwrap_or_default()
        })
        .collect();
    Ok((coords, used))
}

/// `index` with each coordinate `c · league_rank + i` (for a range `0..c` with index `i`) replaced
/// by a synthetic agent, and the synthetic agents with the agents each stands for.
fn blocked(index: &Expr, t: &TeamAccess) -> (Expr, Vec<(String, [String; 2])>) {
    let mut synthetic = Vec::new();
    let mut one = |e: &Expr| -> Expr {
        for (agent, c) in &t.blocks {
            if is_block(e, agent, c) {
                let name = format!("__fk_block{}", synthetic.len());
                synthetic.push((name.clone(), [LEAGUE.to_string(), agent.clone()]));
                let ident = syn::Ident::new(&name, proc_macro2::Span::call_site());
                return syn::parse_quote!(#ident);
            }
        }
        e.clone()
    };
    let index = match strip(index) {
        Expr::Tuple(tp) => {
            let elems = tp.elems.iter().map(&mut one);
            syn::parse_quote!((#(#elems),*))
        }
        e => one(e),
    };
    (index, synthetic)
}

/// Whether `e` is `c * league + agent` in any order of the sum and the product.
fn is_block(e: &Expr, agent: &str, c: &str) -> bool {
    let Expr::Binary(b) = strip(e) else {
        return false;
    };
    if !matches!(b.op, syn::BinOp::Add(_)) {
        return false;
    }
    let is = |e: &Expr, n: &str| crate::analyze::ident_of(e).as_deref() == Some(n);
    let product = |e: &Expr| match strip(e) {
        Expr::Binary(m) if matches!(m.op, syn::BinOp::Mul(_)) => {
            (is(&m.left, c) && is(&m.right, LEAGUE)) || (is(&m.left, LEAGUE) && is(&m.right, c))
        }
        _ => false,
    };
    (product(&b.left) && is(&b.right, agent)) || (is(&b.left, agent) && product(&b.right))
}
