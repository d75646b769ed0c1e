//! A Bitset in the typed shadow: a kernel's `b.set(i)`, `b.reset(i)`, `b.test(i)` and `b.size()`
//! on a captured [`crate::Bitset`] reach these shadows through [`MethodReceiver`] and
//! [`DeviceMethod`] (the path of every method call that is not a built-in), and emit calls of `device/bitset.cuh`. The host body
//! calls the same methods of [`crate::__private::BitsetAccess`], so the two agree on the argument
//! and result types (`usize` in, `bool` out).

use super::super::builder::prec;
use super::super::device_fn::{Ch, DeviceMethod, MethodReceiver};
use super::super::expr::Expr;
use super::Takes;

/// The C++ side of a captured Bitset (an `fk::Bitset` parameter).
#[derive(Clone, Copy, Debug)]
pub struct BitsetCxx;

/// The shadow of a captured Bitset: the methods kernels call on it.
#[derive(Clone, Copy, Debug)]
pub struct BitsetShadow(Expr<BitsetCxx>);

impl BitsetShadow {
    /// The Bitset kernel parameter named `cxx_name`.
    pub(crate) fn name(cxx_name: &str) -> Self {
        BitsetShadow(Expr::name(cxx_name))
    }

    /// `f(bitset, i)` evaluated where the body calls it, as a `bool` local: set and reset change
    /// the bits, and a test reads them at that point of the iteration.
    fn call(self, f: &str, i: Expr<usize>) -> Expr<bool> {
        super::local_value(
            "bool",
            "fk_bit",
            format!("fk::{f}({}, {})", self.0.text(), i.text()),
        )
    }

    /// `b.set(i)` for an argument of a known type.
    pub fn __fk_set<A>(self, i: Expr<A>) -> Expr<bool>
    where
        usize: Takes<A>,
    {
        self.__fkt_set(<usize as Takes<A>>::take(i))
    }

    /// `b.set(i)`: sets bit `i`; true when this call changed it (false past `size()`).
    pub fn __fkt_set(self, i: Expr<usize>) -> Expr<bool> {
        self.call("bitset_set", i)
    }

    /// `b.reset(i)` for an argument of a known type.
    pub fn __fk_reset<A>(self, i: Expr<A>) -> Expr<bool>
    where
        usize: Takes<A>,
    {
        self.__fkt_reset(<usize as Takes<A>>::take(i))
    }

    /// `b.reset(i)`: clears bit `i`; true when this call changed it (false past `size()`).
    pub fn __fkt_reset(self, i: Expr<usize>) -> Expr<bool> {
        self.call("bitset_reset", i)
    }

    /// `b.test(i)` for an argument of a known type.
    pub fn __fk_test<A>(self, i: Expr<A>) -> Expr<bool>
    where
        usize: Takes<A>,
    {
        self.__fkt_test(<usize as Takes<A>>::take(i))
    }

    /// `b.test(i)`: whether bit `i` is set (false past `size()`).
    pub fn __fkt_test(self, i: Expr<usize>) -> Expr<bool> {
        self.call("bitset_test", i)
    }

    /// `b.size()`.
    pub fn __fk_size(self) -> Expr<usize> {
        Expr::new(
            format!("{}.size", self.0.operand(prec::PRIMARY)),
            prec::PRIMARY,
        )
    }

    /// `b.size()`.
    pub fn __fkt_size(self) -> Expr<usize> {
        self.__fk_size()
    }
}

// SAFETY: a Bitset's shadow is called as itself.
#[diagnostic::do_not_recommend]
unsafe impl MethodReceiver for BitsetShadow {
    type Target = BitsetShadow;
    fn receive(self) -> BitsetShadow {
        self
    }
}

/// A Bitset's kernel methods, by name ([`Ch`] lists).
macro_rules! bitset_methods {
    ($($($c:literal)*;)*) => {$(
        // SAFETY: `BitsetShadow::__fk_<name>` / `__fkt_<name>` emit the device form of the
        // `BitsetAccess` method of that name (`device/bitset.cuh` and `containers/bitset_access.rs`
        // implement one semantics).
        #[diagnostic::do_not_recommend]
        unsafe impl DeviceMethod<bitset_methods!(@name $($c)*)> for BitsetShadow {}
    )*};
    (@name) => { () };
    (@name $c:literal $($rest:literal)*) => { Ch<$c, bitset_methods!(@name $($rest)*)> };
}

bitset_methods! {
    's' 'e' 't';
    'r' 'e' 's' 'e' 't';
    't' 'e' 's' 't';
    's' 'i' 'z' 'e';
}
