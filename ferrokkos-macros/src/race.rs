//! The race rules (DESIGN.md decision 4): from the View accesses the walk collected, each capture's
//! role (read, written, atomic) and the errors for accesses that could race.

use proc_macro2::{Span, TokenStream};
use syn::Expr;

use crate::analyze::{ident_of, pretty, strip};

/// How a kernel touches a captured View.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
    Atomic,
}

/// One View access: `x[index]`, `y[index] = ...` or `h.atomic_add(index, ...)`.
pub struct Access {
    pub kind: AccessKind,
    pub index: Expr,
    pub in_unsafe: bool,
    /// The whole access expression (errors underline all of it).
    pub tokens: TokenStream,
}

/// The role a capture gets, from its accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Read,
    Write,
    Atomic,
}

/// The captures' roles, after checking the race rules. `owners` receives the identifiers that stand
/// for the iteration index in the accesses the rules accepted because of it (the expansion checks
/// that they resolve to the index parameter).
pub fn roles(
    captures: Vec<(String, Span)>,
    accesses: Vec<(String, Access)>,
    index_params: &[String],
    owners: &mut Vec<syn::Ident>,
    errors: &mut Vec<syn::Error>,
) -> Vec<(String, Role, Span)> {
    let mut out = Vec::new();
    for (name, span) in captures {
        let mine: Vec<&Access> = accesses
            .iter()
            .filter(|(n, _)| *n == name)
            .map(|(_, a)| a)
            .collect();
        let atomic = mine.iter().any(|a| a.kind == AccessKind::Atomic);
        let write = mine.iter().any(|a| a.kind == AccessKind::Write);
        let role = if atomic {
            for a in &mine {
                if a.kind == AccessKind::Write || (a.kind == AccessKind::Read && !a.in_unsafe) {
                    let what = if a.kind == AccessKind::Write {
                        "writes"
                    } else {
                        "reads"
                    };
                    errors.push(syn::Error::new_spanned(
                        &a.tokens,
                        format!(
                            "the kernel updates View `{name}` atomically, so it may reach it only \
                             atomically, but here it {what} `{name}[{}]`{}",
                            pretty(&a.index),
                            if a.kind == AccessKind::Read {
                                " (a read may sit in `unsafe { }`)"
                            } else {
                                ""
                            }
                        ),
                    ));
                }
            }
            Role::Atomic
        } else if write {
            check_owner(&name, &mine, index_params, owners, errors);
            Role::Write
        } else {
            Role::Read
        };
        out.push((name, role, span));
    }
    out
}

/// The race rule for a written View: outside `unsafe`, every access is at the iteration index
/// (the index itself, or a tuple holding each index coordinate at the same positions).
fn check_owner(
    name: &str,
    accesses: &[&Access],
    index_params: &[String],
    owners: &mut Vec<syn::Ident>,
    errors: &mut Vec<syn::Error>,
) {
    let mut first: Option<(Vec<usize>, bool)> = None;
    for a in accesses.iter().filter(|a| !a.in_unsafe) {
        let sig = owner_signature(&a.index, index_params);
        let ok = match (&sig, &first) {
            (None, _) => false,
            (Some(s), Some(f)) => s == f,
            (Some(s), None) => {
                first = Some(s.clone());
                true
            }
        };
        if ok {
            owners.extend(owner_idents(&a.index, index_params));
        } else {
            let index = pretty(&a.index).to_string();
            let own = own_index(index_params);
            let msg = if a.kind == AccessKind::Write {
                format!(
                    "the kernel writes View `{name}` at index `{index}`, which is not the iteration \
                     index: a View that a kernel writes may be written and read only at the iteration \
                     index (`{name}[{own}]`), so that no two iterations touch the same element; use \
                     an atomic (`{name}.atomic_add(k, v)`) or an `unsafe {{ }}` block"
                )
            } else {
                format!(
                    "the kernel reads View `{name}` at index `{index}` and also writes it: a View that \
                     a kernel writes may be read only at the iteration index (`{name}[{own}]`), since \
                     another iteration may be writing element `{index}`; read it inside `unsafe {{ }}` \
                     if the algorithm guarantees otherwise"
                )
            };
            errors.push(syn::Error::new_spanned(&a.tokens, msg));
        }
    }
}

/// The identifiers of `index` that name an index parameter (its owner positions).
fn owner_idents(index: &Expr, params: &[String]) -> Vec<syn::Ident> {
    let ident = |e: &Expr| match strip(e) {
        Expr::Path(p) if p.qself.is_none() && p.path.segments.len() == 1 => {
            let seg = &p.path.segments[0];
            (seg.arguments.is_none() && params.contains(&seg.ident.to_string()))
                .then(|| seg.ident.clone())
        }
        _ => None,
    };
    match strip(index) {
        Expr::Tuple(t) => t.elems.iter().filter_map(ident).collect(),
        e => ident(e).into_iter().collect(),
    }
}

fn own_index(params: &[String]) -> String {
    if params.len() == 1 {
        params[0].clone()
    } else {
        format!("({})", params.join(", "))
    }
}

/// Where the iteration index sits in `index`: `([0], false)` for the index itself, `(positions,
/// true)` for a tuple holding each index coordinate once as a bare name; `None` otherwise.
fn owner_signature(index: &Expr, params: &[String]) -> Option<(Vec<usize>, bool)> {
    let index = strip(index);
    if params.len() == 1 && ident_of(index).as_deref() == Some(params[0].as_str()) {
        return Some((vec![0], false));
    }
    let Expr::Tuple(t) = index else { return None };
    let names: Vec<Option<String>> = t.elems.iter().map(ident_of).collect();
    let mut positions = Vec::new();
    for p in params {
        let at: Vec<usize> = names
            .iter()
            .enumerate()
            .filter(|(_, n)| n.as_deref() == Some(p.as_str()))
            .map(|(k, _)| k)
            .collect();
        if at.len() != 1 {
            return None;
        }
        positions.push(at[0]);
    }
    Some((positions, true))
}
