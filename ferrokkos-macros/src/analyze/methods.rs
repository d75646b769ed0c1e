//! Method calls in a body: a scratch View's `extent`, the atomics of captured Views, a View's
//! `extent`, and the methods of values (`x.sqrt()`, the methods of `#[device] impl` blocks).

use quote::ToTokens;
use syn::spanned::Spanned;

use super::{RefParam, Walker, ident_of, unsupported};
use crate::race::AccessKind;
use crate::subset;

impl Walker {
    /// `receiver.method(args)`. Names other than the atomics and `extent` are methods of values
    /// or of `#[device] impl` blocks: rustc finds them (or reports that the type has no such device
    /// method) in the typed shadow.
    pub(super) fn method_call(&mut self, m: &syn::ExprMethodCall) {
        let name = m.method.to_string();
        if m.turbofish.is_some() {
            self.errors.push(unsupported(m, "a turbofish"));
        }
        if let Some(view) = ident_of(&m.receiver)
            && self.team.as_ref().is_some_and(|t| t.is_scratch(&view))
        {
            self.scratch_method(m, &view, &name);
            return;
        }
        if let Some(arity) = subset::atomic_arity(&name) {
            self.atomic(m, &name, arity);
            return;
        }
        if name == "extent"
            && let Some(view) = ident_of(&m.receiver)
            && self.ref_params.get(&view) == Some(&RefParam::View)
        {
            // A View parameter's extent.
        } else if name == "extent"
            && let Some(view) = ident_of(&m.receiver)
            && !self.is_local(&view)
        {
            self.views.insert(view.clone());
            self.constants.remove(&view);
            self.use_name(&view, m.receiver.span());
        } else {
            self.expr(&m.receiver);
        }
        for a in &m.args {
            self.expr(a);
        }
    }

    /// A method of a scratch View: only `extent`.
    fn scratch_method(&mut self, m: &syn::ExprMethodCall, view: &str, name: &str) {
        if name == "extent" {
            for a in &m.args {
                self.expr(a);
            }
        } else {
            self.err(
                m.span(),
                format!(
                    "`{view}` is a scratch View: a kernel indexes it or asks its \
                     `extent`, but cannot call `{name}` on it (no atomics on scratch)"
                ),
            );
        }
    }

    /// An atomic on a captured View (`h.atomic_add(k, v)`), taking `arity` arguments.
    fn atomic(&mut self, m: &syn::ExprMethodCall, name: &str, arity: usize) {
        if let Some(view) = ident_of(&m.receiver)
            && self.ref_params.contains_key(&view)
        {
            self.err(
                m.span(),
                format!(
                    "a device function only reads the Views it takes, so it cannot \
                     `{name}` on `{view}`; make the atomic update in the kernel"
                ),
            );
            return;
        }
        match (ident_of(&m.receiver), m.args.first()) {
            (Some(view), Some(index)) if m.args.len() == arity => {
                self.view_access(
                    &view,
                    index,
                    AccessKind::Atomic,
                    m.to_token_stream(),
                    m.receiver.span(),
                );
                self.index_expr(index);
                for a in m.args.iter().skip(1) {
                    self.expr(a);
                }
            }
            _ => {
                let form = match arity {
                    1 => format!("h.{name}(k)"),
                    3 => format!("h.{name}(k, expected, desired)"),
                    _ => format!("h.{name}(k, v)"),
                };
                let what = match arity {
                    1 => " and an index",
                    3 => ", an index, the expected value and the new value",
                    _ => ", an index and a value",
                };
                self.err(
                    m.span(),
                    format!("`{name}` takes a captured View{what}: `{form}`"),
                )
            }
        }
    }
}
