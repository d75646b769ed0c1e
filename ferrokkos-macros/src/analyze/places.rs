//! Places and accesses in a body: fields, `match` arm patterns, assignment targets, View and array
//! indexing, and the View accesses the race rules check.

use proc_macro2::{Span, TokenStream};
use quote::ToTokens;
use syn::spanned::Spanned;
use syn::{Expr, Pat, UnOp};

use super::{RefParam, Walker, binds, ident_of, pretty, strip, unsupported};
use crate::race::{Access, AccessKind};
use crate::subset;

impl Walker {
    /// `base.member`: a field of a struct value (a local, a View element) or of an accumulator
    /// (`best.val`, through `&mut`). Whether the field exists is rustc's check, in the typed shadow.
    pub(super) fn field(&mut self, f: &syn::ExprField) {
        if let Some(p) = ident_of(&f.base)
            && self.params.contains(&p)
        {
            if self.ref_params.get(&p) == Some(&RefParam::Mut) {
                return; // `cell.x`: a field of the element a `&mut` parameter refers to
            }
            self.dereferenced.insert(p);
        }
        self.expr(&f.base);
    }

    /// A `match` arm's pattern: literals, ranges, `|`, `_`, a name (bound to the value, optionally
    /// `n @ pattern`) and constants (`N`, `consts::LIMIT`).
    pub(super) fn arm_pattern(&mut self, p: &Pat) {
        match p {
            Pat::Lit(_) | Pat::Wild(_) => {}
            Pat::Range(r) => {
                for bound in [&r.start, &r.end].into_iter().flatten() {
                    self.expr(bound);
                }
            }
            Pat::Or(o) => {
                for case in &o.cases {
                    if binds(case) {
                        self.errors.push(unsupported(case, "a name bound in one case of `|`"));
                    }
                    self.arm_pattern(case);
                }
            }
            Pat::Paren(p) => self.arm_pattern(&p.pat),
            Pat::Ident(i) if i.by_ref.is_none() && i.mutability.is_none() => {
                let name = i.ident.to_string();
                let upper = name.starts_with(|c: char| c.is_ascii_uppercase());
                if upper && i.subpat.is_none() && self.is_local(&name) {
                    // Rust reads a name in a pattern as a constant only when it resolves to a
                    // constant item; a local or parameter of that name is shadowed by a new binding.
                    self.err(
                        i.ident.span(),
                        format!(
                            "`{name}` in this pattern binds a new variable to the matched value (a \
                             pattern names a constant only when `{name}` is a `const` item, and \
                             here it is a local or parameter of the kernel); compare with a guard \
                             instead: `k if k == {name} => ...`"
                        ),
                    );
                } else if upper && i.subpat.is_none() {
                    // A constant pattern, if `N` resolves to a constant item: the shadow writes its
                    // value through `const { N }`, which rustc refuses for anything else (a local
                    // would make this arm a binding in the host closure).
                    self.use_name(&name, i.ident.span());
                } else {
                    if let Some((_, sub)) = &i.subpat {
                        self.arm_pattern(sub);
                    }
                    self.bind(name, i.ident.span());
                }
            }
            Pat::Path(p) if p.qself.is_none() => {
                let segs: Vec<String> =
                    p.path.segments.iter().map(|s| s.ident.to_string()).collect();
                if !subset::is_constant_path(&segs)
                    && !subset::is_numeric_constant(&segs)
                    && !subset::is_variant_path(&segs)
                {
                    self.err(
                        p.span(),
                        format!(
                            "the pattern `{}` is not supported in a kernel; `match` patterns are \
                             literals, ranges, `|`, `_`, names, constants and enum variants",
                            pretty(p)
                        ),
                    );
                }
            }
            other => self.errors.push(unsupported(
                other,
                "this pattern (`match` patterns are literals, ranges, `|`, `_`, names and constants)",
            )),
        }
    }

    /// The target of `=` or `op=`.
    pub(super) fn place(&mut self, e: &Expr) {
        match strip(e) {
            Expr::Index(ix) => {
                self.index(&ix.expr, &ix.index, AccessKind::Write, e.to_token_stream())
            }
            Expr::Path(_) => {
                let name = ident_of(e).unwrap_or_default();
                if self.index_params.contains(&name) {
                    self.err(
                        e.span(),
                        format!("the iteration index `{name}` cannot be assigned"),
                    );
                } else if self.is_local(&name) {
                    self.team_local_assign(&name, e.span());
                } else if !self.is_local(&name) {
                    self.err(
                        e.span(),
                        format!(
                            "`{name}` is captured by the kernel, and captures are read-only copies; \
                             copy it into a local (`let mut v = {name};`) or write a View"
                        ),
                    );
                }
            }
            Expr::Unary(u) if matches!(u.op, UnOp::Deref(_)) => {
                if let Some(n) = ident_of(&u.expr) {
                    self.team_acc_update(&n, e.span());
                }
                self.expr(e)
            }
            // A field of an accumulator, or of a place: writing `y[i].x` writes the element `y[i]`,
            // writing `q.x` writes the local `q`.
            Expr::Field(f) => match ident_of(&f.base) {
                Some(p) if self.params.contains(&p) => {
                    self.team_acc_update(&p, e.span());
                    self.field(f)
                }
                _ => self.place(&f.base),
            },
            other => self
                .errors
                .push(unsupported(other, "assigning to this expression")),
        }
    }

    /// `view[index]` read or written (or an element of an array value).
    pub(super) fn index(
        &mut self,
        base: &Expr,
        index: &Expr,
        kind: AccessKind,
        tokens: TokenStream,
    ) {
        match ident_of(base) {
            Some(view) if self.ref_params.get(&view) == Some(&RefParam::Atomic) => {
                self.err_spanned(
                    &tokens,
                    super::calls::ref_param_misuse(&view, RefParam::Atomic),
                );
            }
            Some(view) if self.ref_params.get(&view) == Some(&RefParam::View) => {
                if kind != AccessKind::Read {
                    self.err_spanned(
                        &tokens,
                        format!(
                            "a device function only reads the Views it takes, so it cannot write \
                             `{view}`; take the element as `&mut T` (the kernel passes \
                             `&mut y[i]`) or write it in the kernel"
                        ),
                    );
                }
            }
            Some(view) if self.team.as_ref().is_some_and(|t| t.is_scratch(&view)) => {
                self.scratch_access(&view, index, kind, tokens);
            }
            Some(view) if !self.is_local(&view) => {
                self.view_access(&view, index, kind, tokens, base.span());
            }
            // An element of a value: a local array (`w[k]`), an array field (`q.pos[k]`), an
            // element's array (`p[i][k]`, `p[i].pos[k]`). Writing it writes the value it is part
            // of; whether the value is an array is rustc's check, in the typed shadow.
            _ => {
                self.array_index(index);
                match kind {
                    AccessKind::Read => self.expr(base),
                    _ => self.place(base),
                }
                return;
            }
        }
        self.index_expr(index);
    }

    /// The index of an array element: one integer (an array has one dimension).
    fn array_index(&mut self, index: &Expr) {
        if let Expr::Tuple(t) = strip(index) {
            self.err(
                t.span(),
                "an array has one dimension: index it with one integer (`w[k]`, `p[i][k]`)",
            );
        }
        self.index_expr(index);
    }

    pub(super) fn index_expr(&mut self, index: &Expr) {
        match strip(index) {
            Expr::Tuple(t) => {
                for e in &t.elems {
                    self.expr(e);
                }
            }
            e => self.expr(e),
        }
    }

    pub(super) fn view_access(
        &mut self,
        view: &str,
        index: &Expr,
        kind: AccessKind,
        tokens: TokenStream,
        name_span: Span,
    ) {
        self.views.insert(view.to_string());
        self.constants.remove(view);
        self.use_name(view, name_span);
        self.accesses.push((
            view.to_string(),
            Access {
                kind,
                index: index.clone(),
                in_unsafe: self.unsafe_depth > 0,
                tokens,
                team: self.team_access(index),
                held: crate::unique_token::held_coordinate(index),
            },
        ));
    }
}
