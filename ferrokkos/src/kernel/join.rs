//! Custom reductions on every space: a [`DeviceValue`] type says how to combine two of its values
//! ([`DeviceJoin`], implemented in a `#[device] impl` block), and [`Join`] is the reducer that
//! uses it (Kokkos' custom reducer: `init`, `join` and an optional `final` written by the user,
//! run on the device too).
//!
//! The device form of `Join<V>` is a C++ reducer struct (`value_type`, `identity()`, `join`, and
//! `finalize` when the block defines one) whose functions call the C++ translations of
//! `V::identity`, `V::join` and `V::finalize`. Those are generated inside the
//! kernel's own emission (the reducer description's `emit` hook), so the device functions and types
//! they need join the kernel's, each defined once.

use std::marker::PhantomData;

use super::builder;
use super::expr::Expr;
use super::shadow;
use super::value::DeviceValue;
use crate::reducer::{Reducer, ReducerCxx};

/// A device value with its own reduction: an identity (the value of no contribution) and an
/// associative join. Implement it in a `#[device] impl DeviceJoin for T { ... }` block (the
/// attribute adds the device forms), and reduce with [`Join<T>`].
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::{DeviceJoin, DeviceValue, Join};
///
/// /// The lowest and highest value seen, and how many values.
/// #[repr(C)]
/// #[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
/// struct Span {
///     lo: f64,
///     hi: f64,
///     n: u64,
/// }
///
/// #[device]
/// impl DeviceJoin for Span {
///     fn identity() -> Span {
///         Span { lo: f64::MAX, hi: f64::MIN, n: 0 }
///     }
///     fn join(self, other: Span) -> Span {
///         Span { lo: self.lo.min(other.lo), hi: self.hi.max(other.hi), n: self.n + other.n }
///     }
/// }
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let x = View::<f64, 1>::new("x", [5])?;
/// for (i, v) in [3.0, -1.0, 4.0, 1.5, 9.0].into_iter().enumerate() {
///     x.set(i, v)?;
/// }
/// let s = parallel_reduce("span", 5, kernel!(|i, acc: &mut Span| {
///     *acc = acc.join(Span { lo: x[i], hi: x[i], n: 1 });
/// }), Join::<Span>::new())?;
/// assert_eq!(s, Span { lo: -1.0, hi: 9.0, n: 5 });
/// # Ok::<(), ferrokkos::Error>(())
/// ```
///
/// The join must be associative, and `identity` its neutral element. The host spaces join partial
/// results in index order; the GPU combines contributions in any order unless the block says that
/// the join does not commute (`const COMMUTATIVE: bool = false;`), when it combines them in index
/// order too (each thread a contiguous run of indices, the blocks' values in block order).
///
/// An optional `finalize` (Kokkos' `final`) turns the joined result into the delivered one, once:
/// on the host for a value that comes back, on the device for a result written into a device View.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::{DeviceJoin, DeviceValue, Join};
///
/// /// A running mean: the sum and the count, divided at the end.
/// #[repr(C)]
/// #[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
/// struct Mean {
///     sum: f64,
///     n: f64,
/// }
///
/// #[device]
/// impl DeviceJoin for Mean {
///     fn identity() -> Mean {
///         Mean { sum: 0.0, n: 0.0 }
///     }
///     fn join(self, o: Mean) -> Mean {
///         Mean { sum: self.sum + o.sum, n: self.n + o.n }
///     }
///     fn finalize(self) -> Mean {
///         Mean { sum: self.sum / self.n, n: self.n }
///     }
/// }
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let m = parallel_reduce("mean", 4, kernel!(|i, acc: &mut Mean| {
///     *acc = acc.join(Mean { sum: i as f64, n: 1.0 });
/// }), Join::<Mean>::new())?;
/// assert_eq!(m, Mean { sum: 1.5, n: 4.0 });
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub trait DeviceJoin: DeviceValue + JoinForms {
    /// Whether `a.join(b) == b.join(a)` for all values. `true` by default; a block that sets it to
    /// `false` makes the GPU combine contributions in index order, as the host spaces do.
    const COMMUTATIVE: bool = true;
    /// The value of no contribution: `identity().join(v) == v`.
    fn identity() -> Self;
    /// Combines two partial results (associative; the receiver holds the earlier contributions).
    fn join(self, other: Self) -> Self;
    /// The last step, applied once to the joined result before it is delivered (Kokkos' `final`).
    /// Unchanged by default.
    fn finalize(self) -> Self {
        self
    }
}

/// The device forms of a [`DeviceJoin`] implementation, which `#[device] impl DeviceJoin for T`
/// generates (macro support: not API).
///
/// # Safety
/// The forms must be the typed shadows `#[device]` generated from the bodies of
/// [`DeviceJoin::identity`], [`DeviceJoin::join`] and [`DeviceJoin::finalize`]: a reduction's device code is compiled once
/// per kernel and reducer type, so it may depend only on types, never on values a hand-written form
/// could read.
#[doc(hidden)]
#[diagnostic::on_unimplemented(
    message = "`{Self}` implements `DeviceJoin` without `#[ferrokkos::device]`",
    note = "write `#[ferrokkos::device] impl DeviceJoin for {Self} {{ ... }}`: the attribute adds \
            the forms of `identity` and `join` that kernels on the GPU run"
)]
pub unsafe trait JoinForms: Sized {
    /// The typed shadow of [`DeviceJoin::identity`].
    fn __fk_identity() -> Expr<Self>;
    /// The typed shadow of [`DeviceJoin::join`] (the receiver's expression comes through
    /// [`shadow::receiver`]).
    fn __fk_join(self, other: Expr<Self>) -> Expr<Self>;
    /// Whether the block defines [`DeviceJoin::finalize`] (else it leaves the value unchanged and
    /// the device form has no final step).
    const __FK_FINALIZE: bool;
    /// The typed shadow of [`DeviceJoin::finalize`] (the receiver's expression comes through
    /// [`shadow::receiver`]; without a `finalize` in the block, the receiver's expression itself).
    fn __fk_finalize(self) -> Expr<Self>;
}

/// The reducer of a [`DeviceJoin`] type: starts from `V::identity()` and combines contributions
/// with `V::join`, on every space (see [`DeviceJoin`] for an example).
pub struct Join<V>(PhantomData<fn() -> V>);

impl<V: DeviceJoin> Join<V> {
    /// The reducer.
    pub const fn new() -> Self {
        Join(PhantomData)
    }
}

impl<V: DeviceJoin> Default for Join<V> {
    fn default() -> Self {
        Self::new()
    }
}

impl<V> Clone for Join<V> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<V> Copy for Join<V> {}

impl<V> std::fmt::Debug for Join<V> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Join<{}>", std::any::type_name::<V>())
    }
}

impl<V: DeviceJoin> Reducer for Join<V> {
    type Value = V;
    #[inline(always)]
    fn init(&self) -> V {
        V::identity()
    }
    #[inline(always)]
    fn join(&self, dst: &mut V, src: &V) {
        *dst = dst.join(*src);
    }
    fn finalize(&self, value: &mut V) {
        *value = value.finalize();
    }
    fn device_cxx(_: crate::seal::Token) -> Option<ReducerCxx> {
        // The value's C++ name is the struct's own: `V`'s name is chosen in the kernel's emission.
        let name = reducer_name::<V>();
        let mut cxx = ReducerCxx::of::<V>(name.clone(), format!("{name}::value_type"));
        cxx.emit.push(emit::<V>);
        cxx.finalize = V::__FK_FINALIZE;
        cxx.ordered = !V::COMMUTATIVE;
        Some(cxx)
    }
    fn device_decode(bytes: &[u8], _: crate::seal::Token) -> Option<V> {
        // A value with `bool` or enum fields could carry an invalid pattern; only values valid for
        // every bit pattern are read back.
        if !<V as crate::view::Element>::ANY_BIT_PATTERN {
            return None;
        }
        crate::reducer::read_plain(bytes)
    }
}

/// The C++ name of `Join<V>`'s reducer struct: one per value type, the same in every build (from
/// the type's name: an FNV-1a hash).
fn reducer_name<V: 'static>() -> String {
    let hash = std::any::type_name::<V>()
        .bytes()
        .fold(0xcbf2_9ce4_8422_2325u64, |h, b| {
            (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
        });
    format!("FkJoin_{hash:016x}")
}

/// Runs inside a kernel's emission: defines the value type and the C++ forms of `V::identity`,
/// `V::join` and (when the block has one) `V::finalize` there, and returns the reducer struct that
/// calls them (`reducer_name::<V>()`, value type `V`; `finalize(v)` is its final step).
fn emit<V: DeviceJoin>() -> String {
    let (lines, (value, identity, join, finalize)) = builder::capture(|| {
        let value = V::cxx_name();
        let identity = V::__fk_identity().text();
        let dst = Expr::<V>::name("dst");
        let join = shadow::receiver(dst).__fk_join(Expr::name("src")).text();
        let finalize = V::__FK_FINALIZE.then(|| {
            let v = Expr::<V>::name("v");
            shadow::receiver(v).__fk_finalize().text()
        });
        (value, identity, join, finalize)
    });
    debug_assert!(
        !builder::has_code(&lines),
        "calls of device functions emit no statements"
    );
    let name = reducer_name::<V>();
    let finalize = finalize.map_or_else(String::new, |f| {
        format!(
            "    static __device__ __forceinline__ void finalize(value_type& v) {{ v = {f}; }}\n"
        )
    });
    format!(
        "// The reducer of a DeviceJoin type.\n\
         struct {name} {{\n    \
         typedef {value} value_type;\n    \
         static __device__ __forceinline__ value_type identity() {{ return {identity}; }}\n    \
         static __device__ __forceinline__ void join(value_type& dst, const value_type& src) {{\n        \
         dst = {join};\n    \
         }}\n\
         {finalize}\
         }};\n"
    )
}

impl<V: DeviceJoin> crate::reducer::ReduceTarget for Join<V> {
    type Reducer = Self;
    type Output = V;
    type Sink = ();
    fn split(self) -> (Self, ()) {
        (self, ())
    }
    fn deliver((): (), value: V) -> crate::error::Result<V> {
        Ok(value)
    }
}
