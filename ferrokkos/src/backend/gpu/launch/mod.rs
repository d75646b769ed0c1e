//! Launch planning shared by the GPU backends: the pure arithmetic of grids and blocks
//! ([`grid`]), parameterized by the programming model's [`super::arch::GpuArch`].

pub(crate) mod grid;
