//! [`SortKey`]: the element types `sort` and `sort_by_key` order by their bits, with the
//! order-preserving map from a key to an unsigned integer that the radix sorts take digits of.

use crate::seal::Sealed;
use crate::space::KeyKind;
use crate::view::Element;

/// The unsigned integers the radix sorts take digits of (`u32`, `u64`).
pub trait RadixBits: Copy + Ord + Send + Sync + std::fmt::Debug + Sealed {
    /// The number of 8-bit digits.
    #[doc(hidden)]
    const DIGITS: usize;
    /// Digit `d` (0 the lowest).
    #[doc(hidden)]
    fn digit(self, d: usize) -> usize;
}

impl RadixBits for u32 {
    const DIGITS: usize = 4;
    #[inline(always)]
    fn digit(self, d: usize) -> usize {
        ((self >> (8 * d)) & 0xff) as usize
    }
}

impl RadixBits for u64 {
    const DIGITS: usize = 8;
    #[inline(always)]
    fn digit(self, d: usize) -> usize {
        ((self >> (8 * d)) & 0xff) as usize
    }
}

/// A key that `sort` and `sort_by_key` order: `u32`, `u64`, `usize`, `i32`, `i64`, `isize`, `f32`,
/// `f64` (sealed). Integers sort in their numeric order; floats in the order of
/// [`f64::total_cmp`]: `-NaN < -inf < ... < -0.0 < +0.0 < ... < +inf < +NaN`, so that every sort is
/// a total order and its result the same bits on every space.
#[diagnostic::on_unimplemented(
    message = "`sort` orders keys of u32, u64, usize, i32, i64, isize, f32 or f64, not `{Self}`",
    label = "not a sort key",
    note = "on a host space, `sort_by` sorts any element type with a comparator"
)]
pub trait SortKey: Element + Sealed + PartialOrd + Default + std::fmt::Debug {
    /// The unsigned integer of the same width.
    #[doc(hidden)]
    type Bits: RadixBits;
    /// How the bits order (the device sorts' transform).
    #[doc(hidden)]
    const KIND: KeyKind;
    /// The key's bits, mapped so that unsigned order is the key's order.
    #[doc(hidden)]
    fn ordered(self) -> Self::Bits;
}

macro_rules! unsigned_keys {
    ($($t:ty => $b:ty),*) => {$(
        impl SortKey for $t {
            type Bits = $b;
            const KIND: KeyKind = KeyKind::Unsigned;
            #[inline(always)]
            fn ordered(self) -> $b {
                self as $b
            }
        }
    )*};
}

macro_rules! signed_keys {
    ($($t:ty => $b:ty),*) => {$(
        impl SortKey for $t {
            type Bits = $b;
            const KIND: KeyKind = KeyKind::Signed;
            #[inline(always)]
            fn ordered(self) -> $b {
                (self as $b) ^ (1 << (<$b>::BITS - 1))
            }
        }
    )*};
}

macro_rules! float_keys {
    ($($t:ty => $b:ty),*) => {$(
        impl SortKey for $t {
            type Bits = $b;
            const KIND: KeyKind = KeyKind::Float;
            #[inline(always)]
            fn ordered(self) -> $b {
                let bits = self.to_bits();
                let sign = 1 << (<$b>::BITS - 1);
                if bits & sign != 0 { !bits } else { bits | sign }
            }
        }
    )*};
}

unsigned_keys!(u32 => u32, u64 => u64, usize => u64);
signed_keys!(i32 => u32, i64 => u64, isize => u64);
float_keys!(f32 => u32, f64 => u64);

// `usize` and `isize` sort as 64-bit keys.
const _: () = assert!(size_of::<usize>() == 8);

#[cfg(test)]
mod tests {
    use super::*;

    /// The mapped bits order as the keys do, floats as `total_cmp`.
    #[test]
    fn ordered_bits_keep_the_keys_order() {
        let ints = [i64::MIN, -5, -1, 0, 1, 7, i64::MAX];
        assert!(ints.windows(2).all(|w| w[0].ordered() < w[1].ordered()));
        let small = [i32::MIN, -2, 0, 3, i32::MAX];
        assert!(small.windows(2).all(|w| w[0].ordered() < w[1].ordered()));
        let floats = [
            -f64::NAN,
            f64::NEG_INFINITY,
            -1e300,
            -1.5,
            -0.0,
            0.0,
            f64::MIN_POSITIVE,
            2.5,
            f64::INFINITY,
            f64::NAN,
        ];
        for w in floats.windows(2) {
            assert_eq!(w[0].total_cmp(&w[1]), w[0].ordered().cmp(&w[1].ordered()));
            assert!(w[0].ordered() < w[1].ordered(), "{:?} {:?}", w[0], w[1]);
        }
        let f = [-3.0f32, -0.0, 0.0, 1.0, f32::INFINITY];
        assert!(f.windows(2).all(|w| w[0].ordered() < w[1].ordered()));
        assert_eq!(u64::MAX.ordered(), u64::MAX);
        assert_eq!(0x1234_5678u32.digit(1), 0x56);
    }
}
