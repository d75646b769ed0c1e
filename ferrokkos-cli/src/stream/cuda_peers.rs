//! The peers `--compare` measures ferrokkos against on Cuda: BabelStream's CUDA kernels written by
//! hand in CUDA C++, compiled by NVRTC in this process, in three variants, and a device-to-device
//! memcpy for Copy. The `deep_copy` kernels have the same peers: DeepCopy each variant's copy kernel
//! and the memcpy, Fill a fill kernel (`c = value`) written the way the variant writes its copy.
//!
//! The variants, by short name:
//! - `cuda-1thread` follows BabelStream 5.0's CUDA model (`src/cuda/CUDAStream.h` and `.cu` at tag
//!   v5.0): blocks of 1024 threads (its TBSIZE), one thread per element (5.0 required the array size
//!   to be a multiple of TBSIZE; here the grid rounds up and the kernels are guarded).
//! - `cuda-gridstride`: the same kernels as a grid-stride loop over a grid that fills the device
//!   once.
//! - `babelstream-cuda` follows the CUDA model of BabelStream's current main branch
//!   (`src/cuda/CUDAStream.h` and `.cu` as of commit 57637d5, April 2026; they last changed in
//!   616b3b2, May 2024, and are those of v6.0-rc), built with its defaults (`src/cuda/model.cmake`:
//!   STRIDE=GRID_STRIDE, UNROLL_FACTOR=4): blocks of 256 threads (its TBSIZE), each thread a
//!   grid-stride loop over 64-bit (`size_t`) indices that the compiler is told to unroll 4 times, on
//!   a grid of ceil((n / 4) / min(256, the kernel's occupancy-derived block size)) blocks, so about
//!   4 elements per thread. (BabelStream's formula gives no block at all below 4 elements; here at
//!   least one.)
//!
//! Dot follows main's (5.0's had the same grid and block but summed in shared memory and copied the
//! partial sums back with a memcpy): blocks of 1024 threads (main's TBSIZE_DOT) on a grid of 4
//! blocks per multiprocessor (`cuda-gridstride`: on its own grid); each thread sums a grid-stride
//! slice in a register, then a shared-memory tree reduction per block, each block writing its
//! partial sum into page-locked host memory, summed on the host after a stream synchronization.
//! `babelstream-cuda`'s Dot indexes with 64 bits as main does. Every kernel is followed by a stream synchronization, as BabelStream does and as
//! ferrokkos fences. One difference from BabelStream's nvcc build: NVRTC compiles with
//! `--fmad=false` here (as for ferrokkos' own kernels), so Triad and Nstream do not fuse their
//! multiply-add; they are bound by memory either way.
//!
//! They run through cudarc on their own stream and their own device buffers, in the device's
//! primary context, which the ferrokkos Cuda space uses too (so both sides share the GPU the same
//! way). cudarc panics when the driver library is missing, so [`peers`] checks for it first.

use std::ffi::c_int;
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

/// Threads per block of the `cuda-1thread` and `cuda-gridstride` kernels (BabelStream 5.0's
/// TBSIZE) and of every variant's Dot (also current BabelStream's TBSIZE_DOT).
const TBSIZE: u32 = 1024;

/// Current BabelStream's TBSIZE: threads per block of `babelstream-cuda`'s kernels but Dot.
const BS_TBSIZE: u32 = 256;

/// Current BabelStream's default UNROLL_FACTOR: the unrolling of `babelstream-cuda`'s grid-stride
/// loops, and the elements per thread its grid is sized for.
const BS_UNROLL: u32 = 4;

/// BabelStream's Dot grid: this many blocks per multiprocessor (its dot_num_blocks = SMs x 4).
const DOT_BLOCKS_PER_SM: u32 = 4;

/// The peers' CUDA C++ for elements of C type `real` (`double` or `float`) and index type `idx_t`
/// of `cuda-1thread` and `cuda-gridstride` (`int` when every index and grid-stride step fits, else
/// `long long`; `babelstream-cuda` always indexes with 64 bits, as BabelStream does).
///
/// `-default-device` (NVRTC's option, set by `ferrokkos::nvrtc::compile_cubin`) makes every function
/// a device function; `--fmad=false` there too, as for ferrokkos' own kernels.
fn source(real: &str, idx: &str) -> String {
    format!(
        r#"// BabelStream's CUDA kernels, hand-written peers of `ferrokkos stream --compare`.
typedef {real} real;
typedef {idx} idx_t;
// BabelStream's size_t.
typedef unsigned long long bs_size_t;
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

// Current BabelStream: a grid-stride loop over size_t indices, unrolled {BS_UNROLL} times, on a grid
// sized for about {BS_UNROLL} elements per thread.
#define BABELSTREAM(body)                                                           \
    const bs_size_t n = (bs_size_t)count;                                           \
    bs_size_t i = (bs_size_t)threadIdx.x + (bs_size_t)blockDim.x * blockIdx.x;      \
    _Pragma("unroll {BS_UNROLL}")                                                   \
    for (; i < n; i += (bs_size_t)gridDim.x * blockDim.x) {{ body; }}

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
KERNELS(bs, BABELSTREAM)

// BabelStream's dot, with indices of type `index`: each thread sums a grid-stride slice, then a
// shared-memory tree reduction per block of TBSIZE; block partials go to `sums` (page-locked host
// memory) and are added on the host.
#define DOT(name, index)                                                                     \
extern "C" __global__ void name(const real* a, const real* b, real* sums, long long count)  \
{{                                                                                           \
    __shared__ real smem[TBSIZE];                                                            \
    const index n = (index)count;                                                            \
    real tmp = real(0.);                                                                     \
    const index tidx = threadIdx.x;                                                          \
    for (index i = tidx + (index)blockDim.x * blockIdx.x; i < n;                             \
         i += (index)gridDim.x * blockDim.x) {{                                              \
        tmp += a[i] * b[i];                                                                  \
    }}                                                                                       \
    smem[tidx] = tmp;                                                                        \
    for (int offset = blockDim.x / 2; offset > 0; offset /= 2) {{                            \
        __syncthreads();                                                                     \
        if (tidx < offset) smem[tidx] += smem[tidx + offset];                                \
    }}                                                                                       \
    if (tidx == 0) sums[blockIdx.x] = smem[tidx];                                            \
}}

DOT(dot, idx_t)
DOT(dot_bs, bs_size_t)
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
        unsafe { launch.launch(config(blocks, TBSIZE)) }
            .map_err(driver("launching init_arrays"))?;
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

/// A launch configuration of `blocks` blocks of `threads` threads.
fn config(blocks: u32, threads: u32) -> LaunchConfig {
    LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    }
}

/// `blocks` as a grid size, or the failure of `n` elements needing more blocks of `threads` than a
/// grid may have (2^31 - 1).
fn checked_grid(blocks: usize, n: usize, threads: u32) -> Result<u32, Failure> {
    u32::try_from(blocks)
        .ok()
        .filter(|&b| b < (1 << 31))
        .ok_or_else(|| {
            Failure::Run(format!(
                "stream: CUDA peers: {n} elements need {blocks} blocks of {threads}, more than a \
                 grid may have"
            ))
        })
}

/// The one-thread-per-element grid for `n` elements: ceil(n / TBSIZE) blocks (at least one).
fn grid_for(n: usize) -> Result<u32, Failure> {
    checked_grid(n.div_ceil(TBSIZE as usize).max(1), n, TBSIZE)
}

/// Current BabelStream's grid for `n` elements (its `for_each`): ceil((n / UNROLL_FACTOR) /
/// threads_per_block) blocks, where threads_per_block is the kernel's occupancy-derived block size
/// `potential_block` clamped to TBSIZE (the launch has TBSIZE threads per block all the same); at
/// least one block.
fn babelstream_grid(n: usize, potential_block: u32) -> Result<u32, Failure> {
    let threads_per_block = potential_block.clamp(1, BS_TBSIZE) as usize;
    let blocks = (n / BS_UNROLL as usize).div_ceil(threads_per_block).max(1);
    checked_grid(blocks, n, BS_TBSIZE)
}

/// BabelStream's Dot grid on a device of `sms` multiprocessors: 4 blocks per multiprocessor.
fn dot_blocks(sms: u32) -> u32 {
    sms.max(1) * DOT_BLOCKS_PER_SM
}

/// The dynamic shared memory of a block of any size, for the occupancy calculator: none (as
/// BabelStream's `for_each` tells it).
extern "C" fn no_dynamic_smem(_block_size: c_int) -> usize {
    0
}

/// The hand-written peers on the device ferrokkos' Cuda space uses: one thread per element,
/// grid-stride, current BabelStream's model, and the memcpy (Copy and DeepCopy only), in that
/// order.
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
        Box::new(Handwritten::<T>::new(&shared, Variant::BabelStream, n)?),
        Box::new(Memcpy::<T>::new(&shared, n)?),
    ])
}

/// The kernels every variant has besides Dot, in the order of [`Functions`]: in the source,
/// `{name}_{suffix}` ([`Variant::suffix`]).
const STREAMING: [&str; 6] = ["copy", "mul", "add", "triad", "nstream", "fill"];

/// How a hand-written kernel covers the array.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Variant {
    /// BabelStream 5.0: one thread per element (grid = ceil(n / 1024), guarded).
    OneThread,
    /// A grid that fills the device once (multiprocessors x resident blocks per multiprocessor),
    /// each thread striding over the array; Dot on the same grid.
    GridStride,
    /// Current BabelStream: blocks of 256, a grid-stride loop unrolled 4 times on a grid sized
    /// for 4 elements per thread.
    BabelStream,
}

impl Variant {
    /// The suffix of the variant's kernels in the source.
    fn suffix(self) -> &'static str {
        match self {
            Variant::OneThread => "1t",
            Variant::GridStride => "gs",
            Variant::BabelStream => "bs",
        }
    }

    /// The name of the variant's dot kernel in the source.
    fn dot(self) -> &'static str {
        match self {
            Variant::OneThread | Variant::GridStride => "dot",
            Variant::BabelStream => "dot_bs",
        }
    }

    /// Threads per block of the variant's kernels but Dot (Dot's are [`TBSIZE`]).
    fn threads(self) -> u32 {
        match self {
            Variant::OneThread | Variant::GridStride => TBSIZE,
            Variant::BabelStream => BS_TBSIZE,
        }
    }
}

/// A kernel and how it is launched.
struct PeerKernel {
    /// The kernel.
    function: CudaFunction,
    /// Its grid and blocks.
    config: LaunchConfig,
}

impl PeerKernel {
    /// Blocks in the grid.
    fn blocks(&self) -> u32 {
        self.config.grid_dim.0
    }
}

/// The kernels of one variant.
struct Functions {
    /// `copy_*` (Copy and DeepCopy).
    copy: PeerKernel,
    /// `mul_*`.
    mul: PeerKernel,
    /// `add_*`.
    add: PeerKernel,
    /// `triad_*`.
    triad: PeerKernel,
    /// `nstream_*`.
    nstream: PeerKernel,
    /// `fill_*` (Fill's peer).
    fill: PeerKernel,
    /// `dot` or `dot_bs`.
    dot: PeerKernel,
}

impl Functions {
    /// The variant's kernels for `n` elements, each with its grid.
    fn new(shared: &Shared, variant: Variant, n: usize) -> Result<Self, Failure> {
        let [copy, mul, add, triad, nstream, fill] =
            STREAMING.map(|k| shared.function(&format!("{k}_{}", variant.suffix())));
        let streaming = [copy?, mul?, add?, triad?, nstream?, fill?];
        let dot = shared.function(variant.dot())?;
        let sms = shared.device.multiprocessors.max(1);
        let (grids, dot_grid) = match variant {
            Variant::OneThread => ([grid_for(n)?; 6], dot_blocks(sms)),
            Variant::GridStride => {
                // The resident blocks per multiprocessor of the heaviest kernel (Nstream, three
                // streams), so that the whole grid runs in one wave for every kernel.
                let per_sm = [&streaming[0], &streaming[3], &streaming[4], &dot]
                    .into_iter()
                    .map(|k| k.occupancy_max_active_blocks_per_multiprocessor(TBSIZE, 0, None))
                    .collect::<Result<Vec<u32>, _>>()
                    .map_err(driver("reading the kernels' occupancy"))?
                    .into_iter()
                    .min()
                    .unwrap_or(1)
                    .max(1);
                ([sms * per_sm; 6], sms * per_sm)
            }
            Variant::BabelStream => {
                // BabelStream asks the occupancy calculator for each kernel's block size (no
                // dynamic shared memory, no limit) and sizes the grid with it, clamped to TBSIZE.
                let mut grids = [0; 6];
                for (grid, k) in grids.iter_mut().zip(&streaming) {
                    let (_, potential) = k
                        .occupancy_max_potential_block_size(no_dynamic_smem, 0, 0, None)
                        .map_err(driver("reading the kernels' potential block size"))?;
                    *grid = babelstream_grid(n, potential)?;
                }
                (grids, dot_blocks(sms))
            }
        };
        let threads = variant.threads();
        let [copy, mul, add, triad, nstream, fill] = streaming;
        let [g_copy, g_mul, g_add, g_triad, g_nstream, g_fill] = grids;
        let at = |function, blocks| PeerKernel {
            function,
            config: config(blocks, threads),
        };
        Ok(Functions {
            copy: at(copy, g_copy),
            mul: at(mul, g_mul),
            add: at(add, g_add),
            triad: at(triad, g_triad),
            nstream: at(nstream, g_nstream),
            fill: at(fill, g_fill),
            dot: PeerKernel {
                function: dot,
                config: config(dot_grid, TBSIZE),
            },
        })
    }

    /// The blocks of the kernels but Dot: `N` when they all have N, else `N to M`.
    fn blocks(&self) -> String {
        let grids = [
            &self.copy,
            &self.mul,
            &self.add,
            &self.triad,
            &self.nstream,
            &self.fill,
        ]
        .map(PeerKernel::blocks);
        let (min, max) = (grids.iter().min(), grids.iter().max());
        match (min, max) {
            (Some(min), Some(max)) if min != max => format!("{min} to {max}"),
            (_, Some(max)) => max.to_string(),
            _ => String::new(),
        }
    }
}

/// BabelStream's kernels as hand-written CUDA, in one [`Variant`].
struct Handwritten<T> {
    /// The context, stream and module.
    shared: Arc<Shared>,
    /// One thread per element, grid-stride, or current BabelStream's.
    variant: Variant,
    /// The kernels and their grids.
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
}

impl<T: StreamFloat> Handwritten<T> {
    /// The variant's kernels and its own arrays of `n` elements, initialized.
    fn new(shared: &Arc<Shared>, variant: Variant, n: usize) -> Result<Self, Failure> {
        let f = Functions::new(shared, variant, n)?;
        let [a, b, c] = shared.arrays::<T>(n)?;
        // SAFETY: the memory is uninitialized until the dot kernel writes every element (one per
        // block, the grid is `f.dot`'s blocks), and the host reads it only after the stream
        // synchronization that follows that kernel. Flags: DEVICEMAP (the kernel writes it), not
        // write-combined (the host reads it).
        let mut sums = unsafe {
            shared.ctx.alloc_pinned_with_flags::<T>(
                f.dot.blocks() as usize,
                sys::CU_MEMHOSTALLOC_DEVICEMAP,
            )
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
        })
    }

    /// Launches one of the streaming kernels with the arguments it takes, and synchronizes.
    fn stream_kernel(&mut self, kernel: Kernel) -> Result<(), Failure> {
        let (s, fill) = (T::of(SCALAR), T::of(FILL));
        let stream = &self.shared.stream;
        let (a, b, c, count) = (&mut self.a, &mut self.b, &mut self.c, &self.count);
        let f = &self.f;
        let (mut launch, config);
        match kernel {
            Kernel::Copy | Kernel::DeepCopy => {
                (launch, config) = (stream.launch_builder(&f.copy.function), f.copy.config);
                launch.arg(&*a).arg(c).arg(count);
            }
            Kernel::Mul => {
                (launch, config) = (stream.launch_builder(&f.mul.function), f.mul.config);
                launch.arg(b).arg(&*c).arg(&s).arg(count);
            }
            Kernel::Add => {
                (launch, config) = (stream.launch_builder(&f.add.function), f.add.config);
                launch.arg(&*a).arg(&*b).arg(c).arg(count);
            }
            Kernel::Triad => {
                (launch, config) = (stream.launch_builder(&f.triad.function), f.triad.config);
                launch.arg(a).arg(&*b).arg(&*c).arg(&s).arg(count);
            }
            Kernel::Nstream => {
                (launch, config) = (stream.launch_builder(&f.nstream.function), f.nstream.config);
                launch.arg(a).arg(&*b).arg(&*c).arg(&s).arg(count);
            }
            Kernel::Fill => {
                (launch, config) = (stream.launch_builder(&f.fill.function), f.fill.config);
                launch.arg(c).arg(&fill).arg(count);
            }
            Kernel::Dot => return Ok(()),
        }
        // SAFETY: the arguments follow the kernel's signature in `source` (arrays of `count`
        // elements of `real` = T, the scalar or fill value as `real`, the count as `long long`);
        // the one-thread grid's guard and the grid-stride loops keep every index below `count`.
        unsafe { launch.launch(config) }.map_err(driver("launching a kernel"))?;
        stream
            .synchronize()
            .map_err(driver("synchronizing after a kernel"))
    }

    /// BabelStream's Dot: the kernel, a synchronization, the partial sums added on the host.
    fn dot(&mut self) -> Result<T, Failure> {
        let stream = &self.shared.stream;
        let mut launch = stream.launch_builder(&self.f.dot.function);
        launch
            .arg(&self.a)
            .arg(&self.b)
            .arg(&self.sums_device)
            .arg(&self.count);
        // SAFETY: `dot(const real*, const real*, real*, long long)` (and `dot_bs`, the same
        // signature): two arrays of `count` elements and `sums_device`, the device address of as
        // many page-locked values as `f.dot` has blocks, one per block of the grid launched here.
        unsafe { launch.launch(self.f.dot.config) }.map_err(driver("launching dot"))?;
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
        let (blocks, dot) = (self.f.blocks(), self.f.dot.blocks());
        match self.variant {
            Variant::OneThread => format!(
                "hand-written CUDA, one thread per element ({blocks} blocks of {TBSIZE}; dot {dot} \
                 blocks), {}",
                d.name
            ),
            Variant::GridStride => format!(
                "hand-written CUDA, grid-stride ({blocks} blocks of {TBSIZE} = {} per SM; dot \
                 {dot} blocks), {}",
                self.f.copy.blocks() / d.multiprocessors.max(1),
                d.name
            ),
            Variant::BabelStream => format!(
                "BabelStream's CUDA model, hand-written (grid-stride unrolled {BS_UNROLL}x, \
                 {blocks} blocks of {BS_TBSIZE}; dot {dot} blocks of {TBSIZE}), {}",
                d.name
            ),
        }
    }

    fn short_name(&self) -> &'static str {
        match self.variant {
            Variant::OneThread => "cuda-1thread",
            Variant::GridStride => "cuda-gridstride",
            Variant::BabelStream => "babelstream-cuda",
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

    #[test]
    fn babelstream_grids_give_each_thread_four_elements() {
        // 2^25 elements, 4 per thread, 256 per block.
        assert_eq!(babelstream_grid(1 << 25, 1024).ok(), Some(1 << 15));
        assert_eq!(babelstream_grid(1 << 25, 256).ok(), Some(1 << 15));
        // A potential block size below TBSIZE sizes the grid with it (the blocks stay 256).
        assert_eq!(babelstream_grid(1 << 25, 128).ok(), Some(1 << 16));
        // n / 4 rounds down, then the blocks round up.
        assert_eq!(babelstream_grid(4 * 256 + 3, 1024).ok(), Some(1));
        assert_eq!(babelstream_grid(4 * 256 + 4, 1024).ok(), Some(2));
        // Below 4 elements BabelStream's formula gives no block; here one.
        assert_eq!(babelstream_grid(3, 1024).ok(), Some(1));
        assert_eq!(babelstream_grid(1, 0).ok(), Some(1));
        assert!(babelstream_grid(usize::MAX, 1024).is_err());
    }

    #[test]
    fn dot_grids_have_four_blocks_per_multiprocessor() {
        // An H100 with 132 SMs: BabelStream prints "528 groups of (fixed) size 1024".
        assert_eq!(dot_blocks(132), 528);
        assert_eq!(dot_blocks(108), 432);
        assert_eq!(dot_blocks(0), 4);
    }

    #[test]
    fn variants_launch_their_block_sizes() {
        assert_eq!(Variant::OneThread.threads(), 1024);
        assert_eq!(Variant::GridStride.threads(), 1024);
        assert_eq!(Variant::BabelStream.threads(), 256);
    }

    /// The peer kernels compile with NVRTC, in both precisions and index types, for sm_80 and
    /// sm_90, and every kernel a variant loads is in the image (skipped without NVRTC, unless
    /// FERROKKOS_REQUIRE_NVRTC=1).
    #[test]
    fn peer_kernels_compile() {
        if !ferrokkos::nvrtc::require_or_skip() {
            return;
        }
        let variants = [
            Variant::OneThread,
            Variant::GridStride,
            Variant::BabelStream,
        ];
        let mut names = vec!["init_arrays".to_string()];
        for v in variants {
            names.extend(STREAMING.map(|k| format!("{k}_{}", v.suffix())));
            names.push(v.dot().to_string());
        }
        for real in ["double", "float"] {
            for idx in ["int", "long long"] {
                for arch in [80, 90] {
                    let cubin = ferrokkos::nvrtc::compile_cubin(
                        &source(real, idx),
                        "stream_peers.cu",
                        arch,
                    )
                    .unwrap_or_else(|e| panic!("{real}, {idx}, sm_{arch}: {e}"));
                    for name in &names {
                        // The ELF symbol table's names are NUL-terminated.
                        let symbol = format!("\0{name}\0");
                        assert!(
                            cubin
                                .image
                                .windows(symbol.len())
                                .any(|w| w == symbol.as_bytes()),
                            "{real}, {idx}, sm_{arch}: no kernel {name}"
                        );
                    }
                }
            }
        }
    }
}
