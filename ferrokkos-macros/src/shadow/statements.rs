//! The shadow of statements: `let` of a scratch View, a tuple of names or one
//! name, and expression statements (the block's last, without `;`, gives the block's value).

use proc_macro2::{Ident, Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Pat, Stmt};

use super::{expr, known_type, s, source_marker, team};
use crate::analyze::strip;

/// One statement; `last`: the block's last, whose value (if it has no `;`) is the block's.
pub(super) fn stmt(st: &Stmt, last: bool) -> TokenStream {
    let s = s();
    match st {
        Stmt::Local(l) if team::scratch_decl(l).is_some() => scratch_let(l),
        Stmt::Local(l) => {
            let marker = source_marker(l.span());
            tuple_let(l, &marker).unwrap_or_else(|| plain_let(l, &marker))
        }

        Stmt::Expr(e, Some(_)) => {
            let marker = source_marker(e.span());
            let e = expr(e);
            quote!(#marker #s::stmt(#e);)
        }
        Stmt::Expr(e, None) if last => {
            let marker = source_marker(e.span());
            let e = expr(e);
            quote!(#marker #e)
        }
        // A block-like expression (`if`, `for`, ...) in statement position.
        Stmt::Expr(e, None) => {
            let marker = source_marker(e.span());
            let e = expr(e);
            quote!(#marker #s::stmt(#e);)
        }
        // Rejected by the analysis.
        _ => quote!(),
    }
}

/// `let v = team.team_scratch(...)` (or a thread's): a scratch View of the team kernel.
fn scratch_let(l: &syn::Local) -> TokenStream {
    let s = s();
    let marker = source_marker(l.span());
    let (name, level, per_thread, generics, extents) = team::scratch_decl(l).expect("checked");
    let text = name.to_string();
    let team = team::name().unwrap_or_default();
    let team = Ident::new(&team, Span::call_site());
    let extents = extents.iter().map(expr);
    quote!(#marker let #name = #s::team::scratch_view::<#generics>(#team, #level, #per_thread,
        #text, [#(#extents),*]);)
}

/// `let (a, b) = (x, y);`: the values first (as Rust evaluates the tuple), then the names.
fn tuple_let(l: &syn::Local, marker: &TokenStream) -> Option<TokenStream> {
    let s = s();
    if let (Pat::Tuple(p), Some(init)) = (&l.pat, &l.init)
        && let Expr::Tuple(t) = strip(&init.expr)
    {
        let names = p.elems.iter().map(|p| match p {
            Pat::Ident(i) => {
                let ident = &i.ident;
                quote!(#ident)
            }
            _ => quote!(_),
        });
        let values = p.elems.iter().zip(&t.elems).map(|(p, e)| {
            let e = expr(e);
            match p {
                Pat::Ident(i) => {
                    let (name, mutable) = (i.ident.to_string(), i.mutability.is_some());
                    quote!(#s::let_(#name, #mutable, #e))
                }
                _ => quote!(#s::let_("_", false, #e)),
            }
        });
        return Some(quote!(#marker let (#(#names,)*) = (#(#values,)*);));
    }
    None
}

/// `let x = v;`, `let x: T = v;`, `let x: T;` or `let _ = v;`.
fn plain_let(l: &syn::Local, marker: &TokenStream) -> TokenStream {
    let s = s();
    let (pat, ty) = match &l.pat {
        Pat::Type(t) => (&*t.pat, Some(&t.ty)),
        p => (p, None),
    };
    let (ident, mutable) = match pat {
        Pat::Ident(i) => (Some(i.ident.clone()), i.mutability.is_some()),
        _ => (None, false),
    };
    // `let id = token.acquire();` (a marker since `crate::unique_token`): an `fk::TokenHold`.
    if let (Some(ident), Some(init)) = (&ident, &l.init)
        && let Expr::Call(c) = strip(&init.expr)
        && crate::unique_token::marker(c) == Some(crate::unique_token::Marker::Acquire)
    {
        let token = expr(&c.args[0]);
        let name = ident.to_string();
        return quote!(#marker let #ident = #s::token_acquire(#token, #name););
    }
    // `let mut gen = pool.get_state();` (a marker since `crate::unique_token`): an `fk::RandHold`.
    if let (Some(ident), Some(init)) = (&ident, &l.init)
        && let Expr::Call(c) = strip(&init.expr)
        && crate::unique_token::marker(c) == Some(crate::unique_token::Marker::RandGet)
    {
        let pool = expr(&c.args[0]);
        let name = ident.to_string();
        return quote!(#marker let #ident = #s::rand_get_state(#pool, #name););
    }
    match (ident, &l.init) {
        (None, Some(init)) => {
            let e = expr(&init.expr);
            quote!(#marker #s::stmt(#e);)
        }
        (None, None) => quote!(),
        (Some(ident), Some(init)) => {
            let e = expr(&init.expr);
            let e = match ty {
                // The annotation gives the value's type: a mismatch is reported at the
                // value, in the user's terms.
                Some(t) if known_type(&init.expr) => {
                    quote_spanned!(init.expr.span()=> <_ as #s::SameType<#t>>::same_as(#e))
                }
                _ => e,
            };
            let name = ident.to_string();
            let ty = ty.map(|t| quote!(: ::ferrokkos::__private::Expr<#t>));
            quote!(#marker let #ident #ty = #s::let_(#name, #mutable, #e);)
        }
        (Some(ident), None) => {
            let name = ident.to_string();
            match ty {
                Some(t) => quote!(#marker let #ident = #s::let_uninit::<#t>(#name);),
                None => syn::Error::new(
                    l.span(),
                    "a kernel's `let` without a value needs a type: `let x: f64;`",
                )
                .to_compile_error(),
            }
        }
    }
}
