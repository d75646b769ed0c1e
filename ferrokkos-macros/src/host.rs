//! The host body: the kernel as written, with View accesses turned into accessor calls.
//!
//! - A View the kernel only reads, and a captured array: `x[i]` -> `x.at(i)` (safe).
//! - A View the kernel writes: `y[i]` -> `y.at(i)`, `y[i] = v` -> `y.put(i, v)`. These accessor
//!   methods are `unsafe fn`s whose contract is the race rules. Outside the author's `unsafe { }`
//!   the analysis proved the rules for every such access (it is at the iteration index), so the
//!   expansion calls them in an `unsafe` block of its own, around the call only: the value is
//!   computed outside it. Inside the author's `unsafe { }` the calls are left bare, so the author's
//!   block (kept with the author's own tokens, hence seen by `#![forbid(unsafe_code)]`) is what
//!   allows them.
//! - An atomic View: `h.atomic_add(k, v)` stays as written (safe).

use std::collections::HashMap;

use proc_macro2::{Span, TokenStream};
use quote::{quote, quote_spanned};
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, parse_quote};

use crate::analyze::{ident_of, is_compound, strip};
use crate::race::Role;

struct Host<'a> {
    roles: &'a HashMap<String, Role>,
    /// How many of the author's `unsafe { }` blocks enclose the current expression.
    in_unsafe: usize,
}

impl Host<'_> {
    /// Whether `place` (`x[i]`, `y[i].a.b`) indexes a capture (a View or a captured array), whose
    /// accesses become accessor calls; a local array's stay as written.
    fn captured_element(&self, place: &Expr) -> bool {
        element_update_parts(place)
            .is_some_and(|(ix, _)| ident_of(&ix.expr).is_some_and(|n| self.roles.contains_key(&n)))
    }

    fn written(&self, base: &Expr) -> bool {
        ident_of(base).is_some_and(|n| self.roles.get(&n) == Some(&Role::Write))
    }

    /// `call` (a call of an `unsafe` accessor method), in an `unsafe` block of the expansion unless
    /// the author's `unsafe { }` encloses it.
    fn proven(&self, call: TokenStream) -> TokenStream {
        if self.in_unsafe > 0 {
            call
        } else {
            let s = Span::mixed_site();
            quote_spanned!(s=> unsafe { #call })
        }
    }
}

/// An identifier of the expansion that the kernel body cannot name.
fn private(name: &str) -> syn::Ident {
    syn::Ident::new(name, Span::mixed_site())
}

impl VisitMut for Host<'_> {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Assign(a)
                if matches!(strip(&a.left), Expr::Index(_)) && self.captured_element(&a.left) =>
            {
                let Expr::Index(mut ix) = strip(&a.left).clone() else {
                    unreachable!()
                };
                self.visit_expr_mut(&mut ix.index);
                self.visit_expr_mut(&mut a.right);
                let (base, idx, value) = (&ix.expr, &ix.index, &a.right);
                if self.written(base) {
                    let (i, v) = (private("__fk_index"), private("__fk_value"));
                    let put = self.proven(quote!(#base.put(#i, #v)));
                    // The author's expressions are evaluated outside the expansion's `unsafe`.
                    *e = parse_quote!({
                        let #v = #value;
                        let #i = #idx;
                        #put
                    });
                } else {
                    // Not a written View (the analysis allows indexed writes only to Views): the
                    // accessor then has no `put`, and rustc reports the type.
                    *e = parse_quote!(#base.put(#idx, #value));
                }
            }
            // `y[i] op= v`, `y[i].x = v`, `y[i].a.b op= v`: the element is read, updated as a local
            // and written back (the iteration owns it, so this is the same as updating it in place).
            Expr::Assign(_) | Expr::Binary(_)
                if element_update(e).is_some()
                    && match &*e {
                        Expr::Assign(a) => self.captured_element(&a.left),
                        Expr::Binary(b) => self.captured_element(&b.left),
                        _ => false,
                    } =>
            {
                let (left, op, mut value) = match e {
                    Expr::Assign(a) => (&*a.left, quote!(=), (*a.right).clone()),
                    Expr::Binary(b) => {
                        let op = &b.op;
                        (&*b.left, quote!(#op), (*b.right).clone())
                    }
                    _ => unreachable!(),
                };
                let (mut ix, path) = element_update_parts(left).expect("checked above");
                self.visit_expr_mut(&mut ix.index);
                self.visit_expr_mut(&mut value);
                let (base, idx) = (&ix.expr, &ix.index);
                let (i, v, el) = (
                    private("__fk_index"),
                    private("__fk_value"),
                    private("__fk_element"),
                );
                let at = self.proven(quote!(#base.at(#i)));
                let put = self.proven(quote!(#base.put(#i, #el)));
                // Rust evaluates the assigned value first (for compound assignments of primitives
                // too), then the place.
                *e = parse_quote!({
                    let #v = #value;
                    let #i = #idx;
                    let mut #el = #at;
                    #el #(.#path)* #op #v;
                    #put
                });
            }
            Expr::Index(ix) if self.captured_element(&Expr::Index(ix.clone())) => {
                self.visit_expr_mut(&mut ix.index);
                let (base, idx) = (&ix.expr, &ix.index);
                if self.written(base) {
                    let i = private("__fk_index");
                    let at = self.proven(quote!(#base.at(#i)));
                    *e = parse_quote!({
                        let #i = #idx;
                        #at
                    });
                } else {
                    *e = parse_quote!(#base.at(#idx));
                }
            }
            Expr::Unsafe(u) => {
                // The author's block, with the author's `unsafe` and braces (so that the
                // `unsafe_code` lint sees it), opened by a call of an `unsafe fn` that marks it: the
                // block is never reported as unused, whatever it holds.
                self.in_unsafe += 1;
                self.visit_block_mut(&mut u.block);
                self.in_unsafe -= 1;
                let mark: syn::Stmt = parse_quote!(::ferrokkos::__private::unsafe_block(););
                u.block.stmts.insert(0, mark);
            }
            Expr::Call(c) if !matches!(&*c.func, Expr::Path(p) if crate::analyze::is_device_call(&p.path)) =>
            {
                // A constructor, complex-number or associated function: values only.
                visit_mut::visit_expr_mut(self, e)
            }
            // A team kernel's `single(PerTeam(team), || ..)`: the runtime's function, as written.
            Expr::Call(c) if is_single(c) => visit_mut::visit_expr_mut(self, e),
            Expr::Call(c) => {
                // `&mut y[i]` (an element of a captured View): the element is read into a local
                // before the call, passed as `&mut`, and written back after it (C++ passes the
                // element itself by reference; nothing else in the call reaches `y`, so the two
                // agree). `&u` (a captured View): its accessor, which the body holds by reference.
                let mut before = Vec::new();
                let mut after = Vec::new();
                for (k, a) in c.args.iter_mut().enumerate() {
                    let Expr::Reference(r) = strip(a) else {
                        self.visit_expr_mut(a);
                        continue;
                    };
                    if r.mutability.is_none() {
                        if let Some(view) = ident_of(&r.expr)
                            && self.roles.contains_key(&view)
                        {
                            *a = (*r.expr).clone();
                        } else {
                            self.visit_expr_mut(a);
                        }
                        continue;
                    }
                    if !self.captured_element(&r.expr) {
                        self.visit_expr_mut(a);
                        continue;
                    }
                    let (mut ix, path) = element_update_parts(&r.expr).expect("checked above");
                    self.visit_expr_mut(&mut ix.index);
                    let (base, idx) = (&ix.expr, &ix.index);
                    let (i, el) = (
                        private(&format!("__fk_index{k}")),
                        private(&format!("__fk_element{k}")),
                    );
                    let at = self.proven(quote!(#base.at(#i)));
                    let put = self.proven(quote!(#base.put(#i, #el)));
                    before.push(quote!(let #i = #idx; let mut #el = #at;));
                    after.push(quote!(#put;));
                    *a = parse_quote!(&mut #el #(.#path)*);
                }
                // `f(a, b)` -> the `#[device]` marker's host form, after a check that the marker
                // is one (`DeviceFunction` is an `unsafe trait` that only `#[device]` implements).
                if let Expr::Path(p) = &*c.func {
                    let marker = crate::device::marker_path(&p.path);
                    let args = &c.args;
                    let result = private("__fk_result");
                    *e = parse_quote!({
                        ::ferrokkos::__private::device_function::<#marker>();
                        #(#before)*
                        let #result = #marker::host(#args);
                        #(#after)*
                        #result
                    });
                }
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// Whether `c` is `single(PerTeam(..), ..)` or `single(PerThread(..), ..)`.
fn is_single(c: &syn::ExprCall) -> bool {
    matches!(&*c.func, Expr::Path(p) if p.path.segments.last().is_some_and(|s| s.ident == "single"))
        && matches!(c.args.first().map(strip), Some(Expr::Call(s))
            if matches!(&*s.func, Expr::Path(p) if p.path.is_ident("PerTeam") || p.path.is_ident("PerThread")))
}

/// Whether `e` updates a View element or a field of one: `y[i] op= v`, `y[i].x = v`,
/// `y[i].a.b op= v` (a plain `y[i] = v` is not an update: it writes the element directly).
fn element_update(e: &Expr) -> Option<()> {
    match e {
        Expr::Assign(a) => {
            let (_, path) = element_update_parts(&a.left)?;
            (!path.is_empty()).then_some(())
        }
        Expr::Binary(b) if is_compound(&b.op) => element_update_parts(&b.left).map(|_| ()),
        _ => None,
    }
}

/// `y[i].a.b` as the element access `y[i]` and the field path `[a, b]`.
fn element_update_parts(e: &Expr) -> Option<(syn::ExprIndex, Vec<syn::Member>)> {
    match strip(e) {
        Expr::Index(ix) => Some((ix.clone(), Vec::new())),
        Expr::Field(f) => {
            let (ix, mut path) = element_update_parts(&f.base)?;
            path.push(f.member.clone());
            Some((ix, path))
        }
        _ => None,
    }
}

/// The host form of a kernel body; `roles` are the captured Views' roles.
pub fn body(e: &Expr, roles: &HashMap<String, Role>) -> TokenStream {
    let mut e = e.clone();
    ScratchLets.visit_expr_mut(&mut e);
    Host {
        roles,
        in_unsafe: 0,
    }
    .visit_expr_mut(&mut e);
    quote!(#e)
}

/// A team body's scratch View declarations, `let tile = team.team_scratch(0).view::<T, R>([..]);`,
/// become the runtime's kernel scratch Views (`kernel_scratch`), which nested ranges' closures
/// read and write through shared references (the analysis accepted them).
struct ScratchLets;

impl VisitMut for ScratchLets {
    fn visit_local_mut(&mut self, l: &mut syn::Local) {
        visit_mut::visit_local_mut(self, l);
        let Some(init) = &mut l.init else { return };
        let Expr::MethodCall(view) = strip(&init.expr) else {
            return;
        };
        let Expr::MethodCall(part) = strip(&view.receiver) else {
            return;
        };
        if view.method != "view"
            || !(part.method == "team_scratch" || part.method == "thread_scratch")
        {
            return;
        }
        let Some(generics) = view.turbofish.as_ref().map(|g| &g.args) else {
            return;
        };
        let (arena, args) = (&view.receiver, &view.args);
        *init.expr =
            parse_quote!(::ferrokkos::__private::kernel_scratch::<#generics>(#arena, #args));
    }
}
