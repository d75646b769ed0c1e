//! A subview's range of a dimension (`let row = subview(&a, (j, lo..hi));`): the coordinate of
//! `row[i]` in the View is the marker call `__fk_subview_range(i, lo, hi, a.extent(1))`, and
//! `row.extent(0)` is `__fk_subview_extent(lo, hi, a.extent(1))`. Every stage sees through the
//! marker: the race rules and the launch's bounds proof take the coordinate for `i + lo`
//! ([`crate::affine`]; its value whenever the check passes), the analysis walks its arguments as
//! values, and the host body and the shadow call the runtime's checked functions
//! (`ferrokkos::kernel::subview_range`), so the check that `i` lies within the range, and the
//! range within the dimension, stays in the checked and the proven host forms and in the device
//! code.

use proc_macro2::{Span, TokenStream};
use quote::{ToTokens, quote_spanned};
use syn::visit_mut::VisitMut;
use syn::{Expr, ExprCall};

const RANGE: &str = "__fk_subview_range";
const EXTENT: &str = "__fk_subview_extent";

/// Which marker a call is.
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum Marker {
    /// `__fk_subview_range(i, lo, hi, extent)`: a coordinate.
    Range,
    /// `__fk_subview_extent(lo, hi, extent)`: a range's length.
    Extent,
}

impl Marker {
    /// The runtime's function of the same name, under `ferrokkos::__private` (host) or its
    /// `shadow` module.
    pub fn function(self) -> &'static str {
        match self {
            Marker::Range => "subview_range",
            Marker::Extent => "subview_extent",
        }
    }
}

/// The View's coordinate for `i` in the range `lo..hi` of a dimension of `extent` elements.
pub fn coordinate(i: &Expr, lo: &Expr, hi: &Expr, extent: &Expr, span: Span) -> Expr {
    let f = syn::Ident::new(RANGE, span);
    syn::parse2(quote_spanned!(span=> #f(#i, #lo, #hi, #extent))).expect("a call")
}

/// The length of the range `lo..hi` of a dimension of `extent` elements.
pub fn extent(lo: &Expr, hi: &Expr, extent: &Expr, span: Span) -> Expr {
    let f = syn::Ident::new(EXTENT, span);
    syn::parse2(quote_spanned!(span=> #f(#lo, #hi, #extent))).expect("a call")
}

/// The marker `c` is, if it is one.
pub fn marker(c: &ExprCall) -> Option<Marker> {
    let Expr::Path(p) = &*c.func else { return None };
    match (p.path.get_ident()?.to_string().as_str(), c.args.len()) {
        (RANGE, 4) => Some(Marker::Range),
        (EXTENT, 3) => Some(Marker::Extent),
        _ => None,
    }
}

/// `(i, lo)` of a coordinate marker `e`: its value is `i + lo` wherever the check passes.
pub fn offset(e: &Expr) -> Option<(&Expr, &Expr)> {
    match e {
        Expr::Call(c) if marker(c) == Some(Marker::Range) => Some((&c.args[0], &c.args[1])),
        _ => None,
    }
}

/// The marker call `c` as a call of the runtime's function (the host body's form).
pub fn host(c: &mut ExprCall, marker: Marker) {
    let span = match &*c.func {
        Expr::Path(p) => p.path.segments[0].ident.span(),
        _ => Span::call_site(),
    };
    let f = syn::Ident::new(marker.function(), span);
    *c.func = syn::parse2(quote_spanned!(span=> ::ferrokkos::__private::#f)).expect("a path");
}

/// `tokens` with each marker as the arithmetic it stands for (`i + lo`, `hi - lo`), for messages
/// in the user's terms; as they are where they are no expression.
pub fn as_written(tokens: TokenStream) -> TokenStream {
    struct Written;
    impl VisitMut for Written {
        fn visit_expr_mut(&mut self, e: &mut Expr) {
            syn::visit_mut::visit_expr_mut(self, e);
            let Expr::Call(c) = e else { return };
            if let Some(w) = crate::unique_token::as_written(c) {
                *e = w;
                return;
            }
            let Some(m) = marker(c) else { return };
            let arg = |k: usize| match &c.args[k] {
                a @ Expr::Binary(_) => syn::parse_quote!((#a)),
                a => a.clone(),
            };
            let (a, b): (Expr, Expr) = match m {
                Marker::Range => (arg(0), arg(1)),
                Marker::Extent => (arg(1), arg(0)),
            };
            *e = match m {
                Marker::Range => syn::parse_quote!(#a + #b),
                Marker::Extent => syn::parse_quote!(#a - #b),
            };
        }
    }
    let text = tokens.to_string();
    if !text.contains("__fk_subview_") && !text.contains("__fk_token_") {
        return tokens;
    }
    match syn::parse2::<Expr>(tokens.clone()) {
        Ok(mut e) => {
            Written.visit_expr_mut(&mut e);
            e.to_token_stream()
        }
        Err(_) => tokens,
    }
}
