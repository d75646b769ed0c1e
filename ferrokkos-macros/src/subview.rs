//! Subviews in a kernel body: `let row = subview(&a, (j, ALL));` or `a.subview((j, ALL))` (Kokkos'
//! `auto row = Kokkos::subview(A, j, Kokkos::ALL)`), with or without the host's `?`. A subview names
//! part of a captured View; every use of it becomes an access of the View itself, so the race
//! rules, the host body and the shadow see the View (a row of `a` at `j`, written at `i`, is `a`
//! written at `(j, i)`), and bounds are checked against the View.
//!
//! Each argument is `ALL` (or `..`): a dimension the subview keeps; a range `lo..hi` (Kokkos'
//! `make_pair(lo, hi)`; `lo..` to the end, `..hi` from 0): a dimension it keeps in part; or an
//! index: a dimension it fixes. An index and a range's ends are written into every access, so they
//! must mean the same value at every use: arithmetic of names that the body binds at most once and
//! never mutably (the iteration index, immutable locals, captures and constants). A subview is
//! indexed (`row[i]`, `row[()]` when it keeps no dimension), asked its extents (`row.extent(0)`, a
//! literal dimension) or updated atomically (`row.atomic_add(i, v)`); anything else is an error
//! that says so. A range's coordinate is the View's `lo + i`, checked (see
//! [`crate::subview_range`]).

use proc_macro2::Span;
use quote::quote_spanned;
use syn::spanned::Spanned;
use syn::{Expr, ExprMethodCall};

/// A subview of a captured View: the View's path and, per dimension, what it keeps of it.
#[derive(Clone)]
pub struct Subview {
    pub base: Expr,
    pub args: Vec<Arg>,
}

/// What a subview keeps of one dimension of its View.
#[derive(Clone)]
pub enum Arg {
    /// The whole dimension (`ALL`).
    All,
    /// One index (the dimension is fixed).
    Fixed(Expr),
    /// The range `lo..hi` (`hi`: `None` for the dimension's end).
    Range(Expr, Option<Expr>),
}

/// `init` without the host spelling's `?` or `.unwrap()`.
fn strip_result(init: &Expr) -> &Expr {
    match init {
        Expr::Try(t) => strip_result(&t.expr),
        Expr::MethodCall(m) if m.method == "unwrap" && m.args.is_empty() => {
            strip_result(&m.receiver)
        }
        Expr::Paren(p) => strip_result(&p.expr),
        e => e,
    }
}

/// `Some` when `init` is a subview (`subview(&v, args)` or `v.subview(args)`): the View's path and
/// the arguments, or why they cannot be a kernel's subview. `stable` says whether an index
/// expression means the same value wherever it is used.
pub fn parse(init: &Expr, stable: &dyn Fn(&Expr) -> bool) -> Option<syn::Result<Subview>> {
    let (view, args) = match strip_result(init) {
        Expr::Call(c)
            if c.args.len() == 2
                && matches!(&*c.func, Expr::Path(p)
                    if p.path.segments.last().is_some_and(|s| s.ident == "subview")) =>
        {
            let view = match &c.args[0] {
                Expr::Reference(r) if r.mutability.is_none() => &*r.expr,
                e => e,
            };
            (view, &c.args[1])
        }
        Expr::MethodCall(m) if m.method == "subview" && m.args.len() == 1 => {
            (&*m.receiver, &m.args[0])
        }
        _ => return None,
    };
    Some(subview_of(view, args, stable))
}

fn subview_of(view: &Expr, args: &Expr, stable: &dyn Fn(&Expr) -> bool) -> syn::Result<Subview> {
    if !is_path(view) {
        return Err(syn::Error::new(
            view.span(),
            "a subview in a kernel is of a captured View (a name or a field path: `subview(&a, \
             (j, ALL))`)",
        ));
    }
    let elems: Vec<&Expr> = match args {
        Expr::Tuple(t) => t.elems.iter().collect(),
        e => vec![e],
    };
    let args = elems
        .into_iter()
        .map(|a| argument(a, stable))
        .collect::<syn::Result<_>>()?;
    Ok(Subview {
        base: view.clone(),
        args,
    })
}

/// One argument.
fn argument(a: &Expr, stable: &dyn Fn(&Expr) -> bool) -> syn::Result<Arg> {
    match a {
        Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "ALL") => Ok(Arg::All),
        Expr::Range(r) if r.start.is_none() && r.end.is_none() => Ok(Arg::All),
        Expr::Range(r) if matches!(r.limits, syn::RangeLimits::Closed(_)) => Err(syn::Error::new(
            r.span(),
            "a subview's range in a kernel excludes its end, as Kokkos' `make_pair(lo, hi)` does: \
             write `lo..hi + 1`",
        )),
        Expr::Range(r) => {
            let lo = match &r.start {
                Some(lo) => value(lo, stable)?,
                None => syn::parse_quote_spanned!(r.span()=> 0usize),
            };
            let hi = r.end.as_deref().map(|e| value(e, stable)).transpose()?;
            Ok(Arg::Range(lo, hi))
        }
        e => Ok(Arg::Fixed(value(e, stable)?)),
    }
}

/// An index or a range's end: `e` if it means the same value wherever the subview is used.
fn value(e: &Expr, stable: &dyn Fn(&Expr) -> bool) -> syn::Result<Expr> {
    if pure(e) && stable(e) {
        return Ok(e.clone());
    }
    Err(syn::Error::new(
        e.span(),
        "a subview's index or range in a kernel must mean the same value wherever the subview is \
         used: arithmetic of the iteration index, captures, constants and locals bound once and \
         never `mut`",
    ))
}

fn is_path(e: &Expr) -> bool {
    match e {
        Expr::Field(f) => is_path(&f.base),
        Expr::Path(p) => p.qself.is_none() && p.path.get_ident().is_some(),
        _ => false,
    }
}

/// Names, literals, fields, casts and arithmetic: an expression that reads no memory and changes
/// nothing, so evaluating it at each use gives what evaluating it once would.
fn pure(e: &Expr) -> bool {
    match e {
        Expr::Lit(_) | Expr::Path(_) => true,
        Expr::Field(f) => pure(&f.base),
        Expr::Paren(p) => pure(&p.expr),
        Expr::Cast(c) => pure(&c.expr),
        Expr::Unary(u) => !matches!(u.op, syn::UnOp::Deref(_)) && pure(&u.expr),
        Expr::Binary(b) => !is_assign(&b.op) && pure(&b.left) && pure(&b.right),
        _ => false,
    }
}

fn is_assign(op: &syn::BinOp) -> bool {
    use syn::BinOp::*;
    matches!(
        op,
        AddAssign(_)
            | SubAssign(_)
            | MulAssign(_)
            | DivAssign(_)
            | RemAssign(_)
            | BitXorAssign(_)
            | BitAndAssign(_)
            | BitOrAssign(_)
            | ShlAssign(_)
            | ShrAssign(_)
    )
}

impl Subview {
    fn kept(&self) -> usize {
        self.args
            .iter()
            .filter(|a| !matches!(a, Arg::Fixed(_)))
            .count()
    }

    /// The range `lo..hi` of dimension `dim` of the View at `base`, with its end and the
    /// dimension's extent as expressions.
    fn range(&self, base: &Expr, dim: usize, span: Span) -> Option<(Expr, Expr, Expr)> {
        let Arg::Range(lo, hi) = &self.args[dim] else {
            return None;
        };
        let extent: Expr = syn::parse2(quote_spanned!(span=> #base.extent(#dim))).expect("a call");
        let hi = hi.clone().unwrap_or_else(|| extent.clone());
        Some((lo.clone(), hi, extent))
    }

    /// The View's index for the subview's `index` (its coordinates fill the kept dimensions; one
    /// in a range is offset by its start, checked).
    fn full_index(&self, base: &Expr, index: &Expr, span: Span) -> syn::Result<Expr> {
        let coords: Vec<Expr> = match index {
            Expr::Tuple(t) => t.elems.iter().cloned().collect(),
            e => vec![e.clone()],
        };
        if coords.len() != self.kept() {
            return Err(syn::Error::new(
                index.span(),
                format!(
                    "this subview keeps {} dimension(s) of its View, so it is indexed with {}",
                    self.kept(),
                    match self.kept() {
                        0 => "`()`".to_string(),
                        1 => "one integer".to_string(),
                        n => format!("a tuple of {n} integers"),
                    }
                ),
            ));
        }
        let mut coords = coords.into_iter();
        let full: Vec<Expr> = (0..self.args.len())
            .map(|d| match (&self.args[d], self.range(base, d, span)) {
                (Arg::Fixed(e), _) => e.clone(),
                (_, Some((lo, hi, extent))) => {
                    let i = coords.next().expect("as many as kept");
                    crate::subview_range::coordinate(&i, &lo, &hi, &extent, span)
                }
                _ => coords.next().expect("as many as kept"),
            })
            .collect();
        Ok(match full.as_slice() {
            [one] => one.clone(),
            all => syn::parse2(quote_spanned!(span=> (#(#all),*))).expect("a tuple"),
        })
    }

    /// `row[index]` as an access of the View.
    pub fn index(&self, base: Expr, index: &Expr, span: Span) -> syn::Result<Expr> {
        let full = self.full_index(&base, index, span)?;
        Ok(syn::parse2(quote_spanned!(span=> #base[#full])).expect("an index"))
    }

    /// `row.extent(k)`, `row.atomic_*(index, ..)` as calls on the View.
    pub fn method(&self, base: Expr, m: &ExprMethodCall) -> syn::Result<Expr> {
        let span = m.span();
        let name = m.method.to_string();
        let mut args: Vec<Expr> = m.args.iter().cloned().collect();
        if name == "extent" && args.len() == 1 {
            let kept: Vec<usize> = (0..self.args.len())
                .filter(|d| !matches!(self.args[*d], Arg::Fixed(_)))
                .collect();
            let dim = match &args[0] {
                Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Int(i),
                    ..
                }) => i
                    .base10_parse::<usize>()
                    .ok()
                    .and_then(|k| kept.get(k).copied()),
                _ => None,
            };
            let Some(dim) = dim else {
                return Err(syn::Error::new(
                    args[0].span(),
                    format!(
                        "a subview's extent in a kernel is asked with a literal dimension below \
                         {} (`row.extent(0)`)",
                        kept.len()
                    ),
                ));
            };
            if let Some((lo, hi, extent)) = self.range(&base, dim, span) {
                return Ok(crate::subview_range::extent(&lo, &hi, &extent, span));
            }
            return Ok(syn::parse2(quote_spanned!(span=> #base.extent(#dim))).expect("a call"));
        }
        if name.starts_with("atomic_") && !args.is_empty() {
            args[0] = self.full_index(&base, &args[0], span)?;
            let method = &m.method;
            return Ok(
                syn::parse2(quote_spanned!(span=> #base.#method(#(#args),*))).expect("a call"),
            );
        }
        Err(misuse(span))
    }
}

/// The error for a use of a subview other than the supported ones.
pub fn misuse(span: Span) -> syn::Error {
    syn::Error::new(
        span,
        "a subview in a kernel is indexed (`row[i]`), asked its extent (`row.extent(0)`) or \
         updated atomically (`row.atomic_add(i, v)`); pass the View itself to a function",
    )
}
