//! The raw CUDA peer of `ferrokkos latency` on Cuda: the same work as ferrokkos' kernels, written
//! by hand in CUDA C++ (compiled by NVRTC in this process) and launched with the bare driver calls
//! a hand-written program would make, so that the difference is what ferrokkos adds per launch.
//!
//! - parallel_for: `cuLaunchKernel` of a kernel taking one struct by value that holds the captured
//!   `double values[V]`, the array's pointer, N and K (the size of ferrokkos' parameters: the
//!   array, the View, N), one thread per element in blocks of 256; the fence is
//!   `cuStreamSynchronize`.
//! - parallel_reduce: a single-pass reduce kernel (per-block tree sums; the last block to finish,
//!   found with an atomic counter, adds the block sums and writes the result), then
//!   `cuMemcpyDtoHAsync` of the result into page-locked memory and `cuStreamSynchronize`.
//! - parallel_reduce(view): the reduce kernel alone (its result stays on the device).
//!
//! The context, module and buffers come from cudarc's safe API (the device's primary context, shared
//! with ferrokkos' Cuda space, and a stream of its own); the timed calls are cudarc's `sys`
//! bindings of the driver functions, with nothing in between.

use std::ffi::c_void;
use std::hint::black_box;
use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaSlice, CudaStream, DriverError, PinnedHostSlice, sys,
};
use cudarc::nvrtc::Ptx;
use ferrokkos::{CudaDevice, View};

use super::measure::{Check, K, Kinds, measure, values};
use crate::Failure;

/// Threads per block of the raw kernels.
const BLOCK: u32 = 256;

/// The raw kernels' CUDA C++ for a captured array of `v` doubles.
fn source(v: usize) -> String {
    format!(
        r#"// The raw peer of `ferrokkos latency`: Kokkos' launch_latency body, by hand.
#define V {v}
#define BLOCK {BLOCK}

struct ForParams {{
    double values[V];
    double* a;
    long long n;
    int k;
}};

extern "C" __global__ void raw_for(const ForParams p)
{{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) {{
        for (int j = 0; j < p.k; ++j) p.a[i] += 1.0 * (double)i * p.values[j];
    }}
}}

struct ReduceParams {{
    double values[V];
    double* a;
    double* partials;
    unsigned int* finished;
    double* result;
    long long n;
    int k;
}};

__device__ double block_sum(double x, double* part)
{{
    part[threadIdx.x] = x;
    __syncthreads();
    for (unsigned int s = blockDim.x / 2; s > 0; s >>= 1) {{
        if (threadIdx.x < s) part[threadIdx.x] += part[threadIdx.x + s];
        __syncthreads();
    }}
    return part[0];
}}

extern "C" __global__ void raw_reduce(const ReduceParams p)
{{
    __shared__ double part[BLOCK];
    __shared__ bool last;
    double sum = 0.0;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < p.n;
         i += (long long)gridDim.x * blockDim.x) {{
        double ai = p.a[i];
        for (int j = 0; j < p.k; ++j) ai += 1.0 * (double)i * p.values[j];
        p.a[i] = ai;
        sum += ai;
    }}
    const double block = block_sum(sum, part);
    if (threadIdx.x == 0) {{
        p.partials[blockIdx.x] = block;
        __threadfence();
        last = atomicAdd(p.finished, 1u) == gridDim.x - 1;
    }}
    __syncthreads();
    if (last) {{
        __threadfence();
        double total = 0.0;
        for (unsigned int b = threadIdx.x; b < gridDim.x; b += blockDim.x)
            total += ((volatile double*)p.partials)[b];
        total = block_sum(total, part);
        if (threadIdx.x == 0) {{
            *p.result = total;
            *p.finished = 0;
        }}
    }}
}}
"#
    )
}

/// `ForParams` of the source, as Rust lays it out (`repr(C)`: the same offsets and size).
#[repr(C)]
struct ForParams<const V: usize> {
    /// The captured array.
    values: [f64; V],
    /// The device address of `a`.
    a: u64,
    /// N.
    n: i64,
    /// K.
    k: i32,
}

/// `ReduceParams` of the source.
#[repr(C)]
struct ReduceParams<const V: usize> {
    /// The captured array.
    values: [f64; V],
    /// The device address of `a`.
    a: u64,
    /// The device address of the block sums.
    partials: u64,
    /// The device address of the finished-blocks counter (zero between launches).
    finished: u64,
    /// The device address of the result.
    result: u64,
    /// N.
    n: i64,
    /// K.
    k: i32,
}

/// A cudarc error as a run-time failure saying what was being done.
pub(super) fn driver(what: &'static str) -> impl Fn(DriverError) -> Failure {
    move |e| Failure::Run(format!("latency: raw CUDA: {what}: {e}"))
}

/// A driver result as a run-time failure.
pub(super) fn check_call(code: sys::CUresult, what: &'static str) -> Result<(), Failure> {
    code.result().map_err(driver(what))
}

/// The device address of a cudarc buffer (for the parameter structs).
pub(super) fn address<T>(slice: &CudaSlice<T>, stream: &CudaStream) -> u64 {
    use cudarc::driver::DevicePtr;
    let (ptr, _sync) = slice.device_ptr(stream);
    ptr
}

/// The raw launches on the device ferrokkos' Cuda space uses.
pub struct RawCuda {
    /// The device's primary context.
    ctx: Arc<CudaContext>,
    /// The stream the raw launches run on.
    stream: Arc<CudaStream>,
    /// The device (architecture, multiprocessors, parameter limit).
    device: CudaDevice,
}

/// The primary context of `device` (shared with ferrokkos' Cuda space) and a stream of its own,
/// for raw launches. An error when the driver library cannot be loaded (cudarc would panic).
pub(super) fn open(device: &CudaDevice) -> Result<(Arc<CudaContext>, Arc<CudaStream>), Failure> {
    // SAFETY: only tries to load the driver library by its usual names (its initializers have no
    // preconditions); nothing is called through it here.
    if !unsafe { sys::is_culib_present() } {
        return Err(Failure::Run(
            "latency: raw CUDA: the CUDA driver library (libcuda) could not be loaded".into(),
        ));
    }
    let ctx = CudaContext::new(device.ordinal).map_err(driver("retaining the primary context"))?;
    // SAFETY: the raw launches use one stream and synchronize it before their buffers are read or
    // dropped, so cudarc's cross-stream event tracking has nothing to order.
    unsafe { ctx.disable_event_tracking() };
    let stream = ctx.new_stream().map_err(driver("creating a stream"))?;
    Ok((ctx, stream))
}

impl RawCuda {
    /// The primary context of `device` and a stream of its own. An error when the driver library
    /// cannot be loaded (cudarc would panic).
    pub fn new(device: &CudaDevice) -> Result<RawCuda, Failure> {
        let (ctx, stream) = open(device)?;
        Ok(RawCuda {
            ctx,
            stream,
            device: device.clone(),
        })
    }

    /// Measures the three launch kinds as [`super::measure::Implementation::kinds`] does, with the
    /// raw kernels for a captured array of `V` doubles; `None` when their parameters exceed the
    /// device's limit for kernel parameters.
    pub fn kinds<const V: usize>(&self, n: usize, m: usize) -> Result<Option<Kinds>, Failure> {
        let limit = self.device.max_param_bytes;
        if size_of::<ReduceParams<V>>() > limit || size_of::<ForParams<V>>() > limit {
            return Ok(None);
        }
        let (major, minor) = self.device.compute_capability;
        let cubin = ferrokkos::nvrtc::compile_cubin(
            &source(V),
            &format!("latency_raw_{V}.cu"),
            major * 10 + minor,
        )?;
        let module = self
            .ctx
            .load_module(Ptx::from_binary(cubin.image))
            .map_err(driver("loading the NVRTC-compiled kernels"))?;
        let load = |name: &str| -> Result<CudaFunction, Failure> {
            module
                .load_function(name)
                .map_err(driver("loading a kernel"))
        };
        let (raw_for, raw_reduce) = (load("raw_for")?, load("raw_reduce")?);
        let per_sm = raw_reduce
            .occupancy_max_active_blocks_per_multiprocessor(BLOCK, 0, None)
            .map_err(driver("reading the reduce kernel's occupancy"))?
            .max(1);
        let max_grid = (self.device.multiprocessors.max(1) * per_sm) as usize;
        let blocks = n.div_ceil(BLOCK as usize).max(1);
        let for_grid = u32::try_from(blocks).map_err(|_| {
            Failure::Run(format!("latency: raw CUDA: N = {n} needs too many blocks"))
        })?;
        let reduce_grid = blocks.min(max_grid) as u32;

        let stream = &self.stream;
        let a = stream
            .alloc_zeros::<f64>(n.max(1))
            .map_err(driver("allocating A"))?;
        let partials = stream
            .alloc_zeros::<f64>(max_grid)
            .map_err(driver("allocating the block sums"))?;
        let finished = stream
            .alloc_zeros::<u32>(1)
            .map_err(driver("allocating the counter"))?;
        let result = stream
            .alloc_zeros::<f64>(1)
            .map_err(driver("allocating the result"))?;
        // SAFETY: one value, written by the copy after each reduction before the host reads it
        // (after the stream synchronization); flags 0: cached (the host reads it).
        let mut pinned: PinnedHostSlice<f64> = unsafe { self.ctx.alloc_pinned_with_flags(1, 0) }
            .map_err(driver("allocating the pinned result"))?;
        let pinned_ptr = pinned
            .as_mut_ptr()
            .map_err(driver("reading the pinned result's address"))?;
        stream
            .synchronize()
            .map_err(driver("allocating the buffers"))?;

        let (values, k) = (values::<V>(), black_box(K) as i32);
        let a_ptr = address(&a, stream);
        let mut for_params = ForParams::<V> {
            values,
            a: a_ptr,
            n: n as i64,
            k,
        };
        let mut reduce_params = ReduceParams::<V> {
            values,
            a: a_ptr,
            partials: address(&partials, stream),
            finished: address(&finished, stream),
            result: address(&result, stream),
            n: n as i64,
            k,
        };
        let host_a = View::<f64, 1>::new("A (raw CUDA)", [n])?;
        let mut check = Check::new(&host_a, "raw CUDA", V * 8, m);
        let cu_stream = stream.cu_stream();
        self.ctx
            .bind_to_thread()
            .map_err(driver("binding the context"))?;

        // The timed calls: bare driver functions.
        let f = raw_for.cu_function();
        let launch_for = |params: *mut c_void| {
            let mut args = [params];
            // SAFETY: `raw_for(const ForParams)`: one parameter, `params` points at a ForParams<V>
            // laid out as the C++ struct (repr(C), same members), read by the driver during the
            // call; `a` has `n` elements and the kernel guards `i < n`; the context is current.
            check_call(
                unsafe {
                    sys::cuLaunchKernel(
                        f,
                        for_grid,
                        1,
                        1,
                        BLOCK,
                        1,
                        1,
                        0,
                        cu_stream,
                        args.as_mut_ptr(),
                        std::ptr::null_mut(),
                    )
                },
                "cuLaunchKernel",
            )
        };
        let g = raw_reduce.cu_function();
        let launch_reduce = |params: *mut c_void| {
            let mut args = [params];
            // SAFETY: `raw_reduce(const ReduceParams)`: `params` points at a ReduceParams<V> laid
            // out as the C++ struct; `partials` has room for `max_grid` >= `reduce_grid` sums,
            // `finished` is zero between launches (the last block resets it), `result` holds one
            // value; the kernel's loop stays below `n`.
            check_call(
                unsafe {
                    sys::cuLaunchKernel(
                        g,
                        reduce_grid,
                        1,
                        1,
                        BLOCK,
                        1,
                        1,
                        0,
                        cu_stream,
                        args.as_mut_ptr(),
                        std::ptr::null_mut(),
                    )
                },
                "cuLaunchKernel",
            )
        };
        let result_ptr = reduce_params.result;
        let copy_result = || {
            // SAFETY: 8 bytes from the device result to the page-locked value, ordered after the
            // reduce kernel on the same stream; the host reads it only after synchronizing.
            check_call(
                unsafe { sys::cuMemcpyDtoHAsync_v2(pinned_ptr.cast(), result_ptr, 8, cu_stream) },
                "cuMemcpyDtoHAsync",
            )
        };
        let sync = || {
            // SAFETY: a stream of this context, alive for the whole measurement.
            check_call(
                unsafe { sys::cuStreamSynchronize(cu_stream) },
                "cuStreamSynchronize",
            )
        };
        // Copies A into `host_a` for the check.
        let download = || -> Result<(), Failure> {
            let values = stream
                .clone_dtoh(&a)
                .map_err(driver("copying A to the host"))?;
            sync()?;
            let mut host = host_a.host_mut()?;
            if let Some(dst) = host.as_mut_slice() {
                dst.copy_from_slice(&values[..n]);
            }
            Ok(())
        };

        let fp: *mut c_void = (&mut for_params as *mut ForParams<V>).cast();
        let for_ = measure(m, || launch_for(fp), sync)?;
        download()?;
        check.kind_done(0, None)?;

        let rp: *mut c_void = (&mut reduce_params as *mut ReduceParams<V>).cast();
        let mut reduced = 0.0;
        let launch = || {
            launch_reduce(rp)?;
            copy_result()?;
            sync()?;
            // SAFETY: the copy into the pinned value completed (synchronized just above) and
            // nothing else writes it.
            reduced = unsafe { pinned_ptr.read() };
            Ok(())
        };
        let reduce = measure(m, launch, sync)?;
        download()?;
        check.kind_done(1, Some(reduced))?;

        let reduce_view = measure(m, || launch_reduce(rp), sync)?;
        download()?;
        let on_device = stream
            .clone_dtoh(&result)
            .map_err(driver("copying the result to the host"))?;
        sync()?;
        check.kind_done(2, on_device.first().copied())?;
        drop(pinned);
        Ok(Some([for_, reduce, reduce_view]))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Rust structs have the C++ structs' sizes: the array, three or six 8-byte members, and
    /// an int padded to 8.
    #[test]
    fn parameter_structs_are_laid_out_as_in_cuda() {
        assert_eq!(size_of::<ForParams<1>>(), 8 + 8 + 8 + 8);
        assert_eq!(size_of::<ForParams<3000>>(), 24_000 + 24);
        assert_eq!(size_of::<ReduceParams<200>>(), 1600 + 48);
    }

    /// The raw kernels compile with NVRTC for each capture size, for sm_80 and sm_90 (skipped
    /// without NVRTC, unless FERROKKOS_REQUIRE_NVRTC=1).
    #[test]
    fn raw_kernels_compile() {
        if !ferrokkos::nvrtc::require_or_skip() {
            return;
        }
        for v in [1, 200, 3000] {
            for arch in [80, 90] {
                if let Err(e) = ferrokkos::nvrtc::compile_cubin(&source(v), "latency_raw.cu", arch)
                {
                    panic!("V = {v}, sm_{arch}: {e}");
                }
            }
        }
    }
}
