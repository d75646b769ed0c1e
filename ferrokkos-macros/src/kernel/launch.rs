//! The launch's checks of a kernel, evaluated where it is made from the values it captures: the
//! overlaps the race rules left to the launch, the bounds of the proven form's accesses, and the
//! places of field captures (each path evaluated once).

use proc_macro2::{Span, TokenStream};
use quote::quote;
use syn::Expr;

use super::messages::with_paths_text;
use crate::{affine, analyze, fields};

/// The expansion's local holding a reference to field capture `name`'s place (its path evaluated
/// once).
pub(super) fn field_local(name: &str) -> syn::Ident {
    syn::Ident::new(&format!("__fk_field_{name}"), Span::mixed_site())
}

/// The expression of the capture or constant `name` as the kernel's surroundings see it (a field
/// capture's path, else the name with the span of its use).
pub(super) fn capture_value(
    name: &str,
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
) -> TokenStream {
    if let Some(f) = fields.iter().find(|f| f.name == name) {
        let local = field_local(&f.name);
        return quote!((*#local));
    }
    let span = analysis
        .captures
        .iter()
        .find(|(n, _, _)| n == name)
        .map_or_else(Span::call_site, |(_, _, s)| *s);
    let ident = syn::Ident::new(name, span);
    quote!(#ident)
}

/// `e` (launch constants) as the kernel's surroundings see it: each capture by
/// [`capture_value`] (a field capture's place, its path evaluated once), constants as written.
pub(super) fn with_captures(
    e: &Expr,
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
) -> TokenStream {
    use syn::visit_mut::VisitMut;
    struct Swap<'a>(&'a analyze::Analysis, &'a [fields::FieldCapture]);
    impl VisitMut for Swap<'_> {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            if let Some(name) = analyze::ident_of(e)
                && (self.0.captures.iter().any(|(n, _, _)| *n == name)
                    || self.1.iter().any(|f| f.name == name))
            {
                let v = capture_value(&name, self.0, self.1);
                *e = syn::parse_quote!(#v);
                return;
            }
            syn::visit_mut::visit_expr_mut(self, e);
        }
    }
    let mut e = e.clone();
    Swap(analysis, fields).visit_expr_mut(&mut e);
    quote!(#e)
}

/// The overlaps the race rules left to the launch, as `.with_overlaps(vec![...])` (nothing when
/// there are none): each map's offsets are evaluated now, from the same values the kernel captures.
pub(super) fn overlap_checks(
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
) -> TokenStream {
    if analysis.overlaps.is_empty() {
        return quote!();
    }
    let k = quote!(::ferrokkos::__private);
    let coord = |c: &affine::Coord| coord_tokens(c, analysis, fields);
    let map = |(text, coords): &(String, Vec<affine::Coord>)| {
        let text = with_paths_text(text, fields);
        let cs = coords.iter().map(coord);
        quote!((#text, ::std::vec![#(#cs),*]))
    };
    let each = analysis.overlaps.iter().map(|o| {
        let view = with_paths_text(&o.view, fields);
        let first = map(&o.first);
        let second = match &o.second {
            Some(m) => {
                let m = map(m);
                quote!(::core::option::Option::Some(#m))
            }
            None => quote!(::core::option::Option::None),
        };
        quote!(#k::Overlap { view: #view, first: #first, second: #second })
    });
    // The offsets are the author's index arithmetic rearranged (`x - 1 - m` gives `-1 * m`):
    // clippy's style lints must not fire at the author's span for the expansion's form.
    let o = syn::Ident::new("__fk_overlaps", Span::mixed_site());
    quote!(.with_overlaps({
        #[allow(clippy::all)]
        let #o = ::std::vec![#(#each),*];
        #o
    }))
}

/// One coordinate of an index map, with its offsets evaluated now from the values the kernel
/// captures.
fn coord_tokens(
    c: &affine::Coord,
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
) -> TokenStream {
    let k = quote!(::ferrokkos::__private);
    let leaf = |name: &str| capture_value(name, analysis, fields);
    match c {
        affine::Coord::Param {
            param,
            coef,
            offset,
        } => {
            let (param, coef) = (*param as u8, *coef as i64);
            let offset = offset.tokens(&leaf);
            quote!(#k::OverlapCoord::param(#param, #coef, #offset))
        }
        affine::Coord::Fixed(offset) => {
            // A coordinate of literals only has the type its use gives it, which may be as narrow
            // as 8 bits (`100 + 100` wraps in a `u8`, and to a negative `i8`): its value is known
            // exactly only below 2^7.
            let bits = match offset.terms.keys().next() {
                Some(name) => {
                    let v = affine::term(name, &leaf);
                    quote!(#k::int_bits(&(#v)))
                }
                None => quote!(8u32),
            };
            let value = offset.tokens(&leaf);
            quote!(#k::OverlapCoord::fixed(#value, #bits))
        }
        affine::Coord::Mixed { terms, offset } => {
            let terms = terms.iter().map(|(p, coef)| {
                let (p, coef) = (*p as u8, coef.tokens(&leaf));
                quote!((#p, #coef))
            });
            let offset = offset.tokens(&leaf);
            quote!(#k::OverlapCoord::mixed(&[#(#terms),*], #offset))
        }
        affine::Coord::Any => quote!(#k::OverlapCoord::Any),
    }
}

/// The accesses the body's device code writes `at_proven` (`shadow::DeviceProven`), as
/// `.with_device_bounds(vec![...])` (nothing when there are none): a device launch that proves
/// every one within its View over its whole iteration box runs the entry where they skip their
/// checks.
pub(super) fn device_bounds_checks(
    found: &[(String, Vec<affine::Coord>, Vec<syn::Ident>)],
    calls: &[crate::host::ProvenCall],
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
) -> TokenStream {
    if found.is_empty() && calls.is_empty() {
        return quote!();
    }
    let k = quote!(::ferrokkos::__private);
    let each = found.iter().map(|(view, map, _)| {
        let cs = map.iter().map(|c| coord_tokens(c, analysis, fields));
        quote!(#k::InBounds { view: #view, map: ::std::vec![#(#cs),*] })
    });
    let b = syn::Ident::new("__fk_device_bounds", Span::mixed_site());
    let mutable = (!calls.is_empty()).then(|| quote!(mut));
    let calls = device_call_bounds(&b, calls, analysis, fields);
    quote!(.with_device_bounds({
        #[allow(clippy::all)]
        let #mutable #b = ::std::vec![#(#each),*];
        #(#calls)*
        #b
    }))
}

/// For each call of a `#[device]` function whose Views the body passes as `proven_view(u,
/// proves)`: its reads composed with the call's arguments, appended to `b` (none where `proves`,
/// the same test the shadow made, does not hold).
fn device_call_bounds(
    b: &syn::Ident,
    calls: &[crate::host::ProvenCall],
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
) -> Vec<TokenStream> {
    let k = quote!(::ferrokkos::__private);
    calls
        .iter()
        .map(|c| {
            let marker = &c.marker;
            let known = c.known();
            let views = c.views.iter().map(|v| match v {
                Some(v) => quote!(::core::option::Option::Some(#v)),
                None => quote!(::core::option::Option::None),
            });
            let args = c.args.iter().map(|a| coord_tokens(a, analysis, fields));
            quote!(#b.extend(#k::device_bounds(
                <#marker as #k::DeviceFunction>::ACCESSES,
                &[#(#known),*],
                &[#(#views),*],
                &[#(#args),*],
            ));)
        })
        .collect()
}

/// The accesses of the body's proven form, as `.with_bounds(vec![...])` (nothing when there are
/// none): each launch proves their maps within their Views before it runs that form. A call of a
/// `#[device]` function adds its reads composed with the call's arguments (`device_bounds`).
pub(super) fn bounds_checks(
    found: &[(String, Vec<affine::Coord>, Vec<syn::Ident>)],
    calls: &[crate::host::ProvenCall],
    analysis: &analyze::Analysis,
    fields: &[fields::FieldCapture],
) -> TokenStream {
    if found.is_empty() && calls.is_empty() {
        return quote!();
    }
    let k = quote!(::ferrokkos::__private);
    let each = found.iter().map(|(view, map, _)| {
        let cs = map.iter().map(|c| coord_tokens(c, analysis, fields));
        quote!(#k::InBounds { view: #view, map: ::std::vec![#(#cs),*] })
    });
    let b = syn::Ident::new("__fk_bounds", Span::mixed_site());
    let mutable = (!calls.is_empty()).then(|| quote!(mut));
    let calls = calls.iter().map(|c| {
        let marker = &c.marker;
        let known = c.known();
        let views = c.views.iter().map(|v| match v {
            Some(v) => quote!(::core::option::Option::Some(#v)),
            None => quote!(::core::option::Option::None),
        });
        let args = c.args.iter().map(|a| coord_tokens(a, analysis, fields));
        quote!(#b.extend(#k::device_bounds(
            <#marker as #k::DeviceFunction>::ACCESSES,
            &[#(#known),*],
            &[#(#views),*],
            &[#(#args),*],
        ));)
    });
    quote!(.with_bounds({
        #[allow(clippy::all)]
        let #mutable #b = ::std::vec![#(#each),*];
        #(#calls)*
        #b
    }))
}
