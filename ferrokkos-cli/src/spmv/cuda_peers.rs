//! The peers `--compare` measures ferrokkos against on Cuda: a hand-written CUDA C++ CSR kernel,
//! one thread per row, compiled by NVRTC in this process, and cuSPARSE's SpMV
//! ([`super::cusparse_peer`]).
//!
//! They run through cudarc on their own stream and their own device buffers, in the device's
//! primary context, which the ferrokkos Cuda space uses too. Every product is followed by a stream
//! synchronization, as ferrokkos fences after each. cudarc panics when the driver library is
//! missing, so [`peers`] checks for it first.

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, LaunchConfig, PushKernelArg, sys,
};
use cudarc::nvrtc::Ptx;
use ferrokkos::{Cuda, CudaDevice};

use super::matrix::Csr;
use super::{Implementation, Lineup, cusparse_peer};
use crate::Failure;

/// Threads per block of the hand-written kernel.
pub const BLOCK: u32 = 256;

/// The hand-written kernel: one thread per row, the row's products added in column order (as the
/// reference adds them; NVRTC compiles it with `--fmad=false`, as ferrokkos' kernels).
pub const SOURCE: &str = r#"// y = A x for a CSR matrix with 32-bit offsets and columns, one thread
// per row: the hand-written peer of `ferrokkos spmv --compare`.
extern "C" __global__ void spmv_csr_row(const unsigned* __restrict__ row_ptr,
                                        const unsigned* __restrict__ col,
                                        const double* __restrict__ val,
                                        const double* __restrict__ x,
                                        double* __restrict__ y,
                                        int rows)
{
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < rows) {
        const unsigned end = row_ptr[i + 1];
        double sum = 0.0;
        for (unsigned k = row_ptr[i]; k < end; ++k) {
            sum += val[k] * x[col[k]];
        }
        y[i] = sum;
    }
}
"#;

/// A cudarc error as a run-time failure saying what was being done.
pub fn driver(what: &'static str) -> impl Fn(DriverError) -> Failure {
    move |e| Failure::Run(format!("spmv: CUDA peers: {what}: {e}"))
}

/// The context and stream the peers share, and the device.
pub struct Gpu {
    /// The device's primary context (shared with ferrokkos' Cuda space).
    pub ctx: Arc<CudaContext>,
    /// The stream every peer runs on (one at a time, each product followed by a synchronize).
    pub stream: Arc<CudaStream>,
    /// The device.
    pub device: CudaDevice,
}

/// The matrix, x and y in device memory (each peer has its own).
pub struct DeviceCsr {
    /// Row offsets (`rows + 1`).
    pub row_ptr: CudaSlice<u32>,
    /// Column indices (`nnz`).
    pub col: CudaSlice<u32>,
    /// Values (`nnz`).
    pub val: CudaSlice<f64>,
    /// The input vector.
    pub x: CudaSlice<f64>,
    /// The output vector (NaN until the first product).
    pub y: CudaSlice<f64>,
    /// The number of rows.
    pub rows: usize,
    /// The number of nonzeros.
    pub nnz: usize,
}

impl DeviceCsr {
    /// Copies `a` and `x` to the device, and NaN into y.
    pub fn upload(gpu: &Gpu, a: &Csr, x: &[f64]) -> Result<Self, Failure> {
        let s = &gpu.stream;
        let copy = driver("copying the matrix to the device");
        let d = DeviceCsr {
            row_ptr: s.clone_htod(&a.row_ptr).map_err(&copy)?,
            col: s.clone_htod(&a.col).map_err(&copy)?,
            val: s.clone_htod(&a.val).map_err(&copy)?,
            x: s.clone_htod(x).map_err(&copy)?,
            y: s.clone_htod(&vec![f64::NAN; a.rows()]).map_err(&copy)?,
            rows: a.rows(),
            nnz: a.nnz(),
        };
        s.synchronize().map_err(copy)?;
        Ok(d)
    }

    /// y, copied to the host.
    pub fn download_y(&self, gpu: &Gpu) -> Result<Vec<f64>, Failure> {
        let y = gpu
            .stream
            .clone_dtoh(&self.y)
            .map_err(driver("copying y to the host"))?;
        gpu.stream
            .synchronize()
            .map_err(driver("copying y to the host"))?;
        Ok(y)
    }
}

/// The peers on the device ferrokkos' Cuda space uses, each with its own copy of `a` and `x`: the
/// hand-written kernel, and cuSPARSE (or why it is unavailable).
pub fn peers(a: &Csr, x: &[f64]) -> Result<Lineup, Failure> {
    // SAFETY: only tries to load the driver library by its usual names (its initializers have no
    // preconditions); nothing is called through it here.
    if !unsafe { sys::is_culib_present() } {
        return Err(Failure::Run(
            "spmv: CUDA peers: the CUDA driver library (libcuda) could not be loaded".into(),
        ));
    }
    let device = Cuda::device()?;
    let ctx = CudaContext::new(device.ordinal).map_err(driver("retaining the primary context"))?;
    // SAFETY: every peer works on one stream and synchronizes it after each operation, so cudarc's
    // cross-stream event tracking (an event wait and record per buffer per launch, which would
    // add to the peers' times) has nothing to order. Disabled before any buffer is allocated.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream().map_err(driver("creating a stream"))?;
    let gpu = Arc::new(Gpu {
        ctx,
        stream,
        device,
    });
    let mut list: Vec<Box<dyn Implementation>> =
        vec![Box::new(Handwritten::new(Arc::clone(&gpu), a, x)?)];
    let mut unavailable = Vec::new();
    match cusparse_peer::Cusparse::new(Arc::clone(&gpu), a, x)? {
        Ok(peer) => list.push(Box::new(peer)),
        Err(why) => unavailable.push(why),
    }
    Ok((list, unavailable))
}

/// The hand-written CSR kernel, one thread per row.
struct Handwritten {
    /// The context and stream.
    gpu: Arc<Gpu>,
    /// The compiled kernel.
    function: CudaFunction,
    /// Its matrix and vectors.
    data: DeviceCsr,
    /// The grid: ceil(rows / BLOCK) blocks.
    grid: u32,
}

impl Handwritten {
    /// Compiles the kernel for the device with NVRTC and uploads its data.
    fn new(gpu: Arc<Gpu>, a: &Csr, x: &[f64]) -> Result<Self, Failure> {
        let (major, minor) = gpu.device.compute_capability;
        let cubin = ferrokkos::nvrtc::compile_cubin(SOURCE, "spmv_peers.cu", major * 10 + minor)?;
        let module = gpu
            .ctx
            .load_module(Ptx::from_binary(cubin.image))
            .map_err(driver("loading the NVRTC-compiled kernel"))?;
        let function = module
            .load_function("spmv_csr_row")
            .map_err(driver("loading spmv_csr_row"))?;
        let grid = grid_for(a.rows())?;
        let data = DeviceCsr::upload(&gpu, a, x)?;
        Ok(Handwritten {
            gpu,
            function,
            data,
            grid,
        })
    }
}

/// The one-thread-per-row grid for `rows` rows: ceil(rows / BLOCK) blocks (at least one).
fn grid_for(rows: usize) -> Result<u32, Failure> {
    let blocks = rows.div_ceil(BLOCK as usize).max(1);
    u32::try_from(blocks)
        .ok()
        .filter(|&b| b < (1 << 31))
        .ok_or_else(|| {
            Failure::Run(format!(
                "spmv: CUDA peers: {rows} rows need {blocks} blocks of {BLOCK}, more than a grid \
                 may have"
            ))
        })
}

impl Implementation for Handwritten {
    fn name(&self) -> String {
        format!(
            "hand-written CUDA CSR, one thread per row ({} blocks of {BLOCK}), {}",
            self.grid, self.gpu.device.name
        )
    }

    fn short_name(&self) -> &'static str {
        "cuda-1row"
    }

    fn run(&mut self) -> Result<(), Failure> {
        let rows = i32::try_from(self.data.rows)
            .map_err(|_| Failure::Run("spmv: CUDA peers: more rows than an int holds".into()))?;
        let d = &mut self.data;
        let mut launch = self.gpu.stream.launch_builder(&self.function);
        launch
            .arg(&d.row_ptr)
            .arg(&d.col)
            .arg(&d.val)
            .arg(&d.x)
            .arg(&mut d.y)
            .arg(&rows);
        let config = LaunchConfig {
            grid_dim: (self.grid, 1, 1),
            block_dim: (BLOCK, 1, 1),
            shared_mem_bytes: 0,
        };
        // SAFETY: the arguments follow `spmv_csr_row`'s signature in SOURCE (u32 offsets of
        // `rows + 1` elements, u32 columns and f64 values of `nnz`, f64 x and y of `rows`, the row
        // count as int); the guard keeps i below `rows`, the offsets and columns come from a
        // valid CSR matrix (every k below nnz, every column below rows), and each thread writes
        // y[i] only.
        unsafe { launch.launch(config) }.map_err(driver("launching spmv_csr_row"))?;
        self.gpu
            .stream
            .synchronize()
            .map_err(driver("synchronizing after spmv_csr_row"))
    }

    fn result(&self) -> Result<Vec<f64>, Failure> {
        self.data.download_y(&self.gpu)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn grids_round_up() {
        assert_eq!(grid_for(1).ok(), Some(1));
        assert_eq!(grid_for(256).ok(), Some(1));
        assert_eq!(grid_for(257).ok(), Some(2));
        assert_eq!(grid_for(120 * 120 * 120).ok(), Some(6750));
        assert!(grid_for(usize::MAX).is_err());
    }

    /// The hand-written kernel compiles with NVRTC for sm_80 and sm_90 (skipped without NVRTC,
    /// unless FERROKKOS_REQUIRE_NVRTC=1).
    #[test]
    fn the_handwritten_kernel_compiles() {
        if !ferrokkos::nvrtc::require_or_skip() {
            return;
        }
        for arch in [80, 90] {
            if let Err(e) = ferrokkos::nvrtc::compile_cubin(SOURCE, "spmv_peers.cu", arch) {
                panic!("sm_{arch}: {e}");
            }
        }
    }
}
