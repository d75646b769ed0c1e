//! `#[device] impl T { ... }`: methods (`self` or `&self`) and associated functions of a type that
//! kernels call (`v.dot(w)`, `Vec2::new(x, y)`); and `#[device] impl DeviceJoin for T { ... }`, a
//! custom reduction's `identity`, `join` and optional `finalize` (and `const COMMUTATIVE`, kept as
//! written), whose shadows also implement its hidden supertrait `JoinForms`.
//!
//! The impl block stays as written for the host. Next to each function the expansion adds its typed
//! shadow, a hidden associated function `__fk_<name>` of the same type (so rustc finds it from a
//! value of the type, wherever the kernel is): a kernel's shadow calls
//! `receiver(v).__fk_dot(w)`, where `receiver` notes `v`'s expression and gives a value of the type
//! to call on, and the shadow takes the expression back (`pop_receiver`) and defines the C++
//! function `T_dot` once per translation unit, with `self` as its first parameter.

use proc_macro2::{Span, TokenStream};
use quote::{format_ident, quote};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};

use crate::device::{Signature, checked_body, signature, type_checks};

/// Renames `self` in a method body to the shadow's receiver parameter.
struct RenameSelf(syn::Ident);

impl VisitMut for RenameSelf {
    fn visit_expr_path_mut(&mut self, p: &mut syn::ExprPath) {
        if p.qself.is_none() && p.path.is_ident("self") {
            p.path = self.0.clone().into();
        }
        visit_mut::visit_expr_path_mut(self, p);
    }
}

pub fn expand(mut item: syn::ItemImpl) -> syn::Result<TokenStream> {
    let type_name = checked_type_name(&item)?;
    let self_ty = &item.self_ty;
    let mut shadows = Vec::new();
    let mut markers = Vec::new();
    for it in &item.items {
        let syn::ImplItem::Fn(f) = it else {
            continue;
        };
        let (marker, shadow) = function_shadows(f, &type_name, self_ty)?;
        markers.push(marker);
        shadows.push(shadow);
    }
    // `DeviceJoin`'s device forms also implement its hidden supertrait, for the reducer (generic
    // over the type); kernels call the inherent ones, which need no import.
    for it in &mut item.items {
        if let syn::ImplItem::Fn(f) = it {
            crate::device::inline_on_host(&mut f.attrs);
        }
    }
    let join_forms = item.trait_.is_some().then(|| join_forms(&item, self_ty));
    Ok(quote! {
        #join_forms

        #item

        #(#markers)*

        impl #self_ty {
            #(#shadows)*
        }
    })
}

/// The hidden `JoinForms` of a `#[device] impl DeviceJoin` block: its shadows of `identity`, `join`
/// and `finalize`; without a `finalize` in the block, the value unchanged (the trait's default) and
/// no final step on the device.
fn join_forms(item: &syn::ItemImpl, self_ty: &syn::Type) -> TokenStream {
    let k = quote!(::ferrokkos::__private);
    let has_finalize = item
        .items
        .iter()
        .any(|it| matches!(it, syn::ImplItem::Fn(f) if f.sig.ident == "finalize"));
    let finalize = if has_finalize {
        quote!(Self::__fk_finalize(self))
    } else {
        quote!(#k::shadow::pop_receiver::<Self>())
    };
    quote! {
        // SAFETY: the forms are the shadows generated below from `identity`, `join` and
        // `finalize` (or, without `finalize`, the value itself, as the trait's default).
        unsafe impl #k::JoinForms for #self_ty {
            const __FK_FINALIZE: bool = #has_finalize;
            fn __fk_identity() -> #k::Expr<Self> {
                Self::__fk_identity()
            }
            fn __fk_join(self, other: #k::Expr<Self>) -> #k::Expr<Self> {
                Self::__fk_join(self, other)
            }
            fn __fk_finalize(self) -> #k::Expr<Self> {
                #finalize
            }
        }
    }
}

/// The name of the type of an `impl` block `#[device]` may go on: inherent or of `DeviceJoin`,
/// without generics, of a named type.
fn checked_type_name(item: &syn::ItemImpl) -> syn::Result<String> {
    // The one trait whose methods kernels call: its hidden shadows are trait items, filled in here.
    if let Some((_, path, _)) = &item.trait_
        && path.segments.last().is_none_or(|s| s.ident != "DeviceJoin")
    {
        return Err(syn::Error::new(
            path.span(),
            "#[device] goes on an inherent `impl` block (`impl Vec2 { ... }`) or on \
             `impl DeviceJoin for T`, not on other trait impls",
        ));
    }
    if !item.generics.params.is_empty() {
        return Err(syn::Error::new(
            item.generics.span(),
            "#[device] goes on an `impl` block without generics",
        ));
    }
    let syn::Type::Path(self_path) = &*item.self_ty else {
        return Err(syn::Error::new(
            item.self_ty.span(),
            "#[device] goes on the `impl` block of a named type (a `DeviceValue` struct or enum)",
        ));
    };
    Ok(self_path
        .path
        .segments
        .last()
        .map(|s| s.ident.to_string())
        .unwrap_or_default())
}

/// One function of the block: its marker type with the `DeviceMethod` proof, and its two shadows.
fn function_shadows(
    f: &syn::ImplItemFn,
    type_name: &str,
    self_ty: &syn::Type,
) -> syn::Result<(TokenStream, TokenStream)> {
    let k = quote!(::ferrokkos::__private);
    let this = syn::Ident::new("__fk_this", Span::mixed_site());
    let Signature {
        names,
        types,
        ret,
        receiver,
        ..
    } = signature(&f.sig, true)?;
    let name = &f.sig.ident;
    let mut block = f.block.clone();
    let mut all_names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
    if receiver.is_some() {
        RenameSelf(this.clone()).visit_block_mut(&mut block);
        all_names.insert(0, this.to_string());
    }
    let body = checked_body(&block, &all_names, &[], ret.is_some())?;
    let marker = format_ident!("__fk_method_{}_{}", type_name, name);
    let key = method_key(&name.to_string());
    let named = match &receiver {
        Some(_) => builtin_named(name, &names, &types, ret.as_deref(), self_ty, &key)?,
        None => TokenStream::new(),
    };
    let marker_tokens = quote! {
        #named

        #[doc(hidden)]
        #[allow(non_camel_case_types)]
        enum #marker {}

        // SAFETY: `__fk_<name>` and `__fkt_<name>` of this type are the shadows generated here
        // from the body of the method or associated function `<name>` (whose name hashes to
        // the key).
        unsafe impl #k::DeviceMethod<#key> for #self_ty {}
    };
    let shadow = Shadows {
        f,
        names: &names,
        types: &types,
        ret: ret.as_deref(),
        receiver: receiver.as_ref(),
        this: &this,
        marker: &marker,
        cxx_name: format!("{type_name}_{name}"),
        body: &body,
    }
    .tokens();
    Ok((marker_tokens, shadow))
}

/// For a method named like a built-in method (`norm`, `min`, `scale`, ...): the implementation
/// of that name's trait for the type's shadow, through which a kernel's call reaches the method's
/// shadow (see `ferrokkos::kernel::shadow::builtin_named`). It takes the built-in's number of
/// arguments. `Self` in the signature is the type itself.
fn builtin_named(
    name: &syn::Ident,
    names: &[syn::Ident],
    types: &[syn::Type],
    ret: Option<&syn::Type>,
    self_ty: &syn::Type,
    key: &TokenStream,
) -> syn::Result<TokenStream> {
    let Some((tr, arity)) = crate::subset::builtin_named(&name.to_string()) else {
        return Ok(TokenStream::new());
    };
    if names.len() != arity {
        return Err(syn::Error::new(
            name.span(),
            format!(
                "a device method named like the built-in method `{name}` takes {arity} \
                 argument(s) besides `self`, as the built-in does (kernels call both with the \
                 same syntax); rename it or change its parameters"
            ),
        ));
    }
    let k = quote!(::ferrokkos::__private);
    let mut types: Vec<syn::Type> = types.to_vec();
    let mut ret = ret.cloned();
    for t in types.iter_mut().chain(ret.as_mut()) {
        ReplaceSelf(self_ty).visit_type_mut(t);
    }
    let ret_shadow = match &ret {
        Some(t) => quote!(#k::Expr<#t>),
        None => quote!(()),
    };
    let typed_name = format_ident!("__fkt_{}", name);
    let r = syn::Ident::new("__fk_r", Span::mixed_site());
    Ok(quote! {
        // SAFETY: the method's shadow is the `#[device]` method's own, reached through
        // `device_method` and the `DeviceMethod` proof of this block.
        unsafe impl #k::shadow::builtin_named::#tr<#self_ty, #(#k::Expr<#types>),*> for #k::Expr<#self_ty> {
            type Output = #ret_shadow;
            #[allow(non_snake_case, unused, clippy::all)]
            fn #name(self, #(#names: #k::Expr<#types>),*) -> #ret_shadow {
                #k::shadow::device_method::<_, _, #key>(self, |#r| #r.#typed_name(#(#names),*))
            }
        }
    })
}

/// Replaces the type `Self` by the `impl` block's type.
struct ReplaceSelf<'a>(&'a syn::Type);

impl VisitMut for ReplaceSelf<'_> {
    fn visit_type_mut(&mut self, t: &mut syn::Type) {
        if matches!(t, syn::Type::Path(p) if p.qself.is_none() && p.path.is_ident("Self")) {
            *t = self.0.clone();
            return;
        }
        visit_mut::visit_type_mut(self, t);
    }
}

/// What the two shadows of one function are made of.
struct Shadows<'a> {
    f: &'a syn::ImplItemFn,
    names: &'a [syn::Ident],
    types: &'a [syn::Type],
    ret: Option<&'a syn::Type>,
    receiver: Option<&'a syn::Receiver>,
    /// The shadow's receiver parameter (`self` renamed).
    this: &'a syn::Ident,
    marker: &'a syn::Ident,
    /// The C++ function's name (`T_dot`).
    cxx_name: String,
    body: &'a TokenStream,
}

impl Shadows<'_> {
    /// The checked shadow `__fk_<name>`, which takes arguments of any types the parameters `Takes`
    /// (a mismatch is reported at the argument in the user's terms) and hands them to the
    /// unchecked one `__fkt_<name>`, which a kernel calls when an argument's type may be open (see
    /// `#[device]` functions).
    fn tokens(&self) -> TokenStream {
        let k = quote!(::ferrokkos::__private);
        let Self {
            f,
            names,
            types,
            this,
            marker,
            cxx_name,
            body,
            ..
        } = self;
        let name = &f.sig.ident;
        let vis = &f.vis;
        let checks = type_checks(types, self.ret);
        let shadow_name = format_ident!("__fk_{}", name, span = name.span());
        // `__fkt_`: never `__fk_` followed by another method's name.
        let typed_name = format_ident!("__fkt_{}", name, span = name.span());
        let mut param_names: Vec<String> = names.iter().map(|n| n.to_string()).collect();
        let ret_shadow = match &self.ret {
            Some(t) => quote!(#k::Expr<#t>),
            None => quote!(()),
        };
        let (recv, take, args, arg_types) = match &self.receiver {
            Some(r) => {
                param_names.insert(0, "self".to_string());
                let amp = &r.reference.as_ref().map(|(a, _)| quote!(#a));
                (
                    quote!(#amp self,),
                    quote!(let #this: #k::Expr<Self> = #k::shadow::pop_receiver::<Self>();),
                    quote!(#this, #(#names,)*),
                    quote!(#k::Expr<Self>, #(#k::Expr<#types>,)*),
                )
            }
            None => (
                quote!(),
                quote!(),
                quote!(#(#names,)*),
                quote!(#(#k::Expr<#types>,)*),
            ),
        };
        let arg_params: Vec<syn::Ident> = (0..names.len())
            .map(|i| format_ident!("__FkA{}", i))
            .collect();
        let self_arg = self.receiver.map(|_| quote!(self,));
        quote! {
            /// The typed shadow of the `#[device]` method of the same name (generated), for
            /// arguments whose types are known.
            #[doc(hidden)]
            #[allow(non_snake_case, unused, clippy::all)]
            #vis fn #shadow_name<#(#arg_params),*>(#recv #(#names: #k::Expr<#arg_params>),*) -> #ret_shadow
            where #(#types: #k::shadow::Takes<#arg_params>,)*
            {
                Self::#typed_name(#self_arg #(<#types as #k::shadow::Takes<#arg_params>>::take(#names)),*)
            }

            /// The typed shadow of the `#[device]` method of the same name (generated).
            #[doc(hidden)]
            #[allow(non_snake_case, unused, clippy::all)]
            #vis fn #typed_name(#recv #(#names: #k::Expr<#types>),*) -> #ret_shadow {
                #(#checks)*
                #take
                #k::shadow::device_call(
                    ::core::any::TypeId::of::<#marker>(),
                    #cxx_name,
                    [#(#param_names),*],
                    (#args),
                    |(#args): (#arg_types)| #body,
                )
            }
        }
    }
}

/// The name of a `#[device] impl` function as a type (`dot`: `Ch<'d', Ch<'o', Ch<'t', ()>>>`): the
/// `NAME` of the `DeviceMethod<NAME>` proof that the block implements and a kernel's call requires.
/// Exact (two names give one type only if they are one name), unlike a hash.
pub fn method_key(name: &str) -> TokenStream {
    let k = quote!(::ferrokkos::__private);
    name.chars()
        .rev()
        .fold(quote!(()), |rest, c| quote!(#k::Ch<#c, #rest>))
}
