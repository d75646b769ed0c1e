//! The builder calls that `kernel!` and `#[device]` generate: the typed shadow's vocabulary.
//!
//! Every operator of a kernel body becomes a call here whose signature carries the Rust types
//! (`add<T: Add<Output = T>>(Expr<T>, Expr<T>) -> Expr<T>`: Rust's primitive arithmetic takes two
//! operands of one type and gives that type, and so does its inference), so rustc infers every
//! literal and local exactly as in the host closure, and each call appends C++ with explicit types. These
//! functions are public for the generated code only.

use std::ops;

use super::builder::{self, prec};
use super::expr::{Expr, call, keep_type};
use super::ty::{DeviceScalar, Kind};
use super::value::{DeviceEnum, DeviceEq, DeviceValue};

/// The trait item it is given (a check that an operand has the type `T`, its parameter), with the
/// diagnostic of a mismatch: one text for [`SameType`] and `arith::Operand`.
macro_rules! operand_check {
    ($item:item) => {
        #[diagnostic::on_unimplemented(
            message = "mismatched types in a kernel: `{Self}` where `{T}` is expected",
            label = "expected `{T}`, found `{Self}`",
            note = "Rust does not mix number types in an operation, an assignment or a call; \
                    convert with `as` (kernel indices are `usize` for a RangePolicy and `i64` for an \
                    MDRangePolicy, unless the kernel annotates them, as in \
                    `|(i, j): (usize, usize)|`)"
        )]
        $item
    };
}

mod arith;
mod bitset;
pub mod builtin_named;
mod call;
mod control;
mod panic;
mod print;
pub mod team;
mod token;

pub use super::array::{array_of, array_repeat};
pub use super::complex::{ComplexPart, complex_from_polar, complex_new};
pub use super::device_fn::{device_assoc, device_method};
pub use super::subview_range::{
    subview_extent_shadow as subview_extent, subview_range_shadow as subview_range,
};
pub use super::view_expr::{DeviceIndex, OffsetExpr, ViewExpr};
pub use arith::{
    Operand, Rhs, add, add_assign, div, div_assign, like, mul, mul_assign, rem, rem_assign, sub,
    sub_assign,
};
pub use bitset::{BitsetCxx, BitsetShadow};
pub use call::{
    AtomicParam, ConstLen, DeviceParams, FnParam, FnReturn, IntoAtomicParam, Place, Statement,
    checked, construct, device_call, device_fn_call, field, field_value, mut_ref, pop_receiver,
    proven_view, receiver, split2, split3, split4, split5, split6, stmt,
};
pub use control::{
    Branch, DeviceInt, RangeShape, break_, break_to, continue_, continue_to, for_range, if_,
    if_else, labeled, loop_, return_unit, return_value, while_,
};
pub use panic::{
    PanicArg, PanicPiece, kernel_panic, kernel_panic_args, panic_arg, panic_exp, panic_radix,
    panic_text, panic_value,
};
pub use print::{
    DevicePrint, DevicePrintFloat, FormatPiece, FormatSpec, format_text, print, print_exp,
    print_radix, print_value,
};
pub use team::TeamShadow;
pub use token::{
    TokenIdShadow, TokenScope, TokenShadow, token_acquire, token_held, token_release, token_scope,
    token_size, token_value,
};

/// A literal: `lit(2.0)` has the type rustc infers for `2.0` in the same place of the host closure.
pub fn lit<T: DeviceScalar>(value: T) -> Expr<T> {
    let text = value.literal();
    let p = if text.starts_with('-') {
        prec::UNARY
    } else {
        prec::PRIMARY
    };
    Expr::new(text, p)
}

operand_check! {
/// The right operand of a binary operator, an assignment or a built-in method, checked to have
/// the type `T` of the left one: `kernel!` writes `{ let l = a; add(l, SameType::same(&l, b)) }`
/// for `a + b`. Rust's arithmetic, comparisons and assignments take two operands of one type, and
/// the host closure already reports a mismatch; this makes the shadow's own report of it speak the
/// user's terms at the user's operand (a mismatch at `add`'s arguments would name `Expr` and point
/// into this file). Each type is `SameType` of itself only, so the one implementation still carries
/// a type from either side to the other (a literal takes the other operand's type; a reduction's
/// accumulator takes the type of what is added to it).
pub trait SameType<T>: crate::seal::SealedSameType<T> {
    /// `e`, of the type of `left`.
    fn same(left: &Expr<T>, e: Expr<Self>) -> Expr<T>
    where
        Self: Sized;

    /// `e`, of the type `T` that a `let` names.
    fn same_as(e: Expr<Self>) -> Expr<T>
    where
        Self: Sized;
}
}

impl<T: DeviceScalar> Expr<T> {
    /// `e`, checked to have this number's type (the argument of a built-in method whose parameters
    /// have the receiver's type: `x.min(y)`).
    #[doc(hidden)]
    pub fn __fk_same<A>(&self, e: Expr<A>) -> Expr<T>
    where
        A: SameType<T>,
    {
        A::same(self, e)
    }
}

impl<T> SameType<T> for T {
    fn same(_left: &Expr<T>, e: Expr<T>) -> Expr<T> {
        e
    }

    fn same_as(e: Expr<T>) -> Expr<T> {
        e
    }
}

/// A `#[device]` function's parameter of type `Self` takes an argument of type `A`: only `A =
/// Self`. The function's checked shadow takes `Expr<A>` and asks `Self: Takes<A>`, so that a
/// mismatch is reported at the argument in the user's terms instead of as one of `Expr`s; a
/// literal argument takes the parameter's type. (A kernel passes an argument whose type may be open,
/// `x.try_into().unwrap()`, to the unchecked shadow instead, whose parameter gives it its type.)
#[diagnostic::on_unimplemented(
    message = "mismatched types in a kernel: the argument is `{A}`, the parameter `{Self}`",
    label = "expected `{Self}`, found `{A}`",
    note = "a `#[device]` function takes its parameters' own types, as any Rust function: convert \
            the argument with `as {Self}`"
)]
pub trait Takes<A>: crate::seal::SealedTakes<A> {
    /// The argument `a` as the parameter's type.
    fn take(a: Expr<A>) -> Expr<Self>
    where
        Self: Sized;
}

impl<T> crate::seal::SealedTakes<T> for T {}
impl<T> crate::seal::SealedTakes<Unconverted<T>> for T {}

impl<T> Takes<T> for T {
    fn take(a: Expr<T>) -> Expr<T> {
        a
    }
}

/// Never built: its `Takes` implementation makes `P: Takes<?>` ambiguous until the argument's type
/// is known, so that rustc checks the pair (and reports `Takes`'s message) instead of giving the
/// argument the parameter's type (and reporting a mismatch of `Expr`s).
pub struct Unconverted<T>(std::marker::PhantomData<fn() -> T>);

impl<T> Takes<Unconverted<T>> for T {
    fn take(a: Expr<Unconverted<T>>) -> Expr<T> {
        a.retype()
    }
}

/// Marks the following statements as coming from Rust line `line` of `file` (a `#line` directive).
pub fn source(line: u32, file: &'static str) {
    builder::source(line, file)
}

/// Whether `T` is an integer type (its arithmetic goes through the header's helpers, which give
/// Rust's release semantics where C++ has undefined behaviour).
fn is_int<T: DeviceScalar>() -> bool {
    matches!(T::KIND, Kind::Signed | Kind::Unsigned)
}

macro_rules! bitwise {
    ($($(#[$doc:meta])* $f:ident: $tr:ident, $op:literal, $p:expr;)*) => {$(
        $(#[$doc])*
        pub fn $f<T>(a: Expr<T>, b: Expr<T>) -> Expr<T>
        where
            T: DeviceScalar + ops::$tr<T, Output = T>,
        {
            keep_type::<T>(format!("{} {} {}", a.operand($p), $op, b.operand($p - 1)), $p)
        }
    )*};
}

bitwise! {
    /// `a & b`.
    bitand: BitAnd, "&", prec::BITAND;
    /// `a | b`.
    bitor: BitOr, "|", prec::BITOR;
    /// `a ^ b`.
    bitxor: BitXor, "^", prec::XOR;
}

/// `a << b`, masked by the bit width as Rust does in release builds.
pub fn shl<A, B>(a: Expr<A>, b: Expr<B>) -> Expr<A::Output>
where
    A: DeviceScalar + ops::Shl<B>,
    B: DeviceScalar,
    A::Output: DeviceScalar,
{
    call("fk::shl", &[a.text(), b.text()])
}

/// `a >> b` (arithmetic for signed types), masked by the bit width.
pub fn shr<A, B>(a: Expr<A>, b: Expr<B>) -> Expr<A::Output>
where
    A: DeviceScalar + ops::Shr<B>,
    B: DeviceScalar,
    A::Output: DeviceScalar,
{
    call("fk::shr", &[a.text(), b.text()])
}

macro_rules! compare {
    ($($(#[$doc:meta])* $f:ident: $tr:ident, $op:literal, $p:expr;)*) => {$(
        $(#[$doc])*
        pub fn $f<T>(a: Expr<T>, b: Expr<T>) -> Expr<bool>
        where
            T: DeviceScalar + $tr<T>,
        {
            Expr::new(format!("{} {} {}", a.operand($p), $op, b.operand($p - 1)), $p)
        }
    )*};
}

/// `a == b` (numbers, `bool`, complex numbers, derived enums).
pub fn eq<T: DeviceEq + PartialEq>(a: Expr<T>, b: Expr<T>) -> Expr<bool> {
    let p = prec::EQ;
    Expr::new(format!("{} == {}", a.operand(p), b.operand(p - 1)), p)
}

/// `a != b`.
pub fn ne<T: DeviceEq + PartialEq>(a: Expr<T>, b: Expr<T>) -> Expr<bool> {
    let p = prec::EQ;
    Expr::new(format!("{} != {}", a.operand(p), b.operand(p - 1)), p)
}

/// A variant of a derived enum (`Species::Ion`): its discriminant.
pub fn variant<E: DeviceEnum>(v: E) -> Expr<E> {
    let text = v.discriminant();
    let p = if text.starts_with('-') {
        prec::UNARY
    } else {
        prec::PRIMARY
    };
    Expr::new(text, p)
}

compare! {
    /// `a < b`.
    lt: PartialOrd, "<", prec::REL;
    /// `a <= b`.
    le: PartialOrd, "<=", prec::REL;
    /// `a > b`.
    gt: PartialOrd, ">", prec::REL;
    /// `a >= b`.
    ge: PartialOrd, ">=", prec::REL;
}

/// `a && b`, `b` evaluated only when `a` holds (also when `b` needs statements).
pub fn and(a: Expr<bool>, b: impl FnOnce() -> Expr<bool>) -> Expr<bool> {
    lazy_logic(a, b, "&&", prec::AND, "")
}

/// `a || b`, `b` evaluated only when `a` does not hold.
pub fn or(a: Expr<bool>, b: impl FnOnce() -> Expr<bool>) -> Expr<bool> {
    lazy_logic(a, b, "||", prec::OR, "!")
}

fn lazy_logic(
    a: Expr<bool>,
    b: impl FnOnce() -> Expr<bool>,
    op: &str,
    p: u8,
    negate: &str,
) -> Expr<bool> {
    let (lines, b) = builder::capture(b);
    if !builder::has_code(&lines) {
        builder::splice(lines);
        return Expr::new(format!("{} {op} {}", a.operand(p), b.operand(p - 1)), p);
    }
    let t = builder::fresh_temp("fk_cond");
    builder::line(format!("bool {t} = {};", a.text()));
    builder::line(format!("if ({negate}{t}) {{"));
    builder::indent(1);
    builder::splice(lines);
    builder::line(format!("{t} = {};", b.text()));
    builder::indent(-1);
    builder::line("}");
    Expr::name(&t)
}

/// `-a` (integers wrap: `-MIN` is MIN).
pub fn neg<T: DeviceScalar + ops::Neg<Output = T>>(a: Expr<T>) -> Expr<T> {
    if is_int::<T>() {
        call("fk::wrapping_neg", &[a.text()])
    } else {
        keep_type::<T>(format!("-{}", a.operand(prec::UNARY)), prec::UNARY)
    }
}

/// `!a`: logical for `bool`, bitwise (`~`) for integers.
pub fn not<T: DeviceScalar + ops::Not<Output = T>>(a: Expr<T>) -> Expr<T> {
    if T::KIND == Kind::Bool {
        Expr::new(format!("!{}", a.operand(prec::UNARY)), prec::UNARY)
    } else {
        keep_type::<T>(format!("~{}", a.operand(prec::UNARY)), prec::UNARY)
    }
}

/// The pairs of types Rust's `as` converts between (numbers to numbers, `bool` to integers, and a
/// derived fieldless enum to integers, which `#[derive(DeviceValue)]` implements). `To` is a
/// [`DeviceScalar`] (sealed).
pub trait AsCast<To: DeviceScalar> {
    /// How the conversion is written in C++.
    #[doc(hidden)]
    const HOW: CastKind;
}

/// How an `as` conversion is written in C++ (see [`AsCast`]).
#[doc(hidden)]
#[derive(Clone, Copy, PartialEq, Eq)]
pub enum CastKind {
    /// To the same C++ type: nothing to write.
    Same,
    /// Float to integer: `fk::cast<To>(e)` (saturating, NaN gives 0).
    Saturating,
    /// `To(e)` (C++'s conversion is Rust's: integers wrap, floats round).
    Plain,
}

/// `a == b` for type names, in constants.
const fn same_name(a: &str, b: &str) -> bool {
    let (a, b) = (a.as_bytes(), b.as_bytes());
    if a.len() != b.len() {
        return false;
    }
    let mut k = 0;
    while k < a.len() {
        if a[k] != b[k] {
            return false;
        }
        k += 1;
    }
    true
}

/// How a number of type `From` converts to `To`.
const fn cast_kind<From: DeviceScalar, To: DeviceScalar>() -> CastKind {
    if same_name(From::CXX, To::CXX) {
        CastKind::Same
    } else if matches!(From::KIND, Kind::Float) && !matches!(To::KIND, Kind::Float) {
        CastKind::Saturating
    } else {
        CastKind::Plain
    }
}

macro_rules! as_cast {
    ($($from:ident)*) => {$( as_cast!(@to $from: i8 i16 i32 i64 isize u8 u16 u32 u64 usize f32 f64); )*};
    (@to $from:ident: $($to:ident)*) => {$(
        impl AsCast<$to> for $from {
            const HOW: CastKind = cast_kind::<$from, $to>();
        }
    )*};
}

as_cast!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize f32 f64);

macro_rules! bool_cast {
    ($($to:ident)*) => {$(
        impl AsCast<$to> for bool {
            const HOW: CastKind = cast_kind::<bool, $to>();
        }
    )*};
}

bool_cast!(bool i8 i16 i32 i64 isize u8 u16 u32 u64 usize);

/// `e as To`, with Rust's semantics: float-to-integer saturates (NaN gives 0), integer narrowing
/// wraps, an enum gives its discriminant.
pub fn cast<To: DeviceScalar, From: AsCast<To>>(e: Expr<From>) -> Expr<To> {
    match From::HOW {
        CastKind::Same => e.retype(),
        CastKind::Saturating => call(&format!("fk::cast<{}>", To::CXX), &[e.text()]),
        CastKind::Plain => call(To::CXX, &[e.text()]),
    }
}

/// `let name = e;` (`mutable`: `let mut`): declares a C++ local and returns it.
pub fn let_<T: DeviceValue>(name: &str, mutable: bool, e: Expr<T>) -> Expr<T> {
    let ty = T::cxx_name();
    let cxx = builder::fresh_name(name);
    let konst = if mutable { "" } else { "const " };
    builder::line(format!("{konst}{ty} {cxx} = {};", e.text()));
    Expr::name(&cxx)
}

/// `let mut name: T;` without a value.
pub fn let_uninit<T: DeviceValue>(name: &str) -> Expr<T> {
    let ty = T::cxx_name();
    let cxx = builder::fresh_name(name);
    builder::line(format!("{ty} {cxx};"));
    Expr::name(&cxx)
}

/// `place = e;`.
pub fn assign<T>(place: Expr<T>, e: Expr<T>) {
    builder::line(format!("{} = {};", place.text(), e.text()));
}

macro_rules! compound_bitwise {
    ($($(#[$doc:meta])* $f:ident: $tr:ident, $op:literal;)*) => {$(
        $(#[$doc])*
        pub fn $f<T>(place: Expr<T>, e: Expr<T>)
        where
            T: DeviceScalar + ops::$tr<T>,
        {
            builder::line(format!("{} {} {};", place.text(), $op, e.text()));
        }
    )*};
}

compound_bitwise! {
    /// `place &= e;`.
    bitand_assign: BitAndAssign, "&=";
    /// `place |= e;`.
    bitor_assign: BitOrAssign, "|=";
    /// `place ^= e;`.
    bitxor_assign: BitXorAssign, "^=";
}

/// `place <<= e;` (masked shift).
pub fn shl_assign<A: DeviceScalar + ops::ShlAssign<B>, B: DeviceScalar>(
    place: Expr<A>,
    e: Expr<B>,
) {
    builder::line(format!(
        "{p} = fk::shl({p}, {});",
        e.text(),
        p = place.text()
    ));
}

/// `place >>= e;` (masked shift).
pub fn shr_assign<A: DeviceScalar + ops::ShrAssign<B>, B: DeviceScalar>(
    place: Expr<A>,
    e: Expr<B>,
) {
    builder::line(format!(
        "{p} = fk::shr({p}, {});",
        e.text(),
        p = place.text()
    ));
}

/// A `&mut T` parameter of a kernel (a reduction accumulator, a scan's partial value).
pub struct Mut<T>(std::marker::PhantomData<T>);

/// `*r`: the place a `&mut` parameter refers to.
pub fn deref<T>(r: Expr<Mut<T>>) -> Expr<T> {
    r.retype()
}

/// An expression statement whose value is unused (`f(x);`).
pub fn discard<T>(e: Expr<T>) {
    builder::line(format!("(void){};", e.operand(prec::UNARY)));
}

/// `const ty name = text;` at this point of the body (a call with an effect, evaluated where the
/// body makes it): the value under a fresh name. For the containers' kernel methods.
pub(crate) fn local_value<T>(cxx_type: &str, base: &str, text: String) -> Expr<T> {
    let t = builder::fresh_temp(base);
    builder::line(format!("const {cxx_type} {t} = {text};"));
    Expr::name(&t)
}

/// `e.field` in C++ (a field of a device struct's value), for the containers' kernel methods.
pub(crate) fn member_text<S>(e: Expr<S>, field: &str) -> String {
    format!(
        "{}.{}",
        e.operand(builder::prec::PRIMARY),
        super::value::member_name(field)
    )
}

/// The C++ expression `text`, parenthesized, as a value of `T`, for the containers' kernel
/// methods.
pub(crate) fn text_value<T>(text: String) -> Expr<T> {
    Expr::new(format!("({text})"), builder::prec::PRIMARY)
}
