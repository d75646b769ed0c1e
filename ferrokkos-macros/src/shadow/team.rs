//! The typed shadow of team kernels' constructs (see `analyze/team/`, which accepted them): the
//! team member's methods, nested ranges' patterns, `single` and scratch View declarations, as calls
//! of `ferrokkos::kernel::shadow::team`.

use std::collections::HashSet;

use proc_macro2::{Ident, Span, TokenStream};
use quote::{ToTokens, format_ident, quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Lit, Pat};

use super::{block, expr, s, with_constants};
use crate::analyze::{ident_of, strip};

thread_local! {
    /// The team member parameter of the team kernel being translated, set by [`with_team`].
    static TEAM: std::cell::RefCell<Option<String>> = const { std::cell::RefCell::new(None) };
}

/// Runs `f` (a kernel's translation) with `team` as its team member parameter (team kernels) and
/// `constants` as the names to write as literals.
pub fn with_team<R>(team: Option<String>, constants: &HashSet<String>, f: impl FnOnce() -> R) -> R {
    TEAM.with(|t| *t.borrow_mut() = team);
    let r = with_constants(constants, f);
    TEAM.with(|t| *t.borrow_mut() = None);
    r
}

fn is_team(e: &Expr) -> bool {
    ident_of(e).is_some_and(|n| TEAM.with(|t| t.borrow().as_deref() == Some(n.as_str())))
}

/// The shadow of a team construct (see `analyze/team.rs`, which accepted it): a nested range's
/// pattern, `single`, or a call of the team member's methods.
pub fn construct(e: &Expr) -> Option<TokenStream> {
    if TEAM.with(|t| t.borrow().is_none()) {
        return None;
    }
    let span = e.span();
    match e {
        Expr::MethodCall(m) if is_team(&m.receiver) => {
            let (recv, method) = (&m.receiver, &m.method);
            let args = m.args.iter().map(expr);
            Some(quote_spanned!(span=> #recv.#method(#(#args),*)))
        }
        Expr::MethodCall(m) => nested_range(m, span),
        Expr::Call(c) => single(c, span),
        _ => None,
    }
}

/// A nested range's pattern (`TeamThreadRange::new(team, b, e).parallel_for(|i| ..)`, also
/// `parallel_reduce` and `parallel_scan`, and a `TeamThreadMDRange`'s).
fn nested_range(m: &syn::ExprMethodCall, span: Span) -> Option<TokenStream> {
    let s = s();
    let pattern = m.method.to_string();
    let f = match pattern.as_str() {
        "parallel_for" => "range_for",
        "parallel_reduce" => "range_reduce",
        "parallel_scan" => "range_scan",
        _ => return None,
    };
    let Expr::Call(c) = strip(&m.receiver) else {
        return None;
    };
    let Expr::Path(p) = &*c.func else { return None };
    let segs: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    let kind = match segs.as_slice() {
        [.., ty, new] if new == "new" => match ty.as_str() {
            "TeamThreadRange" => quote!(TeamThread),
            "ThreadVectorRange" => quote!(ThreadVector),
            "TeamVectorRange" => quote!(TeamVector),
            "TeamThreadMDRange" => quote!(TeamThread),
            _ => return None,
        },
        _ => return None,
    };
    let Expr::Closure(closure) = strip(m.args.first()?) else {
        return None;
    };
    if segs
        .iter()
        .rev()
        .nth(1)
        .is_some_and(|t| t == "TeamThreadMDRange")
    {
        return md_range(m, c, closure);
    }
    let team = &c.args[0];
    let (begin, end) = (expr(&c.args[1]), expr(&c.args[2]));
    let name = closure
        .inputs
        .first()
        .and_then(param_ident)
        .map_or_else(|| "i".to_string(), |i| i.to_string());
    let params = closure
        .inputs
        .iter()
        .enumerate()
        .map(|(k, p)| range_param(k, p));
    let body = match &*closure.body {
        Expr::Block(b) => block(&b.block),
        other => {
            let e = expr(other);
            quote!({ #s::stmt(#e); })
        }
    };
    let f = format_ident!("{f}");
    let reducer = m.args.iter().nth(1).map(|r| quote!(, #r));
    Some(
        quote_spanned!(span=> #s::team::#f(#s::team::RangeKind::#kind, #team, #name,
        #begin, #end, |#(#params),*| #body #reducer)),
    )
}

/// Parameter `k` of a nested range's closure, with its annotated type as a shadow type (the
/// accumulator's or partial value's `&mut T` as `Mut<T>`).
fn range_param(k: usize, p: &Pat) -> TokenStream {
    let s = s();
    let ident = param_ident(p)
        .cloned()
        .unwrap_or_else(|| format_ident!("_"));
    match (k, p) {
        (1, Pat::Type(t)) => match &*t.ty {
            syn::Type::Reference(r) => {
                let inner = &r.elem;
                quote!(#ident: ::ferrokkos::__private::Expr<#s::Mut<#inner>>)
            }
            other => quote!(#ident: ::ferrokkos::__private::Expr<#other>),
        },
        (_, Pat::Type(t)) => {
            let ty = &t.ty;
            quote!(#ident: ::ferrokkos::__private::Expr<#ty>)
        }
        _ => quote!(#ident),
    }
}

/// `single(PerTeam(team), || ..)` or `single(PerThread(team), || ..)`.
fn single(c: &syn::ExprCall, span: Span) -> Option<TokenStream> {
    let s = s();
    let Expr::Path(p) = &*c.func else { return None };
    if p.path.segments.last().is_none_or(|s| s.ident != "single") || c.args.len() != 2 {
        return None;
    }
    let Expr::Call(scope) = strip(&c.args[0]) else {
        return None;
    };
    let Expr::Path(sp) = &*scope.func else {
        return None;
    };
    let f = if sp.path.is_ident("PerTeam") {
        quote!(single_team)
    } else {
        quote!(single_thread)
    };
    let team = &scope.args[0];
    let Expr::Closure(closure) = strip(&c.args[1]) else {
        return None;
    };
    let body = match &*closure.body {
        Expr::Block(b) => block(&b.block),
        other => expr(other),
    };
    Some(quote_spanned!(span=> #s::team::#f(#team, || #body)))
}

/// A team body's scratch View declaration (`let tile = team.team_scratch(0).view::<f64, 2>([n,
/// n]);`, which the analysis accepted): the name, the level, whether it is a thread's, the
/// generic arguments and the extents.
#[allow(clippy::type_complexity)]
pub fn scratch_decl(l: &syn::Local) -> Option<(Ident, usize, bool, TokenStream, Vec<Expr>)> {
    TEAM.with(|t| t.borrow().is_some()).then_some(())?;
    let Pat::Ident(name) = &l.pat else {
        return None;
    };
    let Expr::MethodCall(view) = strip(&l.init.as_ref()?.expr) else {
        return None;
    };
    let Expr::MethodCall(part) = strip(&view.receiver) else {
        return None;
    };
    if view.method != "view" || !is_team(&part.receiver) {
        return None;
    }
    let per_thread = match part.method.to_string().as_str() {
        "team_scratch" => false,
        "thread_scratch" => true,
        _ => return None,
    };
    let level = match part.args.first().map(strip) {
        Some(Expr::Lit(syn::ExprLit {
            lit: Lit::Int(i), ..
        })) => i.base10_parse().ok()?,
        _ => return None,
    };
    let generics = view.turbofish.as_ref()?.args.to_token_stream();
    let Some(Expr::Array(a)) = view.args.first().map(strip) else {
        return None;
    };
    Some((
        name.ident.clone(),
        level,
        per_thread,
        generics,
        a.elems.iter().cloned().collect(),
    ))
}

/// The name of a closure parameter `x` or `x: T`.
fn param_ident(p: &Pat) -> Option<&Ident> {
    match p {
        Pat::Ident(i) => Some(&i.ident),
        Pat::Type(t) => param_ident(&t.pat),
        _ => None,
    }
}

/// The team member parameter's name, in a team kernel's translation.
pub fn name() -> Option<String> {
    TEAM.with(|t| t.borrow().clone())
}

/// `TeamThreadMDRange::new(team, [e0, e1]).parallel_for(|(i, j)| ..)` (or `parallel_reduce`).
fn md_range(
    m: &syn::ExprMethodCall,
    ctor: &syn::ExprCall,
    closure: &syn::ExprClosure,
) -> Option<TokenStream> {
    let s = s();
    let span = m.span();
    let team = &ctor.args[0];
    let Expr::Array(extents) = strip(&ctor.args[1]) else {
        return None;
    };
    let rank = extents.elems.len();
    let idents = match closure.inputs.first()? {
        Pat::Tuple(t) => t
            .elems
            .iter()
            .map(param_ident)
            .collect::<Option<Vec<_>>>()?,
        Pat::Type(t) => match &*t.pat {
            Pat::Tuple(t) => t
                .elems
                .iter()
                .map(param_ident)
                .collect::<Option<Vec<_>>>()?,
            _ => return None,
        },
        _ => return None,
    };
    let names: Vec<String> = idents.iter().map(|i| i.to_string()).collect();
    let exts = extents.elems.iter().map(expr);
    let acc = closure.inputs.iter().nth(1).map(|p| {
        let ident = param_ident(p)
            .cloned()
            .unwrap_or_else(|| format_ident!("_"));
        match p {
            Pat::Type(t) => match &*t.ty {
                syn::Type::Reference(r) => {
                    let inner = &r.elem;
                    quote!(, #ident: ::ferrokkos::__private::Expr<#s::Mut<#inner>>)
                }
                other => quote!(, #ident: ::ferrokkos::__private::Expr<#other>),
            },
            _ => quote!(, #ident),
        }
    });
    let body = match &*closure.body {
        Expr::Block(b) => block(&b.block),
        other => {
            let e = expr(other);
            quote!({ #s::stmt(#e); })
        }
    };
    let reduce = m.method == "parallel_reduce";
    let f = format_ident!(
        "{}{rank}",
        if reduce {
            "md_range_reduce"
        } else {
            "md_range_for"
        }
    );
    let reducer = m.args.iter().nth(1).map(|r| quote!(, #r));
    Some(
        quote_spanned!(span=> #s::team::#f(#team, [#(#names),*], [#(#exts),*],
        |(#(#idents,)*) #acc| #body #reducer)),
    )
}
