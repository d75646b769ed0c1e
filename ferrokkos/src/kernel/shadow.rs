//! The builder calls that `kernel!` and `#[device]` generate: the typed shadow's vocabulary.
//!
//! Every operator of a kernel body becomes a call here whose signature carries the Rust types
//! (`add<T: Add<Output = T>>(Expr<T>, Expr<T>) -> Expr<T>`: Rust's primitive arithmetic takes two
//! operands of one type and gives that type, and so does its inference), so rustc infers every
//! literal and local exactly as in the host closure, and each call appends C++ with explicit types. These
//! functions are public for the generated code only.

use std::ops;

use super::builder::{self, Line, prec};
use super::expr::{Expr, call, keep_type};
use super::ty::{DeviceType, Kind};

pub use super::view_expr::{DeviceIndex, ViewExpr};

/// A literal: `lit(2.0)` has the type rustc infers for `2.0` in the same place of the host closure.
pub fn lit<T: DeviceType>(value: T) -> Expr<T> {
    let text = value.literal();
    let p = if text.starts_with('-') {
        prec::UNARY
    } else {
        prec::PRIMARY
    };
    Expr::new(text, p)
}

/// The C++ text of an expression (for generated calls of device functions).
pub fn arg<T>(e: Expr<T>) -> String {
    e.text()
}

/// Marks the following statements as coming from Rust line `line` of `file` (a `#line` directive).
pub fn source(line: u32, file: &'static str) {
    builder::source(line, file)
}

macro_rules! binary {
    ($($(#[$doc:meta])* $f:ident: $tr:ident, $op:literal, $p:expr;)*) => {$(
        $(#[$doc])*
        pub fn $f<T>(a: Expr<T>, b: Expr<T>) -> Expr<T>
        where
            T: DeviceType + ops::$tr<T, Output = T>,
        {
            let text = format!("{} {} {}", a.operand($p), $op, b.operand($p - 1));
            keep_type::<T>(text, $p)
        }
    )*};
}

binary! {
    /// `a + b`.
    add: Add, "+", prec::ADD;
    /// `a - b`.
    sub: Sub, "-", prec::ADD;
    /// `a * b`.
    mul: Mul, "*", prec::MUL;
    /// `a / b` (integers truncate toward zero, as in Rust).
    div: Div, "/", prec::MUL;
    /// `a & b`.
    bitand: BitAnd, "&", prec::BITAND;
    /// `a | b`.
    bitor: BitOr, "|", prec::BITOR;
    /// `a ^ b`.
    bitxor: BitXor, "^", prec::XOR;
}

/// `a % b`: C++ `%` for integers (both truncate, so negative operands agree with Rust), `fmod` for
/// floats.
pub fn rem<T>(a: Expr<T>, b: Expr<T>) -> Expr<T>
where
    T: DeviceType + ops::Rem<T, Output = T>,
{
    if T::KIND == Kind::Float {
        let f = if T::CXX == "f32" { "fmodf" } else { "fmod" };
        call(f, &[a.text(), b.text()])
    } else {
        let text = format!("{} % {}", a.operand(prec::MUL), b.operand(prec::MUL - 1));
        keep_type::<T>(text, prec::MUL)
    }
}

/// `a << b`, masked by the bit width as Rust does in release builds.
pub fn shl<A, B>(a: Expr<A>, b: Expr<B>) -> Expr<A::Output>
where
    A: DeviceType + ops::Shl<B>,
    B: DeviceType,
    A::Output: DeviceType,
{
    call("fk::shl", &[a.text(), b.text()])
}

/// `a >> b` (arithmetic for signed types), masked by the bit width.
pub fn shr<A, B>(a: Expr<A>, b: Expr<B>) -> Expr<A::Output>
where
    A: DeviceType + ops::Shr<B>,
    B: DeviceType,
    A::Output: DeviceType,
{
    call("fk::shr", &[a.text(), b.text()])
}

macro_rules! compare {
    ($($(#[$doc:meta])* $f:ident: $tr:ident, $op:literal, $p:expr;)*) => {$(
        $(#[$doc])*
        pub fn $f<T>(a: Expr<T>, b: Expr<T>) -> Expr<bool>
        where
            T: DeviceType + $tr<T>,
        {
            Expr::new(format!("{} {} {}", a.operand($p), $op, b.operand($p - 1)), $p)
        }
    )*};
}

compare! {
    /// `a == b`.
    eq: PartialEq, "==", prec::EQ;
    /// `a != b`.
    ne: PartialEq, "!=", prec::EQ;
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

/// `-a`.
pub fn neg<T: DeviceType + ops::Neg<Output = T>>(a: Expr<T>) -> Expr<T> {
    keep_type::<T>(format!("-{}", a.operand(prec::UNARY)), prec::UNARY)
}

/// `!a`: logical for `bool`, bitwise (`~`) for integers.
pub fn not<T: DeviceType + ops::Not<Output = T>>(a: Expr<T>) -> Expr<T> {
    if T::KIND == Kind::Bool {
        Expr::new(format!("!{}", a.operand(prec::UNARY)), prec::UNARY)
    } else {
        keep_type::<T>(format!("~{}", a.operand(prec::UNARY)), prec::UNARY)
    }
}

/// The pairs of types Rust's `as` converts between (numbers to numbers, `bool` to integers).
pub trait AsCast<To>: DeviceType {}

macro_rules! as_cast {
    ($($from:ident)*) => {$( as_cast!(@to $from: i8 i16 i32 i64 isize u8 u16 u32 u64 usize f32 f64); )*};
    (@to $from:ident: $($to:ident)*) => {$( impl AsCast<$to> for $from {} )*};
}

as_cast!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize f32 f64);

macro_rules! bool_cast {
    ($($to:ident)*) => {$( impl AsCast<$to> for bool {} )*};
}

bool_cast!(bool i8 i16 i32 i64 isize u8 u16 u32 u64 usize);

/// `e as To`, with Rust's semantics: float-to-integer saturates (NaN gives 0), integer narrowing wraps.
pub fn cast<To: DeviceType, From: AsCast<To>>(e: Expr<From>) -> Expr<To> {
    if From::CXX == To::CXX {
        e.retype()
    } else if From::KIND == Kind::Float && To::KIND != Kind::Float {
        call(&format!("fk::cast<{}>", To::CXX), &[e.text()])
    } else {
        call(To::CXX, &[e.text()])
    }
}

/// `let name = e;` (`mutable`: `let mut`): declares a C++ local and returns it.
pub fn let_<T: DeviceType>(name: &str, mutable: bool, e: Expr<T>) -> Expr<T> {
    let cxx = builder::fresh_name(name);
    let konst = if mutable { "" } else { "const " };
    builder::line(format!("{konst}{} {cxx} = {};", T::CXX, e.text()));
    Expr::name(&cxx)
}

/// `let mut name: T;` without a value.
pub fn let_uninit<T: DeviceType>(name: &str) -> Expr<T> {
    let cxx = builder::fresh_name(name);
    builder::line(format!("{} {cxx};", T::CXX));
    Expr::name(&cxx)
}

/// `place = e;`.
pub fn assign<T>(place: Expr<T>, e: Expr<T>) {
    builder::line(format!("{} = {};", place.text(), e.text()));
}

macro_rules! compound {
    ($($(#[$doc:meta])* $f:ident: $tr:ident, $op:literal;)*) => {$(
        $(#[$doc])*
        pub fn $f<T>(place: Expr<T>, e: Expr<T>)
        where
            T: DeviceType + ops::$tr<T>,
        {
            builder::line(format!("{} {} {};", place.text(), $op, e.text()));
        }
    )*};
}

compound! {
    /// `place += e;`.
    add_assign: AddAssign, "+=";
    /// `place -= e;`.
    sub_assign: SubAssign, "-=";
    /// `place *= e;`.
    mul_assign: MulAssign, "*=";
    /// `place /= e;`.
    div_assign: DivAssign, "/=";
    /// `place &= e;`.
    bitand_assign: BitAndAssign, "&=";
    /// `place |= e;`.
    bitor_assign: BitOrAssign, "|=";
    /// `place ^= e;`.
    bitxor_assign: BitXorAssign, "^=";
}

/// `place %= e;`.
pub fn rem_assign<T: DeviceType + ops::RemAssign<T>>(place: Expr<T>, e: Expr<T>) {
    if T::KIND == Kind::Float {
        let f = if T::CXX == "f32" { "fmodf" } else { "fmod" };
        builder::line(format!("{p} = {f}({p}, {});", e.text(), p = place.text()));
    } else {
        builder::line(format!("{} %= {};", place.text(), e.text()));
    }
}

/// `place <<= e;` (masked shift).
pub fn shl_assign<A: DeviceType + ops::ShlAssign<B>, B: DeviceType>(place: Expr<A>, e: Expr<B>) {
    builder::line(format!(
        "{p} = fk::shl({p}, {});",
        e.text(),
        p = place.text()
    ));
}

/// `place >>= e;` (masked shift).
pub fn shr_assign<A: DeviceType + ops::ShrAssign<B>, B: DeviceType>(place: Expr<A>, e: Expr<B>) {
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

/// What an `if` / `else` produces: `()` for statements, an `Expr` for a value.
pub trait Branch: Sized {
    /// Emits `if (cond) { then } else { otherwise }` and gives its value.
    fn branch(
        cond: Expr<bool>,
        then: impl FnOnce() -> Self,
        otherwise: impl FnOnce() -> Self,
    ) -> Self;
}

impl Branch for () {
    fn branch(cond: Expr<bool>, then: impl FnOnce(), otherwise: impl FnOnce()) {
        builder::line(format!("if ({}) {{", cond.text()));
        block(then);
        let (lines, ()) = builder::capture(otherwise);
        if !builder::has_code(&lines) {
            builder::line("}");
            return;
        }
        // `else if`: an else branch that is exactly one `if` statement continues the chain.
        if let Some(Line::Code(0, first)) = lines.iter().find(|l| matches!(l, Line::Code(..)))
            && first.starts_with("if (")
            && is_single_if(&lines)
        {
            let mut lines = lines;
            for l in &mut lines {
                if let Line::Code(0, t) = l
                    && t.starts_with("if (")
                {
                    *t = format!("}} else {t}");
                    break;
                }
            }
            // Drop the chain's own closing brace: ours closes it.
            if let Some(pos) = lines
                .iter()
                .rposition(|l| matches!(l, Line::Code(0, t) if t == "}"))
            {
                lines.remove(pos);
            }
            builder::splice(lines);
            builder::line("}");
            return;
        }
        builder::line("} else {");
        builder::indent(1);
        builder::splice(lines);
        builder::indent(-1);
        builder::line("}");
    }
}

/// Whether captured lines are one `if` statement (its chain included) and nothing else.
fn is_single_if(lines: &[Line]) -> bool {
    let top: Vec<&String> = lines
        .iter()
        .filter_map(|l| match l {
            Line::Code(0, t) => Some(t),
            _ => None,
        })
        .collect();
    top.first().is_some_and(|t| t.starts_with("if ("))
        && top.last().is_some_and(|t| *t == "}")
        && top[1..top.len() - 1]
            .iter()
            .all(|t| t.starts_with("} else"))
}

impl<T: DeviceType> Branch for Expr<T> {
    fn branch(
        cond: Expr<bool>,
        then: impl FnOnce() -> Self,
        otherwise: impl FnOnce() -> Self,
    ) -> Self {
        let (then_lines, a) = builder::capture(then);
        let (else_lines, b) = builder::capture(otherwise);
        if !builder::has_code(&then_lines) && !builder::has_code(&else_lines) {
            builder::splice(then_lines);
            builder::splice(else_lines);
            return Expr::new(
                format!(
                    "{} ? {} : {}",
                    cond.operand(prec::TERNARY - 1),
                    a.operand(prec::TERNARY),
                    b.operand(prec::TERNARY)
                ),
                prec::TERNARY,
            );
        }
        let t = builder::fresh_temp("fk_if");
        builder::line(format!("{} {t};", T::CXX));
        builder::line(format!("if ({}) {{", cond.text()));
        builder::indent(1);
        builder::splice(then_lines);
        builder::line(format!("{t} = {};", a.text()));
        builder::indent(-1);
        builder::line("} else {");
        builder::indent(1);
        builder::splice(else_lines);
        builder::line(format!("{t} = {};", b.text()));
        builder::indent(-1);
        builder::line("}");
        Expr::name(&t)
    }
}

/// `if c { ... } else { ... }` (statement or value).
pub fn if_else<R: Branch>(
    cond: Expr<bool>,
    then: impl FnOnce() -> R,
    otherwise: impl FnOnce() -> R,
) -> R {
    R::branch(cond, then, otherwise)
}

/// `if c { ... }` without `else`.
pub fn if_(cond: Expr<bool>, then: impl FnOnce()) {
    builder::line(format!("if ({}) {{", cond.text()));
    block(then);
    builder::line("}");
}

/// Emits `body` one level deeper.
fn block<R>(body: impl FnOnce() -> R) -> R {
    builder::indent(1);
    let r = body();
    builder::indent(-1);
    r
}

/// Integer types (loop counters, indices).
pub trait DeviceInt: DeviceType {}

macro_rules! device_int {
    ($($t:ident)*) => {$( impl DeviceInt for $t {} )*};
}

device_int!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize);

/// How a `for` loop walks its range: `a..b`, `a..=b`, optionally `.rev()`, optionally `.step_by(s)`.
#[derive(Clone, Copy, Debug, Default)]
pub struct RangeShape {
    /// `a..=b`.
    pub inclusive: bool,
    /// `.rev()`.
    pub rev: bool,
}

/// `for name in start..end { body }` with the given shape and optional `.step_by(step)`.
pub fn for_range<T: DeviceInt>(
    name: &str,
    start: Expr<T>,
    end: Expr<T>,
    shape: RangeShape,
    step: Option<Expr<usize>>,
    body: impl FnOnce(Expr<T>),
) {
    let ty = T::CXX;
    // An inclusive range ends one later (a range up to the type's maximum would wrap: not supported).
    let end = if shape.inclusive {
        format!("{} + 1", end.operand(prec::ADD))
    } else {
        end.text()
    };
    let var = builder::fresh_name(name);
    if !shape.rev {
        let stop = builder::fresh_name(&format!("{name}_end"));
        match step {
            None => builder::line(format!(
                "for ({ty} {var} = {}, {stop} = {end}; {var} < {stop}; ++{var}) {{",
                start.text()
            )),
            Some(step) => {
                let by = builder::fresh_name(&format!("{name}_step"));
                builder::line(format!(
                    "for ({ty} {var} = {}, {stop} = {end}, {by} = {ty}({}); {var} < {stop}; \
                     {var} = {stop} - {var} > {by} ? {var} + {by} : {stop}) {{",
                    start.text(),
                    step.text()
                ));
            }
        }
        block(|| body(Expr::name(&var)));
    } else {
        let hi = builder::fresh_name(&format!("{name}_hi"));
        let lo = builder::fresh_name(&format!("{name}_lo"));
        match step {
            None => builder::line(format!(
                "for ({ty} {hi} = {end}, {lo} = {}; {hi} > {lo}; --{hi}) {{",
                start.text()
            )),
            Some(step) => {
                let by = builder::fresh_name(&format!("{name}_step"));
                builder::line(format!(
                    "for ({ty} {hi} = {end}, {lo} = {}, {by} = {ty}({}); {hi} > {lo}; \
                     {hi} = {hi} - {lo} > {by} ? {hi} - {by} : {lo}) {{",
                    start.text(),
                    step.text()
                ));
            }
        }
        block(|| {
            builder::line(format!("const {ty} {var} = {hi} - 1;"));
            body(Expr::name(&var))
        });
    }
    builder::line("}");
}

/// `while cond { body }`.
pub fn while_(cond: impl FnOnce() -> Expr<bool>, body: impl FnOnce()) {
    let (lines, c) = builder::capture(cond);
    if !builder::has_code(&lines) {
        builder::splice(lines);
        builder::line(format!("while ({}) {{", c.text()));
        block(body);
    } else {
        builder::line("while (true) {");
        block(|| {
            builder::splice(lines);
            builder::line(format!("if (!{}) break;", c.operand(prec::UNARY)));
            body()
        });
    }
    builder::line("}");
}

/// `loop { body }`.
pub fn loop_(body: impl FnOnce()) {
    builder::line("while (true) {");
    block(body);
    builder::line("}");
}

/// `break;`.
pub fn break_() {
    builder::line("break;");
}

/// `continue;`.
pub fn continue_() {
    builder::line("continue;");
}

/// `return;` (ends the iteration, or a `()` device function).
pub fn return_unit() {
    builder::line("return;");
}

/// `return e;` (from a device function).
pub fn return_value<T>(e: Expr<T>) {
    builder::line(format!("return {};", e.text()));
}

/// What a `#[device]` function returns: `()` or an `Expr`.
pub trait FnReturn: Sized {
    /// The C++ return type.
    fn cxx() -> &'static str;
    /// Ends the body with the function's value.
    fn finish(self);
    /// A call of the function `name` with arguments `args`.
    fn call(name: &str, args: &[String]) -> Self;
}

impl FnReturn for () {
    fn cxx() -> &'static str {
        "void"
    }
    fn finish(self) {}
    fn call(name: &str, args: &[String]) {
        builder::line(format!("{name}({});", args.join(", ")));
    }
}

impl<T: DeviceType> FnReturn for Expr<T> {
    fn cxx() -> &'static str {
        T::CXX
    }
    fn finish(self) {
        return_value(self)
    }
    fn call(name: &str, args: &[String]) -> Self {
        call(name, args)
    }
}

/// Calls the `#[device]` function `key` (its Rust path; `name` is its Rust name), defining it in the
/// translation unit first if needed. `params` are its parameter names and C++ types; `body` runs its
/// shadow with the parameters' C++ names.
pub fn device_call<R: FnReturn>(
    key: &'static str,
    name: &str,
    params: &[(&str, &str)],
    args: &[String],
    body: impl FnOnce(&[String]) -> R,
) -> R {
    let names: Vec<&str> = params.iter().map(|(n, _)| *n).collect();
    let cxx = builder::device_function(key, name, &[], |cxx| {
        let cxx_params: Vec<String> = names.iter().map(|n| builder::fresh_name(n)).collect();
        let decl: Vec<String> = params
            .iter()
            .zip(&cxx_params)
            .map(|((_, ty), n)| format!("const {ty} {n}"))
            .collect();
        let value = body(&cxx_params);
        value.finish();
        format!("static __device__ {} {cxx}({})", R::cxx(), decl.join(", "))
    });
    R::call(&cxx, args)
}

/// A parameter of a device function, by its C++ name.
pub fn param<T: DeviceType>(cxx_name: &str) -> Expr<T> {
    Expr::name(cxx_name)
}

/// The C++ type of `T` (for generated device-function signatures).
pub fn cxx_type<T: DeviceType>() -> &'static str {
    T::CXX
}

macro_rules! fields {
    ($($(#[$doc:meta])* $f:ident: $tr:ident;)*) => {$(
        $(#[$doc])*
        pub trait $tr {
            /// The field's type.
            type Field;
        }
        #[doc = concat!("`place.", stringify!($f), "` of an accumulator.")]
        pub fn $f<P: Place>(place: P) -> Expr<<P::Target as $tr>::Field>
        where
            P::Target: $tr,
        {
            let place = place.place();
            Expr::new(format!("{}.{}", place.operand(prec::PRIMARY), stringify!($f)), prec::PRIMARY)
        }
    )*};
}

fields! {
    /// Accumulators with a `val` field.
    val: HasVal;
    /// Accumulators with a `loc` field.
    loc: HasLoc;
    /// Accumulators with a `min_val` field.
    min_val: HasMinVal;
    /// Accumulators with a `max_val` field.
    max_val: HasMaxVal;
    /// Accumulators with a `min_loc` field.
    min_loc: HasMinLoc;
    /// Accumulators with a `max_loc` field.
    max_loc: HasMaxLoc;
}

use crate::reducer::{MinMaxLocScalar, MinMaxScalar, ValLocScalar};

/// Something whose fields a kernel may reach: an accumulator (`acc.val` through `&mut`) or a value.
pub trait Place {
    /// The struct whose field is taken.
    type Target;
    /// The place itself.
    fn place(self) -> Expr<Self::Target>;
}

impl<T> Place for Expr<Mut<T>> {
    type Target = T;
    fn place(self) -> Expr<T> {
        self.retype()
    }
}

macro_rules! place_value {
    ($($t:ident<$($p:ident),*>),*) => {$(
        impl<$($p),*> Place for Expr<$t<$($p),*>> {
            type Target = $t<$($p),*>;
            fn place(self) -> Expr<Self::Target> {
                self
            }
        }
    )*};
}

place_value!(ValLocScalar<T, I>, MinMaxScalar<T>, MinMaxLocScalar<T, I>);

impl<T, I> HasVal for ValLocScalar<T, I> {
    type Field = T;
}
impl<T, I> HasLoc for ValLocScalar<T, I> {
    type Field = I;
}
impl<T> HasMinVal for MinMaxScalar<T> {
    type Field = T;
}
impl<T> HasMaxVal for MinMaxScalar<T> {
    type Field = T;
}
impl<T, I> HasMinVal for MinMaxLocScalar<T, I> {
    type Field = T;
}
impl<T, I> HasMaxVal for MinMaxLocScalar<T, I> {
    type Field = T;
}
impl<T, I> HasMinLoc for MinMaxLocScalar<T, I> {
    type Field = I;
}
impl<T, I> HasMaxLoc for MinMaxLocScalar<T, I> {
    type Field = I;
}

/// What a statement's expression leaves: nothing for `()`, a discarded value for an `Expr` (kept as
/// `(void)e;` so that a device function call in it still runs).
pub trait Statement {
    /// Emits the statement.
    fn emit(self);
}

impl Statement for () {
    fn emit(self) {}
}

impl<T> Statement for Expr<T> {
    fn emit(self) {
        discard(self)
    }
}

/// An expression statement `e;`.
pub fn stmt<S: Statement>(s: S) {
    s.emit()
}

macro_rules! split {
    ($($f:ident: $($t:ident $k:tt),+;)*) => {$(
        /// The accumulators of a tuple of reducers, as C++ references named `names`.
        pub fn $f<$($t),+>(accs: Expr<Mut<($($t,)+)>>, names: [&str; [$($k),+].len()])
        -> ($(Expr<Mut<$t>>,)+) {
            let base = accs.text();
            ($({
                let n = builder::fresh_name(names[$k]);
                builder::line(format!("auto& {n} = {base}.v{};", $k));
                Expr::name(&n)
            },)+)
        }
    )*};
}

split! {
    split2: A 0, B 1;
    split3: A 0, B 1, C 2;
    split4: A 0, B 1, C 2, D 3;
    split5: A 0, B 1, C 2, D 3, E 4;
    split6: A 0, B 1, C 2, D 3, E 4, F 5;
}
