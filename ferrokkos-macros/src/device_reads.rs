//! The reads a `#[device]` function makes of its View parameters, as affine maps of its parameters
//! (`ferrokkos::kernel::device_bounds`): its `DeviceFunction::ACCESSES`, which a kernel's launch
//! composes with a call's arguments and proves in bounds.
//!
//! The list is given only when it is complete: every use of a View parameter's name in the body is
//! a read `u[index]` with an affine index or `u.extent(r)` (so no other use, such as passing the
//! View on, can read it), no parameter's name is bound again in the body or declared `mut` (so each
//! name in a map is the parameter's value as passed), and the body has no macro (whose expansion
//! the walk cannot see). A witness checks that each name the maps took for a parameter resolves to
//! it (as `kernel!` does for the iteration index).

use proc_macro2::TokenStream;
use quote::quote;
use syn::visit::{self, Visit};
use syn::{Expr, FnArg, Pat};

use crate::affine::{self, Coord};
use crate::analyze::ident_of;
use crate::device::ParamKind;

/// The function's `ACCESSES` value (`Some(&[...])` or `None`) and its witness (an item of the
/// marker's `impl`, or nothing).
pub fn accesses(f: &syn::ItemFn, kinds: &[ParamKind]) -> (TokenStream, TokenStream) {
    let k = quote!(::ferrokkos::__private);
    let params: Vec<String> = param_names(f);
    let views: Vec<String> = params
        .iter()
        .zip(kinds)
        .filter(|(_, k)| matches!(k, ParamKind::View { .. }))
        .map(|(n, _)| n.clone())
        .collect();
    let mut reads = Reads {
        params: &params,
        views: &views,
        found: Vec::new(),
        idents: Vec::new(),
        complete: params.len() == f.sig.inputs.len() && !any_mut(f),
    };
    reads.visit_block(&f.block);
    if !reads.complete {
        return (quote!(::core::option::Option::None), quote!());
    }
    let each = reads
        .found
        .iter()
        .map(|(view, map)| quote!(#k::DeviceAccess { view: #view, map: &[#(#map),*] }));
    let value = quote!(::core::option::Option::Some(&[#(#each),*]));
    let idents = &reads.idents;
    let witness = if idents.is_empty() {
        quote!()
    } else {
        let names = f.sig.inputs.iter().filter_map(|a| match a {
            FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(i) => Some(&i.ident),
                _ => None,
            },
            FnArg::Receiver(_) => None,
        });
        quote! {
            /// Each name the View reads' maps took for a parameter is that parameter.
            fn __fk_reads_witness() {
                let _ = |#(#names: #k::IterationIndex),*| {
                    #(#k::iteration_index(#idents);)*
                };
            }
        }
    };
    (value, witness)
}

/// Whether `e` calls a function, a method or a macro.
pub fn calls(e: &Expr) -> bool {
    struct Calls(bool);
    impl<'ast> Visit<'ast> for Calls {
        fn visit_expr(&mut self, e: &'ast Expr) {
            match e {
                Expr::Call(_) | Expr::MethodCall(_) | Expr::Macro(_) => self.0 = true,
                _ => visit::visit_expr(self, e),
            }
        }
    }
    let mut c = Calls(false);
    c.visit_expr(e);
    c.0
}

/// The parameters' names, in order.
fn param_names(f: &syn::ItemFn) -> Vec<String> {
    f.sig
        .inputs
        .iter()
        .filter_map(|a| match a {
            FnArg::Typed(t) => match &*t.pat {
                Pat::Ident(i) => Some(i.ident.to_string()),
                _ => None,
            },
            FnArg::Receiver(_) => None,
        })
        .collect()
}

/// Whether a parameter is declared `mut` (the body may change it).
fn any_mut(f: &syn::ItemFn) -> bool {
    f.sig.inputs.iter().any(|a| {
        matches!(a, FnArg::Typed(t) if matches!(&*t.pat, Pat::Ident(i) if i.mutability.is_some() || i.by_ref.is_some()))
    })
}

/// The walk over the body: the reads found, the identifiers their maps took for parameters, and
/// whether the list is complete so far.
struct Reads<'a> {
    params: &'a [String],
    views: &'a [String],
    found: Vec<(usize, Vec<TokenStream>)>,
    idents: Vec<syn::Ident>,
    complete: bool,
}

impl Reads<'_> {
    fn view_param(&self, e: &Expr) -> Option<usize> {
        let name = ident_of(e).filter(|n| self.views.contains(n))?;
        self.params.iter().position(|p| *p == name)
    }

    /// Records `u[index]` (the View parameter at `view`): complete only if every coordinate is a
    /// parameter times a literal plus a literal, or a literal.
    fn read(&mut self, view: usize, index: &Expr) {
        let k = quote!(::ferrokkos::__private);
        // An index that calls anything is not listed: a coordinate the affine walk sees through
        // (a subview range's marker) checks more than its map, and on the GPU, where the function
        // may read a proven View unchecked (`fk::ProvenView`), only the View's own check would
        // keep its failure from memory.
        if calls(index) {
            self.complete = false;
        }
        let mut map = Vec::new();
        for c in affine::coords(index, self.params, &|_| false) {
            match c {
                Coord::Param {
                    param,
                    coef,
                    offset,
                } if offset.terms.is_empty() => {
                    let (coef, offset) = (coef as i64, offset.literal as i64);
                    map.push(quote!(#k::DeviceCoord::Param { param: #param, coef: #coef, offset: #offset }));
                }
                Coord::Fixed(offset) if offset.terms.is_empty() => {
                    let value = offset.literal as i64;
                    map.push(quote!(#k::DeviceCoord::Fixed(#value)));
                }
                _ => self.complete = false,
            }
        }
        crate::host::param_idents(index, self.params, &mut self.idents);
        self.found.push((view, map));
    }
}

impl<'ast> Visit<'ast> for Reads<'_> {
    fn visit_expr(&mut self, e: &'ast Expr) {
        match e {
            Expr::Index(ix) if self.view_param(&ix.expr).is_some() => {
                let view = self.view_param(&ix.expr).expect("checked");
                self.read(view, &ix.index);
                self.visit_expr(&ix.index);
            }
            Expr::MethodCall(m)
                if m.method == "extent" && self.view_param(&m.receiver).is_some() =>
            {
                for a in &m.args {
                    self.visit_expr(a);
                }
            }
            _ => visit::visit_expr(self, e),
        }
    }

    /// A View parameter's name anywhere else: a use the list cannot describe.
    fn visit_expr_path(&mut self, p: &'ast syn::ExprPath) {
        if p.qself.is_none() && p.path.segments.len() == 1 {
            let name = p.path.segments[0].ident.to_string();
            if self.views.contains(&name) {
                self.complete = false;
            }
        }
        visit::visit_expr_path(self, p);
    }

    fn visit_pat_ident(&mut self, p: &'ast syn::PatIdent) {
        if self.params.contains(&p.ident.to_string()) {
            self.complete = false;
        }
        visit::visit_pat_ident(self, p);
    }

    fn visit_macro(&mut self, _: &'ast syn::Macro) {
        self.complete = false;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn listed(f: &str) -> String {
        let f: syn::ItemFn = syn::parse_str(f).expect("a function");
        let kinds = crate::device::signature(&f.sig, false)
            .expect("a signature")
            .kinds;
        accesses(&f, &kinds).0.to_string().replace(' ', "")
    }

    #[test]
    fn affine_reads_are_listed() {
        let l = listed(
            "fn lap(u: &View<f64, 2>, i: i64, j: i64) -> f64 { u[(i - 1, j)] + 4.0 * u[(i, j + 2)] }",
        );
        assert!(l.starts_with("::core::option::Option::Some"), "{l}");
        assert!(l.contains("param:1usize,coef:1i64,offset:-1i64"), "{l}");
        assert!(l.contains("param:2usize,coef:1i64,offset:2i64"), "{l}");
    }

    #[test]
    fn an_index_that_calls_anything_is_not_listed() {
        for body in [
            "u[__fk_subview_range(i, 2, 5, u.extent(0))]",
            "u[(i as usize).min(3)]",
            "u[f(i)]",
        ] {
            let l = listed(&format!(
                "fn g(u: &View<f64, 1>, i: usize) -> f64 {{ {body} }}"
            ));
            assert_eq!(l, "::core::option::Option::None", "{body}");
        }
    }
}
