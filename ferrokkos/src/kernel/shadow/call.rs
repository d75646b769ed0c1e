//! Calls of `#[device]` functions, expression statements, accumulator fields and the accumulators of
//! tuple reductions in the typed shadow.

use super::super::builder::{self, prec};
use super::super::expr::{Expr, call};
use super::super::ty::DeviceType;
use super::control::return_value;
use super::{Mut, discard};

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
