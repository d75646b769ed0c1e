//! The draws over a generator's step (Kokkos' `urand`, `drand`, ... of `Kokkos_Random.hpp`), and
//! [`RandomValue`]: the element types `fill_random` and `rng.draw(begin, end)` draw (Kokkos'
//! `rand<Generator, T>`).

use super::generator::Generator;
use crate::kernel::value::DeviceValue;
use crate::seal::Sealed;

#[inline(always)]
pub(crate) fn urand<G: Generator>(g: &mut G) -> u32 {
    (g.step().wrapping_mul(G::MULTIPLIER) >> 16) as u32
}

#[inline(always)]
pub(crate) fn urand64<G: Generator>(g: &mut G) -> u64 {
    g.step().wrapping_mul(G::MULTIPLIER).wrapping_sub(1)
}

#[inline(always)]
pub(crate) fn rand<G: Generator>(g: &mut G) -> i32 {
    (urand(g) / 2) as i32
}

#[inline(always)]
pub(crate) fn rand64<G: Generator>(g: &mut G) -> i64 {
    (urand64(g) / 2) as i64
}

/// A draw below `range` by rejection of draws at or above the largest multiple of `range` (Kokkos'
/// `urand(range)` and its siblings); `zero` when the range is empty.
macro_rules! below {
    ($name:ident, $t:ty, $draw:ident, $max:expr, $empty:expr) => {
        #[inline]
        pub(crate) fn $name<G: Generator>(g: &mut G, range: $t) -> $t {
            if $empty(range) {
                return 0;
            }
            let max = ($max / range) * range;
            loop {
                let v = $draw(g);
                if v < max {
                    return v % range;
                }
            }
        }
    };
}

below!(urand_below, u32, urand, u32::MAX, |r: u32| r == 0);
below!(urand64_below, u64, urand64, u64::MAX, |r: u64| r == 0);
below!(rand_below, i32, rand, i32::MAX, |r: i32| r <= 0);
below!(rand64_below, i64, rand64, i64::MAX, |r: i64| r <= 0);

/// `range * urand64() / u64::MAX` in `f32` (Kokkos' `frand(range)`).
#[inline(always)]
pub(crate) fn frand_below<G: Generator>(g: &mut G, range: f32) -> f32 {
    range * urand64(g) as f32 / u64::MAX as f32
}

/// `range * urand64() / u64::MAX` (Kokkos' `drand(range)`).
#[inline(always)]
pub(crate) fn drand_below<G: Generator>(g: &mut G, range: f64) -> f64 {
    range * urand64(g) as f64 / u64::MAX as f64
}

/// Kokkos' `normal()`: Box-Muller over two uniform draws.
#[inline]
pub(crate) fn normal<G: Generator>(g: &mut G) -> f64 {
    let u = drand_below(g, 1.0);
    let v = drand_below(g, 1.0);
    let r = (-2.0 * u.ln()).sqrt();
    r * (v * (2.0 * std::f64::consts::PI)).cos()
}

/// An element type that generators draw uniformly between two values (Kokkos' `rand<Generator,
/// T>`): `u32`, `u64`, `i32`, `i64`, `usize`, `isize`, `f32`, `f64` (sealed). `fill_random` fills
/// Views of these, and `rng.draw(begin, end)` draws one in a kernel.
#[diagnostic::on_unimplemented(
    message = "a random generator draws no `{Self}`",
    note = "generators draw u32, u64, i32, i64, usize, isize, f32 and f64"
)]
pub trait RandomValue: DeviceValue + Sealed + PartialOrd + std::fmt::Debug {
    /// The draw's method of the device header's generator (`urand_between`, ...).
    #[doc(hidden)]
    const CXX_METHOD: &'static str;
    /// Whether the type is an integer (its ranges are half-open: `begin < end`).
    #[doc(hidden)]
    const INTEGER: bool;
    /// A draw in `begin..end` (`[begin, end]` for floats).
    #[doc(hidden)]
    fn draw_between<G: Generator>(g: &mut G, begin: Self, end: Self) -> Self;
}

macro_rules! random_value {
    ($($t:ty => $method:literal, $below:ident as $via:ty;)*) => {$(
        impl RandomValue for $t {
            const CXX_METHOD: &'static str = $method;
            const INTEGER: bool = true;
            #[inline]
            fn draw_between<G: Generator>(g: &mut G, begin: $t, end: $t) -> $t {
                $below(g, (end as $via).wrapping_sub(begin as $via)).wrapping_add(begin as $via)
                    as $t
            }
        }
    )*};
}

random_value! {
    u32 => "urand_between", urand_below as u32;
    u64 => "urand64_between", urand64_below as u64;
    usize => "urand64_between", urand64_below as u64;
    i32 => "rand_between", rand_below as i32;
    i64 => "rand64_between", rand64_below as i64;
    isize => "rand64_between", rand64_below as i64;
}

impl RandomValue for f32 {
    const CXX_METHOD: &'static str = "frand_between";
    const INTEGER: bool = false;
    #[inline]
    fn draw_between<G: Generator>(g: &mut G, begin: f32, end: f32) -> f32 {
        frand_below(g, end - begin) + begin
    }
}

impl RandomValue for f64 {
    const CXX_METHOD: &'static str = "drand_between";
    const INTEGER: bool = false;
    #[inline]
    fn draw_between<G: Generator>(g: &mut G, begin: f64, end: f64) -> f64 {
        drand_below(g, end - begin) + begin
    }
}
