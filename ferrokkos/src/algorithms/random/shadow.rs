//! A random pool in the typed shadow: `let mut rng = pool.get_state();` declares an
//! `fk::RandHold<G>` (which takes a state and gives it back when its scope ends,
//! `device/random.cuh`), `pool.free_state(rng)` gives it back, and `rng.drand()`, ... reach the
//! shadows below through `MethodReceiver` and `DeviceMethod` (the path of every method call that is
//! not a built-in) and emit the hold's method of the same name, each as a local where the body calls
//! it (a draw advances the generator, so it runs once, in the body's order). The host body calls
//! the same methods of [`RandState`](super::RandState), so both take and give the same types.

use std::marker::PhantomData;

use super::draw::RandomValue;
use super::generator::Generator;
use crate::kernel::builder::{self, prec};
use crate::kernel::device_fn::{Ch, DeviceMethod, MethodReceiver};
use crate::kernel::expr::Expr;
use crate::kernel::shadow::{Takes, local_value};
use crate::kernel::value::DeviceValue;

/// The C++ side of a captured pool (an `fk::RandomPool<G>` parameter).
#[derive(Clone, Copy, Debug)]
pub struct PoolCxx;

/// The shadow of a captured random pool of generator `G`.
pub struct PoolShadow<G> {
    pool: Expr<PoolCxx>,
    _gen: PhantomData<fn() -> G>,
}

impl<G> Clone for PoolShadow<G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G> Copy for PoolShadow<G> {}

impl<G: Generator> PoolShadow<G> {
    /// The pool kernel parameter named `cxx_name`.
    pub(crate) fn name(cxx_name: &str) -> Self {
        PoolShadow {
            pool: Expr::name(cxx_name),
            _gen: PhantomData,
        }
    }

    /// The parameter's C++ type.
    pub(crate) fn cxx_type() -> String {
        format!("const fk::RandomPool<{}>", G::CXX)
    }
}

/// The C++ side of a held state (an `fk::RandHold<G>` local).
#[derive(Clone, Copy, Debug)]
pub struct HoldCxx;

/// The shadow of a state held from a pool of generator `G` (`let mut rng = pool.get_state();`).
pub struct StateShadow<G> {
    hold: Expr<HoldCxx>,
    _gen: PhantomData<fn() -> G>,
}

impl<G> Clone for StateShadow<G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G> Copy for StateShadow<G> {}

/// `let name = pool.get_state();`: an `fk::RandHold<G>` named after `name`.
pub fn rand_get_state<G: Generator>(pool: PoolShadow<G>, name: &str) -> StateShadow<G> {
    let cxx = builder::fresh_name(name);
    builder::line(format!(
        "fk::RandHold<{}> {cxx}({});",
        G::CXX,
        pool.pool.text()
    ));
    StateShadow {
        hold: Expr::name(&cxx),
        _gen: PhantomData,
    }
}

/// `pool.free_state(rng)`.
pub fn rand_free_state<G: Generator>(_pool: PoolShadow<G>, state: StateShadow<G>) {
    builder::line(format!("{}.release();", state.hold.operand(prec::PRIMARY)));
}

impl<G: Generator> StateShadow<G> {
    /// `rng.<method>(args)` as a local of `T`, evaluated where the body calls it.
    fn draw<T: DeviceValue>(self, method: &str, args: &[String]) -> Expr<T> {
        local_value(
            &T::cxx_name(),
            "fk_rand",
            format!(
                "{}.{method}({})",
                self.hold.operand(prec::PRIMARY),
                args.join(", ")
            ),
        )
    }

    /// `rng.draw(begin, end)`.
    pub fn __fkt_draw<T: RandomValue>(self, begin: Expr<T>, end: Expr<T>) -> Expr<T> {
        self.draw(T::CXX_METHOD, &[begin.text(), end.text()])
    }

    /// `rng.draw(begin, end)` for arguments of known types (both the value's type).
    pub fn __fk_draw<T: RandomValue>(self, begin: Expr<T>, end: Expr<T>) -> Expr<T> {
        self.__fkt_draw(begin, end)
    }
}

/// The draws with their parameters: each gives `__fkt_<name>` (parameters of the draw's types)
/// and `__fk_<name>` (arguments of known types, taken as those) on [`StateShadow`].
macro_rules! draws {
    ($($name:literal, $fkt:ident, $fk:ident ($($arg:ident: $t:ty, $a:ident),*) -> $ret:ty;)*) => {
        impl<G: Generator> StateShadow<G> {$(
            #[doc = concat!("`rng.", $name, "(..)`.")]
            pub fn $fkt(self $(, $arg: Expr<$t>)*) -> Expr<$ret> {
                self.draw($name, &[$($arg.text()),*])
            }

            #[doc = concat!("`rng.", $name, "(..)` for arguments of known types.")]
            pub fn $fk<$($a),*>(self $(, $arg: Expr<$a>)*) -> Expr<$ret>
            where
                $($t: Takes<$a>,)*
            {
                self.$fkt($(<$t>::take($arg)),*)
            }
        )*}
    };
}

draws! {
    "urand", __fkt_urand, __fk_urand () -> u32;
    "urand64", __fkt_urand64, __fk_urand64 () -> u64;
    "urand_below", __fkt_urand_below, __fk_urand_below (range: u32, A) -> u32;
    "urand_between", __fkt_urand_between, __fk_urand_between (start: u32, A, end: u32, B) -> u32;
    "urand64_below", __fkt_urand64_below, __fk_urand64_below (range: u64, A) -> u64;
    "urand64_between", __fkt_urand64_between, __fk_urand64_between
        (start: u64, A, end: u64, B) -> u64;
    "rand", __fkt_rand, __fk_rand () -> i32;
    "rand_below", __fkt_rand_below, __fk_rand_below (range: i32, A) -> i32;
    "rand_between", __fkt_rand_between, __fk_rand_between (start: i32, A, end: i32, B) -> i32;
    "rand64", __fkt_rand64, __fk_rand64 () -> i64;
    "rand64_below", __fkt_rand64_below, __fk_rand64_below (range: i64, A) -> i64;
    "rand64_between", __fkt_rand64_between, __fk_rand64_between
        (start: i64, A, end: i64, B) -> i64;
    "frand", __fkt_frand, __fk_frand () -> f32;
    "frand_below", __fkt_frand_below, __fk_frand_below (range: f32, A) -> f32;
    "frand_between", __fkt_frand_between, __fk_frand_between (start: f32, A, end: f32, B) -> f32;
    "drand", __fkt_drand, __fk_drand () -> f64;
    "drand_below", __fkt_drand_below, __fk_drand_below (range: f64, A) -> f64;
    "drand_between", __fkt_drand_between, __fk_drand_between (start: f64, A, end: f64, B) -> f64;
    "normal", __fkt_normal, __fk_normal () -> f64;
    "normal_with", __fkt_normal_with, __fk_normal_with (mean: f64, A, std_dev: f64, B) -> f64;
}

// SAFETY: a held state's shadow is called as itself.
#[diagnostic::do_not_recommend]
unsafe impl<G> MethodReceiver for StateShadow<G> {
    type Target = StateShadow<G>;
    fn receive(self) -> Self {
        self
    }
}

/// A held state's kernel methods, by name ([`Ch`] lists).
macro_rules! state_methods {
    ($($($c:literal)*;)*) => {$(
        // SAFETY: `StateShadow::__fk_<name>` / `__fkt_<name>` emit the `fk::RandHold` method of
        // that name (`device/random.cuh` and `algorithms/random/draw.rs` implement one semantics).
        #[diagnostic::do_not_recommend]
        unsafe impl<G> DeviceMethod<state_methods!(@name $($c)*)> for StateShadow<G> {}
    )*};
    (@name) => { () };
    (@name $c:literal $($rest:literal)*) => { Ch<$c, state_methods!(@name $($rest)*)> };
}

state_methods! {
    'u' 'r' 'a' 'n' 'd';
    'u' 'r' 'a' 'n' 'd' '6' '4';
    'u' 'r' 'a' 'n' 'd' '_' 'b' 'e' 'l' 'o' 'w';
    'u' 'r' 'a' 'n' 'd' '_' 'b' 'e' 't' 'w' 'e' 'e' 'n';
    'u' 'r' 'a' 'n' 'd' '6' '4' '_' 'b' 'e' 'l' 'o' 'w';
    'u' 'r' 'a' 'n' 'd' '6' '4' '_' 'b' 'e' 't' 'w' 'e' 'e' 'n';
    'r' 'a' 'n' 'd';
    'r' 'a' 'n' 'd' '_' 'b' 'e' 'l' 'o' 'w';
    'r' 'a' 'n' 'd' '_' 'b' 'e' 't' 'w' 'e' 'e' 'n';
    'r' 'a' 'n' 'd' '6' '4';
    'r' 'a' 'n' 'd' '6' '4' '_' 'b' 'e' 'l' 'o' 'w';
    'r' 'a' 'n' 'd' '6' '4' '_' 'b' 'e' 't' 'w' 'e' 'e' 'n';
    'f' 'r' 'a' 'n' 'd';
    'f' 'r' 'a' 'n' 'd' '_' 'b' 'e' 'l' 'o' 'w';
    'f' 'r' 'a' 'n' 'd' '_' 'b' 'e' 't' 'w' 'e' 'e' 'n';
    'd' 'r' 'a' 'n' 'd';
    'd' 'r' 'a' 'n' 'd' '_' 'b' 'e' 'l' 'o' 'w';
    'd' 'r' 'a' 'n' 'd' '_' 'b' 'e' 't' 'w' 'e' 'e' 'n';
    'n' 'o' 'r' 'm' 'a' 'l';
    'n' 'o' 'r' 'm' 'a' 'l' '_' 'w' 'i' 't' 'h';
    'd' 'r' 'a' 'w';
}
