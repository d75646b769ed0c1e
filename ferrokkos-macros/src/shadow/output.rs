//! The shadow of the output macros (see `format.rs`): `println!` and its siblings as one `printf`
//! of `ferrokkos::kernel::shadow::print`, `panic!` as a record of the message.

use std::cell::Cell;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;

use super::{expr, s};
use crate::format::{KernelMacro, MacroKind, Piece, Spec};

thread_local! {
    /// Whether a kernel's body (not a team kernel's, not a `#[device]` function's) is being
    /// translated: there a `panic!` ends the iteration (`return;`).
    static ENDS_ITERATION: Cell<bool> = const { Cell::new(false) };
}

/// Runs `f` (a translation) with `panic!` ending the iteration if `ends_iteration`.
pub fn with_iteration_end<R>(ends_iteration: bool, f: impl FnOnce() -> R) -> R {
    let before = ENDS_ITERATION.with(|c| c.replace(ends_iteration));
    let r = f();
    ENDS_ITERATION.with(|c| c.set(before));
    r
}

/// The shadow of an output macro's marker call: its arguments evaluated once, in order (as Rust
/// does), then the `printf` of the pieces; or the panic's record.
pub(super) fn call(m: &KernelMacro, span: Span) -> TokenStream {
    let s = s();
    if m.kind == MacroKind::Abort || (m.kind == MacroKind::Panic && m.args.is_empty()) {
        let text = m.text();
        let ends = ENDS_ITERATION.with(Cell::get);
        return quote_spanned!(span=> #s::kernel_panic(#text, #ends));
    }
    // The expansion's own names, located at the arguments (a type error points there).
    let names: Vec<syn::Ident> = m
        .args
        .iter()
        .enumerate()
        .map(|(k, a)| {
            let span = Span::mixed_site().located_at(a.span());
            syn::Ident::new(&format!("__fk_arg{k}"), span)
        })
        .collect();
    let values = m.args.iter().map(expr);
    let MacroKind::Print { stderr, newline } = m.kind else {
        return panic_args(m, &names, values.collect(), span);
    };
    let pieces = m.pieces.iter().map(|p| match p {
        Piece::Text(t) => quote!(#s::format_text(#t)),
        Piece::Arg(k, spec) => {
            let (name, arg_span) = (&names[*k], m.args[*k].span());
            let f = match spec.conversion {
                'e' | 'E' => quote!(print_exp),
                'x' | 'X' | 'o' => quote!(print_radix),
                _ => quote!(print_value),
            };
            let spec = spec_tokens(spec);
            quote_spanned!(arg_span=> #s::#f(#name, #spec))
        }
    });
    quote_spanned!(span=> {
        #(let #names = #values;)*
        #s::print(#stderr, #newline, [#(#pieces),*])
    })
}

/// `panic!` with arguments: the arguments evaluated once, in order, then the record of the
/// template and their values (`kernel_panic_args`; the host writes the message).
fn panic_args(
    m: &KernelMacro,
    names: &[syn::Ident],
    values: Vec<TokenStream>,
    span: Span,
) -> TokenStream {
    let s = s();
    let ends = ENDS_ITERATION.with(Cell::get);
    let pieces = m.pieces.iter().map(|p| match p {
        Piece::Text(t) => quote!(#s::panic_text(#t)),
        Piece::Arg(k, spec) => {
            let (name, arg_span) = (&names[*k], m.args[*k].span());
            let f = match spec.conversion {
                'e' | 'E' => quote!(panic_exp),
                'x' | 'X' | 'o' => quote!(panic_radix),
                _ => quote!(panic_value),
            };
            let spec = spec_tokens(spec);
            quote_spanned!(arg_span=> #s::#f(#name, #k, #spec))
        }
    });
    let args = names
        .iter()
        .map(|n| quote_spanned!(n.span()=> #s::panic_arg(#n)));
    quote_spanned!(span=> {
        #(let #names = #values;)*
        #s::kernel_panic_args([#(#pieces),*], [#(#args),*], #ends)
    })
}

/// A spec as the runtime's `FormatSpec`.
fn spec_tokens(spec: &Spec) -> TokenStream {
    let s = s();
    let align = spec.align.map_or(0u8, |c| c as u8);
    let (plus, zero, conversion) = (spec.plus, spec.zero, spec.conversion);
    let opt = |v: Option<u32>| match v {
        Some(v) => quote!(::core::option::Option::Some(#v)),
        None => quote!(::core::option::Option::None),
    };
    let (width, precision) = (opt(spec.width), opt(spec.precision));
    quote!(#s::FormatSpec {
        align: #align,
        plus: #plus,
        zero: #zero,
        width: #width,
        precision: #precision,
        conversion: #conversion,
    })
}
