//! Leagues of teams on a GPU, shared by the backends: the league's shape from a `TeamPolicy` and
//! the kernel's and device's limits ([`shape`]), and where its scratch memory lies ([`scratch`]),
//! both pure and parameterized by the programming model's [`super::arch::GpuArch`] (its SIMD
//! group bounds the vector length); and the team launches (`launch.rs`).

#[cfg(feature = "cuda")]
pub(crate) mod launch;
pub(crate) mod scratch;
pub(crate) mod shape;
#[cfg(test)]
mod shape_tests;
