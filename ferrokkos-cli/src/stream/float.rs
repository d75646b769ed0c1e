//! [`StreamFloat`]: the element types the benchmark runs with (`f64` by default, `f32` with `--float`).

use std::fmt::{Debug, Display};
use std::ops::{Add, AddAssign, Mul};

use ferrokkos::traits::Element;
use ferrokkos::traits::ReductionScalar;

/// A floating-point type BabelStream runs with.
pub trait StreamFloat:
    Element
    + ferrokkos::kernel::DeviceScalar
    + ReductionScalar
    + Add<Output = Self>
    + Mul<Output = Self>
    + AddAssign
    + Debug
    + Display
    + std::iter::Sum
    + PeerRepr
    + OpenMpRepr
{
    /// The C name of the type, as BabelStream prints it ("double", "float").
    const NAME: &'static str;
    /// The machine epsilon.
    const EPSILON: Self;
    /// The value nearest to `x`.
    fn of(x: f64) -> Self;
    /// As `f64`.
    fn to_f64(self) -> f64;
}

/// What the hand-written CUDA peers need of the element type (cudarc's marker traits), or nothing
/// when they are not built.
#[cfg(feature = "peers")]
pub trait PeerRepr: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits {}
#[cfg(feature = "peers")]
impl<T: cudarc::driver::DeviceRepr + cudarc::driver::ValidAsZeroBits> PeerRepr for T {}
/// What the hand-written CUDA peers need of the element type (nothing: they are not built).
#[cfg(not(feature = "peers"))]
pub trait PeerRepr {}
#[cfg(not(feature = "peers"))]
impl<T> PeerRepr for T {}

/// What the OpenMP peer needs of the element type (its C kernels for that type), or nothing when
/// it is not built.
#[cfg(all(feature = "peers", not(ferrokkos_no_openmp)))]
pub use super::openmp_peer::OmpKernels as OpenMpRepr;
/// What the OpenMP peer needs of the element type (nothing: it is not built).
#[cfg(not(all(feature = "peers", not(ferrokkos_no_openmp))))]
pub trait OpenMpRepr {}
#[cfg(not(all(feature = "peers", not(ferrokkos_no_openmp))))]
impl<T> OpenMpRepr for T {}

impl StreamFloat for f64 {
    const NAME: &'static str = "double";
    const EPSILON: Self = f64::EPSILON;
    fn of(x: f64) -> Self {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
}

impl StreamFloat for f32 {
    const NAME: &'static str = "float";
    const EPSILON: Self = f32::EPSILON;
    fn of(x: f64) -> Self {
        x as f32
    }
    fn to_f64(self) -> f64 {
        self as f64
    }
}
