//! The raw CUDA peer's kernels for the graph rows, written by hand in CUDA C++ (compiled by NVRTC
//! in this process): one strided copy-or-add kernel that, by its parameters, is each of the halo
//! update's 8 kernels, and the tiny kernel; their bare `cuLaunchKernel`s, and CUDA graphs captured
//! from a stream of them (`cuStreamBeginCapture`, `cuStreamEndCapture`,
//! `cuGraphInstantiateWithFlags`, `cuGraphUpload`) and replayed by `cuGraphLaunch`.

use std::ffi::c_void;
use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaFunction, sys};

use super::halo::G;
use super::raw::check_call;
use crate::Failure;

/// Threads per block of the halo kernels.
const BLOCK: u32 = 256;

/// The kernels: a strided copy or addition of `n` doubles (one halo kernel, by its parameters),
/// and the tiny kernel.
pub(super) const SOURCE: &str = r#"// The raw peer of `ferrokkos latency`'s graph rows.
struct HaloParams {
    const double* src;
    long long src_stride;
    double* dst;
    long long dst_stride;
    int n;
    int accumulate;
};

extern "C" __global__ void raw_halo(const HaloParams p)
{
    const long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < p.n) {
        const double v = p.src[i * p.src_stride];
        if (p.accumulate) p.dst[i * p.dst_stride] += v;
        else p.dst[i * p.dst_stride] = v;
    }
}

extern "C" __global__ void raw_tiny(double* t)
{
    t[0] += 1.0;
}
"#;

/// `HaloParams` of the source, as Rust lays it out (`repr(C)`: the same offsets and size).
#[repr(C)]
pub(super) struct HaloParams {
    /// The device address of the first value read.
    pub(super) src: u64,
    /// The distance between values read, in doubles.
    pub(super) src_stride: i64,
    /// The device address of the first value written.
    pub(super) dst: u64,
    /// The distance between values written, in doubles.
    pub(super) dst_stride: i64,
    /// How many values.
    pub(super) n: i32,
    /// 1: add to the destination; 0: copy.
    pub(super) accumulate: i32,
}

/// The launches, with their parameters.
pub(super) struct Launches {
    /// The stream they go to.
    pub(super) stream: sys::CUstream,
    /// `raw_halo`.
    pub(super) halo: CudaFunction,
    /// `raw_tiny`.
    pub(super) tiny: CudaFunction,
    /// The 8 halo kernels' parameters, in order.
    pub(super) params: [HaloParams; 8],
    /// The device addresses of the tiny kernels' values: the 1-kernel graph's, the longer one's.
    pub(super) tiny_values: [u64; 2],
}

impl Launches {
    /// Launches `f` on `stream` with `grid` blocks of `block` threads and its one parameter at
    /// `param`.
    ///
    /// # Safety
    /// `param` points at the one parameter `f` takes, laid out as in the source; `stream` is a
    /// live stream of the context.
    unsafe fn launch(
        &self,
        stream: sys::CUstream,
        f: &CudaFunction,
        grid: u32,
        block: u32,
        param: *const c_void,
    ) -> Result<(), Failure> {
        let mut args = [param.cast_mut()];
        // SAFETY: one parameter, as the caller promises, read by the driver during the call; the
        // stream and function belong to the context, which the caller made current.
        let code = unsafe {
            sys::cuLaunchKernel(
                f.cu_function(),
                grid,
                1,
                1,
                block,
                1,
                1,
                0,
                stream,
                args.as_mut_ptr(),
                std::ptr::null_mut(),
            )
        };
        check_call(code, "cuLaunchKernel")
    }

    /// Launches halo kernel `k` (0..8) on the launches' stream.
    pub(super) fn halo(&self, k: usize) -> Result<(), Failure> {
        self.halo_on(k, self.stream)
    }

    /// Launches halo kernel `k` (0..8) on `stream`, a live stream of the context.
    pub(super) fn halo_on(&self, k: usize, stream: sys::CUstream) -> Result<(), Failure> {
        let p = self
            .params
            .get(k)
            .ok_or_else(|| Failure::Run(format!("latency: raw CUDA: no halo kernel {k}")))?;
        // SAFETY: `raw_halo(const HaloParams)`: `p` is a HaloParams laid out as the C++ struct,
        // its addresses are inside the grid and edge buffers for `n` values at their strides; the
        // caller hands a live stream of the context.
        unsafe {
            self.launch(
                stream,
                &self.halo,
                (G as u32).div_ceil(BLOCK),
                BLOCK,
                (p as *const HaloParams).cast(),
            )
        }
    }

    /// Launches the tiny kernel on value `w` (0 or 1).
    pub(super) fn tiny(&self, w: usize) -> Result<(), Failure> {
        let t = self
            .tiny_values
            .get(w)
            .ok_or_else(|| Failure::Run(format!("latency: raw CUDA: no tiny value {w}")))?;
        // SAFETY: `raw_tiny(double*)`: `t` holds the device address of one double; the launches'
        // stream is live.
        unsafe { self.launch(self.stream, &self.tiny, 1, 1, (t as *const u64).cast()) }
    }
}

/// A CUDA graph captured from the stream, and its executable graph.
pub(super) struct RawGraph {
    /// The context the graph lives in (current when it is destroyed).
    ctx: Arc<CudaContext>,
    /// The captured graph (null until captured).
    graph: sys::CUgraph,
    /// Its executable graph (null until instantiated).
    exec: sys::CUgraphExec,
}

impl RawGraph {
    /// Captures what `launches` enqueues on `stream` into a graph, instantiates and uploads it.
    pub(super) fn capture(
        ctx: &Arc<CudaContext>,
        stream: sys::CUstream,
        launches: impl FnOnce() -> Result<(), Failure>,
    ) -> Result<RawGraph, Failure> {
        let mode = sys::CUstreamCaptureMode::CU_STREAM_CAPTURE_MODE_THREAD_LOCAL;
        // SAFETY: a stream of the current context, on which nothing else is enqueued or waited
        // for until the capture ends below.
        check_call(
            unsafe { sys::cuStreamBeginCapture_v2(stream, mode) },
            "cuStreamBeginCapture",
        )?;
        let launched = launches();
        let mut raw = RawGraph {
            ctx: ctx.clone(),
            graph: std::ptr::null_mut(),
            exec: std::ptr::null_mut(),
        };
        // SAFETY: the capture begun above; `raw.graph` is valid for a write (and owned by `raw`,
        // which destroys it, from here).
        let ended = check_call(
            unsafe { sys::cuStreamEndCapture(stream, &mut raw.graph) },
            "cuStreamEndCapture",
        );
        launched?;
        ended?;
        // SAFETY: a graph just captured; `raw.exec` is valid for a write (owned by `raw`).
        check_call(
            unsafe { sys::cuGraphInstantiateWithFlags(&mut raw.exec, raw.graph, 0) },
            "cuGraphInstantiateWithFlags",
        )?;
        // SAFETY: a live executable graph and stream; an upload runs no node.
        check_call(
            unsafe { sys::cuGraphUpload(raw.exec, stream) },
            "cuGraphUpload",
        )?;
        Ok(raw)
    }

    /// Enqueues one replay on `stream`.
    pub(super) fn launch(&self, stream: sys::CUstream) -> Result<(), Failure> {
        // SAFETY: a live executable graph of this context; the buffers its kernels use live in the
        // [`RawGraphs`] that owns it, which synchronizes the stream before they are freed.
        check_call(
            unsafe { sys::cuGraphLaunch(self.exec, stream) },
            "cuGraphLaunch",
        )
    }
}

impl Drop for RawGraph {
    fn drop(&mut self) {
        if self.ctx.bind_to_thread().is_err() {
            return;
        }
        // SAFETY: the handles were made by `capture`, are owned by this value only, and are
        // destroyed once (null: never made).
        unsafe {
            if !self.exec.is_null() {
                sys::cuGraphExecDestroy(self.exec);
            }
            if !self.graph.is_null() {
                sys::cuGraphDestroy(self.graph);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The Rust struct has the C++ struct's size: four 8-byte members and two ints.
    #[test]
    fn halo_params_are_laid_out_as_in_cuda() {
        assert_eq!(size_of::<HaloParams>(), 40);
    }

    /// The kernels compile with NVRTC for sm_80 and sm_90 (skipped without NVRTC, unless
    /// FERROKKOS_REQUIRE_NVRTC=1).
    #[test]
    fn raw_graph_kernels_compile() {
        if !ferrokkos::nvrtc::require_or_skip() {
            return;
        }
        for arch in [80, 90] {
            if let Err(e) = ferrokkos::nvrtc::compile_cubin(SOURCE, "latency_graph_raw.cu", arch) {
                panic!("sm_{arch}: {e}");
            }
        }
    }
}
