//! Statements and `let` patterns of a kernel or device function body: locals, local arrays,
//! tuples of names, and the types a local may be declared with.

use syn::spanned::Spanned;
use syn::{Expr, Pat, Stmt};

use super::{Walker, pretty, strip, unsupported};
use crate::subset;

impl Walker {
    /// A statement: a `let` (of a scratch View, a local array, a tuple of names or a local) or an
    /// expression.
    pub(super) fn stmt(&mut self, s: &Stmt) {
        match s {
            Stmt::Local(l) => {
                if let Some(init) = &l.init
                    && init.diverge.is_none()
                    && self.scratch_decl(&l.pat, &init.expr)
                {
                    return;
                }
                if let Some(init) = &l.init {
                    if let Some((_, e)) = &init.diverge {
                        self.errors.push(unsupported(e, "`let ... else`"));
                    }
                    // `let (a, b) = (x, y);`: a tuple of names bound to a tuple of values.
                    if let (Pat::Tuple(p), Expr::Tuple(t)) = (&l.pat, strip(&init.expr)) {
                        self.tuple_local(l, p, t);
                        return;
                    }
                    self.expr(&init.expr);
                }
                // An immutable local of a team body: the race rules may see through it (its value
                // resolved before the name is bound: `let x = x + 1` is the outer `x`).
                let facts = l.init.as_ref().map(|init| self.team_let_facts(&init.expr));
                self.pattern(&l.pat);
                if let (Some(facts), Some(name)) = (facts, plain_immutable(&l.pat)) {
                    self.team_let_apply(&name, facts);
                }
            }
            Stmt::Expr(e, _) => self.expr(e),
            Stmt::Item(i) => self.errors.push(unsupported(i, "an item")),
            Stmt::Macro(m) => self.kernel_macro(&m.mac),
        }
    }

    /// An array literal: its elements (`[a, b, c]`, not empty), or its repeated element and a
    /// length that is a literal or a constant (`[0.0; N]`).
    pub(super) fn array_value(&mut self, init: &Expr) {
        match strip(init) {
            Expr::Array(a) => {
                if a.elems.is_empty() {
                    self.errors.push(unsupported(a, "an empty array"));
                }
                for e in &a.elems {
                    self.expr(e);
                }
            }
            Expr::Repeat(r) => {
                self.expr(&r.expr);
                if !constant_len(&r.len) {
                    self.errors.push(unsupported(
                        &r.len,
                        "an array length that is not a literal or a constant",
                    ));
                }
            }
            _ => unreachable!("matched above"),
        }
    }

    /// `let (a, b) = (x, y);`: a tuple of names bound to a tuple of values.
    fn tuple_local(&mut self, l: &syn::Local, p: &syn::PatTuple, t: &syn::ExprTuple) {
        if p.elems.len() != t.elems.len() {
            self.errors.push(unsupported(
                &l.pat,
                "a tuple pattern whose length differs from its value's",
            ));
        }
        for e in &t.elems {
            self.expr(e);
        }
        // Each immutable name is the value paired with it, for the team rules:
        // resolved before any name of the pattern is bound (`let (a, b) = (i, a)`
        // pairs `b` with the outer `a`).
        let facts: Vec<_> = t.elems.iter().map(|e| self.team_let_facts(e)).collect();
        for p in &p.elems {
            self.pattern(p);
        }
        for (p, f) in p.elems.iter().zip(facts) {
            if let Some(name) = plain_immutable(p) {
                self.team_let_apply(&name, f);
            }
        }
    }

    /// A `let` pattern: `x`, `mut x`, `x: T`, `mut x: T`.
    pub(super) fn pattern(&mut self, p: &Pat) {
        match p {
            Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() => {
                self.bind(i.ident.to_string(), i.ident.span());
                if i.mutability.is_some() {
                    self.team_bind(&i.ident.to_string(), i.ident.span(), true);
                }
            }
            Pat::Type(t) => {
                self.check_local_type(&t.ty);
                self.pattern(&t.pat)
            }
            Pat::Wild(_) => {}
            other => self.errors.push(unsupported(
                other,
                "this pattern (only `x`, `mut x`, `_`, and `(a, b)` bound to a tuple `(x, y)`)",
            )),
        }
    }

    /// A local's type: a device value named by a path (`f64`, `Vec2`, `Complex<f32>`) or an array
    /// of one with a literal or constant length (`[f64; 3]`, `[[f32; 2]; N]`); whether it is one
    /// is rustc's check, at the type.
    pub(super) fn check_local_type(&mut self, ty: &syn::Type) {
        if let syn::Type::Array(a) = ty
            && constant_len(&a.len)
        {
            return self.check_local_type(&a.elem);
        }
        if !matches!(ty, syn::Type::Path(p) if p.qself.is_none()) {
            let name = pretty(ty);
            self.err(
                ty.span(),
                format!(
                    "the type `{name}` is not supported in a kernel; locals hold device values \
                     (numbers, `bool`, `#[derive(DeviceValue)]` structs, `Complex`, arrays `[T; N]` \
                     of them with a literal or constant `N`)"
                ),
            );
        }
    }

    pub(super) fn check_type(&mut self, ty: &syn::Type) {
        let name = pretty(ty);
        if !subset::PRIMITIVES.contains(&name.as_str()) {
            self.err(
                ty.span(),
                format!("the type `{name}` is not supported in a kernel; use a primitive number type or `bool`"),
            );
        }
    }
}

/// Whether an array length is a literal or a constant (`3`, `N`, `consts::LEN`).
fn constant_len(len: &Expr) -> bool {
    match strip(len) {
        Expr::Lit(_) => true,
        Expr::Path(p) => p.path.segments.last().is_some_and(|s| {
            s.ident
                .to_string()
                .starts_with(|c: char| c.is_ascii_uppercase())
        }),
        _ => false,
    }
}

/// The name of an immutable local `x` or `x: T`.
fn plain_immutable(p: &Pat) -> Option<String> {
    match p {
        Pat::Ident(i) if i.by_ref.is_none() && i.subpat.is_none() && i.mutability.is_none() => {
            Some(i.ident.to_string())
        }
        Pat::Type(t) => plain_immutable(&t.pat),
        _ => None,
    }
}
