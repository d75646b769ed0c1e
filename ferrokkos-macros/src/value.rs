//! `#[derive(DeviceValue)]`: a `#[repr(C)]` struct of device values becomes one itself (a View
//! element, a capture, a local, a field of kernels on every space).
//!
//! The derive writes the `unsafe impl`s of `Element`, `PlainBytes` and `DeviceValue`, so it checks
//! what they promise before it writes them: `#[repr(C)]` without `packed` or `align` (the C++
//! struct of the same fields then has the same layout), no generics, every field a `DeviceValue`
//! (a trait bound checked at the field's type), and no padding (a `const` assertion that the size is
//! the sum of the fields' sizes, so every byte is initialized). The C++ definition it describes is
//! checked again by a `static_assert` of size, alignment and no padding in each translation unit.

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::{Data, DeriveInput, Fields, LitStr};

/// The expansion of `#[derive(DeviceValue)]` on `input`.
pub fn expand(input: TokenStream) -> syn::Result<TokenStream> {
    let item: DeriveInput = syn::parse2(input)?;
    let name = &item.ident;
    if !item.generics.params.is_empty() || item.generics.where_clause.is_some() {
        return Err(syn::Error::new(
            item.generics.span(),
            "`DeviceValue` cannot be derived for a generic type: the device needs one concrete \
             layout; derive it for a struct of concrete field types",
        ));
    }
    let fields = match &item.data {
        Data::Struct(s) => &s.fields,
        Data::Enum(e) => return expand_enum(&item, e),
        Data::Union(u) => {
            return Err(syn::Error::new(
                u.union_token.span(),
                "`DeviceValue` cannot be derived for a union: the device would not know which \
                 field holds the value",
            ));
        }
    };
    check_repr(&item)?;
    if fields.is_empty() {
        return Err(syn::Error::new(
            name.span(),
            format!("`{name}` has no fields; a `DeviceValue` holds at least one value"),
        ));
    }
    let members = members(fields);

    let dv = quote!(::ferrokkos::DeviceValue);
    let field_checks = members
        .iter()
        .map(|(_, ty)| quote_spanned!(ty.span()=> __fk_field_is_a_device_value::<#ty>();));
    let sizes = members
        .iter()
        .map(|(_, ty)| quote!(::core::mem::size_of::<#ty>()));
    let padding = LitStr::new(
        &format!(
            "`{name}` has padding (its size is more than the sum of its fields' sizes); a \
             `DeviceValue` has none, because all its bytes travel to the device: reorder the \
             fields from the largest to the smallest, or add explicit fields where the gaps are"
        ),
        name.span(),
    );
    let any_bits = members
        .iter()
        .map(|(_, ty)| quote!(<#ty as ::ferrokkos::traits::Element>::ANY_BIT_PATTERN));
    let cxx = LitStr::new(&name.to_string(), name.span());
    let defs = members.iter().map(|(text, ty)| {
        quote!(::ferrokkos::__private::FieldDef {
            name: #text,
            cxx: <#ty as #dv>::cxx_name,
        })
    });

    Ok(quote! {
        const _: () = {
            fn __fk_field_is_a_device_value<T: #dv>() {}
            #[allow(dead_code)]
            fn __fk_fields() {
                #(#field_checks)*
            }
            ::core::assert!(::core::mem::size_of::<#name>() == 0 #(+ #sizes)*, #padding);
        };

        // SAFETY: `#[repr(C)]` (checked by the derive), every field a `DeviceValue` (so an
        // `Element`: valid when all-zero, no interior mutability, no drop glue, no padding), and no
        // padding between or after the fields (the assertion above): the struct is all-zero valid,
        // all its bytes are initialized, and it is valid for every bit pattern exactly when all its
        // fields are.
        unsafe impl ::ferrokkos::traits::Element for #name {
            const ANY_BIT_PATTERN: bool = true #(&& #any_bits)*;
        }

        // SAFETY: no padding and every field plain (above).
        unsafe impl ::ferrokkos::__private::PlainBytes for #name {}

        // SAFETY: the C++ struct has the same fields, of the same C++ types (each its own
        // `DeviceValue`'s), in the same order as this `#[repr(C)]` struct, hence its layout; its
        // definition asserts Rust's size and alignment, and no padding (hence Rust's offsets).
        unsafe impl #dv for #name {
            fn cxx_name() -> ::std::string::String {
                ::ferrokkos::__private::device_struct::<Self>(#cxx, &[#(#defs),*])
            }
        }

        impl ::ferrokkos::__private::capture::IntoCapture for #name {
            type Value = #name;
            fn capture_value(&self) -> #name {
                *self
            }
        }
    })
}

/// A struct's fields: their names as the C++ struct has them (`x`, or `0` for a tuple struct's
/// first) and their types.
fn members(fields: &Fields) -> Vec<(String, &syn::Type)> {
    match fields {
        Fields::Named(f) => f
            .named
            .iter()
            .map(|f| {
                let ident = f.ident.as_ref().expect("a named field");
                (
                    ident.to_string().trim_start_matches("r#").to_string(),
                    &f.ty,
                )
            })
            .collect(),
        Fields::Unnamed(f) => f
            .unnamed
            .iter()
            .enumerate()
            .map(|(k, f)| (k.to_string(), &f.ty))
            .collect(),
        Fields::Unit => unreachable!("checked: not empty"),
    }
}

/// The integer `#[repr]`s a device enum may have.
const ENUM_REPRS: &[&str] = &["i8", "i16", "i32", "i64", "u8", "u16", "u32", "u64"];

/// `#[derive(DeviceValue)]` on a fieldless enum with an integer `#[repr]` and a variant whose
/// discriminant is 0 (Views start zero-filled): on the device it is its discriminant.
fn expand_enum(item: &DeriveInput, e: &syn::DataEnum) -> syn::Result<TokenStream> {
    let name = &item.ident;
    let repr = enum_repr(item)?;
    check_variants(name, e)?;
    let variants: Vec<&syn::Ident> = e.variants.iter().map(|v| &v.ident).collect();
    let zero = LitStr::new(
        &format!(
            "`{name}` has no variant whose discriminant is 0; a `DeviceValue` enum needs one, \
             because Views start zero-filled (add `= 0` to a variant)"
        ),
        name.span(),
    );
    let dv = quote!(::ferrokkos::DeviceValue);
    let ints = [
        "i8", "i16", "i32", "i64", "isize", "u8", "u16", "u32", "u64", "usize",
    ]
    .map(|t| syn::Ident::new(t, proc_macro2::Span::call_site()));
    Ok(quote! {
        const _: () = {
            ::core::assert!(false #(|| #name::#variants as #repr == 0)*, #zero);
        };

        // SAFETY: a fieldless enum with an integer `#[repr]` is that integer: no padding, all bytes
        // initialized; all-zero is a variant (the assertion above); not every bit pattern is a
        // variant, so Views of it are always zero-filled.
        unsafe impl ::ferrokkos::traits::Element for #name {
            const ANY_BIT_PATTERN: bool = false;
        }

        // SAFETY: one integer, no padding.
        unsafe impl ::ferrokkos::__private::PlainBytes for #name {}

        // SAFETY: the C++ type is the `#[repr]` integer, of the enum's layout; device code holds
        // only discriminants of variants (literals from `discriminant`, copies of values).
        unsafe impl #dv for #name {
            fn cxx_name() -> ::std::string::String {
                <#repr as #dv>::cxx_name()
            }
        }

        impl ::ferrokkos::__private::DeviceEq for #name {}

        // SAFETY: the discriminant, as a literal of the `#[repr]` type.
        unsafe impl ::ferrokkos::__private::DeviceEnum for #name {
            fn discriminant(self) -> ::std::string::String {
                ::ferrokkos::__private::int_literal(self as #repr)
            }
        }

        impl ::ferrokkos::__private::capture::IntoCapture for #name {
            type Value = #name;
            fn capture_value(&self) -> #name {
                *self
            }
        }

        // `v as T` in kernels: the discriminant converted as its `#[repr]` integer converts.
        #(
            impl ::ferrokkos::__private::shadow::AsCast<#ints> for #name {
                const HOW: ::ferrokkos::__private::shadow::CastKind =
                    <#repr as ::ferrokkos::__private::shadow::AsCast<#ints>>::HOW;
            }
        )*
    })
}

/// Checks that the struct is `#[repr(C)]` and neither `packed` nor `align`ed.
fn check_repr(item: &DeriveInput) -> syn::Result<()> {
    let mut c = false;
    for attr in item.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        attr.parse_nested_meta(|meta| {
            if meta.path.is_ident("C") {
                c = true;
                Ok(())
            } else {
                Err(meta.error(
                    "a `DeviceValue` is `#[repr(C)]` only (not packed, aligned or transparent): \
                     the device struct is laid out as C lays it out",
                ))
            }
        })?;
    }
    if c {
        Ok(())
    } else {
        Err(syn::Error::new(
            item.ident.span(),
            format!(
                "`{}` needs `#[repr(C)]` to derive `DeviceValue`: Rust may reorder the fields of \
                 other structs, and the device must see the same layout",
                item.ident
            ),
        ))
    }
}

/// A device enum's integer `#[repr]`.
fn enum_repr(item: &DeriveInput) -> syn::Result<syn::Ident> {
    let name = &item.ident;
    let mut repr = None;
    for attr in item.attrs.iter().filter(|a| a.path().is_ident("repr")) {
        attr.parse_nested_meta(|meta| {
            match meta.path.get_ident().map(|i| i.to_string()) {
                Some(r) if ENUM_REPRS.contains(&r.as_str()) => {
                    repr = meta.path.get_ident().cloned()
                }
                _ => {
                    return Err(meta.error(
                        "a `DeviceValue` enum has an integer `#[repr]` only (`#[repr(i32)]`, \
                         `#[repr(u8)]`, ...): the device holds its discriminant",
                    ));
                }
            }
            Ok(())
        })?;
    }
    let Some(repr) = repr else {
        return Err(syn::Error::new(
            name.span(),
            format!(
                "`{name}` needs an integer `#[repr]` (`#[repr(i32)]`, `#[repr(u8)]`, ...) to derive \
                 `DeviceValue`: the device holds its discriminant, of that type"
            ),
        ));
    };
    Ok(repr)
}

/// A device enum has variants, and they carry no data.
fn check_variants(name: &syn::Ident, e: &syn::DataEnum) -> syn::Result<()> {
    if e.variants.is_empty() {
        return Err(syn::Error::new(
            name.span(),
            format!("`{name}` has no variants; a `DeviceValue` enum has at least one"),
        ));
    }
    if let Some(v) = e
        .variants
        .iter()
        .find(|v| !matches!(v.fields, Fields::Unit))
    {
        return Err(syn::Error::new(
            v.fields.span(),
            "a `DeviceValue` enum is fieldless: its variants carry no data",
        ));
    }
    Ok(())
}
