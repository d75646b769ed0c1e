//! [`ReduceTarget`]: where the result of a `parallel_reduce` goes.

use super::{
    BAnd, BOr, Bitwise, Custom, LAnd, LOr, Max, MaxLoc, Min, MinLoc, MinMax, MinMaxLoc, Prod,
    Reducer, ReductionScalar, Sum,
};
use crate::error::Result;
use crate::policy::IndexType;
use crate::seal::Token;
use crate::space::MemorySpace;
use crate::view::{Element, Layout, View};

/// What `parallel_reduce` reduces into: a reducer (the result is returned), a `&mut` number or a
/// rank-0 View (summed into it), or a [`ReduceInto`]. See [`Reducer`].
///
/// Where a GPU may write the result itself (the hidden `device_place`) is ferrokkos's to say: the
/// method takes a token of type `SealedMethod` that only ferrokkos can make, so no other crate calls
/// or overrides it.
pub trait ReduceTarget {
    /// The reducer that combines the contributions.
    type Reducer: Reducer;
    /// What `parallel_reduce` returns: the value for a reducer, `()` when it is stored.
    type Output;
    /// Where the result goes.
    #[doc(hidden)]
    type Sink;
    /// The reducer and the place for the result.
    #[doc(hidden)]
    fn split(self) -> (Self::Reducer, Self::Sink);
    /// Checks, before the launch, that the result can be delivered (a View target is not borrowed).
    #[doc(hidden)]
    fn check(sink: &Self::Sink) -> Result<()> {
        let _ = sink;
        Ok(())
    }
    /// Delivers the final (joined and finalized) value.
    #[doc(hidden)]
    fn deliver(sink: Self::Sink, value: <Self::Reducer as Reducer>::Value) -> Result<Self::Output>;

    /// Where a device reduction may write the result itself, without it coming back to the host
    /// (a View the GPU reaches), with the output the call then returns. Sealed (its parameter's
    /// type cannot be named outside this crate): the GPU writes the result there.
    #[doc(hidden)]
    fn device_place(sink: &Self::Sink, _: Token) -> Option<(DevicePlace<'_>, Self::Output)> {
        let _ = sink;
        None
    }
}

/// A place in memory the GPU reaches where a reduction's result can be written: the address, its
/// size in bytes, and the allocation it belongs to (borrowed and stamped by the launch).
#[doc(hidden)]
// Read by the Cuda backend's reductions, which write their result there.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub struct DevicePlace<'a> {
    pub(crate) ptr: u64,
    pub(crate) size: usize,
    pub(crate) alloc: &'a std::sync::Arc<crate::space::Allocation>,
}

/// The device place of a rank-0 View, when its space is reachable by the GPU.
fn view_place<V: Element, L: Layout, M: MemorySpace>(
    view: &View<V, 0, L, M>,
) -> Option<DevicePlace<'_>> {
    let reachable = M::DEVICE_ACCESSIBLE && view.allocation().device_reachable() != Some(false);
    reachable.then(|| DevicePlace {
        ptr: view.as_ptr() as u64,
        size: std::mem::size_of::<V>(),
        alloc: view.allocation(),
    })
}

/// Returns the result of a reducer: `parallel_reduce(label, policy, kernel, ByValue(my_reducer))`.
/// The built-in reducers, [`crate::Custom`] and tuples of reducers are targets by themselves; a
/// reducer type of your own is wrapped in `ByValue` (or aimed at a place with
/// [`Reducer::into_result`]).
#[derive(Debug, Clone, Copy, Default)]
pub struct ByValue<R>(pub R);

impl<R: Reducer> ReduceTarget for ByValue<R> {
    type Reducer = R;
    type Output = R::Value;
    type Sink = ();
    fn split(self) -> (R, ()) {
        (self.0, ())
    }
    fn deliver((): (), value: R::Value) -> Result<R::Value> {
        Ok(value)
    }
}

/// Implements [`ReduceTarget`] for reducers that return their value.
macro_rules! by_value_target {
    ($(impl[$($g:tt)*] $t:ty;)*) => {$(
        impl<$($g)*> ReduceTarget for $t {
            type Reducer = Self;
            type Output = <Self as Reducer>::Value;
            type Sink = ();
            fn split(self) -> (Self, ()) {
                (self, ())
            }
            fn deliver((): (), value: Self::Output) -> Result<Self::Output> {
                Ok(value)
            }
        }
    )*};
}

by_value_target! {
    impl[T: ReductionScalar] Sum<T>;
    impl[T: ReductionScalar] Prod<T>;
    impl[T: ReductionScalar] Min<T>;
    impl[T: ReductionScalar] Max<T>;
    impl[T: Bitwise] BAnd<T>;
    impl[T: Bitwise] BOr<T>;
    impl[] LAnd;
    impl[] LOr;
    impl[T: ReductionScalar, I: IndexType] MinLoc<T, I>;
    impl[T: ReductionScalar, I: IndexType] MaxLoc<T, I>;
    impl[T: ReductionScalar] MinMax<T>;
    impl[T: ReductionScalar, I: IndexType] MinMaxLoc<T, I>;
    impl[A: Reducer, B: Reducer] (A, B);
    impl[A: Reducer, B: Reducer, C: Reducer] (A, B, C);
    impl[A: Reducer, B: Reducer, C: Reducer, D: Reducer] (A, B, C, D);
    impl[A: Reducer, B: Reducer, C: Reducer, D: Reducer, E: Reducer] (A, B, C, D, E);
    impl[A: Reducer, B: Reducer, C: Reducer, D: Reducer, E: Reducer, F: Reducer] (A, B, C, D, E, F);
}

impl<Init, Join, Final> ReduceTarget for Custom<Init, Join, Final>
where
    Custom<Init, Join, Final>: Reducer,
{
    type Reducer = Self;
    type Output = <Self as Reducer>::Value;
    type Sink = ();
    fn split(self) -> (Self, ()) {
        (self, ())
    }
    fn deliver((): (), value: Self::Output) -> Result<Self::Output> {
        Ok(value)
    }
}

/// A place a reduction result can be stored: a `&mut V`, or a rank-0 View of `V` in a
/// host-accessible space.
///
/// A place of your own receives the result on the host (`store`); only ferrokkos's places are
/// written by the GPU directly (the hidden `device_place` takes a token of type `SealedMethod` that
/// only ferrokkos can make, so no other crate calls or overrides it).
pub trait ResultPlace<V> {
    /// Whether the place can be written now (checked before the launch). `Ok` by default.
    fn check(&self) -> Result<()> {
        Ok(())
    }
    /// Stores `value`. An error if the place cannot be written now (a View borrowed elsewhere).
    fn store(self, value: V) -> Result<()>;

    /// See [`ReduceTarget::device_place`] (sealed likewise).
    #[doc(hidden)]
    fn device_place(&self, _: Token) -> Option<DevicePlace<'_>> {
        None
    }
}

impl<V> ResultPlace<V> for &mut V {
    fn store(self, value: V) -> Result<()> {
        *self = value;
        Ok(())
    }
}

impl<V: Element, L: Layout, M: MemorySpace> ResultPlace<V> for &View<V, 0, L, M> {
    fn check(&self) -> Result<()> {
        if M::HOST_ACCESSIBLE {
            self.allocation().borrow_exclusive()?;
            self.allocation().release_exclusive();
        }
        Ok(())
    }
    fn store(self, value: V) -> Result<()> {
        crate::view::deep_copy(self, value)
    }
    fn device_place(&self, _: Token) -> Option<DevicePlace<'_>> {
        view_place(self)
    }
}

/// An owned rank-0 View is a place too (a graph node keeps its target).
impl<V: Element, L: Layout, M: MemorySpace> ResultPlace<V> for View<V, 0, L, M> {
    fn check(&self) -> Result<()> {
        ResultPlace::<V>::check(&self)
    }
    fn store(self, value: V) -> Result<()> {
        crate::view::deep_copy(&self, value)
    }
    fn device_place(&self, _: Token) -> Option<DevicePlace<'_>> {
        view_place(self)
    }
}

/// A reducer delivering into a place ([`Reducer::into_result`]), like Kokkos' `Max<double>(result)`.
///
/// ```
/// use ferrokkos::prelude::*;
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Serial::default_instance()?;
/// let best = View::<i32, 0>::new("best", [])?;
/// let x = [4, -2, 9, 7];
/// parallel_reduce("max", RangePolicy::new(&exec, 0, 4)?,
///     |i: usize, m: &mut i32| *m = (*m).max(x[i]), Max::new().into_result(&best))?;
/// assert_eq!(best.get(())?, 9);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
#[derive(Debug, Clone)]
pub struct ReduceInto<R, P> {
    reducer: R,
    place: P,
}

impl<R, P> ReduceInto<R, P> {
    pub(super) fn new(reducer: R, place: P) -> Self {
        ReduceInto { reducer, place }
    }
}

impl<R: Reducer, P: ResultPlace<R::Value>> ReduceTarget for ReduceInto<R, P> {
    type Reducer = R;
    type Output = ();
    type Sink = P;
    fn split(self) -> (R, P) {
        (self.reducer, self.place)
    }
    fn check(place: &P) -> Result<()> {
        place.check()
    }
    fn deliver(place: P, value: R::Value) -> Result<()> {
        place.store(value)
    }
    fn device_place(place: &P, token: Token) -> Option<(DevicePlace<'_>, ())> {
        place.device_place(token).map(|p| (p, ()))
    }
}

/// Sums into the number (Kokkos' `parallel_reduce(policy, functor, result)`).
impl<T: ReductionScalar> ReduceTarget for &mut T {
    type Reducer = Sum<T>;
    type Output = ();
    type Sink = Self;
    fn split(self) -> (Sum<T>, Self) {
        (Sum::new(), self)
    }
    fn deliver(place: Self, value: T) -> Result<()> {
        *place = value;
        Ok(())
    }
}

/// A rank-0 View, borrowed (Kokkos' reduction into a View) or owned (a graph node keeps its
/// target), is summed into: its [`ResultPlace`] does the work.
macro_rules! sum_into_view {
    ($($view:ty),*) => {$(
        impl<T, L, M> ReduceTarget for $view
        where
            T: ReductionScalar + Element,
            L: Layout,
            M: MemorySpace,
        {
            type Reducer = Sum<T>;
            type Output = ();
            type Sink = Self;
            fn split(self) -> (Sum<T>, Self) {
                (Sum::new(), self)
            }
            fn check(view: &Self) -> Result<()> {
                ResultPlace::<T>::check(view)
            }
            fn deliver(view: Self, value: T) -> Result<()> {
                ResultPlace::<T>::store(view, value)
            }
            fn device_place(view: &Self, token: Token) -> Option<(DevicePlace<'_>, ())> {
                ResultPlace::<T>::device_place(view, token).map(|p| (p, ()))
            }
        }
    )*};
}

sum_into_view!(&View<T, 0, L, M>, View<T, 0, L, M>);
