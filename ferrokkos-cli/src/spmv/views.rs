//! The matrix and vectors of a ferrokkos implementation as Views in a memory space (host memory for
//! Serial and Threads, device memory for Cuda), filled from the host matrix.

use ferrokkos::prelude::*;
use ferrokkos::traits::Element;
use ferrokkos::{DeviceType, Result};

use super::matrix::Csr;

/// A rank-1 View in memory space `M`.
pub type Array<T, M> = View<T, 1, LayoutRight, M>;

/// The CSR matrix, x and y as Views in `M`.
pub struct CsrViews<M: MemorySpace> {
    /// Row offsets (`rows + 1`).
    pub row_ptr: Array<u32, M>,
    /// Column indices (`nnz`).
    pub col: Array<u32, M>,
    /// Values (`nnz`).
    pub val: Array<f64, M>,
    /// The input vector.
    pub x: Array<f64, M>,
    /// The output vector (NaN until the first product).
    pub y: Array<f64, M>,
    /// The number of rows.
    pub rows: usize,
}

/// Copies `data` into `view` (same length) through a host mirror: the View itself in host memory,
/// a copy in host memory then a `deep_copy` on a device.
fn upload<T: Element, M: MemorySpace>(view: &Array<T, M>, data: &[T]) -> Result<()> {
    let mirror = create_mirror_view(view)?;
    {
        let mut host = mirror.host_mut()?;
        let slice = host
            .as_mut_slice()
            .ok_or_else(|| ferrokkos::Error::InvalidArgument {
                operation: "spmv: filling a View",
                reason: format!("the mirror of {} is not contiguous", view.label()),
            })?;
        slice.copy_from_slice(data);
    }
    deep_copy(view, &mirror)
}

impl<M: MemorySpace> CsrViews<M> {
    /// Allocates the Views (uninitialized, labels starting with `prefix`) in `M`, on a host space
    /// touches them first with kernels on `space` (so that each page lands near the thread that
    /// later reads it), copies the matrix and x in, and fills y with NaN.
    pub fn new<S: Launch + ExecutionSpace<MemorySpace = M>>(
        space: &S,
        prefix: &str,
        a: &Csr,
        x: &[f64],
    ) -> Result<Self> {
        let (rows, nnz) = (a.rows(), a.nnz());
        let uninit = |name: &str| view_alloc(format!("{prefix}::{name}")).without_initializing();
        let v = CsrViews {
            row_ptr: Array::<u32, M>::new(uninit("row_ptr"), [rows + 1])?,
            col: Array::<u32, M>::new(uninit("col"), [nnz])?,
            val: Array::<f64, M>::new(uninit("val"), [nnz])?,
            x: Array::<f64, M>::new(uninit("x"), [rows])?,
            y: Array::<f64, M>::new(uninit("y"), [rows])?,
            rows,
        };
        if S::DEVICE_TYPE != DeviceType::Cuda {
            v.first_touch(space)?;
        }
        upload(&v.row_ptr, &a.row_ptr)?;
        upload(&v.col, &a.col)?;
        upload(&v.val, &a.val)?;
        upload(&v.x, x)?;
        deep_copy(&v.y, f64::NAN)?;
        Ok(v)
    }

    /// Writes every element of every View with a kernel on `space` over its index range.
    fn first_touch<S: Launch + ExecutionSpace<MemorySpace = M>>(&self, space: &S) -> Result<()> {
        let (rows, nnz) = (self.rows, self.val.extent(0));
        let (row_ptr, col, val, x, y) = (&self.row_ptr, &self.col, &self.val, &self.x, &self.y);
        parallel_for(
            "spmv::first_touch_rows",
            RangePolicy::new(space, 0, rows + 1)?,
            kernel!(|i| row_ptr[i] = 0u32),
        )?;
        parallel_for(
            "spmv::first_touch_vectors",
            RangePolicy::new(space, 0, rows)?,
            kernel!(|i| {
                x[i] = 0.0;
                y[i] = 0.0;
            }),
        )?;
        parallel_for(
            "spmv::first_touch_entries",
            RangePolicy::new(space, 0, nnz)?,
            kernel!(|k| {
                col[k] = 0u32;
                val[k] = 0.0;
            }),
        )?;
        space.fence("spmv::first_touch")
    }

    /// y, copied to the host.
    pub fn y_on_host(&self) -> Result<Vec<f64>> {
        let mirror = create_mirror_view(&self.y)?;
        deep_copy(&mirror, &self.y)?;
        mirror.to_vec()
    }
}
