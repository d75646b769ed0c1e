//! The shadow of calls: built-in methods, the methods and associated functions of `#[device]
//! impl` blocks (through the proof that `#[device]` generated their shadows), num-complex's
//! functions, tuple struct constructors and `#[device]` functions.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote, quote_spanned};
use syn::Expr;
use syn::spanned::Spanned;

use super::operators::left_name;
use super::{checked_args, expr, index, member_text, s};

/// A method call: of a built-in method (a number's, an atomic) or of a `#[device] impl` block.
pub(super) fn method_call(m: &syn::ExprMethodCall, span: Span) -> TokenStream {
    let recv = expr(&m.receiver);
    let method = &m.method;
    let name = method.to_string();
    let builtin = crate::subset::METHODS.contains(&name.as_str())
        || crate::subset::atomic_arity(&name).is_some();
    if !builtin {
        return device_method(m, recv, span);
    }
    // A built-in name may also be a `#[device] impl` method of the receiver's type: its trait is
    // in scope for the call, and rustc takes it where the receiver has no built-in of that name.
    let named = crate::subset::builtin_named(&name)
        .map(|(t, _)| quote!(use ::ferrokkos::__private::shadow::builtin_named::#t as _;));
    let args: Vec<TokenStream> = if crate::subset::atomic_arity(&name).is_some() {
        // The index, the operands, and for an `_ord` form the memory order and scope: constant
        // paths (checked by the analysis) that the shadow takes as they are.
        let ordered = if name.ends_with("_ord") { 2 } else { 0 };
        let operands = m.args.len().saturating_sub(1 + ordered);
        let mut args = m.args.iter();
        let first = args.next().map(index);
        let operands = args.by_ref().take(operands).map(expr).collect::<Vec<_>>();
        let orders = args.map(|a| quote!(#a));
        first.into_iter().chain(operands).chain(orders).collect()
    } else if SELF_TYPED_METHODS.contains(&name.as_str()) {
        // `x.min(y)`: `y` is checked to have `x`'s type where the user wrote it, if `x` is a
        // number (`Expr::__fk_same`); a user's type's method of that name checks its own.
        let left = left_name();
        let args = m.args.iter().map(|a| {
            let r = expr(a);
            if super::known_type(a) {
                quote_spanned!(a.span()=> #left.__fk_same(#r))
            } else {
                r
            }
        });
        return quote_spanned!(span=> {
            #named
            use ::ferrokkos::__private::shadow::builtin_named::__FkAnyArg as _;
            let #left = #recv;
            #left.#method(#(#args),*)
        });
    } else {
        m.args.iter().map(expr).collect()
    };
    match named {
        Some(named) => quote_spanned!(span=> { #named #recv.#method(#(#args),*) }),
        None => quote_spanned!(span=> #recv.#method(#(#args),*)),
    }
}

/// A `#[device] impl` method on the receiver's shadow `recv`: its shadow `__fk_<name>` on the
/// receiver's type (checked; `__fkt_<name>` when an argument's type may be open).
fn device_method(m: &syn::ExprMethodCall, recv: TokenStream, span: Span) -> TokenStream {
    let s = s();
    let method = &m.method;
    let name = method.to_string();
    let shadow_method = if checked_args(&m.args) {
        format_ident!("__fk_{}", method, span = method.span())
    } else {
        format_ident!("__fkt_{}", method, span = method.span())
    };
    let args = m.args.iter().map(expr);
    // Through the proof that `#[device]` generated that shadow (`DeviceMethod`).
    let key = crate::device_impl::method_key(&name);
    let r = Ident::new("__fk_recv", Span::mixed_site());
    // The receiver's value under a name with the method's span, so that a missing
    // proof is reported at the method's name.
    let v = Ident::new(
        "__fk_receiver",
        method.span().resolved_at(Span::mixed_site()),
    );
    let call = quote_spanned!(method.span()=> #s::device_method::<_, _, #key>);
    quote_spanned!(span=> {
        let #v = #recv;
        #call(#v, |#r| #r.#shadow_method(#(#args),*))
    })
}

/// A call: of num-complex's functions, an associated function, a tuple struct's constructor or a
/// `#[device]` function.
pub(super) fn call(c: &syn::ExprCall, span: Span) -> TokenStream {
    let s = s();
    let Expr::Path(p) = &*c.func else {
        return quote!();
    };
    if let Some(f) = crate::analyze::complex_function(&p.path) {
        let f = format_ident!("{f}", span = p.span());
        let args = c.args.iter().map(expr);
        return quote_spanned!(span=> #s::#f(#(#args),*));
    }
    if crate::analyze::is_associated_call(&p.path) {
        return associated_call(c, p, span);
    }
    if crate::analyze::is_constructor(&p.path) {
        let members = (0..c.args.len()).map(syn::Index::from);
        return construct(&p.path, members.collect(), c.args.iter().collect(), span);
    }
    let marker = crate::device::marker_path(&p.path);
    // Arguments of known types go to the checked shadow (a mismatch is reported at the
    // argument); one whose type may be open takes its parameter's from the unchecked one.
    let f = if checked_args(&c.args) {
        format_ident!("shadow", span = p.span())
    } else {
        format_ident!("shadow_typed", span = p.span())
    };
    let arg_refs: Vec<&Expr> = c.args.iter().collect();
    let args: Vec<TokenStream> = match super::proven_call(&marker, &arg_refs) {
        // A device-proven call: each captured View it passes goes as `proven_view(u, proves)`,
        // which the function reads unchecked where `proves` holds and the launch proved the
        // composed maps (the expansion adds them to the device bounds with the same `proves`).
        Some(record) => {
            let k = quote!(::ferrokkos::__private);
            let known = record.known();
            let is_view: Vec<bool> = record.views.iter().map(Option::is_some).collect();
            let proves = quote!(#k::proves(
                <#marker as #k::DeviceFunction>::ACCESSES,
                &[#(#known),*],
                &[#(#is_view),*],
            ));
            c.args
                .iter()
                .zip(&record.views)
                .map(|(a, v)| match v {
                    Some(_) => {
                        let a = expr(a);
                        quote_spanned!(span=> #s::proven_view(#a, #proves))
                    }
                    None => expr(a),
                })
                .collect()
        }
        None => c.args.iter().map(expr).collect(),
    };
    quote_spanned!(span=> #marker::#f(#(#args),*))
}

/// An associated function of a `#[device] impl` block (`Vec2::new(x, y)`): its shadow
/// `Type::__fk_<name>` (`__fkt_<name>` when an argument's type may be open).
fn associated_call(c: &syn::ExprCall, p: &syn::ExprPath, span: Span) -> TokenStream {
    let s = s();
    let mut path = p.path.clone();
    let prefix = if checked_args(&c.args) {
        "__fk_"
    } else {
        "__fkt_"
    };
    let mut ty = p.path.clone();
    ty.segments.pop();
    let ty_segments = ty.segments.pairs().map(|p| p.into_value());
    let ty = quote!(#(#ty_segments)::*);
    let ty = match p.path.leading_colon {
        Some(_) => quote!(::#ty),
        None => ty,
    };
    let mut key = quote!(());
    if let Some(last) = path.segments.last_mut() {
        key = crate::device_impl::method_key(&last.ident.to_string());
        last.ident = format_ident!("{prefix}{}", last.ident, span = last.ident.span());
    }
    let args = c.args.iter().map(expr);
    // Through the proof that `#[device]` generated that shadow (`DeviceMethod`).
    let check = quote_spanned!(span=> #s::device_assoc::<#ty, #key>);
    quote_spanned!(span=> { #check(); #path(#(#args),*) })
}

/// A struct value `path { members: values }` (a tuple struct's members are `0`, `1`, ...): the
/// values in the order written, then the literal over them (never run) for rustc's check of the
/// fields and their types.
pub(super) fn construct(
    path: &syn::Path,
    members: Vec<impl Into<syn::Member>>,
    values: Vec<&Expr>,
    span: Span,
) -> TokenStream {
    let s = s();
    let members: Vec<syn::Member> = members.into_iter().map(Into::into).collect();
    let temps: Vec<syn::Ident> = (0..values.len())
        .map(|k| syn::Ident::new(&format!("__fk_field{k}"), Span::mixed_site()))
        .collect();
    let values = values.into_iter().map(expr);
    let names = members.iter().map(member_text);
    quote_spanned!(span=> {
        #(let #temps = #values;)*
        #s::construct(
            || #path { #(#members: #s::checked(#temps)),* },
            &[#((#names, #s::field_value(#temps))),*],
        )
    })
}

/// The built-in methods whose parameters all have the receiver's type (`x.min(y)`,
/// `x.mul_add(a, b)`).
const SELF_TYPED_METHODS: &[&str] = &[
    "min",
    "max",
    "powf",
    "atan2",
    "hypot",
    "mul_add",
    "clamp",
    "wrapping_add",
    "wrapping_sub",
    "wrapping_mul",
    "rem_euclid",
];
