//! `#[ferrokkos::device]`: keeps the function for the host and adds its typed shadow
//! (`__fk_device_<name>`), which defines the C++ function once per translation unit and calls it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, ReturnType, Stmt};

use crate::analyze::{self, Mode};
use crate::shadow;

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(attr.span(), "#[device] takes no arguments"));
    }
    let f: ItemFn = syn::parse2(item)?;
    let sig = &f.sig;
    if !sig.generics.params.is_empty() || sig.asyncness.is_some() || sig.unsafety.is_some() {
        return Err(syn::Error::new(
            sig.span(),
            "a device function is a plain function of device values: no generics, `async` or \
             `unsafe`",
        ));
    }
    let mut names = Vec::new();
    let mut types = Vec::new();
    for arg in &sig.inputs {
        let FnArg::Typed(t) = arg else {
            return Err(syn::Error::new(
                arg.span(),
                "a device function takes no `self`",
            ));
        };
        let Pat::Ident(i) = &*t.pat else {
            return Err(syn::Error::new(
                t.pat.span(),
                "a device function's parameter is a name",
            ));
        };
        if !matches!(&*t.ty, syn::Type::Path(p) if p.qself.is_none()) {
            let ty = analyze::pretty(&t.ty);
            return Err(syn::Error::new(
                t.ty.span(),
                format!(
                    "a device function's parameters are device values (numbers, `bool`, \
                     `#[derive(DeviceValue)]` structs) passed by value, not `{ty}`"
                ),
            ));
        }
        names.push(i.ident.clone());
        types.push(t.ty.clone());
    }
    let ret = match &sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, t) => {
            let unit = matches!(&**t, syn::Type::Tuple(u) if u.elems.is_empty());
            if !unit && !matches!(&**t, syn::Type::Path(p) if p.qself.is_none()) {
                let ty = analyze::pretty(t);
                return Err(syn::Error::new(
                    t.span(),
                    format!(
                        "a device function returns a device value (a number, `bool` or \
                         `#[derive(DeviceValue)]` struct) or nothing, not `{ty}`"
                    ),
                ));
            }
            (!unit).then(|| t.clone())
        }
    };
    let body = syn::Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: (*f.block).clone(),
    });
    let name_strs: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let analysis = analyze::analyze(Mode::DeviceFn, &body, &[], &name_strs);
    if let Some(mut first) = analysis.errors.first().cloned() {
        for e in &analysis.errors[1..] {
            first.combine(e.clone());
        }
        return Err(first);
    }
    if ret.is_some() && !matches!(f.block.stmts.last(), Some(Stmt::Expr(_, None))) {
        return Err(syn::Error::new(
            f.block.span(),
            "a device function that returns a value ends with that value as its last expression",
        ));
    }
    let k = quote!(::ferrokkos::__private);
    let vis = &f.vis;
    let name = &sig.ident;
    let marker = format_ident!("__fk_device_{}", name);
    let name_str = name.to_string();
    let ret_host = match &ret {
        Some(t) => quote!(#t),
        None => quote!(()),
    };
    let ret_shadow = match &ret {
        Some(t) => quote!(#k::Expr<#t>),
        None => quote!(()),
    };
    let body_shadow = shadow::with_constants(&analysis.constants, || shadow::block(&f.block));
    // Each parameter and return type is a device value: checked at the type, so that the error
    // points at it.
    let checks = types
        .iter()
        .map(|t| &**t)
        .chain(ret.as_deref())
        .map(|t| quote::quote_spanned!(t.span()=> #k::is_device_value::<#t>();));
    let doc = format!(
        "The kernel form of the `#[ferrokkos::device]` function [`{name_str}`] (generated): kernels \
         call it through this type."
    );
    Ok(quote! {
        #f

        #[doc = #doc]
        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        #vis enum #marker {}

        #[allow(non_snake_case, unused, clippy::all)]
        impl #marker {
            /// The function, as the host body of a kernel calls it.
            #[inline(always)]
            #vis fn host(#(#names: #types),*) -> #ret_host {
                #name(#(#names),*)
            }

            /// The function's typed shadow: defines its C++ translation once per translation unit
            /// and emits the call.
            #vis fn shadow(#(#names: #k::Expr<#types>),*) -> #ret_shadow {
                #(#checks)*
                #k::shadow::device_call(
                    ::core::any::TypeId::of::<#marker>(),
                    #name_str,
                    [#(#name_strs),*],
                    (#(#names,)*),
                    |(#(#names,)*): (#(#k::Expr<#types>,)*)| #body_shadow,
                )
            }
        }

        // SAFETY: generated by `#[ferrokkos::device]` for the function above: `host` calls it and
        // `shadow` emits the C++ translation of its body (checked by the same analysis as kernels).
        unsafe impl #k::DeviceFunction for #marker {}
    })
}

/// The path of the marker type that `#[device]` generates for the function at `path`
/// (`module::helper` -> `module::__fk_device_helper`), keeping the spans of the path.
pub fn marker_path(path: &syn::Path) -> syn::Path {
    let mut path = path.clone();
    if let Some(last) = path.segments.last_mut() {
        last.ident = format_ident!("__fk_device_{}", last.ident, span = last.ident.span());
    }
    path
}
