//! cuSPARSE's SpMV as a peer on Cuda: `cusparseSpMV` on a CSR matrix (32-bit offsets and columns,
//! f64 values) with `CUSPARSE_SPMV_CSR_ALG1`, its work buffer sized by `cusparseSpMV_bufferSize`,
//! on the peers' stream. libcusparse is loaded at run time (cudarc's `dynamic-loading`); when it
//! cannot be loaded or started, the peer is reported as unavailable rather than failing the run.
//!
//! Every handle and descriptor is owned by a small guard that destroys it when dropped, so an error
//! half way through the set-up leaks nothing.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::cusparse::sys;
use cudarc::driver::{CudaContext, CudaSlice, DevicePtr, DevicePtrMut};

use super::cuda_peers::{DeviceCsr, Gpu, driver};
use super::matrix::Csr;
use super::{Implementation, Unavailable};
use crate::Failure;

/// The peer's name in the tables.
const NAME: &str = "cuSPARSE SpMV (CSR, CUSPARSE_SPMV_CSR_ALG1)";

/// The algorithm.
const ALG: sys::cusparseSpMVAlg_t = sys::cusparseSpMVAlg_t::CUSPARSE_SPMV_CSR_ALG1;

/// The functions this peer calls (cudarc looks each up at its first call and panics when one is
/// missing, so their presence is checked first).
const SYMBOLS: [&str; 9] = [
    "cusparseCreate",
    "cusparseDestroy",
    "cusparseSetStream",
    "cusparseCreateCsr",
    "cusparseDestroySpMat",
    "cusparseCreateDnVec",
    "cusparseDestroyDnVec",
    "cusparseSpMV_bufferSize",
    "cusparseSpMV",
];

/// A cuSPARSE status as a run-time failure saying what was being done.
fn status(what: &'static str) -> impl Fn(sys::cusparseStatus_t) -> Failure {
    move |s| Failure::Run(format!("spmv: cuSPARSE: {what}: {s:?}"))
}

/// Why libcusparse cannot be used, if it cannot: not found by the dynamic loader, or a function
/// missing.
fn missing_library() -> Option<String> {
    // SAFETY: only tries to load the library by its usual names; nothing is called through it.
    if !unsafe { sys::is_culib_present() } {
        return Some(
            "libcusparse could not be loaded (not found by the dynamic loader, or a library it \
             needs, such as libnvJitLink, is missing)"
                .into(),
        );
    }
    // SAFETY: the library is present (checked above), so `culib` loads it instead of panicking.
    let lib = unsafe { sys::culib() };
    SYMBOLS.iter().find_map(|name| {
        // SAFETY: the symbol is only looked up, never called through this type.
        let found = unsafe { lib.get::<unsafe extern "C" fn()>(name.as_bytes()) }.is_ok();
        (!found).then(|| format!("libcusparse has no function {name}"))
    })
}

/// A cuSPARSE handle, destroyed (with the context current) when dropped.
struct Handle {
    /// The handle.
    raw: sys::cusparseHandle_t,
    /// The context it was created in.
    ctx: Arc<CudaContext>,
}

impl Drop for Handle {
    fn drop(&mut self) {
        // Destroying cannot usefully fail here; the context is made current for it.
        let _ = self.ctx.bind_to_thread();
        // SAFETY: `raw` was created by cusparseCreate and is destroyed only here, once, after the
        // descriptors (dropped first: declared before the handle in `Cusparse`).
        let _ = unsafe { sys::cusparseDestroy(self.raw) };
    }
}

/// A sparse matrix descriptor, destroyed when dropped.
struct SpMat(sys::cusparseSpMatDescr_t);

impl Drop for SpMat {
    fn drop(&mut self) {
        // SAFETY: created by cusparseCreateCsr, destroyed only here, once.
        let _ = unsafe { sys::cusparseDestroySpMat(self.0) };
    }
}

/// A dense vector descriptor, destroyed when dropped.
struct DnVec(sys::cusparseDnVecDescr_t);

impl Drop for DnVec {
    fn drop(&mut self) {
        // SAFETY: created by cusparseCreateDnVec, destroyed only here, once.
        let _ = unsafe { sys::cusparseDestroyDnVec(self.0) };
    }
}

/// cuSPARSE's SpMV on its own copy of the matrix and vectors. Fields drop in order: descriptors,
/// then the handle, then the device memory they point into.
pub struct Cusparse {
    /// y's descriptor.
    vy: DnVec,
    /// x's descriptor.
    vx: DnVec,
    /// The matrix's descriptor.
    mat: SpMat,
    /// The handle, bound to the peers' stream.
    handle: Handle,
    /// SpMV's work buffer (at least one byte).
    buffer: CudaSlice<u8>,
    /// The matrix and vectors the descriptors point into.
    data: DeviceCsr,
    /// The context and stream.
    gpu: Arc<Gpu>,
}

impl Cusparse {
    /// The peer on its own copy of `a` and `x`; `Ok(Err(..))` when libcusparse is unavailable.
    pub fn new(gpu: Arc<Gpu>, a: &Csr, x: &[f64]) -> Result<Result<Self, Unavailable>, Failure> {
        let unavailable = |reason: String| {
            Ok(Err(Unavailable {
                name: NAME.into(),
                reason,
            }))
        };
        if let Some(reason) = missing_library() {
            return unavailable(reason);
        }
        gpu.ctx
            .bind_to_thread()
            .map_err(driver("binding the context"))?;
        let mut raw = std::ptr::null_mut();
        // SAFETY: `raw` is valid for the handle's write; the device's context is current.
        let created = unsafe { sys::cusparseCreate(&mut raw) };
        if created != sys::cusparseStatus_t::CUSPARSE_STATUS_SUCCESS {
            return unavailable(format!("cusparseCreate failed: {created:?}"));
        }
        let handle = Handle {
            raw,
            ctx: Arc::clone(&gpu.ctx),
        };
        // SAFETY: a live handle, and the peers' stream (a live CUstream of the same context; the
        // runtime's cudaStream_t is the same object).
        unsafe { sys::cusparseSetStream(handle.raw, gpu.stream.cu_stream().cast()) }
            .result()
            .map_err(|e| status("setting the stream")(e.0))?;

        let mut data = DeviceCsr::upload(&gpu, a, x)?;
        let (rows, nnz) = (data.rows as i64, data.nnz as i64);
        let s = &gpu.stream;
        // The addresses stay valid while `data` lives, which outlives the descriptors (field
        // order); event tracking is off, so the guards returned with them do nothing.
        let row_ptr = data.row_ptr.device_ptr(s).0;
        let col = data.col.device_ptr(s).0;
        let val = data.val.device_ptr(s).0;
        let xp = data.x.device_ptr(s).0;
        let yp = data.y.device_ptr_mut(s).0;

        let mut raw_mat = std::ptr::null_mut();
        // SAFETY: the pointers address `rows + 1` u32 offsets, `nnz` u32 columns and `nnz` f64
        // values of a valid zero-based CSR matrix (every value below 2^31, so valid as 32I); the
        // descriptor is written into `raw_mat`.
        unsafe {
            sys::cusparseCreateCsr(
                &mut raw_mat,
                rows,
                rows,
                nnz,
                row_ptr as *mut c_void,
                col as *mut c_void,
                val as *mut c_void,
                sys::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                sys::cusparseIndexType_t::CUSPARSE_INDEX_32I,
                sys::cusparseIndexBase_t::CUSPARSE_INDEX_BASE_ZERO,
                sys::cudaDataType::CUDA_R_64F,
            )
        }
        .result()
        .map_err(|e| status("creating the CSR descriptor")(e.0))?;
        let mat = SpMat(raw_mat);
        let dn_vec = |ptr: u64, what: &'static str| -> Result<DnVec, Failure> {
            let mut raw = std::ptr::null_mut();
            // SAFETY: `ptr` addresses `rows` f64 values in device memory that outlive the
            // descriptor; the descriptor is written into `raw`.
            unsafe {
                sys::cusparseCreateDnVec(
                    &mut raw,
                    rows,
                    ptr as *mut c_void,
                    sys::cudaDataType::CUDA_R_64F,
                )
            }
            .result()
            .map_err(|e| status(what)(e.0))?;
            Ok(DnVec(raw))
        };
        let vx = dn_vec(xp, "creating x's descriptor")?;
        let vy = dn_vec(yp, "creating y's descriptor")?;

        let (alpha, beta) = (1.0f64, 0.0f64);
        let mut size = 0usize;
        // SAFETY: live handle and descriptors; alpha and beta are host f64 (the default pointer
        // mode); the size is written into `size`.
        unsafe {
            sys::cusparseSpMV_bufferSize(
                handle.raw,
                sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                (&alpha as *const f64).cast(),
                mat.0,
                vx.0,
                (&beta as *const f64).cast(),
                vy.0,
                sys::cudaDataType::CUDA_R_64F,
                ALG,
                &mut size,
            )
        }
        .result()
        .map_err(|e| status("sizing the work buffer")(e.0))?;
        let buffer = s
            .alloc_zeros::<u8>(size.max(1))
            .map_err(driver("allocating cuSPARSE's work buffer"))?;
        Ok(Ok(Cusparse {
            vy,
            vx,
            mat,
            handle,
            buffer,
            data,
            gpu,
        }))
    }
}

impl Implementation for Cusparse {
    fn name(&self) -> String {
        format!("{NAME}, {}", self.gpu.device.name)
    }

    fn short_name(&self) -> &'static str {
        "cusparse"
    }

    fn run(&mut self) -> Result<(), Failure> {
        let (alpha, beta) = (1.0f64, 0.0f64);
        let buffer = self.buffer.device_ptr(&self.gpu.stream).0;
        // SAFETY: live handle and descriptors over this peer's device memory; the buffer has the
        // size cusparseSpMV_bufferSize asked for; alpha and beta are host f64 that outlive the call
        // (cuSPARSE reads them before it returns, in the default host pointer mode).
        unsafe {
            sys::cusparseSpMV(
                self.handle.raw,
                sys::cusparseOperation_t::CUSPARSE_OPERATION_NON_TRANSPOSE,
                (&alpha as *const f64).cast(),
                self.mat.0,
                self.vx.0,
                (&beta as *const f64).cast(),
                self.vy.0,
                sys::cudaDataType::CUDA_R_64F,
                ALG,
                buffer as *mut c_void,
            )
        }
        .result()
        .map_err(|e| status("cusparseSpMV")(e.0))?;
        self.gpu
            .stream
            .synchronize()
            .map_err(driver("synchronizing after cusparseSpMV"))
    }

    fn result(&self) -> Result<Vec<f64>, Failure> {
        self.data.download_y(&self.gpu)
    }
}
