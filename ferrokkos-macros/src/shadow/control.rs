//! The shadow of control flow: `if`, `for` over a range, the labels of loops, and `match` (its
//! arms as `if` / `else` over their patterns).

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, Pat};

use super::{as_constant, block, expr, range_parts, s};

/// `if`, with or without `else` (an `else if` is an `else` of one expression).
pub(super) fn if_(i: &syn::ExprIf, span: Span) -> TokenStream {
    let s = s();
    let c = expr(&i.cond);
    let then = block(&i.then_branch);
    match &i.else_branch {
        None => quote_spanned!(span=> #s::if_(#c, || #then)),
        Some((_, els)) => {
            let els = match &**els {
                Expr::Block(b) => block(&b.block),
                other => {
                    let e = expr(other);
                    quote!({ #e })
                }
            };
            quote_spanned!(span=> #s::if_else(#c, || #then, || #els))
        }
    }
}

/// `for` over a range (`a..b`, `a..=b`, reversed or stepped).
pub(super) fn for_range(f: &syn::ExprForLoop, span: Span) -> TokenStream {
    let s = s();
    let Ok(parts) = range_parts(&f.expr) else {
        return quote!();
    };
    let (var, name) = match &*f.pat {
        Pat::Ident(i) => (quote!(#i), i.ident.to_string()),
        _ => (quote!(_), "k".to_string()),
    };
    let start = expr(parts.start);
    let end = expr(parts.end);
    let (inclusive, rev) = (parts.inclusive, parts.rev);
    let step = match parts.step {
        Some(st) => {
            let st = expr(st);
            quote!(::core::option::Option::Some(#st))
        }
        None => quote!(::core::option::Option::None),
    };
    let body = block(&f.body);
    labeled(
        &f.label,
        quote_spanned!(span=> #s::for_range(#name, #start, #end,
        #s::RangeShape { inclusive: #inclusive, rev: #rev }, #step, |#var| #body)),
    )
}

/// `break` and `continue` (to the innermost loop or a labeled one), and `return`.
pub(super) fn jump(e: &Expr, span: Span) -> TokenStream {
    let s = s();
    match e {
        Expr::Break(b) => match &b.label {
            Some(l) => {
                let name = l.ident.to_string();
                quote_spanned!(span=> #s::break_to(#name))
            }
            None => quote_spanned!(span=> #s::break_()),
        },
        Expr::Continue(c) => match &c.label {
            Some(l) => {
                let name = l.ident.to_string();
                quote_spanned!(span=> #s::continue_to(#name))
            }
            None => quote_spanned!(span=> #s::continue_()),
        },
        Expr::Return(r) => match &r.expr {
            None => quote_spanned!(span=> #s::return_unit()),
            Some(v) => {
                let v = expr(v);
                quote_spanned!(span=> #s::return_value(#v))
            }
        },
        _ => unreachable!("a jump"),
    }
}

/// `match v { arms }`: the value in a local, then `if` / `else` over the arms' conditions (a
/// pattern, then its guard with the pattern's name bound). The last arm is the final `else`: rustc
/// proved the match exhaustive for the host, so a value that reaches it matches it.
pub(super) fn match_(m: &syn::ExprMatch) -> TokenStream {
    let s = s();
    let value = syn::Ident::new("__fk_scrutinee", Span::mixed_site());
    let scrutinee = expr(&m.expr);
    let mut chain: Option<TokenStream> = None;
    for arm in m.arms.iter().rev() {
        let binding = match binding_of(&arm.pat) {
            Some(name) => quote!(let #name = #value;),
            None => quote!(),
        };
        let body = expr(&arm.body);
        let then = quote!({ #binding #body });
        chain = Some(match chain {
            None => then,
            Some(rest) => {
                let mut cond = pattern_cond(&arm.pat, &value);
                if let Some((_, guard)) = &arm.guard {
                    let guard = expr(guard);
                    cond = quote!(#s::and(#cond, || { #binding #guard }));
                }
                quote!(#s::if_else(#cond, || #then, || #rest))
            }
        });
    }
    let span = m.span();
    quote_spanned!(span=> {
        let #value = #s::let_("scrutinee", false, #scrutinee);
        #chain
    })
}

/// Whether `path` names an enum variant (`Species::Ion`).
pub(super) fn is_variant(path: &syn::Path) -> bool {
    let segs: Vec<String> = path.segments.iter().map(|s| s.ident.to_string()).collect();
    crate::subset::is_variant_path(&segs)
}

/// The name a `match` pattern binds (`n`, `n @ 1..=5`), if any.
fn binding_of(p: &Pat) -> Option<&syn::Ident> {
    match p {
        Pat::Ident(i)
            if !i
                .ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase()) =>
        {
            Some(&i.ident)
        }
        Pat::Paren(p) => binding_of(&p.pat),
        _ => None,
    }
}

/// The condition under which `value` matches the pattern `p`.
fn pattern_cond(p: &Pat, value: &syn::Ident) -> TokenStream {
    let s = s();
    match p {
        Pat::Lit(l) => quote!(#s::eq(#value, #s::lit(#l))),
        Pat::Range(r) => {
            let lo = r.start.as_ref().map(|b| {
                let b = expr(b);
                quote!(#s::ge(#value, #b))
            });
            let hi = r.end.as_ref().map(|b| {
                let b = expr(b);
                match r.limits {
                    syn::RangeLimits::Closed(_) => quote!(#s::le(#value, #b)),
                    syn::RangeLimits::HalfOpen(_) => quote!(#s::lt(#value, #b)),
                }
            });
            match (lo, hi) {
                (Some(a), Some(b)) => quote!(#s::and(#a, || #b)),
                (Some(c), None) | (None, Some(c)) => c,
                (None, None) => quote!(#s::lit(true)),
            }
        }
        Pat::Or(o) => {
            let mut cases = o.cases.iter().map(|c| pattern_cond(c, value));
            let first = cases.next().unwrap_or_else(|| quote!(#s::lit(false)));
            cases.fold(first, |acc, c| quote!(#s::or(#acc, || #c)))
        }
        Pat::Paren(p) => pattern_cond(&p.pat, value),
        Pat::Ident(i) => match &i.subpat {
            Some((_, sub)) => pattern_cond(sub, value),
            None if i
                .ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase()) =>
            {
                let c = &i.ident;
                let c = as_constant(&quote!(#c));
                quote!(#s::eq(#value, #s::lit(#c)))
            }
            None => quote!(#s::lit(true)),
        },
        Pat::Path(p) if is_variant(&p.path) => quote!(#s::eq(#value, #s::variant(#p))),
        Pat::Path(p) => {
            let c = as_constant(&quote!(#p));
            quote!(#s::eq(#value, #s::lit(#c)))
        }
        // `_`, and what the analysis rejected.
        _ => quote!(#s::lit(true)),
    }
}

/// A loop's shadow, marked with its label if it has one (`'outer: for ...`).
pub(super) fn labeled(label: &Option<syn::Label>, the_loop: TokenStream) -> TokenStream {
    let s = s();
    match label {
        Some(l) => {
            let name = l.name.ident.to_string();
            quote!(#s::labeled(#name, || #the_loop))
        }
        None => the_loop,
    }
}
