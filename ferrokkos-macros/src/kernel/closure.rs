//! `kernel!(|x: f64| -> bool { x > t })`: a device closure (a closure with a result type), which
//! kernels and the std algorithms call as `f.call(x)`. It expands to a
//! `ferrokkos::kernel::DeviceClosure` of its captured values, its host form (a Rust closure over
//! the captures and the arguments, which captures nothing itself) and its typed shadow (which
//! defines the body as a C++ device function of the captures and the arguments, as `#[device]`
//! does, and calls it).
//!
//! The body is checked as a kernel body, and further: it captures only values (numbers, `bool`s,
//! device structs, arrays: the captures' type bound), writes nothing it captured, has no
//! atomics, `unsafe`, tokens or random states, and ends with its value. So it reads only its
//! captures and arguments, and any number of iterations may call it at once.

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Expr, ExprClosure, Pat, ReturnType, Stmt};

use super::launch::field_local;
use crate::analyze::{self, Mode};
use crate::race::Role;
use crate::{fields, shadow};

/// Whether `closure` is a device closure: it writes its result type.
pub(super) fn is_device_closure(closure: &ExprClosure) -> bool {
    matches!(closure.output, ReturnType::Type(..))
}

/// The expansion of the device closure `closure`.
pub(super) fn expand(closure: &ExprClosure) -> syn::Result<TokenStream> {
    let ReturnType::Type(_, ret) = &closure.output else {
        unreachable!("checked by is_device_closure")
    };
    let (names, types) = parameters(closure)?;
    let name_strs: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let mut body = (*closure.body).clone();
    let fields = fields::flatten(&mut body, &name_strs);
    let Expr::Block(block) = &body else {
        return Err(syn::Error::new(
            closure.body.span(),
            "a device closure's body is a block ending with its value: `-> bool { x > t }`",
        ));
    };
    if !matches!(block.block.stmts.last(), Some(Stmt::Expr(_, None))) {
        return Err(syn::Error::new(
            block.span(),
            "a device closure ends with its value as its last expression",
        ));
    }
    let host_block = block.clone();
    let mut checked = body.clone();
    crate::format::normalize(&mut checked);
    let analysis = analyze::analyze(Mode::Closure, &checked, &[], &name_strs, &[]);
    check(&analysis)?;
    let Expr::Block(normalized) = &checked else {
        unreachable!("a block stays a block")
    };
    let body_shadow =
        shadow::with_constants(&analysis.constants, || shadow::body(&normalized.block, &[]));
    let k = quote!(::ferrokkos::__private);
    let cap_idents: Vec<syn::Ident> = analysis
        .captures
        .iter()
        .map(|(n, _, span)| syn::Ident::new(n, *span))
        .collect();
    let cap_names: Vec<&String> = analysis.captures.iter().map(|(n, _, _)| n).collect();
    let caps = analysis.captures.iter().map(|(name, _, span)| {
        let ident = syn::Ident::new(name, *span);
        match fields.iter().find(|f| f.name == *name) {
            Some(f) => {
                let local = field_local(&f.name);
                quote_spanned!(*span=> #k::capture::closure_value(#local))
            }
            None => quote_spanned!(*span=> #k::capture::closure_value(&#ident)),
        }
    });
    let field_locals = fields.iter().map(|f| {
        let (local, path) = (field_local(&f.name), &f.path);
        quote!(let #local = &#path;)
    });
    let checks = crate::device::type_checks(&types, Some(ret));
    let key = syn::Ident::new("__fk_key", Span::mixed_site());
    let caps_var = syn::Ident::new("__fk_caps", Span::mixed_site());
    Ok(quote!({
        #(#field_locals)*
        #(#checks)*
        let #caps_var = (#(#caps,)*);
        #[allow(unused, unused_unsafe, clippy::all)]
        // SAFETY: the host form is the closure's body over its captures and arguments, and the
        // shadow its translation by the typed shadow, after the checks of a kernel body and those of
        // a device closure (values only, nothing written outside it, no atomics or `unsafe`).
        let __fk_closure = unsafe {
            ::ferrokkos::kernel::DeviceClosure::new(
                #caps_var,
                |(#(#cap_idents,)*), (#(#names,)*): (#(#types,)*)| -> #ret #host_block,
                |#key: ::ferrokkos::kernel::ClosureKey, (#(#cap_idents,)*), (#(#names,)*)| -> #k::Expr<#ret> {
                    #k::shadow::device_call(
                        #key.type_id(),
                        "closure",
                        [#(#cap_names,)* #(#name_strs),*],
                        (#(#cap_idents,)* #(#names,)*),
                        |(#(#cap_idents,)* #(#names,)*)| #body_shadow,
                    )
                },
            )
        };
        __fk_closure
    }))
}

/// The parameters: names with their types, up to three.
fn parameters(closure: &ExprClosure) -> syn::Result<(Vec<syn::Ident>, Vec<syn::Type>)> {
    let mut names = Vec::new();
    let mut types = Vec::new();
    for p in &closure.inputs {
        match p {
            Pat::Type(t) => match &*t.pat {
                Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                    names.push(i.ident.clone());
                    types.push((*t.ty).clone());
                }
                other => {
                    return Err(syn::Error::new(
                        other.span(),
                        "a device closure's parameter is a name with its type: `x: f64`",
                    ));
                }
            },
            other => {
                return Err(syn::Error::new(
                    other.span(),
                    "a device closure's parameters are written with their types: \
                     `kernel!(|x: f64| -> bool { x > 0.0 })`",
                ));
            }
        }
    }
    if names.len() > 3 {
        return Err(syn::Error::new(
            closure.inputs.span(),
            "a device closure takes at most three parameters",
        ));
    }
    Ok((names, types))
}

/// The device closure's own rules on top of the kernel body's.
fn check(analysis: &analyze::Analysis) -> syn::Result<()> {
    let mut errors: Vec<syn::Error> = analysis.errors.clone();
    for (name, role, span) in &analysis.captures {
        if *role != Role::Read {
            errors.push(syn::Error::new(
                *span,
                format!(
                    "a device closure changes nothing outside itself, but it writes `{name}`; \
                     return the value instead"
                ),
            ));
        }
        let special = [
            (&analysis.unique_tokens, "a UniqueToken"),
            (&analysis.random_pools, "a random pool"),
            (&analysis.passed, "a View passed to a device function"),
        ];
        for (set, what) in special {
            if set.contains(name) {
                errors.push(syn::Error::new(
                    *span,
                    format!("a device closure captures only values, but `{name}` is {what}"),
                ));
            }
        }
    }
    if analysis.is_unsafe {
        errors.push(syn::Error::new(
            Span::call_site(),
            "a device closure has no `unsafe` block",
        ));
    }
    match errors.split_first() {
        None => Ok(()),
        Some((first, rest)) => {
            let mut first = first.clone();
            for e in rest {
                first.combine(e.clone());
            }
            Err(first)
        }
    }
}
