//! Reducers that keep where an extreme was found, and minimum-and-maximum reducers: [`MinLoc`],
//! [`MaxLoc`], [`MinMax`], [`MinMaxLoc`].
//!
//! Ties are broken deterministically: among equal extreme values the smallest location wins, in every
//! space and for every thread count (Kokkos leaves this unspecified for `MinLoc`; its `MinFirstLoc`
//! behaves like this). Kernels should update their accumulator only on a strict improvement
//! (`if x < acc.val { ... }`) so that, inside one thread's share, the first location is kept too.

use std::marker::PhantomData;

use super::Reducer;
use super::scalar::ReductionScalar;
use crate::policy::IndexType;

/// A value and its location (Kokkos' `ValLocScalar`), the value of [`MinLoc`] and [`MaxLoc`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)] // the layout of the device header's struct of the same name
pub struct ValLocScalar<T, I> {
    /// The extreme value.
    pub val: T,
    /// Where it was found.
    pub loc: I,
}

impl<T, I> ValLocScalar<T, I> {
    /// The value `val` found at `loc`.
    pub const fn new(val: T, loc: I) -> Self {
        ValLocScalar { val, loc }
    }
}

/// A minimum and a maximum (Kokkos' `MinMaxScalar`), the value of [`MinMax`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)] // the layout of the device header's struct of the same name
pub struct MinMaxScalar<T> {
    /// The minimum.
    pub min_val: T,
    /// The maximum.
    pub max_val: T,
}

impl<T> MinMaxScalar<T> {
    /// The pair `(min_val, max_val)`.
    pub const fn new(min_val: T, max_val: T) -> Self {
        MinMaxScalar { min_val, max_val }
    }
}

/// A minimum and a maximum with their locations (Kokkos' `MinMaxLocScalar`), the value of
/// [`MinMaxLoc`].
#[derive(Debug, Clone, Copy, PartialEq)]
#[repr(C)] // the layout of the device header's struct of the same name
pub struct MinMaxLocScalar<T, I> {
    /// The minimum.
    pub min_val: T,
    /// The maximum.
    pub max_val: T,
    /// Where the minimum was found.
    pub min_loc: I,
    /// Where the maximum was found.
    pub max_loc: I,
}

impl<T, I> MinMaxLocScalar<T, I> {
    /// The minimum `min_val` at `min_loc` and the maximum `max_val` at `max_loc`.
    pub const fn new(min_val: T, min_loc: I, max_val: T, max_loc: I) -> Self {
        MinMaxLocScalar {
            min_val,
            max_val,
            min_loc,
            max_loc,
        }
    }
}

macro_rules! marker_reducer {
    ($(#[$doc:meta])* $name:ident<$($p:ident),*>) => {
        $(#[$doc])*
        pub struct $name<$($p),*>(PhantomData<fn() -> ($($p,)*)>);

        impl<$($p),*> $name<$($p),*> {
            /// The reducer (the value and index types are usually inferred from the kernel).
            pub const fn new() -> Self {
                $name(PhantomData)
            }
        }

        impl<$($p),*> Default for $name<$($p),*> {
            fn default() -> Self {
                Self::new()
            }
        }

        impl<$($p),*> Clone for $name<$($p),*> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<$($p),*> Copy for $name<$($p),*> {}

        impl<$($p),*> std::fmt::Debug for $name<$($p),*> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(stringify!($name))
            }
        }
    };
}

marker_reducer!(
    /// The minimum value and its location; on ties, the smallest location. Identity: the largest
    /// value at location `I::MAX`.
    ///
    /// ```
    /// use ferrokkos::prelude::*;
    /// let _rt = ferrokkos::initialize(InitSettings::new())?;
    /// let exec = Threads::default_instance()?;
    /// let x = [3.0, 1.0, 4.0, 1.0, 5.0];
    /// let m = parallel_reduce("argmin", RangePolicy::new(&exec, 0, x.len())?,
    ///     |i: usize, acc: &mut ValLocScalar<f64, usize>| {
    ///         if x[i] < acc.val { *acc = ValLocScalar { val: x[i], loc: i }; }
    ///     }, MinLoc::new())?;
    /// assert_eq!((m.val, m.loc), (1.0, 1));
    /// # Ok::<(), ferrokkos::Error>(())
    /// ```
    MinLoc<T, I>
);
marker_reducer!(
    /// The maximum value and its location; on ties, the smallest location. Identity: the lowest
    /// value at location `I::MAX`.
    MaxLoc<T, I>
);
marker_reducer!(
    /// The minimum and the maximum. Identity: `(largest, lowest)`.
    MinMax<T>
);
marker_reducer!(
    /// The minimum and the maximum with their locations; on ties, the smallest locations.
    MinMaxLoc<T, I>
);

/// Whether `(v, l)` beats `(best, at)` for a minimum with smallest-location ties.
#[inline(always)]
fn better_min<T: PartialOrd, I: PartialOrd>(v: &T, l: &I, best: &T, at: &I) -> bool {
    v < best || (v == best && l < at)
}

#[inline(always)]
fn better_max<T: PartialOrd, I: PartialOrd>(v: &T, l: &I, best: &T, at: &I) -> bool {
    v > best || (v == best && l < at)
}

impl<T: ReductionScalar, I: IndexType> Reducer for MinLoc<T, I> {
    type Value = ValLocScalar<T, I>;
    fn init(&self) -> Self::Value {
        ValLocScalar {
            val: T::LARGEST,
            loc: I::MAX,
        }
    }
    #[inline(always)]
    fn join(&self, d: &mut Self::Value, s: &Self::Value) {
        if better_min(&s.val, &s.loc, &d.val, &d.loc) {
            *d = *s;
        }
    }
    fn device_cxx(_: crate::seal::Token) -> Option<super::ReducerCxx> {
        let t = super::cxx_name::<T>()?;
        let i = super::cxx_name::<I>()?;
        Some(super::ReducerCxx::of::<Self::Value>(
            format!("fk::MinLoc<{t}, {i}>"),
            format!("fk::ValLocScalar<{t}, {i}>"),
        ))
    }
    fn device_decode(bytes: &[u8], _: crate::seal::Token) -> Option<Self::Value> {
        super::read_plain(bytes)
    }
}

impl<T: ReductionScalar, I: IndexType> Reducer for MaxLoc<T, I> {
    type Value = ValLocScalar<T, I>;
    fn init(&self) -> Self::Value {
        ValLocScalar {
            val: T::LOWEST,
            loc: I::MAX,
        }
    }
    #[inline(always)]
    fn join(&self, d: &mut Self::Value, s: &Self::Value) {
        if better_max(&s.val, &s.loc, &d.val, &d.loc) {
            *d = *s;
        }
    }
    fn device_cxx(_: crate::seal::Token) -> Option<super::ReducerCxx> {
        let t = super::cxx_name::<T>()?;
        let i = super::cxx_name::<I>()?;
        Some(super::ReducerCxx::of::<Self::Value>(
            format!("fk::MaxLoc<{t}, {i}>"),
            format!("fk::ValLocScalar<{t}, {i}>"),
        ))
    }
    fn device_decode(bytes: &[u8], _: crate::seal::Token) -> Option<Self::Value> {
        super::read_plain(bytes)
    }
}

impl<T: ReductionScalar> Reducer for MinMax<T> {
    type Value = MinMaxScalar<T>;
    fn init(&self) -> Self::Value {
        MinMaxScalar {
            min_val: T::LARGEST,
            max_val: T::LOWEST,
        }
    }
    #[inline(always)]
    fn join(&self, d: &mut Self::Value, s: &Self::Value) {
        if s.min_val < d.min_val {
            d.min_val = s.min_val;
        }
        if s.max_val > d.max_val {
            d.max_val = s.max_val;
        }
    }
    fn device_cxx(_: crate::seal::Token) -> Option<super::ReducerCxx> {
        let t = super::cxx_name::<T>()?;

        Some(super::ReducerCxx::of::<Self::Value>(
            format!("fk::MinMax<{t}>"),
            format!("fk::MinMaxScalar<{t}>"),
        ))
    }
    fn device_decode(bytes: &[u8], _: crate::seal::Token) -> Option<Self::Value> {
        super::read_plain(bytes)
    }
}

impl<T: ReductionScalar, I: IndexType> Reducer for MinMaxLoc<T, I> {
    type Value = MinMaxLocScalar<T, I>;
    fn init(&self) -> Self::Value {
        MinMaxLocScalar {
            min_val: T::LARGEST,
            max_val: T::LOWEST,
            min_loc: I::MAX,
            max_loc: I::MAX,
        }
    }
    #[inline(always)]
    fn join(&self, d: &mut Self::Value, s: &Self::Value) {
        if better_min(&s.min_val, &s.min_loc, &d.min_val, &d.min_loc) {
            d.min_val = s.min_val;
            d.min_loc = s.min_loc;
        }
        if better_max(&s.max_val, &s.max_loc, &d.max_val, &d.max_loc) {
            d.max_val = s.max_val;
            d.max_loc = s.max_loc;
        }
    }
    fn device_cxx(_: crate::seal::Token) -> Option<super::ReducerCxx> {
        let t = super::cxx_name::<T>()?;
        let i = super::cxx_name::<I>()?;
        Some(super::ReducerCxx::of::<Self::Value>(
            format!("fk::MinMaxLoc<{t}, {i}>"),
            format!("fk::MinMaxLocScalar<{t}, {i}>"),
        ))
    }
    fn device_decode(bytes: &[u8], _: crate::seal::Token) -> Option<Self::Value> {
        super::read_plain(bytes)
    }
}
