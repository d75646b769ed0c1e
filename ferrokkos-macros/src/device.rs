//! `#[ferrokkos::device]`: keeps the function for the host and adds its typed shadow
//! (`__fk_device_<name>`), which defines the C++ function once per translation unit and calls it.

use proc_macro2::TokenStream;
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::{FnArg, Pat, ReturnType, Stmt};

use syn::visit_mut::{self, VisitMut};

use crate::analyze::{self, Mode, RefParam, ident_of};
use crate::shadow;

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(attr.span(), "#[device] takes no arguments"));
    }
    let item: syn::Item = syn::parse2(item)?;
    let f = match item {
        syn::Item::Fn(f) => f,
        syn::Item::Impl(i) => return crate::device_impl::expand(i),
        other => {
            return Err(syn::Error::new(
                other.span(),
                "#[device] goes on a function or on an `impl` block of a `DeviceValue` type",
            ));
        }
    };
    let Signature {
        names,
        types,
        kinds,
        ret,
        receiver: _,
    } = signature(&f.sig, false)?;
    let name_strs: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    let refs: Vec<(String, RefParam)> = names
        .iter()
        .zip(&kinds)
        .filter_map(|(n, k)| match k {
            ParamKind::Value => None,
            ParamKind::View { .. } => Some((n.to_string(), RefParam::View)),
            ParamKind::Mut { .. } => Some((n.to_string(), RefParam::Mut)),
        })
        .collect();
    let body_shadow = checked_body(&f.block, &name_strs, &refs, ret.is_some())?;
    let k = quote!(::ferrokkos::__private);
    // The host form: a `&View<T, R>` parameter reads through `ViewRead`, so that the body serves a
    // kernel's accessor and a host guard alike.
    let mut f = f;
    let views: Vec<String> = refs
        .iter()
        .filter(|(_, k)| *k == RefParam::View)
        .map(|(n, _)| n.clone())
        .collect();
    let host_types: Vec<TokenStream> = types
        .iter()
        .zip(&kinds)
        .map(|(t, kind)| match kind {
            ParamKind::View { elem, rank } => {
                quote!(&impl ::ferrokkos::traits::ViewRead<#elem, #rank>)
            }
            _ => quote!(#t),
        })
        .collect();
    if !views.is_empty() {
        for (arg, ty) in f.sig.inputs.iter_mut().zip(&host_types) {
            if let FnArg::Typed(t) = arg {
                *t.ty = syn::parse2(ty.clone())?;
            }
        }
        HostViews(&views).visit_block_mut(&mut f.block);
    }
    // Generic over number types: each type parameter is also a `DeviceScalar` (the shadow computes
    // with it), on the function as on its host and shadow forms.
    // (Beside the author's bounds: in the `where` clause if that bounds the parameter, else inline.)
    let bound: syn::TypeParamBound = syn::parse_quote!(::ferrokkos::kernel::DeviceScalar);
    let generics = &mut f.sig.generics;
    let params: Vec<syn::Ident> = generics.type_params().map(|p| p.ident.clone()).collect();
    for name in params {
        let in_where = generics.where_clause.as_mut().and_then(|w| {
            w.predicates.iter_mut().find_map(|pred| match pred {
                syn::WherePredicate::Type(t)
                    if matches!(&t.bounded_ty, syn::Type::Path(p) if p.path.is_ident(&name)) =>
                {
                    Some(t)
                }
                _ => None,
            })
        });
        match in_where {
            Some(t) => t.bounds.push(bound.clone()),
            None => {
                if let Some(p) = generics.type_params_mut().find(|p| p.ident == name) {
                    p.bounds.push(bound.clone());
                }
            }
        }
    }
    let sig = &f.sig;
    let type_params: Vec<&syn::TypeParam> = sig.generics.type_params().collect();
    let where_clause = &sig.generics.where_clause;
    let mut layouts = Vec::new();
    let shadow_types: Vec<TokenStream> = types
        .iter()
        .zip(&kinds)
        .map(|(t, kind)| match kind {
            ParamKind::Value => quote!(#k::Expr<#t>),
            ParamKind::Mut { elem } => quote!(#k::Expr<#k::shadow::Mut<#elem>>),
            ParamKind::View { elem, rank } => {
                let l = format_ident!("__FkL{}", layouts.len());
                layouts.push(l.clone());
                quote!(#k::ViewExpr<#elem, #rank, #l>)
            }
        })
        .collect();
    let checked_types: Vec<syn::Type> = types
        .iter()
        .zip(&kinds)
        .map(|(t, kind)| match kind {
            ParamKind::Value => t.clone(),
            ParamKind::View { elem, .. } | ParamKind::Mut { elem } => elem.clone(),
        })
        .collect();
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
    let checks = type_checks(&checked_types, ret.as_deref());
    // The checked shadow: a value parameter of a type that names none of the function's type
    // parameters takes an argument of any type `__FkA<i>` that the parameter `Takes`, so that a
    // mismatch is reported at the argument in the user's terms (a generic one keeps its type: the
    // argument gives it). It hands the arguments to the unchecked `shadow_typed`, whose body has
    // none of the `Takes` bounds (they would be the first choice for the body's own calls).
    let generic_names: Vec<String> = type_params.iter().map(|p| p.ident.to_string()).collect();
    let generic_names: Vec<&str> = generic_names.iter().map(String::as_str).collect();
    let mut arg_params = Vec::new();
    let mut arg_bounds = Vec::new();
    let mut taken = Vec::new();
    let outer_types: Vec<TokenStream> = names
        .iter()
        .zip(types.iter().zip(&kinds))
        .zip(&shadow_types)
        .enumerate()
        .map(|(i, ((name, (t, kind)), shadow_ty))| match kind {
            ParamKind::Value if !analyze::mentions_any(quote!(#t), &generic_names) => {
                let a = format_ident!("__FkA{}", i);
                arg_bounds.push(quote!(#t: #k::shadow::Takes<#a>));
                taken.push(quote!(<#t as #k::shadow::Takes<#a>>::take(#name)));
                arg_params.push(a.clone());
                quote!(#k::Expr<#a>)
            }
            _ => {
                taken.push(quote!(#name));
                shadow_ty.clone()
            }
        })
        .collect();
    let checked_where = match where_clause {
        Some(w) => {
            let preds = w.predicates.iter();
            quote!(where #(#preds,)* #(#arg_bounds,)*)
        }
        None if arg_bounds.is_empty() => quote!(),
        None => quote!(where #(#arg_bounds,)*),
    };
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
            #vis fn host<#(#type_params),*>(#(#names: #host_types),*) -> #ret_host #where_clause {
                #name(#(#names),*)
            }

            /// The function's typed shadow, for arguments whose types are known: each must be
            /// its parameter's (reported at the argument otherwise); see `shadow_typed`.
            #vis fn shadow<
                #(#type_params,)* #(#arg_params,)* #(#layouts: ::ferrokkos::traits::Layout + 'static),*
            >(
                #(#names: #outer_types),*
            ) -> #ret_shadow #checked_where {
                Self::shadow_typed(#(#taken),*)
            }

            /// The function's typed shadow: defines its C++ translation once per translation unit
            /// (and combination of its Views' layouts) and emits the call.
            #vis fn shadow_typed<#(#type_params,)* #(#layouts: ::ferrokkos::traits::Layout + 'static),*>(
                #(#names: #shadow_types),*
            ) -> #ret_shadow #where_clause {
                #(#checks)*
                #k::shadow::device_call(
                    ::core::any::TypeId::of::<#marker>(),
                    #name_str,
                    [#(#name_strs),*],
                    (#(#names,)*),
                    |(#(#names,)*): (#(#shadow_types,)*)| #body_shadow,
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

/// How a `#[device]` function takes a parameter.
pub enum ParamKind {
    /// A device value, by value (`x: f64`).
    Value,
    /// A View it reads, of any layout and space (`u: &View<f64, 2>`).
    View { elem: syn::Type, rank: TokenStream },
    /// An element it may change (`cell: &mut f64`): the kernel passes `&mut y[i]` or `&mut t`.
    Mut { elem: syn::Type },
}

/// The `&View<T, R, ...>` parameter type's element type and rank.
fn view_param(ty: &syn::Type) -> Option<(syn::Type, TokenStream)> {
    let syn::Type::Reference(r) = ty else {
        return None;
    };
    if r.mutability.is_some() {
        return None;
    }
    let syn::Type::Path(p) = &*r.elem else {
        return None;
    };
    let last = p.path.segments.last()?;
    if last.ident != "View" {
        return None;
    }
    let syn::PathArguments::AngleBracketed(args) = &last.arguments else {
        return None;
    };
    let mut args = args.args.iter();
    let elem = match args.next()? {
        syn::GenericArgument::Type(t) => t.clone(),
        _ => return None,
    };
    let rank = match args.next()? {
        syn::GenericArgument::Const(c) => quote!(#c),
        syn::GenericArgument::Type(t) => quote!(#t),
        _ => return None,
    };
    Some((elem, rank))
}

/// A `#[device]` function's checked signature: its parameters' names, types and kinds, its return
/// type (`None` for `()`) and its receiver (methods only).
pub struct Signature {
    pub names: Vec<syn::Ident>,
    pub types: Vec<syn::Type>,
    pub kinds: Vec<ParamKind>,
    pub ret: Option<Box<syn::Type>>,
    pub receiver: Option<syn::Receiver>,
}

/// Checks `sig`: no `async` or `unsafe`, type parameters only (and none on methods); parameters are
/// names of device values passed by value, Views and `&mut` elements; a `self` / `&self` receiver
/// only where `method`.
pub fn signature(sig: &syn::Signature, method: bool) -> syn::Result<Signature> {
    let only_types = sig
        .generics
        .params
        .iter()
        .all(|p| matches!(p, syn::GenericParam::Type(_)));
    if (method && !sig.generics.params.is_empty())
        || !only_types
        || sig.asyncness.is_some()
        || sig.unsafety.is_some()
    {
        return Err(syn::Error::new(
            sig.span(),
            "a device function is a plain function of device values: no `async` or `unsafe`, and \
             generic only over number types (`fn f<T: Add<Output = T>>(a: T, b: T) -> T`; \
             methods are not generic)",
        ));
    }
    let mut names = Vec::new();
    let mut types = Vec::new();
    let mut kinds = Vec::new();
    let mut receiver = None;
    for arg in &sig.inputs {
        let t = match arg {
            FnArg::Receiver(r) if method => {
                if r.mutability.is_some() || r.colon_token.is_some() {
                    return Err(syn::Error::new(
                        r.span(),
                        "a device method takes `self` or `&self` (its value; it cannot change it)",
                    ));
                }
                receiver = Some(r.clone());
                continue;
            }
            FnArg::Receiver(r) => {
                return Err(syn::Error::new(
                    r.span(),
                    "a device function takes no `self`",
                ));
            }
            FnArg::Typed(t) => t,
        };
        let Pat::Ident(i) = &*t.pat else {
            return Err(syn::Error::new(
                t.pat.span(),
                "a device function's parameter is a name",
            ));
        };
        let kind = match &*t.ty {
            syn::Type::Path(p) if p.qself.is_none() => Some(ParamKind::Value),
            syn::Type::Reference(r)
                if r.mutability.is_some()
                    && matches!(&*r.elem, syn::Type::Path(p) if p.qself.is_none()) =>
            {
                Some(ParamKind::Mut {
                    elem: (*r.elem).clone(),
                })
            }
            other => view_param(other).map(|(elem, rank)| ParamKind::View { elem, rank }),
        };
        if method && !matches!(kind, None | Some(ParamKind::Value)) {
            return Err(syn::Error::new(
                t.ty.span(),
                "a device method takes device values by value; Views (`&View<T, R>`) and `&mut` \
                 parameters are for `#[device]` functions",
            ));
        }
        let Some(kind) = kind else {
            let ty = analyze::pretty(&t.ty);
            return Err(syn::Error::new(
                t.ty.span(),
                format!(
                    "a device function's parameters are device values (numbers, `bool`, \
                     `#[derive(DeviceValue)]` structs) passed by value, Views it reads \
                     (`&View<T, R>`) and elements it may change (`&mut T`), not `{ty}`"
                ),
            ));
        };
        if !matches!(kind, ParamKind::Value) && i.mutability.is_some() {
            return Err(syn::Error::new(
                i.span(),
                "a reference parameter of a device function is not `mut`",
            ));
        }
        names.push(i.ident.clone());
        types.push((*t.ty).clone());
        kinds.push(kind);
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
    Ok(Signature {
        names,
        types,
        kinds,
        ret,
        receiver,
    })
}

/// The typed shadow of a device function's body, after the kernel language's analysis (in device
/// function mode: free names are errors) over parameters `names`.
pub fn checked_body(
    block: &syn::Block,
    names: &[String],
    refs: &[(String, RefParam)],
    returns: bool,
) -> syn::Result<TokenStream> {
    let body = syn::Expr::Block(syn::ExprBlock {
        attrs: Vec::new(),
        label: None,
        block: block.clone(),
    });
    let analysis = analyze::analyze(Mode::DeviceFn, &body, &[], names, refs);
    if let Some(mut first) = analysis.errors.first().cloned() {
        for e in &analysis.errors[1..] {
            first.combine(e.clone());
        }
        return Err(first);
    }
    if returns && !matches!(block.stmts.last(), Some(Stmt::Expr(_, None))) {
        return Err(syn::Error::new(
            block.span(),
            "a device function that returns a value ends with that value as its last expression",
        ));
    }
    Ok(shadow::with_constants(&analysis.constants, || {
        shadow::body(block, &[])
    }))
}

/// Checks that each parameter and return type is a device value, at the type (so that an error
/// points at it).
pub fn type_checks(types: &[syn::Type], ret: Option<&syn::Type>) -> Vec<TokenStream> {
    let k = quote!(::ferrokkos::__private);
    types
        .iter()
        .chain(ret)
        .map(|t| quote::quote_spanned!(t.span()=> #k::is_device_value::<#t>();))
        .collect()
}

/// The host form of a device function's body: the View parameters' `u[i]` and `u.extent(r)` read
/// through [`ViewRead`](::ferrokkos::traits::ViewRead).
struct HostViews<'a>(&'a [String]);

impl VisitMut for HostViews<'_> {
    fn visit_expr_mut(&mut self, e: &mut syn::Expr) {
        visit_mut::visit_expr_mut(self, e);
        match e {
            syn::Expr::Index(ix) if ident_of(&ix.expr).is_some_and(|n| self.0.contains(&n)) => {
                let (base, index) = (&ix.expr, &ix.index);
                *e = syn::parse_quote!(::ferrokkos::traits::ViewRead::at(#base, #index));
            }
            syn::Expr::MethodCall(m)
                if m.method == "extent"
                    && ident_of(&m.receiver).is_some_and(|n| self.0.contains(&n)) =>
            {
                let (base, args) = (&m.receiver, &m.args);
                *e = syn::parse_quote!(::ferrokkos::traits::ViewRead::extent(#base, #args));
            }
            _ => {}
        }
    }
}
