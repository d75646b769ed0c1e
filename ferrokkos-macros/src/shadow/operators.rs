//! The shadow of operators: binary and compound operators (with the checks that the operands
//! pair, at the user's right operand), assignments and unary operators.

use proc_macro2::{Ident, Span, TokenStream};
use quote::{format_ident, quote_spanned};
use syn::spanned::Spanned;
use syn::{BinOp, Expr, Lit, UnOp};

use super::{expr, known_type, s};
use crate::analyze::strip;

/// A binary operator; `&&` and `||` evaluate their right operand only when needed.
pub(super) fn binary(b: &syn::ExprBinary, span: Span) -> TokenStream {
    let s = s();
    let f = format_ident!("{}", binary_fn(&b.op), span = b.op.span());
    let l = expr(&b.left);
    let r = expr(&b.right);
    match b.op {
        BinOp::And(_) | BinOp::Or(_) => quote_spanned!(span=> #s::#f(#l, || #r)),
        // A shift's amount may have any integer type.
        BinOp::Shl(_) | BinOp::Shr(_) | BinOp::ShlAssign(_) | BinOp::ShrAssign(_) => {
            quote_spanned!(span=> #s::#f(#l, #r))
        }
        BinOp::Add(_)
        | BinOp::Sub(_)
        | BinOp::Mul(_)
        | BinOp::Div(_)
        | BinOp::Rem(_)
        | BinOp::AddAssign(_)
        | BinOp::SubAssign(_)
        | BinOp::MulAssign(_)
        | BinOp::DivAssign(_)
        | BinOp::RemAssign(_) => {
            let left = left_name();
            let r = operand(&b.left, &left, &b.right, r);
            quote_spanned!(span=> { let #left = #l; #s::#f(#left, #r) })
        }
        _ => {
            let left = left_name();
            let r = same_type(&left, &b.right, r);
            quote_spanned!(span=> { let #left = #l; #s::#f(#left, #r) })
        }
    }
}

/// An assignment: the value is checked to have the place's type.
pub(super) fn assign(a: &syn::ExprAssign, span: Span) -> TokenStream {
    let s = s();
    let l = expr(&a.left);
    let left = left_name();
    let r = same_type(&left, &a.right, expr(&a.right));
    quote_spanned!(span=> { let #left = #l; #s::assign(#left, #r) })
}

/// A unary operator: a negative literal stays a literal.
pub(super) fn unary(u: &syn::ExprUnary, span: Span) -> TokenStream {
    let s = s();
    match u.op {
        UnOp::Neg(_) => match strip(&u.expr) {
            Expr::Lit(l) if matches!(l.lit, Lit::Int(_) | Lit::Float(_)) => {
                quote_spanned!(span=> #s::lit(-#l))
            }
            inner => {
                let inner = expr(inner);
                quote_spanned!(span=> #s::neg(#inner))
            }
        },
        UnOp::Not(_) => {
            let inner = expr(&u.expr);
            quote_spanned!(span=> #s::not(#inner))
        }
        _ => {
            let inner = expr(&u.expr);
            quote_spanned!(span=> #s::deref(#inner))
        }
    }
}

fn binary_fn(op: &BinOp) -> &'static str {
    match op {
        BinOp::Add(_) => "add",
        BinOp::Sub(_) => "sub",
        BinOp::Mul(_) => "mul",
        BinOp::Div(_) => "div",
        BinOp::Rem(_) => "rem",
        BinOp::BitAnd(_) => "bitand",
        BinOp::BitOr(_) => "bitor",
        BinOp::BitXor(_) => "bitxor",
        BinOp::Shl(_) => "shl",
        BinOp::Shr(_) => "shr",
        BinOp::Eq(_) => "eq",
        BinOp::Ne(_) => "ne",
        BinOp::Lt(_) => "lt",
        BinOp::Le(_) => "le",
        BinOp::Gt(_) => "gt",
        BinOp::Ge(_) => "ge",
        BinOp::And(_) => "and",
        BinOp::Or(_) => "or",
        BinOp::AddAssign(_) => "add_assign",
        BinOp::SubAssign(_) => "sub_assign",
        BinOp::MulAssign(_) => "mul_assign",
        BinOp::DivAssign(_) => "div_assign",
        BinOp::RemAssign(_) => "rem_assign",
        BinOp::BitAndAssign(_) => "bitand_assign",
        BinOp::BitOrAssign(_) => "bitor_assign",
        BinOp::BitXorAssign(_) => "bitxor_assign",
        BinOp::ShlAssign(_) => "shl_assign",
        BinOp::ShrAssign(_) => "shr_assign",
        _ => "unsupported_operator",
    }
}

/// The shadow `r` of `right`, the right operand of a binary operator (or an argument of a built-in
/// method) whose left operand's shadow is bound to `left`, checked to have the left's type where
/// the user wrote it: a mismatch is reported at `right` in the user's terms (see the runtime's
/// `SameType`). Left unchecked when `right`'s type may come from the left operand
/// (`x.try_into().unwrap()`, a generic device function's result): the check, an obligation on
/// `right`'s type, would not carry the type over.
pub(super) fn same_type(left: &Ident, right: &Expr, r: TokenStream) -> TokenStream {
    if !known_type(right) {
        return r;
    }
    let s = s();
    quote_spanned!(right.span()=> <_ as #s::SameType<_>>::same(&#left, #r))
}

/// The shadow of `right`, the right operand (shadow `r`) of an arithmetic operator whose left
/// operand is `left_expr`, its shadow bound to `left`, checked where the user wrote it to pair with
/// the left's type: the same type, or a complex number and its real part type (the runtime's
/// `Operand`). Where one side's type may come from the other, the two have one type instead
/// (`like`; with [`same_type`]'s check where `right`'s type is known): `acc += x` with `acc` an
/// unannotated accumulator could be an `f64` or a `Complex<f64>` for an `f64` `x`, and Rust takes
/// the type from the operator.
fn operand(left_expr: &Expr, left: &Ident, right: &Expr, r: TokenStream) -> TokenStream {
    let s = s();
    if known_type(right) && known_type(left_expr) {
        return quote_spanned!(right.span()=> <_ as #s::Operand<_>>::operand(&#left, #r));
    }
    let r = same_type(left, right, r);
    quote_spanned!(right.span()=> #s::like(&#left, #r))
}

/// The left operand's shadow in a check of the right's type ([`same_type`]): a name the user's
/// code cannot see (mixed-site hygiene), so that the right operand's own names are never taken.
pub(super) fn left_name() -> Ident {
    Ident::new("__fk_left", Span::mixed_site())
}
