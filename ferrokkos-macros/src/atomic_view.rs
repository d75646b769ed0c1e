//! Atomic Views in `kernel!` (Kokkos' `MemoryTraits<Atomic>`): a View the body writes other than
//! one to one with the iteration index is taken for an `AtomicView`, whose every access is atomic.
//! The body's accesses of it become atomic operations (`h[k] += v` → `h.atomic_add(k, v)`,
//! `h[k] = v` → `h.atomic_store(k, v)`, `h[k]` → `h.atomic_load(k)`), and the expansion requires
//! the captured value to be an atomic View, with the race rule's own message (at the access) when
//! it is a plain one.

use std::collections::HashSet;

use proc_macro2::TokenStream;
use quote::{quote, quote_spanned};
use syn::spanned::Spanned;
use syn::visit_mut::{self, VisitMut};
use syn::{BinOp, Expr};

use crate::analyze::ident_of;

/// Rewrites the accesses of the Views `names` in `body` into atomic operations: every compound
/// assignment has one (`*=` is `atomic_mul`, `<<=` is `atomic_lshift`, ...; the element type's
/// bounds decide which exist).
pub fn rewrite(body: &mut Expr, names: &HashSet<String>) {
    Rewrite { names }.visit_expr_mut(body);
}

struct Rewrite<'a> {
    names: &'a HashSet<String>,
}

impl Rewrite<'_> {
    /// `(view, index)` when `e` is `view[index]` of one of the names.
    fn target(&self, e: &Expr) -> Option<(Expr, Expr)> {
        match e {
            Expr::Index(i) => {
                let name = ident_of(&i.expr)?;
                self.names
                    .contains(&name)
                    .then(|| ((*i.expr).clone(), (*i.index).clone()))
            }
            Expr::Paren(p) => self.target(&p.expr),
            _ => None,
        }
    }
}

impl Rewrite<'_> {
    /// Whether `e` is a part of an element of one of the names (`h[k][j]`, `h[k].x`), which has no
    /// atomic form: such a write stays as written, for the race rule's message.
    fn part_of_element(&self, e: &Expr) -> bool {
        let inner = match e {
            Expr::Index(i) => &i.expr,
            Expr::Field(f) => &f.base,
            Expr::Paren(p) => return self.part_of_element(&p.expr),
            _ => return false,
        };
        self.target(inner).is_some() || self.part_of_element(inner)
    }
}

impl VisitMut for Rewrite<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        let span = e.span();
        match e {
            Expr::Assign(a) if self.part_of_element(&a.left) => {
                return self.visit_expr_mut(&mut a.right);
            }
            Expr::Binary(b) if self.part_of_element(&b.left) => {
                return self.visit_expr_mut(&mut b.right);
            }
            Expr::Assign(a) => {
                if let Some((view, mut index)) = self.target(&a.left) {
                    self.visit_expr_mut(&mut index);
                    let mut value = (*a.right).clone();
                    self.visit_expr_mut(&mut value);
                    *e = syn::parse2(quote_spanned!(span=> #view.atomic_store(#index, #value)))
                        .expect("a method call");
                    return;
                }
            }
            Expr::Binary(b) => {
                let op = match b.op {
                    BinOp::AddAssign(_) => "atomic_add",
                    BinOp::SubAssign(_) => "atomic_sub",
                    BinOp::BitAndAssign(_) => "atomic_and",
                    BinOp::BitOrAssign(_) => "atomic_or",
                    BinOp::BitXorAssign(_) => "atomic_xor",
                    BinOp::MulAssign(_) => "atomic_mul",
                    BinOp::DivAssign(_) => "atomic_div",
                    BinOp::RemAssign(_) => "atomic_mod",
                    BinOp::ShlAssign(_) => "atomic_lshift",
                    BinOp::ShrAssign(_) => "atomic_rshift",
                    _ => {
                        visit_mut::visit_expr_mut(self, e);
                        return;
                    }
                };
                if let Some((view, mut index)) = self.target(&b.left) {
                    self.visit_expr_mut(&mut index);
                    let mut value = (*b.right).clone();
                    self.visit_expr_mut(&mut value);
                    let method = syn::Ident::new(op, span);
                    *e = syn::parse2(quote_spanned!(span=> #view.#method(#index, #value)))
                        .expect("a method call");
                    return;
                }
            }
            Expr::Index(_) => {
                if let Some((view, mut index)) = self.target(e) {
                    self.visit_expr_mut(&mut index);
                    *e = syn::parse2(quote_spanned!(span=> #view.atomic_load(#index)))
                        .expect("a method call");
                    return;
                }
            }
            _ => {}
        }
        visit_mut::visit_expr_mut(self, e);
    }
}

/// The check that the capture `value` (its expression, `&s` or `&c.s`) is a plain View, not an
/// atomic one, failing at `span` with `error`'s message (a rank-0 write, which the launch allows
/// a plain View in a launch of one iteration).
pub fn require_plain(
    value: &TokenStream,
    span: proc_macro2::Span,
    error: &syn::Error,
) -> TokenStream {
    let k = quote!(::ferrokkos::__private);
    let message = error.to_string().replace('{', "{{").replace('}', "}}");
    let call = quote_spanned!(span=> __fk_plain_only(#value));
    quote! {
        {
            #[diagnostic::on_unimplemented(
                message = #message,
                label = "an atomic View: every access of it is atomic",
                note = "a plain View's one element may be written from a launch of one iteration"
            )]
            trait __FkPlainOnly {}
            #[diagnostic::do_not_recommend]
            impl<T: ?Sized + #k::PlainMemory> __FkPlainOnly for T {}
            fn __fk_plain_only<T: ?Sized + __FkPlainOnly>(_: &T) {}
            #call;
        }
    }
}

/// The check that the capture `value` (its expression, `&h` or `&c.h`) is an atomic View, failing
/// at `span` (the View's name where the body first uses it) with `error`'s message.
pub fn require(value: &TokenStream, span: proc_macro2::Span, error: &syn::Error) -> TokenStream {
    let k = quote!(::ferrokkos::__private);
    // Braces are the attribute's placeholders: the message's own are doubled.
    let message = error.to_string().replace('{', "{{").replace('}', "}}");
    let call = quote_spanned!(span=> __fk_atomic_only(#value));
    quote! {
        {
            #[diagnostic::on_unimplemented(
                message = #message,
                label = "a plain View: written here other than one to one",
                note = "an atomic View (`View::atomic`) may be written at any index: each of its accesses is atomic"
            )]
            trait __FkAtomicOnly {}
            impl<T: ?Sized + #k::AtomicMemory> __FkAtomicOnly for T {}
            fn __fk_atomic_only<T: ?Sized + __FkAtomicOnly>(_: &T) {}
            #call;
        }
    }
}
