//! The operations of a [`ScatterView`](super::ScatterView) (Kokkos' `ScatterSum`, `ScatterProd`,
//! `ScatterMin`, `ScatterMax`) and the element types it combines.

use crate::kernel::DeviceScalar;
use crate::view::atomic::HostAtomicScalar;

mod sealed {
    pub trait Sealed {}
}

/// A number a [`ScatterView`](super::ScatterView) combines: the integers, `f32` and `f64` (sealed).
#[diagnostic::on_unimplemented(
    message = "a ScatterView of `{Self}`: only Views of integers, f32 and f64 are scattered",
    note = "a ScatterView combines numbers with `+`, `*`, `min` or `max`, on the host and on the GPU"
)]
pub trait ScatterValue: DeviceScalar + HostAtomicScalar + sealed::Sealed {
    /// 0.
    const ZERO: Self;
    /// 1.
    const ONE: Self;
    /// The largest value (the identity of `min`; Kokkos' `reduction_identity::min`).
    const LARGEST: Self;
    /// The smallest value (the identity of `max`; for floats `-MAX`, as Kokkos).
    const SMALLEST: Self;
}

macro_rules! scatter_value {
    ($($t:ty: $zero:expr, $one:expr;)*) => {$(
        impl sealed::Sealed for $t {}
        impl ScatterValue for $t {
            const ZERO: $t = $zero;
            const ONE: $t = $one;
            const LARGEST: $t = <$t>::MAX;
            const SMALLEST: $t = <$t>::MIN;
        }
    )*};
}

scatter_value! {
    i8: 0, 1; i16: 0, 1; i32: 0, 1; i64: 0, 1; isize: 0, 1;
    u8: 0, 1; u16: 0, 1; u32: 0, 1; u64: 0, 1; usize: 0, 1;
    f32: 0.0, 1.0; f64: 0.0, 1.0;
}

/// How a [`ScatterView`](super::ScatterView) combines contributions (sealed): [`ScatterSum`],
/// [`ScatterProd`], [`ScatterMin`] or [`ScatterMax`].
pub trait ScatterOp: sealed::Sealed + Send + Sync + 'static {
    /// The operation's name (for messages).
    const NAME: &'static str;
    /// The value that changes nothing (`0` for a sum).
    fn identity<T: ScatterValue>() -> T;
    /// `a` and `b` combined.
    fn combine<T: ScatterValue>(a: T, b: T) -> T;
}

/// Contributions are added: `s[k] += v` (and `s[k] -= v`) in a kernel (Kokkos' `ScatterSum`, the
/// default).
#[derive(Clone, Copy, Debug, Default)]
pub struct ScatterSum;

/// Contributions are multiplied: `s[k] *= v` in a kernel (Kokkos' `ScatterProd`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ScatterProd;

/// The smallest contribution is kept: `s.atomic_min(k, v)` in a kernel (Kokkos' `ScatterMin`,
/// `access(k).update(v)`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ScatterMin;

/// The largest contribution is kept: `s.atomic_max(k, v)` in a kernel (Kokkos' `ScatterMax`).
#[derive(Clone, Copy, Debug, Default)]
pub struct ScatterMax;

impl sealed::Sealed for ScatterSum {}
impl sealed::Sealed for ScatterProd {}
impl sealed::Sealed for ScatterMin {}
impl sealed::Sealed for ScatterMax {}

impl ScatterOp for ScatterSum {
    const NAME: &'static str = "sum";
    fn identity<T: ScatterValue>() -> T {
        T::ZERO
    }
    fn combine<T: ScatterValue>(a: T, b: T) -> T {
        T::add(a, b)
    }
}

impl ScatterOp for ScatterProd {
    const NAME: &'static str = "product";
    fn identity<T: ScatterValue>() -> T {
        T::ONE
    }
    fn combine<T: ScatterValue>(a: T, b: T) -> T {
        T::mul(a, b)
    }
}

impl ScatterOp for ScatterMin {
    const NAME: &'static str = "min";
    fn identity<T: ScatterValue>() -> T {
        T::LARGEST
    }
    fn combine<T: ScatterValue>(a: T, b: T) -> T {
        <T as HostAtomicScalar>::min(a, b)
    }
}

impl ScatterOp for ScatterMax {
    const NAME: &'static str = "max";
    fn identity<T: ScatterValue>() -> T {
        T::SMALLEST
    }
    fn combine<T: ScatterValue>(a: T, b: T) -> T {
        <T as HostAtomicScalar>::max(a, b)
    }
}
