//! y = A x written once with ferrokkos: a `kernel!` over a `RangePolicy` of the rows, one row per
//! iteration, on any execution space (Serial, Threads or Cuda, chosen at run time).

use ferrokkos::Result;
use ferrokkos::kernel::DeviceFor;
use ferrokkos::prelude::*;
use ferrokkos::traits::Everywhere;
use ferrokkos::traits::ForFunctor;

use super::Implementation;
use super::matrix::Csr;
use super::views::CsrViews;
use crate::Failure;

pub use crate::spaces::on_device;

/// The matrix, x and y as Views in the space's memory, and the instance the kernel runs on.
pub struct FerrokkosRange<S: Launch> {
    /// The instance the kernel runs on.
    space: S,
    /// The matrix and vectors.
    views: CsrViews<S::MemorySpace>,
}

impl<S: Launch> FerrokkosRange<S> {
    /// The Views in `S::MemorySpace`, filled from `a` and `x` (y with NaN).
    pub fn new(space: S, a: &Csr, x: &[f64]) -> Result<Self> {
        let views = CsrViews::new(&space, "spmv::range", a, x)?;
        Ok(FerrokkosRange { space, views })
    }

    /// The kernel: row i's products added in column order into `y[i]`. Usable on the host, and by
    /// the CUDA backend through its device translation (`Reach = Everywhere`).
    fn kernel(&self) -> impl ForFunctor<usize, Reach = Everywhere> + DeviceFor<usize> {
        let v = &self.views;
        let (row_ptr, col, val, x, y) = (&v.row_ptr, &v.col, &v.val, &v.x, &v.y);
        kernel!(|i| {
            let lo = row_ptr[i] as usize;
            let hi = row_ptr[i + 1] as usize;
            let mut sum: f64 = 0.0;
            for k in lo..hi {
                sum += val[k] * x[col[k] as usize];
            }
            y[i] = sum;
        })
    }
}

impl<S: Launch> Implementation for FerrokkosRange<S> {
    fn name(&self) -> String {
        crate::spaces::ferrokkos_line(&self.space, "RangePolicy, one row per iteration")
    }

    fn short_name(&self) -> &'static str {
        "ferrokkos range"
    }

    fn is_ferrokkos(&self) -> bool {
        true
    }

    fn run(&mut self) -> std::result::Result<(), Failure> {
        parallel_for(
            "spmv::range",
            RangePolicy::new(&self.space, 0, self.views.rows)?,
            self.kernel(),
        )?;
        self.space.fence("spmv::range")?;
        Ok(())
    }

    fn result(&self) -> std::result::Result<Vec<f64>, Failure> {
        Ok(self.views.y_on_host()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::in_child::{test_name, with_runtime};
    use ferrokkos::codegen::TranslationUnit;

    #[test]
    fn the_kernel_matches_the_reference_on_serial_and_threads() {
        let name = test_name(
            module_path!(),
            "the_kernel_matches_the_reference_on_serial_and_threads",
        );
        with_runtime(&name, || {
            let a = Csr::laplacian_3d(6).unwrap();
            let x = a.input().unwrap();
            let want = a.reference(&x).unwrap();
            let mut s = FerrokkosRange::new(Serial::default_instance().unwrap(), &a, &x).unwrap();
            assert!(s.result().unwrap().iter().all(|v| v.is_nan()));
            s.run().unwrap();
            assert_eq!(s.result().unwrap(), want);
            let mut t = FerrokkosRange::new(Threads::default_instance().unwrap(), &a, &x).unwrap();
            t.run().unwrap();
            assert_eq!(t.result().unwrap(), want);
        });
    }

    /// The kernel's device translation compiles with NVRTC for sm_80 and sm_90 (skipped without
    /// NVRTC, unless FERROKKOS_REQUIRE_NVRTC=1).
    #[test]
    fn the_kernel_compiles_for_the_gpu() {
        let name = test_name(module_path!(), "the_kernel_compiles_for_the_gpu");
        with_runtime(&name, || {
            let a = Csr::laplacian_3d(2).unwrap();
            let x = a.input().unwrap();
            let s = FerrokkosRange::new(Serial::default_instance().unwrap(), &a, &x).unwrap();
            let unit =
                TranslationUnit::for_kernel_with(&s.kernel(), Iterate::Right, Default::default());
            assert!(
                unit.generated().contains("y(fk_proven, i) = sum;"),
                "{}",
                unit.generated()
            );
            if !ferrokkos::nvrtc::require_or_skip() {
                return;
            }
            for arch in [80, 90] {
                if let Err(e) = unit.compile_cubin(arch) {
                    panic!("{e}\n{}", unit.generated());
                }
            }
        });
    }
}
