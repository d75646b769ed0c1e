//! Calls of `#[device]` functions, expression statements, accumulator fields and the accumulators of
//! tuple reductions in the typed shadow.

use super::super::builder::{self, prec};
use super::super::expr::{Expr, call};
use super::super::ty::DeviceType;
use super::control::return_value;
use super::{Mut, discard};
use crate::seal::SealedShadow;

/// What a `#[device]` function returns: `()` or an `Expr` (sealed: its C++ type is written into the
/// generated code).
pub trait FnReturn: SealedShadow + Sized {
    /// The C++ return type.
    #[doc(hidden)]
    fn cxx() -> &'static str;
    /// Ends the body with the function's value.
    #[doc(hidden)]
    fn finish(self);
    /// A call of the function `name` with arguments `args`.
    #[doc(hidden)]
    fn call(name: &str, args: &[String]) -> Self;
}

impl SealedShadow for () {}

impl FnReturn for () {
    fn cxx() -> &'static str {
        "void"
    }
    fn finish(self) {}
    fn call(name: &str, args: &[String]) {
        builder::line(format!("{name}({});", args.join(", ")));
    }
}

impl<T> SealedShadow for Expr<T> {}

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

/// The parameters of a `#[device]` function in the typed shadow: a tuple of `Expr`s of device types
/// (sealed).
pub trait DeviceParams: SealedParams + Sized {
    /// The C++ types of the parameters.
    #[doc(hidden)]
    fn cxx_types() -> Vec<&'static str>;
    /// The C++ text of each argument.
    #[doc(hidden)]
    fn texts(self) -> Vec<String>;
    /// The parameters named `names` (one per parameter).
    #[doc(hidden)]
    fn named(names: &[String]) -> Self;
}

/// The seal of [`DeviceParams`] (tuples of `Expr`s, which other seals also cover).
pub trait SealedParams {}

macro_rules! device_params {
    ($($t:ident $k:tt),*) => {
        impl<$($t: DeviceType),*> SealedParams for ($(Expr<$t>,)*) {}

        impl<$($t: DeviceType),*> DeviceParams for ($(Expr<$t>,)*) {
            fn cxx_types() -> Vec<&'static str> {
                vec![$($t::CXX),*]
            }
            #[allow(clippy::unused_unit)]
            fn texts(self) -> Vec<String> {
                vec![$(self.$k.text()),*]
            }
            #[allow(clippy::unused_unit)]
            fn named(_names: &[String]) -> Self {
                ($(Expr::<$t>::name(&_names[$k]),)*)
            }
        }
    };
}

device_params!();
device_params!(A 0);
device_params!(A 0, B 1);
device_params!(A 0, B 1, C 2);
device_params!(A 0, B 1, C 2, D 3);
device_params!(A 0, B 1, C 2, D 3, E 4);
device_params!(A 0, B 1, C 2, D 3, E 4, F 5);
device_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6);
device_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7);
device_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8);
device_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9);
device_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10);
device_params!(A 0, B 1, C 2, D 3, E 4, F 5, G 6, H 7, I 8, J 9, K 10, L 11);

/// Calls the `#[device]` function `key` (its marker type's identity; `name` is its Rust name, `names` its
/// parameters' names) with `args`, defining it in the translation unit first if needed: `body` runs
/// its shadow over parameters of the arguments' types.
///
/// Every name becomes a fresh C++ identifier (anything but letters, digits and `_` is replaced), and
/// the parameters are made here, so this emits only what the typed shadow can express.
pub fn device_call<P: DeviceParams, R: FnReturn>(
    key: std::any::TypeId,
    name: &str,
    names: impl AsRef<[&'static str]>,
    args: P,
    body: impl FnOnce(P) -> R,
) -> R {
    let names = names.as_ref();
    let arguments = args.texts();
    let cxx = builder::device_function(key, name, &[], |cxx| {
        let cxx_params: Vec<String> = (0..arguments.len())
            .map(|k| builder::fresh_name(names.get(k).copied().unwrap_or("p")))
            .collect();
        let decl: Vec<String> = P::cxx_types()
            .iter()
            .zip(&cxx_params)
            .map(|(ty, n)| format!("const {ty} {n}"))
            .collect();
        let value = body(P::named(&cxx_params));
        value.finish();
        format!("static __device__ {} {cxx}({})", R::cxx(), decl.join(", "))
    });
    R::call(&cxx, &arguments)
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

/// Something whose fields a kernel may reach: an accumulator (`acc.val` through `&mut`) or a value
/// (sealed).
pub trait Place: SealedShadow {
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
/// `(void)e;` so that a device function call in it still runs; sealed).
pub trait Statement: SealedShadow {
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
