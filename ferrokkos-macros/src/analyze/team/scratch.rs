//! Scratch Views in team bodies: their declarations at team level and their accesses, which the
//! parent module's phases (team-level barriers) and `team_race::check_scratch` judge.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::{Expr, Pat};

use super::super::{Walker, ident_of, strip};
use crate::race::AccessKind;

/// A scratch View a team body declares: `let tile = team.team_scratch(0).view::<f64, 2>([n, n]);`.
pub struct ScratchDecl {
    pub name: String,
    pub level: usize,
    /// `thread_scratch` (each team thread's own) rather than `team_scratch`.
    pub per_thread: bool,
    pub ty: syn::Type,
    /// The extents (launch constants, checked after the walk).
    pub extents: Vec<Expr>,
}

/// An access of a scratch View.
pub struct ScratchAccess {
    pub view: String,
    pub access: crate::race::Access,
    /// The phase (after merging: see [`super::TeamCtx::phase_of`]).
    pub phase: usize,
}

impl Walker {
    /// `let name = team.team_scratch(level).view::<T, R>([extents]);` (or `thread_scratch`):
    /// whether `init` declares a scratch View (walked and recorded here).
    pub(in super::super) fn scratch_decl(&mut self, pat: &Pat, init: &Expr) -> bool {
        let Some(t) = &self.team else { return false };
        let team = t.name.clone();
        let Expr::MethodCall(view) = strip(init) else {
            return false;
        };
        let Expr::MethodCall(part) = strip(&view.receiver) else {
            return false;
        };
        let part_name = part.method.to_string();
        if view.method != "view"
            || !["team_scratch", "thread_scratch"].contains(&part_name.as_str())
            || ident_of(&part.receiver).as_deref() != Some(team.as_str())
        {
            return false;
        }
        let form = format!(
            "a scratch View is declared as `let tile = {team}.{part_name}(0).view::<f64, 2>([n, n]);` \
             (level 0 or 1, a number type, the rank, and one launch constant per dimension)"
        );
        let level = scratch_level(part);
        let (ty, rank) = scratch_type(view);
        let extents = match view.args.first().map(strip) {
            Some(Expr::Array(a)) if view.args.len() == 1 => {
                Some(a.elems.iter().cloned().collect::<Vec<_>>())
            }
            _ => None,
        };
        let name = match pat {
            Pat::Ident(i) if i.by_ref.is_none() && i.mutability.is_none() && i.subpat.is_none() => {
                Some(i.ident.clone())
            }
            _ => None,
        };
        let (Some(level), Some(ty), Some(rank), Some(extents), Some(name)) =
            (level, ty, rank, extents, name)
        else {
            self.err(init.span(), form);
            return true;
        };
        if !(1..=3).contains(&rank) || extents.len() != rank {
            self.err(
                view.span(),
                format!("a scratch View has rank 1 to 3 and one extent per dimension; {form}"),
            );
            return true;
        }
        let top = self.scopes.len() <= 2 && self.team.as_ref().is_some_and(|t| t.frames.is_empty());
        if !top {
            self.err(
                init.span(),
                "a scratch View is declared at the team body's top level (not in a loop, a \
                 branch, a nested range or `single`), so that every thread carves the same \
                 memory in the same order",
            );
            return true;
        }
        for e in &extents {
            self.expr(e);
        }
        self.bind(name.to_string(), name.span());
        self.record_scratch(ScratchDecl {
            name: name.to_string(),
            level,
            per_thread: part_name == "thread_scratch",
            ty,
            extents,
        });
        true
    }

    /// Records the declared scratch View `decl` (its name is bound).
    fn record_scratch(&mut self, decl: ScratchDecl) {
        if let Some(t) = &mut self.team {
            if let Some((_, _, l)) = t
                .locals
                .iter_mut()
                .rev()
                .find(|(n, _, _)| *n == decl.name.as_str())
            {
                l.scratch = true;
            }
            t.scratch.push(decl);
        }
    }

    /// An access of the scratch View `view` (`tile[(i, j)]`, read or written).
    pub(in super::super) fn scratch_access(
        &mut self,
        view: &str,
        index: &Expr,
        kind: crate::race::AccessKind,
        tokens: proc_macro2::TokenStream,
    ) {
        let in_unsafe = self.unsafe_depth > 0;
        let Some(t) = &mut self.team else { return };
        let team = t.access(index);
        let phase = t.phase;
        t.scratch_accesses.push(ScratchAccess {
            view: view.to_string(),
            access: crate::race::Access {
                kind,
                index: index.clone(),
                in_unsafe,
                tokens,
                team: Some(team),
                held: None,
            },
            phase,
        });
    }
}

fn lit_usize(l: &syn::Lit) -> Option<usize> {
    match l {
        syn::Lit::Int(i) => i.base10_parse().ok(),
        _ => None,
    }
}

/// The scratch Views' rules after the walk (see `team.rs` and `team_race.rs`): their extents are
/// launch constants, their names are no capture's, and each phase that writes one follows the
/// ownership rules (every access in one scope, one to one in the agents other than the league
/// rank, covered: by a thread and lane for a team's scratch, by a lane for a thread's).
pub fn team_scratch_rules(
    t: super::TeamCtx,
    constant: &dyn Fn(&str) -> bool,
    captures: &[(String, Span)],
    errors: &mut Vec<syn::Error>,
    witness: &mut Vec<(syn::Ident, syn::Ident)>,
) -> Vec<ScratchDecl> {
    for d in &t.scratch {
        if captures.iter().any(|(n, _)| *n == d.name) {
            errors.push(syn::Error::new(
                Span::call_site(),
                format!(
                    "the scratch View `{}` has the name of a value the kernel captures; rename one",
                    d.name
                ),
            ));
        }
        for e in &d.extents {
            let mut bad = Vec::new();
            super::super::calls::each_ident(e, &mut |i: &syn::Ident| {
                let n = i.to_string();
                if !constant(&n) {
                    bad.push(i.clone());
                }
            });
            for i in bad {
                errors.push(syn::Error::new(
                    i.span(),
                    format!(
                        "a scratch View's extents are launch constants (literals, constants and \
                         captured values the body does not rebind), but `{i}` is not one; the \
                         launch checks the policy's scratch request against them"
                    ),
                ));
            }
        }
    }
    let mut t = t;
    let mut settled = std::mem::take(&mut t.scratch_accesses);
    for a in &mut settled {
        if let Some(ta) = &mut a.access.team {
            t.settle(ta);
        }
    }
    let mut by_view: Vec<(String, usize, Vec<&crate::race::Access>)> = Vec::new();
    for a in &settled {
        let phase = t.phase_of(a.phase);
        match by_view
            .iter_mut()
            .find(|(v, p, _)| *v == a.view && *p == phase)
        {
            Some((_, _, list)) => list.push(&a.access),
            None => by_view.push((a.view.clone(), phase, vec![&a.access])),
        }
    }
    for (view, _, accesses) in by_view {
        if !accesses
            .iter()
            .any(|a| a.kind == AccessKind::Write && !a.in_unsafe)
        {
            continue; // a phase that only reads
        }
        let per_thread = t.scratch.iter().any(|d| d.name == view && d.per_thread);
        let found = crate::team_race::check_scratch(&view, &accesses, per_thread, constant);
        witness.extend(found.team_witness);
        errors.extend(found.atomic_only.into_iter().map(|(_, e)| e));
    }
    t.scratch
}

/// The level of `team.team_scratch(level)`: the literal `0` or `1`.
fn scratch_level(part: &syn::ExprMethodCall) -> Option<usize> {
    match part.args.first().map(strip) {
        Some(Expr::Lit(l)) if part.args.len() == 1 => match &l.lit {
            syn::Lit::Int(i) if i.base10_digits() == "0" => Some(0),
            syn::Lit::Int(i) if i.base10_digits() == "1" => Some(1),
            _ => None,
        },
        _ => None,
    }
}

/// The element type and rank of `.view::<T, R>(..)` (`R` a literal).
fn scratch_type(view: &syn::ExprMethodCall) -> (Option<syn::Type>, Option<usize>) {
    let generics = view
        .turbofish
        .as_ref()
        .map(|g| g.args.iter().collect::<Vec<_>>());
    match generics.as_deref() {
        Some(
            [
                syn::GenericArgument::Type(ty),
                syn::GenericArgument::Const(Expr::Lit(r)),
            ],
        ) => (Some(ty.clone()), lit_usize(&r.lit)),
        Some(
            [
                syn::GenericArgument::Type(ty),
                syn::GenericArgument::Type(syn::Type::Path(r)),
            ],
        ) => {
            // `2` parses as a const argument; a path would be a named constant.
            let _ = r;
            (Some(ty.clone()), None)
        }
        _ => (None, None),
    }
}
