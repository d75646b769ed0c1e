//! The race rules (DESIGN.md decision 4): from the View accesses the walk collected, each capture's
//! role (read, written, atomic) and the errors for accesses that could race.

use proc_macro2::{Span, TokenStream};
use syn::Expr;

use quote::ToTokens;

use crate::affine::{self, Coord};
use crate::analyze::pretty;

/// How a kernel touches a captured View.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessKind {
    Read,
    Write,
    Atomic,
    /// The whole View handed to a `#[device]` function (`f(&u, i)`), which may read any element.
    Passed,
}

/// One View access: `x[index]`, `y[index] = ...` or `h.atomic_add(index, ...)`.
pub struct Access {
    pub kind: AccessKind,
    pub index: Expr,
    pub in_unsafe: bool,
    /// The whole access expression (errors underline all of it).
    pub tokens: TokenStream,
    /// In a team kernel: who runs the access (see `analyze/team.rs`).
    pub team: Option<crate::analyze::TeamAccess>,
    /// The first coordinate that is an id held from a UniqueToken: its place and the token.
    pub held: Option<(usize, String)>,
}

/// The role a capture gets, from its accesses.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    Read,
    Write,
    Atomic,
}

/// Two accesses of a written View whose images the launch must prove apart (`second` `None`: the
/// first's map must not wrap around its type).
pub struct OverlapSpec {
    pub view: String,
    pub first: (String, Vec<Coord>),
    pub second: Option<(String, Vec<Coord>)>,
}

/// The captures' roles, after checking the race rules, and what the rules found (see [`Findings`]).
/// `constant` says which names are launch constants (see [`crate::affine::coords`]).
pub fn roles(
    captures: Vec<(String, Span)>,
    accesses: Vec<(String, Access)>,
    index_params: &[String],
    constant: &dyn Fn(&str) -> bool,
    errors: &mut Vec<syn::Error>,
) -> (Vec<(String, Role, Span)>, Findings) {
    let mut found = Findings::default();
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
        } else if write && mine.iter().any(|a| a.held.is_some() && !a.in_unsafe) {
            crate::unique_token::check_held(&name, &mine, errors);
            Role::Write
        } else if write && mine.iter().any(|a| a.team.is_some()) {
            crate::team_race::check(&name, &mine, constant, &mut found);
            Role::Write
        } else if write {
            let checked = Written {
                name: &name,
                params: index_params,
                constant,
            };
            checked.check(&mine, &mut found);
            Role::Write
        } else {
            Role::Read
        };
        // A device function may read any element of a View it is given: the kernel may not also
        // write the View, or a read could meet another iteration's write. A View the kernel
        // updates atomically (or writes other than one to one, which makes it an atomic View)
        // may be passed: it is captured atomic, so the function's host form takes it only as an
        // atomic View parameter (`&AtomicView<T, R>`: atomic accesses only), never as a View it
        // reads (`ViewRead`, which an atomic capture does not give).
        if role == Role::Write && !found.atomic_only.iter().any(|(n, _)| *n == name) {
            for a in mine.iter().filter(|a| a.kind == AccessKind::Passed) {
                errors.push(syn::Error::new_spanned(
                    &a.tokens,
                    format!(
                        "the kernel passes View `{name}` to a device function, which may read any \
                         of its elements, but the kernel also writes it; a kernel passes only \
                         Views it does not change (pass the element instead: `f({name}[i])`, or \
                         `f(&mut {name}[i])` for the one the iteration owns)"
                    ),
                ));
            }
        }
        out.push((name, role, span));
    }
    (out, found)
}

/// What the race rules found besides the roles and errors.
#[derive(Default)]
pub struct Findings {
    /// The identifiers the rules took for the iteration index (the expansion checks that each
    /// resolves to the index parameter).
    pub owners: Vec<syn::Ident>,
    /// The pairs of accesses each launch must prove apart.
    pub overlaps: Vec<OverlapSpec>,
    /// Written Views with a write that is not one to one, and the error that is for a plain View.
    pub atomic_only: Vec<(String, syn::Error)>,
    /// Written Views with a write the launch checks for one iteration (a rank-0 View's
    /// `s[()] = v`), and the error that is for an atomic View (whose accesses the kernel would
    /// have to make atomic: an atomic View of rank 0 is updated with its atomic methods).
    pub plain_only: Vec<(String, syn::Error)>,
    /// Team kernels: the launch constants `c` of index coordinates `c · league_rank + i` the rules
    /// relied on (each launch checks that `c · league_size` does not overflow).
    pub league_blocks: Vec<String>,
    /// Team kernels: (use, binding) pairs of the locals the rules resolved in indices.
    pub team_witness: Vec<(syn::Ident, syn::Ident)>,
}

/// The race rules of one written View.
struct Written<'a> {
    name: &'a str,
    params: &'a [String],
    constant: &'a dyn Fn(&str) -> bool,
}

impl Written<'_> {
    /// Outside `unsafe`: every write follows the iteration index one to one (an injective affine
    /// map, [`affine::key`]); an access at the map of a write is that iteration's own; any other
    /// pair (a read elsewhere, two writes at different maps) is left to the launch, which proves
    /// their images apart over its iterations or refuses to run.
    /// A write that is not one to one does not settle the View's fate here: the View may be an
    /// `AtomicView`, whose accesses are all atomic; `atomic_only` receives the error it is for a
    /// plain View (see `kernel/`).
    fn check(&self, accesses: &[&Access], found: &mut Findings) {
        let Findings {
            owners,
            overlaps,
            atomic_only,
            plain_only,
            ..
        } = found;
        let name = self.name;
        let own = own_index(self.params);
        let safe: Vec<(&Access, Vec<Coord>)> = accesses
            .iter()
            .filter(|a| !a.in_unsafe)
            .map(|a| (*a, affine::coords(&a.index, self.params, self.constant)))
            .collect();
        // The distinct write maps, each with its first access.
        let mut writes: Vec<(affine::Key, &Access, &Vec<Coord>)> = Vec::new();
        let n = self.params.len();
        for (a, c) in safe.iter().filter(|(a, _)| a.kind == AccessKind::Write) {
            match key_of(a, c, n) {
                Some(k) => {
                    if !writes.iter().any(|(w, _, _)| *w == k) {
                        writes.push((k, a, c));
                    }
                }
                None => atomic_only.push((name.to_string(), syn::Error::new_spanned(
                    &a.tokens,
                    format!(
                        "the kernel writes View `{name}` at index `{}`, which does not give each \
                         iteration its own element: a View that a kernel writes may be written \
                         only at an index that follows the iteration index one to one \
                         (`{name}[{own}]`, or shifted, reversed or strided by launch constants), so \
                         that no two iterations write the same element; use an atomic \
                         (`{name}.atomic_add(k, v)`), an atomic View (`let {name} = \
                         {name}.atomic();`) or an `unsafe {{ }}` block",
                        pretty(&a.index)
                    ),
                ))),
            }
        }
        let text = |a: &Access| format!("{name}[{}]", pretty(&a.index));
        let spec = |a: &Access, c: &Vec<Coord>| (text(a), c.clone());
        for (k, (key, a, c)) in writes.iter().enumerate() {
            if key.is_empty() && !plain_only.iter().any(|(n, _)| n == name) {
                plain_only.push((name.to_string(), rank0_atomic_error(name, a)));
            }
            if launch_proves_injective(key, c) {
                overlaps.push(OverlapSpec {
                    view: name.to_string(),
                    first: spec(a, c),
                    second: None,
                });
            }
            for (_, b, d) in &writes[k + 1..] {
                overlaps.push(OverlapSpec {
                    view: name.to_string(),
                    first: spec(a, c),
                    second: Some(spec(b, d)),
                });
            }
        }
        for (a, c) in safe.iter().filter(|(a, _)| a.kind == AccessKind::Read) {
            let mine = key_of(a, c, n);
            for (key, w, d) in &writes {
                if mine.as_ref() == Some(key) {
                    continue; // the iteration's own slice
                }
                overlaps.push(OverlapSpec {
                    view: name.to_string(),
                    first: spec(w, d),
                    second: Some(spec(a, c)),
                });
            }
        }
        // The index coordinates these rules took for the iteration index must be it.
        for (a, _) in &safe {
            owners.extend(param_idents(&a.index, self.params));
        }
    }
}

/// Whether a write's map is one to one only where the launch proves it: a strided one while its
/// values do not wrap; a rank-0 View's one element (the empty key) while the launch has one
/// iteration; a coordinate of several iteration coordinates (`m · j + i`) while each coefficient
/// exceeds the span of the smaller ones.
fn launch_proves_injective(key: &affine::Key, coords: &[Coord]) -> bool {
    key.is_empty()
        || coords.iter().any(|x| matches!(x, Coord::Mixed { .. }))
        || key
            .iter()
            .any(|(_, coef, _)| coef.literal_only().is_none_or(|c| c.abs() != 1))
}

/// The error a rank-0 write `a` is if View `name` is an atomic View.
fn rank0_atomic_error(name: &str, a: &Access) -> syn::Error {
    syn::Error::new_spanned(
        &a.tokens,
        format!(
            "the kernel writes rank-0 View `{name}` at `{name}[()]`, a write the launch allows for \
             a plain View in a launch of one iteration, but `{name}` is an atomic View; update it \
             with its atomic methods (`{name}.atomic_add((), v)`, `{name}.atomic_store((), v)`)"
        ),
    )
}

/// What makes an access's map injective ([`affine::key`]); a rank-0 View's access (`s[()]`) has
/// the empty key: the one element, the same for every iteration, so that a write of it is the
/// iteration's own only in a launch of one iteration (which the launch checks).
fn key_of(a: &Access, coords: &[Coord], n_params: usize) -> Option<affine::Key> {
    match crate::analyze::strip(&a.index) {
        Expr::Tuple(t) if t.elems.is_empty() => Some(Vec::new()),
        _ => affine::key(coords, n_params),
    }
}

/// Every identifier of `index` that names an index parameter.
fn param_idents(index: &Expr, params: &[String]) -> Vec<syn::Ident> {
    fn walk(ts: TokenStream, params: &[String], out: &mut Vec<syn::Ident>) {
        for t in ts {
            match t {
                proc_macro2::TokenTree::Ident(i) if params.contains(&i.to_string()) => out.push(i),
                proc_macro2::TokenTree::Group(g) => walk(g.stream(), params, out),
                _ => {}
            }
        }
    }
    let mut out = Vec::new();
    walk(index.to_token_stream(), params, &mut out);
    out
}

fn own_index(params: &[String]) -> String {
    if params.len() == 1 {
        params[0].clone()
    } else {
        format!("({})", params.join(", "))
    }
}
