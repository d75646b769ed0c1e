//! A kernel's parameters: what they make it (a range, reduction, scan or team kernel), its index,
//! and the dereference of the methods called on its reference parameters.

use proc_macro2::TokenStream;
use quote::{ToTokens, quote};
use syn::spanned::Spanned;
use syn::{Expr, ExprClosure, Pat, Type};

/// What the kernel's parameters say it is.
pub(super) enum Kind {
    For,
    /// One accumulator, or several (a tuple of reducers).
    Reduce {
        accs: Vec<Pat>,
    },
    Scan {
        partial: Box<Pat>,
        flag: Box<Pat>,
    },
    /// A team kernel: its member parameter (`team: &TeamMember`, as written) and a reduction's
    /// accumulator.
    Team {
        member: Box<Pat>,
        name: syn::Ident,
        acc: Option<Box<Pat>>,
    },
}

/// Whether `p` is a team kernel's member parameter: `team: &TeamMember` (the type must be written:
/// it is what makes the kernel a team kernel).
pub(super) fn team_param(p: &Pat) -> Option<syn::Ident> {
    let Pat::Type(t) = p else { return None };
    let Type::Reference(r) = &*t.ty else {
        return None;
    };
    if r.mutability.is_some()
        || !matches!(&*r.elem, Type::Path(tp) if tp.path.segments.last().is_some_and(|s| s.ident == "TeamMember"))
    {
        return None;
    }
    match &*t.pat {
        Pat::Ident(i) if i.by_ref.is_none() && i.mutability.is_none() && i.subpat.is_none() => {
            Some(i.ident.clone())
        }
        _ => None,
    }
}

/// The iteration index parameter: its names, its pattern and its type.
pub(super) struct IndexParam {
    pub(super) names: Vec<String>,
    pub(super) pat: TokenStream,
    pub(super) ty: TokenStream,
}

pub(super) fn index_param(p: &Pat) -> syn::Result<IndexParam> {
    let (pat, ty) = match p {
        Pat::Type(t) => (&*t.pat, Some(&*t.ty)),
        p => (p, None),
    };
    match pat {
        Pat::Ident(i) if i.by_ref.is_none() && i.mutability.is_none() && i.subpat.is_none() => {
            let ty = ty.map_or_else(|| quote!(usize), |t| t.to_token_stream());
            Ok(IndexParam {
                names: vec![i.ident.to_string()],
                pat: quote!(#i),
                ty,
            })
        }
        Pat::Tuple(t) if (2..=6).contains(&t.elems.len()) => {
            let mut names = Vec::new();
            for e in &t.elems {
                match e {
                    Pat::Ident(i) if i.by_ref.is_none() && i.mutability.is_none() => {
                        names.push(i.ident.to_string())
                    }
                    other => {
                        return Err(syn::Error::new(
                            other.span(),
                            "an MDRange kernel's index is a tuple of names: `|(i, j)|`",
                        ));
                    }
                }
            }
            let ty = match ty {
                Some(t) => t.to_token_stream(),
                None => {
                    let each = names.iter().map(|_| quote!(i64));
                    quote!((#(#each,)*))
                }
            };
            Ok(IndexParam {
                names,
                pat: quote!(#t),
                ty,
            })
        }
        other => Err(syn::Error::new(
            other.span(),
            "a kernel's first parameter is its index: `i` (a range) or `(i, j, ...)` (an MDRange \
             of rank 2 to 6), optionally with a type (`i: i32`, `(i, j): (usize, usize)`)",
        )),
    }
}

/// The name of a simple parameter `p` or `p: T`.
pub(super) fn param_name(p: &Pat) -> syn::Result<syn::Ident> {
    match p {
        Pat::Type(t) => param_name(&t.pat),
        Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => Ok(i.ident.clone()),
        other => Err(syn::Error::new(
            other.span(),
            "a kernel parameter is a name: `acc`",
        )),
    }
}

pub(super) fn is_bool(p: &Pat) -> bool {
    matches!(p, Pat::Type(t) if matches!(&*t.ty, Type::Path(tp) if tp.path.is_ident("bool")))
}

/// Rewrites `p.method(..)` to `(*p).method(..)` for the reference parameters `params` (accumulators,
/// partial values): kernels call methods of their values (which Rust does not auto-dereference for
/// `&mut u32` receivers of `Ord::max`, and the shadow needs to see the dereference).
pub(super) fn deref_receivers(body: &Expr, params: &[String]) -> Expr {
    use syn::visit_mut::VisitMut;
    struct Deref<'a>(&'a [String]);
    impl VisitMut for Deref<'_> {
        fn visit_expr_method_call_mut(&mut self, m: &mut syn::ExprMethodCall) {
            syn::visit_mut::visit_expr_method_call_mut(self, m);
            if let Some(name) = crate::analyze::ident_of(&m.receiver)
                && self.0.contains(&name)
            {
                let recv = &m.receiver;
                *m.receiver = syn::parse_quote!((*#recv));
            }
        }
    }
    let mut body = body.clone();
    Deref(params).visit_expr_mut(&mut body);
    body
}

/// [`deref_receivers`] inside every closure of two or more parameters (a team kernel's nested
/// reductions and scans: their second parameter is the accumulator or partial value).
pub(super) fn deref_nested_receivers(body: &Expr) -> Expr {
    use syn::visit_mut::VisitMut;
    struct Nested;
    impl VisitMut for Nested {
        fn visit_expr_closure_mut(&mut self, c: &mut ExprClosure) {
            syn::visit_mut::visit_expr_closure_mut(self, c);
            if let Some(acc) = c.inputs.iter().nth(1).and_then(|p| param_name(p).ok()) {
                *c.body = deref_receivers(&c.body, &[acc.to_string()]);
            }
        }
    }
    let mut body = body.clone();
    Nested.visit_expr_mut(&mut body);
    body
}
