//! [`IndexType`]: the integer types a policy can iterate over.

use std::fmt::{Debug, Display};

mod sealed {
    /// The seal of [`super::IndexType`]: a policy counts its iterations in these types.
    #[diagnostic::on_unimplemented(
        message = "`IndexType` is sealed: a policy iterates over `usize`, `u64`, `u32`, `isize`, \
                   `i64` or `i32` only",
        label = "`{Self}` cannot be a policy's index type",
        note = "launches count a policy's iterations in these types; make the policy with one of \
                them (`RangePolicy::<_, i64>`) and convert inside the kernel with `as`"
    )]
    pub trait Sealed {}
}

/// An integer type that policies iterate over (Kokkos' `IndexType<...>`): `usize`, `u64`, `u32`,
/// `isize`, `i64` or `i32`. Signed types allow negative bounds.
///
/// Internally a policy counts iterations from its lower bound in `u64`, so any range whose length fits
/// in 64 bits works, whatever the index type.
#[diagnostic::on_unimplemented(
    message = "`{Self}` cannot be a policy's index type",
    label = "not a policy index type",
    note = "policies iterate over `usize`, `u64`, `u32`, `isize`, `i64` or `i32` \
            (`RangePolicy::<_, i64>`); convert inside the kernel with `as`"
)]
pub trait IndexType:
    sealed::Sealed + crate::plain::PlainBytes + Send + Sync + PartialOrd + Debug + Display
{
    /// The largest value (the location identity of the `*Loc` reducers).
    const MAX: Self;

    /// `hi - lo` as an iteration count; `lo <= hi`.
    fn distance(lo: Self, hi: Self) -> u64;

    /// `self + k`; the result lies inside a range that starts at `self`.
    fn advance(self, k: u64) -> Self;

    /// The value, exactly.
    fn to_i128(self) -> i128;

    /// The type's width in bits.
    const BITS: u32;
}

macro_rules! index_type {
    ($($t:ty),*) => {$(
        impl sealed::Sealed for $t {}
        impl IndexType for $t {
            const MAX: Self = <$t>::MAX;
            #[inline(always)]
            fn distance(lo: Self, hi: Self) -> u64 {
                // Two's-complement difference, exact for every `lo <= hi` of a type of at most 64 bits.
                (hi as i128 - lo as i128) as u64
            }
            #[inline(always)]
            fn advance(self, k: u64) -> Self {
                (self as i128 + k as i128) as $t
            }
            #[inline(always)]
            fn to_i128(self) -> i128 {
                self as i128
            }
            const BITS: u32 = <$t>::BITS;
        }
    )*};
}

index_type!(usize, u64, u32, isize, i64, i32);

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn distance_and_advance_cover_the_whole_type() {
        assert_eq!(i64::distance(i64::MIN, i64::MAX), u64::MAX);
        assert_eq!(i32::distance(-5, 7), 12);
        assert_eq!((-5i32).advance(12), 7);
        assert_eq!(usize::distance(3, 3), 0);
        assert_eq!(i64::MIN.advance(u64::MAX), i64::MAX);
    }
}
