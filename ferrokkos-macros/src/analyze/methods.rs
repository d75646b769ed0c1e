//! Method calls in a body: a scratch View's `extent`, the atomics of captured Views, a View's
//! `extent` (an OffsetView's `begin` and `end`), and the methods of values (`x.sqrt()`, the methods of `#[device] impl` blocks).

use quote::ToTokens;
use syn::spanned::Spanned;

use super::{RefParam, Walker, ident_of, unsupported};
use crate::race::AccessKind;
use crate::subset;

/// An OffsetView's shape methods besides `extent` (`o.begin(r)`, `o.end(r)`): a use of the
/// captured View like `extent` (its shadow and host accessor implement them; on another capture
/// rustc reports the missing method).
const OFFSET_SHAPE: &[&str] = &["begin", "end"];

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
            && matches!(
                self.ref_params.get(&view),
                Some(RefParam::View | RefParam::Atomic)
            )
        {
            // A View parameter's extent.
        } else if (name == "extent" || (OFFSET_SHAPE.contains(&name.as_str()) && m.args.len() == 1))
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
            && self.ref_params.get(&view) == Some(&RefParam::Atomic)
        {
            // An atomic View parameter: every access atomic, so no race rule to check here.
            if m.args.len() != arity {
                return self.err(m.span(), atomic_form(name, arity));
            }
            let ordered = name.ends_with("_ord");
            let mut args = m.args.iter();
            if let Some(index) = args.next() {
                self.index_expr(index);
            }
            for a in args.take(arity - 1 - if ordered { 2 } else { 0 }) {
                self.expr(a);
            }
            if ordered {
                self.memory_order(m, name);
            }
            return;
        }
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
                let ordered = name.ends_with("_ord");
                let operands = arity - 1 - if ordered { 2 } else { 0 };
                for a in m.args.iter().skip(1).take(operands) {
                    self.expr(a);
                }
                if ordered {
                    self.memory_order(m, name);
                }
            }
            _ => self.err(m.span(), atomic_form(name, arity)),
        }
    }

    /// The memory order and scope of an `_ord` atomic: constant paths
    /// (`MemoryOrder::Acquire`, `ferrokkos::MemoryScope::Device`), the order one that applies to
    /// the operation (a load cannot release, a store cannot acquire).
    fn memory_order(&mut self, m: &syn::ExprMethodCall, name: &str) {
        let n = m.args.len();
        let order = &m.args[n - 2];
        let scope = &m.args[n - 1];
        match constant_variant(order, "MemoryOrder", subset::MEMORY_ORDERS) {
            Some(o) if name == "atomic_load_ord" && (o == "Release" || o == "AcqRel") => self.err(
                order.span(),
                format!("an atomic load cannot have `MemoryOrder::{o}` (it writes nothing to release); use `Relaxed`, `Acquire` or `SeqCst`"),
            ),
            Some(o) if name == "atomic_store_ord" && (o == "Acquire" || o == "AcqRel") => self.err(
                order.span(),
                format!("an atomic store cannot have `MemoryOrder::{o}` (it reads nothing to acquire); use `Relaxed`, `Release` or `SeqCst`"),
            ),
            Some(_) => {}
            None => self.err(
                order.span(),
                format!("the memory order of `{name}` is a constant the kernel names: `MemoryOrder::Relaxed`, `Acquire`, `Release`, `AcqRel` or `SeqCst`"),
            ),
        }
        if constant_variant(scope, "MemoryScope", subset::MEMORY_SCOPES).is_none() {
            self.err(
                scope.span(),
                format!("the memory scope of `{name}` is a constant the kernel names: `MemoryScope::Device` or `MemoryScope::System`"),
            );
        }
    }
}

/// The variant `e` names, when it is the path `[...::]ty::Variant` of one of `variants`.
fn constant_variant(e: &syn::Expr, ty: &str, variants: &[&str]) -> Option<String> {
    let syn::Expr::Path(p) = e else {
        return None;
    };
    let segs: Vec<String> = p
        .path
        .segments
        .iter()
        .map(|s| s.ident.to_string())
        .collect();
    match segs.as_slice() {
        [.., t, v] if t == ty && variants.contains(&v.as_str()) => Some(v.clone()),
        _ => None,
    }
}

/// The message for an atomic called with the wrong arguments: its form.
fn atomic_form(name: &str, arity: usize) -> String {
    let (base, ord) = match name.strip_suffix("_ord") {
        Some(b) => (b, ", order, scope"),
        None => (name, ""),
    };
    let n = if ord.is_empty() { arity } else { arity - 2 };
    let (form, what) = match n {
        1 => ("k", " and an index"),
        3 => (
            "k, expected, desired",
            ", an index, the expected value and the new value",
        ),
        _ => ("k, v", ", an index and a value"),
    };
    let ord_what = if ord.is_empty() {
        ""
    } else {
        ", then a memory order and a scope (`MemoryOrder::Relaxed`, `MemoryScope::Device`)"
    };
    format!(
        "`{name}` takes a captured View{what}{ord_what}: `h.{base}{}({form}{ord})`",
        if ord.is_empty() { "" } else { "_ord" }
    )
}
