//! Arithmetic operators of the typed shadow: `+ - * / %` and their compound assignments.
//!
//! Rust's arithmetic takes two operands of one type, except num-complex's mixed arithmetic of a
//! complex number with a real of its part type (`z * 2.0`, `1.0 - z`, `z /= n`). So the operators
//! here take `Expr<L>` and `Expr<R>` with `R: Operand<L>`: the same type, or one of those pairs,
//! and give [`Operand::Output`]; the header's `complex.cuh` has the mixed C++ operators, with
//! num-complex's formulas. (Whether the type has the operator at all, `bool + bool`, is rustc's
//! check of the host closure, which is the same body.)
//!
//! A mismatch fails `Operand` at the user's right operand, in the user's terms. Where the macro
//! cannot see the right operand's type (`x.try_into().unwrap()`), [`like`] gives it the left's, as
//! an operator of one type would.

use super::super::builder::{self, prec};
use super::super::expr::{Expr, call, keep_type};
use super::super::ty::{DeviceScalar, Kind};
use super::is_int;
use num_complex::Complex;

operand_check! {
/// The right operand's type of an arithmetic operator whose left operand has the type `T`: `T`
/// itself, or the other side of num-complex's mixed arithmetic (a `Complex<f64>` and an `f64`, in
/// either order). A literal takes the only type its kind allows (`z * 2.0`: `f64`; `2.0 * x`:
/// `x`'s), and an operation on one type gives that type, as rustc's own arithmetic does.
pub trait Operand<T>: crate::seal::SealedOperand<T> {
    /// The type of the operation's result.
    type Output: DeviceScalar;

    /// `e`, the right operand of an operator whose left operand is `left`.
    fn operand(left: &Expr<T>, e: Expr<Self>) -> Rhs<T, Self::Output>
    where
        Self: Sized,
    {
        let _ = left;
        Rhs(e.retype(), std::marker::PhantomData)
    }
}
}

impl<T: DeviceScalar> Operand<T> for T {
    type Output = T;
}

/// The right operand of an arithmetic operator whose left operand has the type `L` and whose
/// result has the type `O`, checked by [`Operand::operand`] (or given the left's type by [`like`]).
/// The operator's C++ depends on `L` and `O` only; the operand's own type is checked here, so that
/// a mismatch is reported once, at the operand. Invariant: the expression is the operand as written
/// (a real operand of a complex operation keeps its real C++ type: the header's mixed operators
/// take it as it is), so it is only ever an operand of the operator, never declared or stored.
pub struct Rhs<L, O>(Expr<O>, std::marker::PhantomData<fn() -> L>);

macro_rules! mixed_operands {
    ($($t:ident)*) => {$(
        #[diagnostic::do_not_recommend]
        impl Operand<Complex<$t>> for $t {
            type Output = Complex<$t>;
        }
        #[diagnostic::do_not_recommend]
        impl Operand<$t> for Complex<$t> {
            type Output = Complex<$t>;
        }
    )*};
}

mixed_operands!(f32 f64);

/// The right operand `e` of an arithmetic operator whose type the macro cannot see, given the left
/// operand's type (Rust's operators on numbers do the same).
pub fn like<T>(_left: &Expr<T>, e: Expr<T>) -> Rhs<T, T> {
    Rhs(e, std::marker::PhantomData)
}

/// `a op b`: an integer helper of the header for integers (Rust's release semantics where C++'s
/// are undefined), C++'s operator otherwise (numbers of one type, and the complex operators).
fn binary<L: DeviceScalar, O: DeviceScalar>(
    a: Expr<L>,
    b: Rhs<L, O>,
    op: &str,
    p: u8,
    int: &str,
) -> Expr<O> {
    let b = b.0;
    if is_int::<L>() {
        call(int, &[a.text(), b.text()])
    } else {
        keep_type::<O>(format!("{} {op} {}", a.operand(p), b.operand(p - 1)), p)
    }
}

macro_rules! arithmetic {
    ($($(#[$doc:meta])* $f:ident: $op:literal, $p:expr, $int:literal;)*) => {$(
        $(#[$doc])*
        pub fn $f<L: DeviceScalar, O: DeviceScalar>(a: Expr<L>, b: Rhs<L, O>) -> Expr<O> {
            binary(a, b, $op, $p, $int)
        }
    )*};
}

arithmetic! {
    /// `a + b` (integers wrap, as in a Rust release build; C++'s signed overflow is undefined).
    add: "+", prec::ADD, "fk::wrapping_add";
    /// `a - b` (integers wrap).
    sub: "-", prec::ADD, "fk::wrapping_sub";
    /// `a * b` (integers wrap).
    mul: "*", prec::MUL, "fk::wrapping_mul";
    /// `a / b` (integers truncate toward zero, as in Rust; by zero or `MIN / -1`, where Rust panics,
    /// the device records a fault and gives 0).
    div: "/", prec::MUL, "fk::div";
}

/// The C++ function of `%` with a result of type `O`: `fmodf` / `fmod` for floats, otherwise the
/// header's `fk::rem` (integers: both truncate, so negative operands agree with Rust, and by zero
/// or `MIN % -1` a fault and 0; complex numbers, also with a real operand on either side:
/// num-complex's remainder).
fn rem_fn<O: DeviceScalar>() -> &'static str {
    match (O::KIND, O::CXX) {
        (Kind::Float, "f32") => "fmodf",
        (Kind::Float, _) => "fmod",
        _ => "fk::rem",
    }
}

/// `a % b`.
pub fn rem<L: DeviceScalar, O: DeviceScalar>(a: Expr<L>, b: Rhs<L, O>) -> Expr<O> {
    call(rem_fn::<O>(), &[a.text(), b.0.text()])
}

macro_rules! compound {
    ($($(#[$doc:meta])* $f:ident: $op:literal, $int:literal;)*) => {$(
        $(#[$doc])*
        pub fn $f<L: DeviceScalar, O: DeviceScalar>(place: Expr<L>, e: Rhs<L, O>) {
            let e = e.0;
            let p = place.text();
            if is_int::<L>() {
                builder::line(format!("{p} = {}({p}, {});", $int, e.text()));
            } else {
                builder::line(format!("{p} {} {};", $op, e.text()));
            }
        }
    )*};
}

compound! {
    /// `place += e;` (integers wrap).
    add_assign: "+=", "fk::wrapping_add";
    /// `place -= e;` (integers wrap).
    sub_assign: "-=", "fk::wrapping_sub";
    /// `place *= e;` (integers wrap).
    mul_assign: "*=", "fk::wrapping_mul";
    /// `place /= e;` (integers: as [`div`]).
    div_assign: "/=", "fk::div";
}

/// `place %= e;`.
pub fn rem_assign<L: DeviceScalar, O: DeviceScalar>(place: Expr<L>, e: Rhs<L, O>) {
    let e = e.0;
    let p = place.text();
    builder::line(format!("{p} = {}({p}, {});", rem_fn::<L>(), e.text()));
}
