//! The value types of the built-in reducers and their identities (Kokkos' `reduction_identity`).

use std::fmt::Debug;

/// A number the arithmetic and ordering reducers work on: the primitive integer and floating-point
/// types. The identities are Kokkos' `reduction_identity`: `0` for sums, `1` for products, the largest
/// finite value for minima and the lowest for maxima (`f64::MAX` and `f64::MIN`, not infinities).
pub trait ReductionScalar: Copy + Send + Sync + PartialOrd + Debug + 'static {
    /// The identity of [`crate::Sum`].
    const ZERO: Self;
    /// The identity of [`crate::Prod`].
    const ONE: Self;
    /// The identity of [`crate::Min`]: the largest finite value.
    const LARGEST: Self;
    /// The identity of [`crate::Max`]: the lowest finite value.
    const LOWEST: Self;
    /// `self + other` (wrapping for integers, so that a join never panics).
    fn sum(self, other: Self) -> Self;
    /// `self * other` (wrapping for integers).
    fn product(self, other: Self) -> Self;
}

macro_rules! int_scalar {
    ($($t:ty),*) => {$(
        impl ReductionScalar for $t {
            const ZERO: Self = 0;
            const ONE: Self = 1;
            const LARGEST: Self = <$t>::MAX;
            const LOWEST: Self = <$t>::MIN;
            #[inline(always)]
            fn sum(self, other: Self) -> Self { self.wrapping_add(other) }
            #[inline(always)]
            fn product(self, other: Self) -> Self { self.wrapping_mul(other) }
        }
    )*};
}

macro_rules! float_scalar {
    ($($t:ty),*) => {$(
        impl ReductionScalar for $t {
            const ZERO: Self = 0.0;
            const ONE: Self = 1.0;
            const LARGEST: Self = <$t>::MAX;
            const LOWEST: Self = <$t>::MIN;
            #[inline(always)]
            fn sum(self, other: Self) -> Self { self + other }
            #[inline(always)]
            fn product(self, other: Self) -> Self { self * other }
        }
    )*};
}

int_scalar!(
    i8, i16, i32, i64, i128, isize, u8, u16, u32, u64, u128, usize
);
float_scalar!(f32, f64);

/// A type the bitwise reducers ([`crate::BAnd`], [`crate::BOr`]) work on: the primitive integers and
/// `bool`.
pub trait Bitwise: Copy + Send + Sync + Debug + 'static {
    /// The identity of `&`: every bit set.
    const ALL_ONES: Self;
    /// The identity of `|`: no bit set.
    const NONE: Self;
    /// `self & other`.
    fn and(self, other: Self) -> Self;
    /// `self | other`.
    fn or(self, other: Self) -> Self;
}

macro_rules! bitwise {
    ($($t:ty = $ones:expr, $none:expr);* $(;)?) => {$(
        impl Bitwise for $t {
            const ALL_ONES: Self = $ones;
            const NONE: Self = $none;
            #[inline(always)]
            fn and(self, other: Self) -> Self { self & other }
            #[inline(always)]
            fn or(self, other: Self) -> Self { self | other }
        }
    )*};
}

bitwise! {
    bool = true, false;
    i8 = !0, 0; i16 = !0, 0; i32 = !0, 0; i64 = !0, 0; i128 = !0, 0; isize = !0, 0;
    u8 = !0, 0; u16 = !0, 0; u32 = !0, 0; u64 = !0, 0; u128 = !0, 0; usize = !0, 0;
}
