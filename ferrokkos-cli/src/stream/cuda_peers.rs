//! The peers `--compare` measures ferrokkos against on Cuda: BabelStream's CUDA kernels written by
//! hand in CUDA C++, compiled by NVRTC in this process, in two variants (one thread per element, and
//! grid-stride), and a device-to-device memcpy for Copy. The `deep_copy` kernels have the same
//! peers: DeepCopy the copy kernel and the memcpy, Fill a hand-written fill kernel (`c = value`).
//!
//! The kernels follow BabelStream's CUDA version (`src/cuda/CUDAStream.cu`): blocks of 1024
//! threads (its TBSIZE); Dot is a per-block shared-memory tree reduction over a grid of 4 blocks per
//! multiprocessor (its DOT_NUM_BLOCKS), each block writing its partial sum into page-locked host
//! memory, summed on the host after a stream synchronization. Every kernel is followed by a stream
//! synchronization, as BabelStream does and as ferrokkos fences.
//!
//! They run through cudarc on their own stream and their own device buffers, in the device's
//! primary context, which the ferrokkos Cuda space uses too (so both sides share the GPU the same
//! way). cudarc panics when the driver library is missing, so [`peers`] checks for it first.

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DriverError, LaunchConfig,
    PinnedHostSlice, PushKernelArg, sys,
};
use cudarc::nvrtc::Ptx;
use ferrokkos::{Cuda, CudaDevice};

use super::float::StreamFloat;
use super::kernel::{FILL, Kernel, SCALAR, START_A, START_B, START_C};
use super::{ArrayCheck, Implementation};
use crate::Failure;

/// BabelStream's TBSIZE: threads per block of every peer kernel.
const TBSIZE: u32 = 1024;

/// BabelStream's Dot grid: this many blocks per multiprocessor (its DOT_NUM_BLOCKS = SMs x 4).
const DOT_BLOCKS_PER_SM: u32 = 4;

/// The peers' CUDA C++ for elements of C type `real` (`double` or `float`) and index type `idx_t`
/// (`int` when every index and grid-stride step fits, else `long long`).
///
/// `-default-device` (NVRTC's option, set by `ferrokkos::nvrtc::compile_cubin`) makes every function
/// a device function; `--fmad=false` there too, as for ferrokkos' own kernels.
fn source(real: &str, idx: &str) -> String {
    format!(
        r#"// BabelStream's CUDA kernels, hand-written peers of `ferrokkos stream --compare`.
typedef {real} real;
typedef {idx} idx_t;
#define TBSIZE {TBSIZE}

extern "C" __global__ void init_arrays(real* a, real* b, real* c, real ia, real ib, real ic,
                                       long long count)
{{
    const idx_t n = (idx_t)count;
    for (idx_t i = (idx_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x) {{
        a[i] = ia;
        b[i] = ib;
        c[i] = ic;
    }}
}}

// One thread per element: grid = ceil(n / TBSIZE), guarded.
#define ONE_THREAD(body)                                                 \
    const idx_t n = (idx_t)count;                                        \
    const idx_t i = (idx_t)blockIdx.x * blockDim.x + threadIdx.x;        \
    if (i < n) {{ body; }}

// Grid-stride: a grid that fills the device once, each thread strides over the array.
#define GRID_STRIDE(body)                                                \
    const idx_t n = (idx_t)count;                                        \
    for (idx_t i = (idx_t)blockIdx.x * blockDim.x + threadIdx.x; i < n;  \
         i += (idx_t)gridDim.x * blockDim.x) {{ body; }}

#define KERNELS(suffix, LOOP)                                                                \
extern "C" __global__ void copy_##suffix(const real* a, real* c, long long count)          \
{{ LOOP(c[i] = a[i]) }}                                                                      \
extern "C" __global__ void mul_##suffix(real* b, const real* c, real scalar, long long count) \
{{ LOOP(b[i] = scalar * c[i]) }}                                                             \
extern "C" __global__ void add_##suffix(const real* a, const real* b, real* c, long long count) \
{{ LOOP(c[i] = a[i] + b[i]) }}                                                               \
extern "C" __global__ void triad_##suffix(real* a, const real* b, const real* c, real scalar, \
                                          long long count)                                   \
{{ LOOP(a[i] = b[i] + scalar * c[i]) }}                                                      \
extern "C" __global__ void nstream_##suffix(real* a, const real* b, const real* c, real scalar, \
                                            long long count)                                 \
{{ LOOP(a[i] += b[i] + scalar * c[i]) }}                                                     \
extern "C" __global__ void fill_##suffix(real* c, real value, long long count)               \
{{ LOOP(c[i] = value) }}

KERNELS(1t, ONE_THREAD)
KERNELS(gs, GRID_STRIDE)

// BabelStream's dot: each thread sums a grid-stride slice, then a shared-memory tree reduction per
// block; block partials go to `sums` (page-locked host memory) and are added on the host.
extern "C" __global__ void dot(const real* a, const real* b, real* sums, long long count)
{{
    __shared__ real smem[TBSIZE];
    const idx_t n = (idx_t)count;
    real tmp = real(0.);
    const idx_t tidx = threadIdx.x;
    for (idx_t i = tidx + (idx_t)blockDim.x * blockIdx.x; i < n;
         i += (idx_t)gridDim.x * blockDim.x) {{
        tmp += a[i] * b[i];
    }}
    smem[tidx] = tmp;
    for (int offset = blockDim.x / 2; offset > 0; offset /= 2) {{
        __syncthreads();
        if (tidx < offset) smem[tidx] += smem[tidx + offset];
    }}
    if (tidx == 0) sums[blockIdx.x] = smem[tidx];
}}
"#
    )
}

/// Whether `int` indices are safe for `n` elements: every index, plus one grid-stride step of a
/// grid of at most 2^16 blocks of 1024 threads, stays below 2^31.
fn int_indices(n: usize) -> bool {
    n as u64 + (1 << 26) < (1 << 31)
}

/// A cudarc error as a run-time failure saying what was being done.
fn driver(what: &'static str) -> impl Fn(DriverError) -> Failure {
    move |e| Failure::Run(format!("stream: CUDA peers: {what}: {e}"))
}

/// The context, stream and compiled kernels the peers share.
struct Shared {
    /// The device's primary context (shared with ferrokkos' Cuda space).
    ctx: Arc<CudaContext>,
    /// The stream every peer runs on (one at a time, each operation followed by a synchronize).
    stream: Arc<CudaStream>,
    /// The compiled peer kernels.
    module: Arc<CudaModule>,
    /// The device.
    device: CudaDevice,
}

impl Shared {
    /// The function `name` of the module.
    fn function(&self, name: &str) -> Result<CudaFunction, Failure> {
        self.module.load_function(name).map_err(|e| {
            Failure::Run(format!(
                "stream: CUDA peers: loading kernel {name} from the NVRTC module: {e}"
            ))
        })
    }

    /// Three arrays of `n` elements with BabelStream's start values, initialized by a kernel.
    fn arrays<T: StreamFloat>(&self, n: usize) -> Result<[CudaSlice<T>; 3], Failure> {
        let alloc = || {
            self.stream
                .alloc_zeros::<T>(n)
                .map_err(driver("allocating an array"))
        };
        let (mut a, mut b, mut c) = (alloc()?, alloc()?, alloc()?);
        let init = self.function("init_arrays")?;
        let (ia, ib, ic) = (T::of(START_A), T::of(START_B), T::of(START_C));
        let count = n as i64;
        let blocks = grid_for(n)?;
        let mut launch = self.stream.launch_builder(&init);
        launch
            .arg(&mut a)
            .arg(&mut b)
            .arg(&mut c)
            .arg(&ia)
            .arg(&ib)
            .arg(&ic)
            .arg(&count);
        // SAFETY: `init_arrays(real*, real*, real*, real, real, real, long long)` with three arrays
        // of `count` elements of `real` = T; the grid-stride loop stays below `count`.
        unsafe { launch.launch(config(blocks)) }.map_err(driver("launching init_arrays"))?;
        self.stream
            .synchronize()
            .map_err(driver("initializing the arrays"))?;
        Ok([a, b, c])
    }

    /// Copies `arrays` back to the host and calls `check` with them.
    fn check<T: StreamFloat>(
        &self,
        [a, b, c]: [&CudaSlice<T>; 3],
        check: &mut ArrayCheck<'_, T>,
    ) -> Result<(), Failure> {
        let read = |v: &CudaSlice<T>| {
            self.stream
                .clone_dtoh(v)
                .map_err(driver("copying an array to the host"))
        };
        let (a, b, c) = (read(a)?, read(b)?, read(c)?);
        self.stream
            .synchronize()
            .map_err(driver("copying the arrays to the host"))?;
        check(&a, &b, &c);
        Ok(())
    }
}

/// A launch configuration of `blocks` blocks of [`TBSIZE`] threads.
fn config(blocks: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (TBSIZE, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// The one-thread-per-element grid for `n` elements: ceil(n / TBSIZE) blocks (at least one).
fn grid_for(n: usize) -> Result<u32, Failure> {
    let blocks = n.div_ceil(TBSIZE as usize).max(1);
    u32::try_from(blocks)
        .ok()
        .filter(|&b| b < (1 << 31))
        .ok_or_else(|| {
            Failure::Run(format!(
                "stream: CUDA peers: {n} elements need {blocks} blocks of {TBSIZE}, more than a \
                 grid may have"
            ))
        })
}

/// The hand-written peers on the device ferrokkos' Cuda space uses: one thread per element,
/// grid-stride, and the memcpy (Copy and DeepCopy only), in that order.
pub fn peers<T: StreamFloat>(n: usize) -> Result<Vec<Box<dyn Implementation<T>>>, Failure> {
    // SAFETY: only tries to load the driver library by its usual names (its initializers have no
    // preconditions); nothing is called through it here.
    if !unsafe { sys::is_culib_present() } {
        return Err(Failure::Run(
            "stream: CUDA peers: the CUDA driver library (libcuda) could not be loaded".into(),
        ));
    }
    let device = Cuda::device()?;
    let (major, minor) = device.compute_capability;
    let arch = major * 10 + minor;
    let idx = if int_indices(n) { "int" } else { "long long" };
    let cubin = ferrokkos::nvrtc::compile_cubin(&source(T::NAME, idx), "stream_peers.cu", arch)?;
    let ctx = CudaContext::new(device.ordinal).map_err(driver("retaining the primary context"))?;
    // SAFETY: every peer works on one stream and synchronizes it after each operation, so cudarc's
    // cross-stream event tracking (an event wait and record per buffer per launch, which would
    // add to the peers' times) has nothing to order. Disabled before any buffer is allocated.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream().map_err(driver("creating a stream"))?;
    let module = ctx
        .load_module(Ptx::from_binary(cubin.image))
        .map_err(driver("loading the NVRTC-compiled kernels"))?;
    let shared = Arc::new(Shared {
        ctx,
        stream,
        module,
        device,
    });
    Ok(vec![
        Box::new(Handwritten::<T>::new(&shared, Variant::OneThread, n)?),
        Box::new(Handwritten::<T>::new(&shared, Variant::GridStride, n)?),
        Box::new(Memcpy::<T>::new(&shared, n)?),
    ])
}

/// How a hand-written kernel covers the array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// One thread per element (grid = ceil(n / 1024), guarded); Dot on BabelStream's grid.
    OneThread,
    /// A grid that fills the device once (multiprocessors x resident blocks per multiprocessor),
    /// each thread striding over the array; Dot on the same grid.
    GridStride,
}

impl Variant {
    /// The suffix of the variant's kernels in the source.
    fn suffix(self) -> &'static str {
        match self {
            Variant::OneThread => "1t",
            Variant::GridStride => "gs",
        }
    }
}

/// The kernels of one variant.
struct Functions {
    /// `copy_*`.
    copy: CudaFunction,
    /// `mul_*`.
    mul: CudaFunction,
    /// `add_*`.
    add: CudaFunction,
    /// `triad_*`.
    triad: CudaFunction,
    /// `nstream_*`.
    nstream: CudaFunction,
    /// `fill_*` (Fill's peer).
    fill: CudaFunction,
    /// `dot`.
    dot: CudaFunction,
}

/// BabelStream's kernels as hand-written CUDA, in one [`Variant`].
struct Handwritten<T> {
    /// The context, stream and module.
    shared: Arc<Shared>,
    /// One thread per element or grid-stride.
    variant: Variant,
    /// The kernels.
    f: Functions,
    /// Arrays a, b, c.
    a: CudaSlice<T>,
    /// b.
    b: CudaSlice<T>,
    /// c.
    c: CudaSlice<T>,
    /// The block partial sums of Dot, in page-locked host memory the kernel writes.
    sums: PinnedHostSlice<T>,
    /// The device address of `sums`.
    sums_device: u64,
    /// Elements per array, as the kernels take it.
    count: i64,
    /// The grid of Copy, Mul, Add, Triad, Nstream and the deep_copy peers.
    grid: u32,
    /// The grid of Dot.
    dot_grid: u32,
}

impl<T: StreamFloat> Handwritten<T> {
    /// The variant's kernels and its own arrays of `n` elements, initialized.
    fn new(shared: &Arc<Shared>, variant: Variant, n: usize) -> Result<Self, Failure> {
        let name = |k: &str| format!("{k}_{}", variant.suffix());
        let f = Functions {
            copy: shared.function(&name("copy"))?,
            mul: shared.function(&name("mul"))?,
            add: shared.function(&name("add"))?,
            triad: shared.function(&name("triad"))?,
            nstream: shared.function(&name("nstream"))?,
            fill: shared.function(&name("fill"))?,
            dot: shared.function("dot")?,
        };
        let sms = shared.device.multiprocessors.max(1);
        let (grid, dot_grid) = match variant {
            Variant::OneThread => (grid_for(n)?, sms * DOT_BLOCKS_PER_SM),
            Variant::GridStride => {
                // The resident blocks per multiprocessor of the heaviest kernel (Nstream, three
                // streams), so that the whole grid runs in one wave for every kernel.
                let per_sm = [&f.copy, &f.triad, &f.nstream, &f.dot]
                    .into_iter()
                    .map(|k| k.occupancy_max_active_blocks_per_multiprocessor(TBSIZE, 0, None))
                    .collect::<Result<Vec<u32>, _>>()
                    .map_err(driver("reading the kernels' occupancy"))?
                    .into_iter()
                    .min()
                    .unwrap_or(1)
                    .max(1);
                (sms * per_sm, sms * per_sm)
            }
        };
        let [a, b, c] = shared.arrays::<T>(n)?;
        // SAFETY: the memory is uninitialized until the dot kernel writes every element (one per
        // block, the grid is `dot_grid` blocks), and the host reads it only after the stream
        // synchronization that follows that kernel. Flags: DEVICEMAP (the kernel writes it), not
        // write-combined (the host reads it).
        let mut sums = unsafe {
            shared
                .ctx
                .alloc_pinned_with_flags::<T>(dot_grid as usize, sys::CU_MEMHOSTALLOC_DEVICEMAP)
        }
        .map_err(driver("allocating the partial sums"))?;
        let host = sums
            .as_mut_ptr()
            .map_err(driver("reading the partial sums' address"))?;
        let mut sums_device: sys::CUdeviceptr = 0;
        shared
            .ctx
            .bind_to_thread()
            .map_err(driver("binding the context"))?;
        // SAFETY: `host` is a live page-locked allocation mapped for the device (DEVICEMAP) in
        // the current context; the driver writes the device address into `sums_device`.
        unsafe { sys::cuMemHostGetDevicePointer_v2(&mut sums_device, host.cast(), 0) }
            .result()
            .map_err(driver("mapping the partial sums for the device"))?;
        Ok(Handwritten {
            shared: Arc::clone(shared),
            variant,
            f,
            a,
            b,
            c,
            sums,
            sums_device,
            count: n as i64,
            grid,
            dot_grid,
        })
    }

    /// Launches one of the streaming kernels with the arguments it takes, and synchronizes.
    fn stream_kernel(&mut self, kernel: Kernel) -> Result<(), Failure> {
        let (s, fill) = (T::of(SCALAR), T::of(FILL));
        let stream = &self.shared.stream;
        let (a, b, c, count) = (&mut self.a, &mut self.b, &mut self.c, &self.count);
        let mut launch;
        match kernel {
            Kernel::Copy | Kernel::DeepCopy => {
                launch = stream.launch_builder(&self.f.copy);
                launch.arg(&*a).arg(c).arg(count);
            }
            Kernel::Mul => {
                launch = stream.launch_builder(&self.f.mul);
                launch.arg(b).arg(&*c).arg(&s).arg(count);
            }
            Kernel::Add => {
                launch = stream.launch_builder(&self.f.add);
                launch.arg(&*a).arg(&*b).arg(c).arg(count);
            }
            Kernel::Triad => {
                launch = stream.launch_builder(&self.f.triad);
                launch.arg(a).arg(&*b).arg(&*c).arg(&s).arg(count);
            }
            Kernel::Nstream => {
                launch = stream.launch_builder(&self.f.nstream);
                launch.arg(a).arg(&*b).arg(&*c).arg(&s).arg(count);
            }
            Kernel::Fill => {
                launch = stream.launch_builder(&self.f.fill);
                launch.arg(c).arg(&fill).arg(count);
            }
            Kernel::Dot => return Ok(()),
        }
        // SAFETY: the arguments follow the kernel's signature in `source` (arrays of `count`
        // elements of `real` = T, the scalar or fill value as `real`, the count as `long long`); the one-thread
        // grid's guard and the grid-stride loop keep every index below `count`.
        unsafe { launch.launch(config(self.grid)) }.map_err(driver("launching a kernel"))?;
        stream
            .synchronize()
            .map_err(driver("synchronizing after a kernel"))
    }

    /// BabelStream's Dot: the kernel, a synchronization, the partial sums added on the host.
    fn dot(&mut self) -> Result<T, Failure> {
        let stream = &self.shared.stream;
        let mut launch = stream.launch_builder(&self.f.dot);
        launch
            .arg(&self.a)
            .arg(&self.b)
            .arg(&self.sums_device)
            .arg(&self.count);
        // SAFETY: `dot(const real*, const real*, real*, long long)`: two arrays of `count`
        // elements and `sums_device`, the device address of `dot_grid` page-locked values, one
        // per block of the grid launched here.
        unsafe { launch.launch(config(self.dot_grid)) }.map_err(driver("launching dot"))?;
        stream
            .synchronize()
            .map_err(driver("synchronizing after dot"))?;
        let sums = self
            .sums
            .as_slice()
            .map_err(driver("reading the partial sums"))?;
        Ok(sums.iter().fold(T::ZERO, |acc, &x| acc + x))
    }
}

impl<T: StreamFloat> Implementation<T> for Handwritten<T> {
    fn name(&self) -> String {
        let d = &self.shared.device;
        match self.variant {
            Variant::OneThread => format!(
                "hand-written CUDA, one thread per element ({} blocks of {TBSIZE}; dot {} blocks), {}",
                self.grid, self.dot_grid, d.name
            ),
            Variant::GridStride => format!(
                "hand-written CUDA, grid-stride ({} blocks of {TBSIZE} = {} per SM; dot {} blocks), {}",
                self.grid,
                self.grid / d.multiprocessors.max(1),
                self.dot_grid,
                d.name
            ),
        }
    }

    fn short_name(&self) -> &'static str {
        match self.variant {
            Variant::OneThread => "cuda-1thread",
            Variant::GridStride => "cuda-gridstride",
        }
    }

    fn run(&mut self, kernel: Kernel) -> Result<Option<T>, Failure> {
        match kernel {
            Kernel::Dot => self.dot().map(Some),
            _ => self.stream_kernel(kernel).map(|()| None),
        }
    }

    fn arrays(&self, check: &mut ArrayCheck<'_, T>) -> Result<(), Failure> {
        self.shared.check([&self.a, &self.b, &self.c], check)
    }
}

/// Copy (and DeepCopy) as a device-to-device memcpy (`cuMemcpyDtoDAsync` and a synchronization):
/// the bandwidth a copy kernel can hope for.
struct Memcpy<T> {
    /// The context and stream.
    shared: Arc<Shared>,
    /// Arrays a, b (untouched), c.
    arrays: [CudaSlice<T>; 3],
}

impl<T: StreamFloat> Memcpy<T> {
    /// Its own three arrays of `n` elements, initialized.
    fn new(shared: &Arc<Shared>, n: usize) -> Result<Self, Failure> {
        Ok(Memcpy {
            shared: Arc::clone(shared),
            arrays: shared.arrays::<T>(n)?,
        })
    }
}

impl<T: StreamFloat> Implementation<T> for Memcpy<T> {
    fn name(&self) -> String {
        format!(
            "device-to-device memcpy (Copy and DeepCopy only), {}",
            self.shared.device.name
        )
    }

    fn short_name(&self) -> &'static str {
        "memcpy"
    }

    fn supports(&self, kernel: Kernel) -> bool {
        matches!(kernel, Kernel::Copy | Kernel::DeepCopy)
    }

    fn run(&mut self, kernel: Kernel) -> Result<Option<T>, Failure> {
        if !self.supports(kernel) {
            return Ok(None);
        }
        let [a, _, c] = &mut self.arrays;
        let stream = &self.shared.stream;
        stream
            .memcpy_dtod(&*a, c)
            .map_err(driver("copying a to c"))?;
        stream
            .synchronize()
            .map_err(driver("synchronizing after the copy"))?;
        Ok(None)
    }

    fn arrays(&self, check: &mut ArrayCheck<'_, T>) -> Result<(), Failure> {
        let [a, b, c] = &self.arrays;
        self.shared.check([a, b, c], check)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn int_indices_leave_room_for_a_grid_stride_step() {
        assert!(int_indices(1 << 25) && int_indices((1 << 30) + (1 << 29)));
        assert!(!int_indices((1 << 31) - 1) && !int_indices(1 << 40));
    }

    #[test]
    fn one_thread_grids_round_up() {
        assert_eq!(grid_for(1).ok(), Some(1));
        assert_eq!(grid_for(1024).ok(), Some(1));
        assert_eq!(grid_for(1025).ok(), Some(2));
        assert_eq!(grid_for(1 << 25).ok(), Some(1 << 15));
        assert!(grid_for(usize::MAX).is_err());
    }

    /// The peer kernels compile with NVRTC, in both precisions and index types, for sm_80 and
    /// sm_90 (skipped without NVRTC, unless FERROKKOS_REQUIRE_NVRTC=1).
    #[test]
    fn peer_kernels_compile() {
        if !ferrokkos::nvrtc::require_or_skip() {
            return;
        }
        for real in ["double", "float"] {
            for idx in ["int", "long long"] {
                for arch in [80, 90] {
                    if let Err(e) =
                        ferrokkos::nvrtc::compile_cubin(&source(real, idx), "stream_peers.cu", arch)
                    {
                        panic!("{real}, {idx}, sm_{arch}: {e}");
                    }
                }
            }
        }
    }
}
