//! Calls of `#[device]` functions, expression statements, accumulator fields and the accumulators of
//! tuple reductions in the typed shadow.

use super::super::builder::{self, prec};
use super::super::capture::view_cxx;
use super::super::expr::{Expr, call};
use super::super::value::{DeviceValue, member_name};
use super::super::view_expr::ViewExpr;
use super::control::return_value;
use super::{Mut, discard};
use crate::layout::Layout;
use crate::seal::SealedShadow;

/// What a `#[device]` function returns: `()` or an `Expr` (sealed: its C++ type is written into the
/// generated code).
pub trait FnReturn: SealedShadow + Sized {
    /// The C++ return type.
    #[doc(hidden)]
    fn cxx() -> String;
    /// Ends the body with the function's value.
    #[doc(hidden)]
    fn finish(self);
    /// A call of the function `name` with arguments `args`.
    #[doc(hidden)]
    fn call(name: &str, args: &[String]) -> Self;
}

impl SealedShadow for () {}

impl FnReturn for () {
    fn cxx() -> String {
        "void".to_string()
    }
    fn finish(self) {}
    fn call(name: &str, args: &[String]) {
        builder::line(format!("{name}({});", args.join(", ")));
    }
}

impl<T> SealedShadow for Expr<T> {}

impl<T: DeviceValue> FnReturn for Expr<T> {
    fn cxx() -> String {
        T::cxx_name()
    }
    fn finish(self) {
        return_value(self)
    }
    fn call(name: &str, args: &[String]) -> Self {
        call(name, args)
    }
}

/// One parameter of a `#[device]` function in the typed shadow (sealed: its C++ declaration is
/// written into the generated code): a device value `Expr<T>` (`const T x`), an element reference
/// `Expr<Mut<T>>` (`T& x`, from a `&mut T` parameter) or a read View `ViewExpr<T, R, L>`
/// (`const fk::View<const T, R, L>& x`, from a `&View<T, R>` parameter).
pub trait FnParam: SealedParam + Copy {
    /// The C++ declaration of the parameter named `name`.
    #[doc(hidden)]
    fn cxx_decl(name: &str) -> String;
    /// The C++ text of the argument.
    #[doc(hidden)]
    fn text(self) -> String;
    /// The parameter named `name`.
    #[doc(hidden)]
    fn named(name: &str) -> Self;
    /// Whether it is a read View (`ViewExpr`), which a function listing its reads takes as a type
    /// parameter of its C++ template (see [`device_fn_call`]).
    #[doc(hidden)]
    const VIEW: bool = false;
}

/// The seal of [`FnParam`].
#[diagnostic::on_unimplemented(
    message = "`FnParam` is sealed: a `#[device]` function's parameter is a device value, a \
               `&mut` element or a `&View` it reads",
    label = "`{Self}` cannot be a parameter of a `#[device]` function",
    note = "its C++ declaration is written into the generated code; `#[device]` makes the \
            parameters of the functions it marks"
)]
pub trait SealedParam {}

impl<T: DeviceValue> SealedParam for Expr<T> {}

impl<T: DeviceValue> FnParam for Expr<T> {
    fn cxx_decl(name: &str) -> String {
        format!("const {} {name}", T::cxx_name())
    }
    fn text(self) -> String {
        Expr::text(self)
    }
    fn named(name: &str) -> Self {
        Expr::name(name)
    }
}

impl<T: DeviceValue> SealedParam for Expr<Mut<T>> {}

impl<T: DeviceValue> FnParam for Expr<Mut<T>> {
    fn cxx_decl(name: &str) -> String {
        format!("{}& {name}", T::cxx_name())
    }
    fn text(self) -> String {
        Expr::text(self)
    }
    fn named(name: &str) -> Self {
        Expr::name(name)
    }
}

impl<T: DeviceValue, const R: usize, L: Layout> SealedParam for ViewExpr<T, R, L> {}

impl<T: DeviceValue, const R: usize, L: Layout> FnParam for ViewExpr<T, R, L> {
    const VIEW: bool = true;
    fn cxx_decl(name: &str) -> String {
        format!("const {}& {name}", view_cxx::<T, R, L>(true))
    }
    fn text(self) -> String {
        ViewExpr::text(self)
    }
    fn named(name: &str) -> Self {
        ViewExpr::new(name)
    }
}

/// A `&AtomicView<T, R>` parameter of a `#[device]` function in the typed shadow: the View, which
/// the function reaches only atomically (`const fk::View<T, R, L>& h`, its elements writable). It
/// derefs to the View's shadow, whose atomic methods the body calls.
pub struct AtomicParam<T, const R: usize, L>(ViewExpr<T, R, L>);

impl<T, const R: usize, L> Clone for AtomicParam<T, R, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, const R: usize, L> Copy for AtomicParam<T, R, L> {}

impl<T, const R: usize, L> AtomicParam<T, R, L> {
    /// The argument `view` (a kernel's atomic capture, or the caller's own atomic parameter).
    pub fn new(view: ViewExpr<T, R, L>) -> Self {
        AtomicParam(view)
    }
}

impl<T, const R: usize, L> std::ops::Deref for AtomicParam<T, R, L> {
    type Target = ViewExpr<T, R, L>;
    fn deref(&self) -> &ViewExpr<T, R, L> {
        &self.0
    }
}

/// What an atomic View parameter takes: a kernel's atomic capture (its View's shadow) or the
/// calling device function's own atomic View parameter, passed on. Sealed: only those two.
pub trait IntoAtomicParam<T, const R: usize, L>: SealedParam {
    /// The parameter.
    fn into_atomic(self) -> AtomicParam<T, R, L>;
}

impl<T: DeviceValue, const R: usize, L: Layout> IntoAtomicParam<T, R, L> for ViewExpr<T, R, L> {
    fn into_atomic(self) -> AtomicParam<T, R, L> {
        AtomicParam(self)
    }
}

impl<T: DeviceValue, const R: usize, L: Layout> IntoAtomicParam<T, R, L> for AtomicParam<T, R, L> {
    fn into_atomic(self) -> AtomicParam<T, R, L> {
        self
    }
}

impl<T: DeviceValue, const R: usize, L: Layout> SealedParam for AtomicParam<T, R, L> {}

impl<T: DeviceValue, const R: usize, L: Layout> FnParam for AtomicParam<T, R, L> {
    fn cxx_decl(name: &str) -> String {
        format!("const {}& {name}", view_cxx::<T, R, L>(false))
    }
    fn text(self) -> String {
        ViewExpr::text(self.0)
    }
    fn named(name: &str) -> Self {
        AtomicParam(ViewExpr::new(name))
    }
}

/// `&mut place` as a `#[device]` function's argument: the place itself, which the C++ function
/// takes by reference (`T&`).
pub fn mut_ref<T: DeviceValue>(place: Expr<T>) -> Expr<Mut<T>> {
    place.retype()
}

/// The parameters of a `#[device]` function in the typed shadow: a tuple of [`FnParam`]s (sealed).
pub trait DeviceParams: SealedParams + Sized {
    /// The C++ declarations of the parameters named `names`.
    #[doc(hidden)]
    fn cxx_decls(names: &[String]) -> Vec<String>;
    /// The C++ text of each argument.
    #[doc(hidden)]
    fn texts(self) -> Vec<String>;
    /// The parameters named `names` (one per parameter).
    #[doc(hidden)]
    fn named(names: &[String]) -> Self;
    /// Which parameters are read Views ([`FnParam::VIEW`]).
    #[doc(hidden)]
    fn views() -> Vec<bool>;
}

/// The seal of [`DeviceParams`].
#[diagnostic::on_unimplemented(
    message = "`DeviceParams` is sealed: a `#[device]` function's parameters are a tuple of \
               `FnParam`s",
    label = "`{Self}` cannot be the parameters of a `#[device]` function",
    note = "their C++ declarations are written into the generated code; `#[device]` makes the \
            parameters of the functions it marks"
)]
pub trait SealedParams {}

macro_rules! device_params {
    ($($t:ident $k:tt),*) => {
        impl<$($t: FnParam),*> SealedParams for ($($t,)*) {}

        impl<$($t: FnParam),*> DeviceParams for ($($t,)*) {
            #[allow(clippy::unused_unit)]
            fn cxx_decls(_names: &[String]) -> Vec<String> {
                vec![$($t::cxx_decl(&_names[$k])),*]
            }
            #[allow(clippy::unused_unit)]
            fn texts(self) -> Vec<String> {
                vec![$(self.$k.text()),*]
            }
            #[allow(clippy::unused_unit)]
            fn named(_names: &[String]) -> Self {
                ($($t::named(&_names[$k]),)*)
            }
            fn views() -> Vec<bool> {
                vec![$($t::VIEW),*]
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

/// A `const N: usize` argument of a generic `#[device]` function, as a type (part of the key of its
/// C++ function).
pub struct ConstLen<const N: usize>;

/// Calls the `#[device]` function `key` (its marker type's identity; `name` is its Rust name, `names` its
/// parameters' names) with `args`, defining it in the translation unit first if needed: `body` runs
/// its shadow over parameters of the arguments' types. A function with View parameters is defined
/// once per combination of the Views' layouts (the parameter types are part of the key).
///
/// Every name becomes a fresh C++ identifier (anything but letters, digits and `_` is replaced), and
/// the parameters are made here, so this emits only what the typed shadow can express.
pub fn device_call<P: DeviceParams + 'static, R: FnReturn>(
    key: std::any::TypeId,
    name: &str,
    names: impl AsRef<[&'static str]>,
    args: P,
    body: impl FnOnce(P) -> R,
) -> R {
    device_fn_call(key, name, names, args, false, body)
}

/// [`device_call`] for a `#[device]` function; `lists_reads`: the function lists its View reads
/// (`DeviceFunction::ACCESSES` is `Some`), so a kernel may pass it a View as [`proven_view`]. Its
/// C++ then takes each read View parameter as a type parameter of a template
/// (`template <class FkV0> static __device__ f64 lap_fn(const FkV0& u, ...)`), so that a View
/// passed as `fk::proven(u, fk_proven)` (an `fk::ProvenView`, whose reads are unchecked only in an
/// entry whose launch proved them) instantiates the function with those reads, and a plain View
/// with checked ones.
pub fn device_fn_call<P: DeviceParams + 'static, R: FnReturn>(
    key: std::any::TypeId,
    name: &str,
    names: impl AsRef<[&'static str]>,
    args: P,
    lists_reads: bool,
    body: impl FnOnce(P) -> R,
) -> R {
    let names = names.as_ref();
    let arguments = args.texts();
    let key = (key, std::any::TypeId::of::<P>());
    let cxx = builder::device_function(key, name, &[], |cxx| {
        let cxx_params: Vec<String> = (0..arguments.len())
            .map(|k| builder::fresh_name(names.get(k).copied().unwrap_or("p")))
            .collect();
        let mut decl = P::cxx_decls(&cxx_params);
        let mut template = Vec::new();
        if lists_reads {
            for (k, is_view) in P::views().into_iter().enumerate() {
                if is_view {
                    let t = format!("FkV{}", template.len());
                    decl[k] = format!("const {t}& {}", cxx_params[k]);
                    template.push(format!("class {t}"));
                }
            }
        }
        let value = body(P::named(&cxx_params));
        value.finish();
        let head = if template.is_empty() {
            String::new()
        } else {
            format!("template <{}> ", template.join(", "))
        };
        format!(
            "{head}static __device__ {} {cxx}({})",
            R::cxx(),
            decl.join(", ")
        )
    });
    R::call(&cxx, &arguments)
}

/// A captured View that a kernel passes to a `#[device]` function at a call whose reads the
/// launch may prove (`proves`: the function lists its reads and each composes with the call's
/// arguments into a map of the iteration index, which the kernel adds to its device bounds):
/// `fk::proven(u, fk_proven)`, read unchecked in an entry whose launch proved them, checked in
/// any other; the View itself where `proves` does not hold.
#[doc(hidden)]
pub fn proven_view<T: DeviceValue, const R: usize, L>(
    view: ViewExpr<T, R, L>,
    proves: bool,
) -> ViewExpr<T, R, L> {
    if proves {
        ViewExpr::new(&format!("fk::proven({}, fk_proven)", view.text()))
    } else {
        view
    }
}

use crate::reducer::{MinMaxLocScalar, MinMaxScalar, ValLocScalar};

/// Something whose fields a kernel may reach: a value of a [`DeviceValue`] struct, an accumulator
/// (`acc.val` through `&mut`) or a reducer's value (sealed).
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

impl<T: DeviceValue> Place for Expr<T> {
    type Target = T;
    fn place(self) -> Expr<T> {
        self
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

/// `place.name`: the field `name` of a struct value or accumulator. `select` (`|v| &v.name`, never
/// called) makes rustc check that the field exists and gives its type, so a wrong name or type is
/// an error at the user's field expression.
pub fn field<P: Place, F: DeviceValue>(
    place: P,
    name: &str,
    _select: fn(&P::Target) -> &F,
) -> Expr<F> {
    let place = place.place();
    let member = member_name(name);
    Expr::new(
        format!("{}.{member}", place.operand(prec::PRIMARY)),
        prec::PRIMARY,
    )
}

/// The value of a struct literal `S { a: x, b: y }`: a fresh C++ local assigned field by field, in
/// the order written (so the values' side effects keep Rust's order). `check` (never called) is the
/// literal over the field values, so rustc checks the struct's fields and infers their types.
pub fn construct<S: DeviceValue>(
    check: impl FnOnce() -> S,
    fields: &[(&str, FieldValue)],
) -> Expr<S> {
    let _ = check;
    let ty = S::cxx_name();
    let t = builder::fresh_temp("fk_value");
    builder::line(format!("{ty} {t} = {{}};"));
    for (name, value) in fields {
        builder::line(format!("{t}.{} = {};", member_name(name), value.0));
    }
    Expr::name(&t)
}

/// A field value of a struct literal, for [`construct`]: made only from a typed shadow value (no
/// public function takes C++ text).
pub struct FieldValue(String);

/// The field value `e` of a struct literal.
pub fn field_value<T>(e: Expr<T>) -> FieldValue {
    FieldValue(e.text())
}

/// The value `e` stands for, in the type check of a struct literal (never called: the check is a
/// closure that [`construct`] does not run).
pub fn checked<T>(_e: Expr<T>) -> T {
    unreachable!("ferrokkos: a struct literal's type check is never run")
}

/// The receiver of a `#[device]` method call `e.m(args)`: notes `e` for the method's shadow (which
/// takes it back with [`pop_receiver`] before its arguments are used) and gives a value of `T` to
/// call the method on (all-zero, which `Element` makes a valid value; only its type matters).
///
/// Rust evaluates a call's receiver before its arguments, and each method's shadow takes back
/// exactly the receiver noted for it, so nested calls (`a.m(b.m(c))`) take theirs in order.
pub fn receiver<T: DeviceValue>(e: Expr<T>) -> T {
    builder::push_receiver(e.id);
    // SAFETY: `T: DeviceValue: Element`, whose contract makes the all-zero bytes a valid value.
    unsafe { std::mem::zeroed() }
}

/// The receiver noted by [`receiver`] for the `#[device]` method being called.
pub fn pop_receiver<T: DeviceValue>() -> Expr<T> {
    match builder::pop_receiver() {
        Some(id) => Expr::from_id(id),
        None => panic!(
            "ferrokkos: a #[device] method's shadow was called without a receiver (generated code \
             calls it only through `receiver`)"
        ),
    }
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
