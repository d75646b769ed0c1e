//! The reducers over one number: [`Sum`], [`Prod`], [`Min`], [`Max`], [`LAnd`], [`LOr`], [`BAnd`],
//! [`BOr`].

use std::marker::PhantomData;

use super::Reducer;
use super::scalar::{Bitwise, ReductionScalar};

macro_rules! reducer {
    (
        $(#[$doc:meta])*
        $name:ident<$t:ident: $bound:path>, init = $init:expr, join = |$d:ident, $s:ident| $join:expr
    ) => {
        $(#[$doc])*
        pub struct $name<$t>(PhantomData<fn() -> $t>);

        impl<$t: $bound> $name<$t> {
            /// The reducer (the value type is usually inferred from the kernel).
            pub const fn new() -> Self {
                $name(PhantomData)
            }
        }

        impl<$t: $bound> Default for $name<$t> {
            fn default() -> Self {
                Self::new()
            }
        }

        impl<$t> Clone for $name<$t> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<$t> Copy for $name<$t> {}

        impl<$t> std::fmt::Debug for $name<$t> {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                write!(f, "{}<{}>", stringify!($name), std::any::type_name::<$t>())
            }
        }

        impl<$t: $bound> Reducer for $name<$t> {
            type Value = $t;
            #[inline(always)]
            fn init(&self) -> $t {
                $init
            }
            #[inline(always)]
            fn join(&self, $d: &mut $t, $s: &$t) {
                $join
            }
            fn device_cxx(_: crate::seal::Token) -> Option<super::ReducerCxx> {
                let t = super::cxx_name::<$t>()?;
                Some(super::ReducerCxx::of::<$t>(
                    format!("fk::{}<{t}>", stringify!($name)),
                    t.to_string(),
                ))
            }
            fn device_decode(bytes: &[u8], _: crate::seal::Token) -> Option<$t> {
                super::read_scalar::<$t>(bytes)
            }
        }
    };
}

reducer!(
    /// Sum of the contributions (identity 0). Reducing into a `&mut f64` (or any number) means `Sum`.
    ///
    /// ```
    /// use ferrokkos::prelude::*;
    /// let _rt = ferrokkos::initialize(InitSettings::new())?;
    /// let exec = Threads::default_instance()?;
    /// let s = parallel_reduce("sum", RangePolicy::new(&exec, 0, 101)?,
    ///     |i: usize, acc: &mut u64| *acc += i as u64, Sum::new())?;
    /// assert_eq!(s, 5050);
    /// # Ok::<(), ferrokkos::Error>(())
    /// ```
    Sum<T: ReductionScalar>, init = T::ZERO, join = |d, s| *d = d.sum(*s)
);
reducer!(
    /// Product of the contributions (identity 1).
    Prod<T: ReductionScalar>, init = T::ONE, join = |d, s| *d = d.product(*s)
);
reducer!(
    /// Minimum of the contributions (identity: the largest finite value, e.g. `f64::MAX`). NaN
    /// contributions are ignored by the join (comparisons with NaN are false).
    Min<T: ReductionScalar>, init = T::LARGEST, join = |d, s| if *s < *d { *d = *s }
);
reducer!(
    /// Maximum of the contributions (identity: the lowest finite value, e.g. `f64::MIN`).
    Max<T: ReductionScalar>, init = T::LOWEST, join = |d, s| if *s > *d { *d = *s }
);
reducer!(
    /// Bitwise and of the contributions (identity: all bits set).
    BAnd<T: Bitwise>, init = T::ALL_ONES, join = |d, s| *d = d.and(*s)
);
reducer!(
    /// Bitwise or of the contributions (identity: no bit set).
    BOr<T: Bitwise>, init = T::NONE, join = |d, s| *d = d.or(*s)
);

/// Logical and of `bool` contributions (identity `true`): whether every iteration's condition held.
#[derive(Debug, Clone, Copy, Default)]
pub struct LAnd;

impl Reducer for LAnd {
    type Value = bool;
    #[inline(always)]
    fn init(&self) -> bool {
        true
    }
    #[inline(always)]
    fn join(&self, dst: &mut bool, src: &bool) {
        *dst = *dst && *src;
    }
    fn device_cxx(_: crate::seal::Token) -> Option<super::ReducerCxx> {
        Some(super::ReducerCxx::of::<bool>(
            "fk::LAnd".into(),
            "bool".into(),
        ))
    }
    fn device_decode(bytes: &[u8], _: crate::seal::Token) -> Option<bool> {
        super::read_bool(bytes)
    }
}

/// Logical or of `bool` contributions (identity `false`): whether some iteration's condition held.
#[derive(Debug, Clone, Copy, Default)]
pub struct LOr;

impl Reducer for LOr {
    type Value = bool;
    #[inline(always)]
    fn init(&self) -> bool {
        false
    }
    #[inline(always)]
    fn join(&self, dst: &mut bool, src: &bool) {
        *dst = *dst || *src;
    }
    fn device_cxx(_: crate::seal::Token) -> Option<super::ReducerCxx> {
        Some(super::ReducerCxx::of::<bool>(
            "fk::LOr".into(),
            "bool".into(),
        ))
    }
    fn device_decode(bytes: &[u8], _: crate::seal::Token) -> Option<bool> {
        super::read_bool(bytes)
    }
}
