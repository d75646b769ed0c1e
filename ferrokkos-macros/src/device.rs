//! `#[ferrokkos::device]`: keeps the function for the host and adds its typed shadow
//! (`__fk_device_<name>`), which defines the C++ function once per translation unit and calls it.

use proc_macro2::TokenStream;
use quote::{ToTokens, format_ident, quote};
use syn::spanned::Spanned;
use syn::{FnArg, ItemFn, Pat, ReturnType, Stmt};

use crate::analyze::{self, Mode};
use crate::shadow;
use crate::subset::PRIMITIVES;

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(attr.span(), "#[device] takes no arguments"));
    }
    let f: ItemFn = syn::parse2(item)?;
    let sig = &f.sig;
    if !sig.generics.params.is_empty() || sig.asyncness.is_some() || sig.unsafety.is_some() {
        return Err(syn::Error::new(
            sig.span(),
            "a device function is a plain function of numbers: no generics, `async` or `unsafe`",
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
        let ty = t.ty.to_token_stream().to_string();
        if !PRIMITIVES.contains(&ty.as_str()) {
            return Err(syn::Error::new(
                t.ty.span(),
                format!(
                    "a device function's parameters are primitive numbers or `bool`, not `{ty}`"
                ),
            ));
        }
        names.push(i.ident.clone());
        types.push(t.ty.clone());
    }
    let ret = match &sig.output {
        ReturnType::Default => None,
        ReturnType::Type(_, t) => {
            let ty = t.to_token_stream().to_string();
            if ty != "()" && !PRIMITIVES.contains(&ty.as_str()) {
                return Err(syn::Error::new(
                    t.span(),
                    format!(
                        "a device function returns a primitive number, `bool` or nothing, not `{ty}`"
                    ),
                ));
            }
            (ty != "()").then(|| t.clone())
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
    let k = quote!(::ferrokkos::kernel);
    let vis = &f.vis;
    let name = &sig.ident;
    let shadow_name = format_ident!("__fk_device_{}", name);
    let name_str = name.to_string();
    let ret_shadow = match &ret {
        Some(t) => quote!(#k::Expr<#t>),
        None => quote!(()),
    };
    let body_shadow = shadow::with_constants(&analysis.constants, || shadow::block(&f.block));
    let idx: Vec<usize> = (0..names.len()).collect();
    Ok(quote! {
        #f

        #[doc(hidden)]
        #[allow(non_snake_case, unused, clippy::all)]
        #vis fn #shadow_name(#(#names: #k::Expr<#types>),*) -> #ret_shadow {
            #k::shadow::device_call::<#ret_shadow>(
                concat!(module_path!(), "::", #name_str),
                #name_str,
                &[#((#name_strs, #k::shadow::cxx_type::<#types>())),*],
                &[#(#k::shadow::arg(#names)),*],
                |__fk_params: &[::std::string::String]| {
                    #(let #names = #k::shadow::param::<#types>(&__fk_params[#idx]);)*
                    #body_shadow
                },
            )
        }
    })
}
