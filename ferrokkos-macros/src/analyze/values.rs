//! Values and operators in a body: paths (locals, captures, constants, enum variants), binary and
//! compound operators, dereferences, casts and struct literals.

use syn::UnOp;
use syn::spanned::Spanned;

use super::{
    RefParam, Walker, ident_of, is_compound, path_ident, pretty, ref_param_misuse, unsupported,
};
use crate::subset;

impl Walker {
    /// A path: a local, a capture or a constant by name, or a constant or variant by path.
    pub(super) fn path_expr(&mut self, p: &syn::ExprPath) {
        if let Some(name) = path_ident(p) {
            if self.team_value_use(&name, p.span()) {
                return;
            }
            if self.team.as_ref().is_some_and(|t| t.is_scratch(&name)) {
                self.err(
                    p.span(),
                    format!(
                        "`{name}` is a scratch View here used as a value; a kernel reaches \
                         it only by indexing it (`{name}[i]`) or with `{name}.extent(r)`"
                    ),
                );
                return;
            }
            if let Some(kind) = self.ref_params.get(&name) {
                self.err(p.span(), ref_param_misuse(&name, *kind));
                return;
            }
            self.use_name(&name, p.span());
            if !self.is_local(&name) && !self.constants.contains(&name) {
                self.value_uses.push((name, p.span()));
            }
        } else {
            let segs: Vec<String> = p
                .path
                .segments
                .iter()
                .map(|s| s.ident.to_string())
                .collect();
            let plain = p.path.segments.iter().all(|s| s.arguments.is_none());
            if p.qself.is_some()
                || !plain
                || !(subset::is_numeric_constant(&segs)
                    || subset::is_constant_path(&segs)
                    || subset::is_variant_path(&segs))
            {
                self.err(
                    p.span(),
                    format!(
                        "the path `{}` is not supported in a kernel; paths name constants \
                         (`std::f64::consts::PI`, `i32::MAX`, `consts::CONDUCTIVITY`, \
                         `Grid::N`), written as UPPER_CASE names, and variants of \
                         `DeviceValue` enums (`Species::Ion`)",
                        pretty(p)
                    ),
                );
            }
        }
    }

    /// A binary operator; a compound assignment (`+=`) writes its left side.
    pub(super) fn binary(&mut self, b: &syn::ExprBinary) {
        if is_compound(&b.op) {
            self.place(&b.left);
        } else {
            self.expr(&b.left);
        }
        self.expr(&b.right);
    }

    /// A unary operator; `*p` dereferences an accumulator or a `&mut` parameter only.
    pub(super) fn unary(&mut self, u: &syn::ExprUnary) {
        if let UnOp::Deref(_) = u.op {
            if ident_of(&u.expr).is_some_and(|n| self.ref_params.get(&n) == Some(&RefParam::Mut)) {
                return; // `*cell`: the element a `&mut` parameter refers to
            }
            match ident_of(&u.expr) {
                Some(n) if self.params.contains(&n) && !self.index_params.contains(&n) => {
                    self.dereferenced.insert(n);
                }
                _ => self.err(
                    u.span(),
                    "only the accumulator parameters (`*acc`) may be dereferenced in a kernel",
                ),
            }
        }
        self.expr(&u.expr);
    }

    /// A struct literal naming every field (`Vec2 { x, y }`).
    pub(super) fn struct_literal(&mut self, st: &syn::ExprStruct) {
        if let Some(q) = &st.qself {
            self.errors
                .push(unsupported(&q.ty, "a qualified struct path"));
        }
        if let Some(rest) = &st.rest {
            self.errors.push(unsupported(
                rest,
                "struct update syntax (`..base`: name every field)",
            ));
        }
        for f in &st.fields {
            self.expr(&f.expr);
        }
    }
}
