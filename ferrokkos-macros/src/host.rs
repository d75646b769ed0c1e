//! The host body: the kernel as written, with View accesses turned into accessor calls
//! (`x[i]` -> `x.at(i)`, `y[i] = v` -> `y.put(i, v)`) and `unsafe { }` blocks made plain blocks
//! (nothing in them is unsafe on the host: the accessors are safe methods).

use quote::quote;
use syn::visit_mut::{self, VisitMut};
use syn::{Expr, parse_quote};

use crate::analyze::{is_compound, strip};

struct Host;

impl VisitMut for Host {
    fn visit_expr_mut(&mut self, e: &mut Expr) {
        match e {
            Expr::Assign(a) if matches!(strip(&a.left), Expr::Index(_)) => {
                let Expr::Index(mut ix) = strip(&a.left).clone() else {
                    unreachable!()
                };
                self.visit_expr_mut(&mut ix.index);
                self.visit_expr_mut(&mut a.right);
                let (base, idx, value) = (&ix.expr, &ix.index, &a.right);
                *e = parse_quote!(#base.put(#idx, #value));
            }
            Expr::Binary(b) if is_compound(&b.op) && matches!(strip(&b.left), Expr::Index(_)) => {
                let Expr::Index(mut ix) = strip(&b.left).clone() else {
                    unreachable!()
                };
                self.visit_expr_mut(&mut ix.index);
                self.visit_expr_mut(&mut b.right);
                let (base, idx, value, op) = (&ix.expr, &ix.index, &b.right, &b.op);
                *e = parse_quote!({
                    let __fk_index = #idx;
                    let __fk_value = #value;
                    let mut __fk_element = #base.at(__fk_index);
                    __fk_element #op __fk_value;
                    #base.put(__fk_index, __fk_element)
                });
            }
            Expr::Index(ix) => {
                self.visit_expr_mut(&mut ix.index);
                let (base, idx) = (&ix.expr, &ix.index);
                *e = parse_quote!(#base.at(#idx));
            }
            Expr::Unsafe(u) => {
                let mut block = u.block.clone();
                self.visit_block_mut(&mut block);
                *e = Expr::Block(syn::ExprBlock {
                    attrs: u.attrs.clone(),
                    label: None,
                    block,
                });
            }
            _ => visit_mut::visit_expr_mut(self, e),
        }
    }
}

/// The host form of a kernel body.
pub fn body(e: &Expr) -> proc_macro2::TokenStream {
    let mut e = e.clone();
    Host.visit_expr_mut(&mut e);
    quote!(#e)
}
