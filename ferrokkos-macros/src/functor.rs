//! `#[ferrokkos::functor]`: a method whose body is a kernel (Kokkos' functor's `operator()`).
//!
//! ```text
//! #[functor]
//! fn apply(&self, (i, j): (i64, i64)) { self.out[(i, j)] = 2.0 * self.u[(i, j)]; }
//! ```
//! becomes a method taking only `&self` that returns the `kernel!` of that body, typed as the
//! pattern's functor trait (`impl ForFunctor<(i64, i64), Reach = Everywhere>`): the struct's members
//! that the body names are its captures (`self.u`, a field path), and the kernel runs on every
//! space, the GPU included. The parameters after the index say the pattern, as in `kernel!`: none
//! for `parallel_for`, `&mut V` accumulators for `parallel_reduce`, `&mut V, bool` for
//! `parallel_scan`.

use proc_macro2::TokenStream;
use quote::quote;
use syn::spanned::Spanned;
use syn::{FnArg, ImplItemFn, Type};

pub fn expand(attr: TokenStream, item: TokenStream) -> syn::Result<TokenStream> {
    if !attr.is_empty() {
        return Err(syn::Error::new(
            attr.span(),
            "#[functor] takes no arguments",
        ));
    }
    let f: ImplItemFn = syn::parse2(item.clone()).map_err(|_| {
        syn::Error::new_spanned(
            &item,
            "#[functor] goes on a method of an `impl` block: `fn apply(&self, i: usize) { ... }`",
        )
    })?;
    let sig = &f.sig;
    if sig.asyncness.is_some() || sig.unsafety.is_some() || sig.constness.is_some() {
        return Err(syn::Error::new(
            sig.span(),
            "a functor's kernel method is a plain method: no `async`, `unsafe` or `const`",
        ));
    }
    if let syn::ReturnType::Type(_, t) = &sig.output {
        return Err(syn::Error::new(
            t.span(),
            "a functor's kernel method returns nothing (a reduction's contributions go to its \
             `&mut` accumulator)",
        ));
    }
    let mut inputs = sig.inputs.iter();
    match inputs.next() {
        Some(FnArg::Receiver(r)) if r.reference.is_some() && r.mutability.is_none() => {}
        other => {
            let span = other.map_or(sig.span(), |a| a.span());
            return Err(syn::Error::new(
                span,
                "a functor's kernel method takes `&self` first (the members are the kernel's \
                 captures, read or written through Views)",
            ));
        }
    }
    let params: Vec<&syn::PatType> = inputs
        .map(|a| match a {
            FnArg::Typed(t) => Ok(t),
            FnArg::Receiver(r) => Err(syn::Error::new(
                r.span(),
                "only the first parameter is `self`",
            )),
        })
        .collect::<syn::Result<_>>()?;
    let Some(index) = params.first() else {
        return Err(syn::Error::new(
            sig.span(),
            "a functor's kernel method takes the iteration index after `&self`: `i: usize`, or \
             `(i, j): (i64, i64)` for an MDRange",
        ));
    };
    let index_ty = &*index.ty;
    let rest = &params[1..];
    let functor = pattern_trait(index_ty, rest)?;
    let closure_params = params.iter().map(|p| quote!(#p));
    let (attrs, vis, block) = (&f.attrs, &f.vis, &f.block);
    let (name, generics) = (&sig.ident, &sig.generics);
    let where_clause = &generics.where_clause;
    Ok(quote! {
        #(#attrs)*
        #vis fn #name #generics(&self) -> impl #functor #where_clause {
            ::ferrokkos::kernel!(|#(#closure_params),*| #block)
        }
    })
}

/// The functor trait of the pattern that the parameters after the index say.
fn pattern_trait(index: &Type, rest: &[&syn::PatType]) -> syn::Result<TokenStream> {
    let k = quote!(::ferrokkos::traits);
    let reach = quote!(Reach = #k::Everywhere);
    let is_bool =
        |t: &Type| matches!(t, Type::Path(p) if p.qself.is_none() && p.path.is_ident("bool"));
    let accumulator = |p: &syn::PatType| match &*p.ty {
        Type::Reference(r) if r.mutability.is_some() => Ok((*r.elem).clone()),
        other => Err(syn::Error::new(
            other.span(),
            "after the index, a functor's kernel method takes `&mut` accumulators (a reduction) or \
             `&mut` partial and `bool` (a scan)",
        )),
    };
    Ok(match rest {
        [] => quote!(#k::ForFunctor<#index, #reach>),
        [partial, flag] if is_bool(&flag.ty) => {
            let v = accumulator(partial)?;
            quote!(#k::ScanFunctor<#index, #v, #reach>)
        }
        [acc] => {
            let v = accumulator(acc)?;
            quote!(#k::ReduceFunctor<#index, #v, #reach>)
        }
        accs => {
            let vs = accs
                .iter()
                .map(|a| accumulator(a))
                .collect::<syn::Result<Vec<_>>>()?;
            quote!(#k::ReduceFunctor<#index, (#(#vs,)*), #reach>)
        }
    })
}
