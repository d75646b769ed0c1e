//! Reducers: how the contributions of a `parallel_reduce` combine (Kokkos' reducer concept).

mod basic;
mod custom;
pub(crate) mod device;
mod loc;
mod scalar;
mod target;
mod tuple;

use crate::seal::Token;

pub use basic::{BAnd, BOr, LAnd, LOr, Max, Min, Prod, Sum};
pub use custom::Custom;
pub(crate) use device::ReducerCxx;
pub(crate) use device::{cxx_name, read_bool, read_plain, read_scalar};
pub use loc::{MaxLoc, MinLoc, MinMax, MinMaxLoc, MinMaxLocScalar, MinMaxScalar, ValLocScalar};
pub use scalar::{Bitwise, ReductionScalar};
pub use target::{ByValue, DevicePlace, ReduceInto, ReduceTarget, ResultPlace};

/// How contributions combine: an identity, an associative join and an optional final step.
///
/// Implement it for your own types, or build one from closures with [`Custom`].
/// A [`Reducer`] gives the identity (`init`), the combination of two partial results (`join`) and an
/// optional last step (`finalize`). Every thread (or chunk) starts from the identity, the kernel adds
/// its iterations' contributions, and the partial results are joined in a fixed order, so a result
/// on Threads depends only on the number of threads, not on timing.
///
/// The target of a reduction ([`ReduceTarget`]) is one of:
/// - a built-in reducer or a [`Custom`] one, and `parallel_reduce` returns the value: `Max::new()`
///   (wrap a reducer type of your own in [`ByValue`]);
/// - a tuple of reducers, several reductions in one pass, returned as a tuple: `(Sum::new(), Max::new())`;
/// - a `&mut` number, summed into it (Kokkos' `parallel_reduce(policy, f, result)`);
/// - a rank-0 [`crate::View`], summed into it;
/// - a reducer aimed at a place: `Max::new().into_result(&mut m)` or `.into_result(&view)` (Kokkos'
///   `Max<double>(result)`).
///
/// A reducer of your own runs on host spaces. Its device form (the hidden `device_cxx` and
/// `device_decode`) is ferrokkos's own: those methods take a token of type `SealedMethod` that only
/// ferrokkos can make, so no other crate calls or overrides them; on the GPU, use the built-in
/// reducers, tuples of them, or [`crate::Join`] over a [`crate::DeviceJoin`] type.
pub trait Reducer: Sync {
    /// The type of partial and final results (the kernel's accumulator type).
    type Value: Clone + Send + Sync;

    /// The identity: the value each thread or chunk starts from, and the result of an empty range.
    fn init(&self) -> Self::Value;

    /// Combines `src` into `dst`. Must be associative, with [`Reducer::init`] as its identity.
    fn join(&self, dst: &mut Self::Value, src: &Self::Value);

    /// Applied once to the joined result before it is delivered (Kokkos' `final`). Does nothing by
    /// default.
    fn finalize(&self, value: &mut Self::Value) {
        let _ = value;
    }

    /// The reducer's device description, if it can run in device code (every built-in reducer
    /// over device numbers, and tuples of them). Sealed (its parameter's type cannot be named
    /// outside this crate): the C++ text and the value's size go into device launches. A reducer
    /// whose `finalize` changes values describes its final step there too
    /// (`ReducerCxx::finalize`): a result written into a device place is finalized on the device
    /// only.
    #[doc(hidden)]
    fn device_cxx(_: Token) -> Option<ReducerCxx>
    where
        Self: Sized,
    {
        None
    }

    /// The value from the bytes of its device representation (see [`ReducerCxx`]; sealed).
    #[doc(hidden)]
    fn device_decode(bytes: &[u8], _: Token) -> Option<Self::Value>
    where
        Self: Sized,
    {
        let _ = bytes;
        None
    }

    /// This reducer, delivering its result into `place` (a `&mut` value or a rank-0 View) instead of
    /// returning it.
    fn into_result<P: ResultPlace<Self::Value>>(self, place: P) -> ReduceInto<Self, P>
    where
        Self: Sized,
    {
        ReduceInto::new(self, place)
    }
}
