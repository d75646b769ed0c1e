//! The raw CUDA peer of the graph rows on Cuda: the halo update's 8 kernels and the tiny kernels
//! written by hand ([`super::graph_raw_kernels`]), launched with bare `cuLaunchKernel`s, and the
//! same launches captured from a stream into CUDA graphs replayed by `cuGraphLaunch` (the halo
//! update also as a DAG, its packs forked to 4 streams in the capture: [`super::graph_raw_dag`]);
//! the fence is `cuStreamSynchronize`. The context and buffers come from cudarc's safe API
//! ([`super::raw::open`]), the timed calls are cudarc's `sys` bindings.

use std::sync::Arc;

use cudarc::driver::{CudaContext, CudaSlice, CudaStream, sys};
use cudarc::nvrtc::Ptx;
use ferrokkos::CudaDevice;

use super::graph::{CHAIN, PeerRows};
use super::graph_raw_dag::Fork;
use super::graph_raw_kernels::{HaloParams, Launches, RawGraph, SOURCE};
use super::halo::{G, check_halo, initial};
use super::measure::{WARM_UP, measure};
use super::raw::{address, check_call, driver, open};
use crate::Failure;

/// The raw peer: its kernels, graphs and buffers, made once and measured at each round.
pub struct RawGraphs {
    /// The halo graphs (a chain, a DAG), the tiny 1-kernel graph and the longer one (dropped
    /// before the buffers).
    graphs: [RawGraph; 4],
    /// The kernels and their parameters.
    launches: Launches,
    /// The device's primary context and the peer's stream.
    ctx: Arc<CudaContext>,
    stream: Arc<CudaStream>,
    /// The grid, (G + 2)^2 doubles, row-major.
    u: CudaSlice<f64>,
    /// The edge buffers (kept for the kernels' addresses).
    _edges: [CudaSlice<f64>; 4],
    /// The tiny kernels' values: the 1-kernel graph's, the longer one's.
    tiny: [CudaSlice<f64>; 2],
    /// Calls of each row so far (warm-up included).
    calls: usize,
}

impl RawGraphs {
    /// Compiles the kernels for `device`, allocates and fills the buffers, captures the graphs.
    pub fn new(device: &CudaDevice) -> Result<RawGraphs, Failure> {
        let (ctx, stream) = open(device)?;
        let (major, minor) = device.compute_capability;
        let cubin =
            ferrokkos::nvrtc::compile_cubin(SOURCE, "latency_graph_raw.cu", major * 10 + minor)?;
        let module = ctx
            .load_module(Ptx::from_binary(cubin.image))
            .map_err(driver("loading the NVRTC-compiled kernels"))?;
        let load = |name: &str| {
            module
                .load_function(name)
                .map_err(driver("loading a kernel"))
        };
        let w = G + 2;
        let grid: Vec<f64> = (0..w * w).map(|k| initial(k / w, k % w)).collect();
        let u = stream
            .clone_htod(&grid)
            .map_err(driver("copying the grid"))?;
        let zeros = |n: usize| {
            stream
                .alloc_zeros::<f64>(n)
                .map_err(driver("allocating a buffer"))
        };
        let edges = [zeros(G)?, zeros(G)?, zeros(G)?, zeros(G)?];
        let tiny = [zeros(1)?, zeros(1)?];
        stream
            .synchronize()
            .map_err(driver("filling the buffers"))?;
        let at = |r: usize, c: usize| address(&u, &stream) + 8 * (r * w + c) as u64;
        let [north, south, west, east] = edges.each_ref().map(|e| address(e, &stream));
        let (n, wide) = (G as i32, w as i64);
        let copy = |src, src_stride, dst, dst_stride, accumulate| HaloParams {
            src,
            src_stride,
            dst,
            dst_stride,
            n,
            accumulate,
        };
        let params = [
            copy(at(1, 1), 1, north, 1, 0),
            copy(at(G, 1), 1, south, 1, 0),
            copy(at(1, 1), wide, west, 1, 0),
            copy(at(1, G), wide, east, 1, 0),
            copy(south, 1, at(0, 1), 1, 1),
            copy(north, 1, at(G + 1, 1), 1, 1),
            copy(east, 1, at(1, 0), wide, 1),
            copy(west, 1, at(1, G + 1), wide, 1),
        ];
        let launches = Launches {
            stream: stream.cu_stream(),
            halo: load("raw_halo")?,
            tiny: load("raw_tiny")?,
            params,
            tiny_values: tiny.each_ref().map(|t| address(t, &stream)),
        };
        ctx.bind_to_thread()
            .map_err(driver("binding the context"))?;
        let s = launches.stream;
        // Its streams and events only serve the capture (the graph keeps neither): dropped below.
        let fork = Fork::new(&ctx)?;
        let graphs = [
            RawGraph::capture(&ctx, s, || (0..8).try_for_each(|k| launches.halo(k)))?,
            RawGraph::capture(&ctx, s, || fork.halo(&launches, s))?,
            RawGraph::capture(&ctx, s, || launches.tiny(0))?,
            RawGraph::capture(&ctx, s, || (0..=CHAIN).try_for_each(|_| launches.tiny(1)))?,
        ];
        drop(fork);
        Ok(RawGraphs {
            graphs,
            launches,
            ctx,
            stream,
            u,
            _edges: edges,
            tiny,
            calls: 0,
        })
    }

    /// Measures the peer's rows with `m` calls per timed loop, then checks the results.
    pub fn round(&mut self, m: usize) -> Result<PeerRows, Failure> {
        self.ctx
            .bind_to_thread()
            .map_err(driver("binding the context"))?;
        let (l, s) = (&self.launches, self.launches.stream);
        let sync = || {
            // SAFETY: a stream of this context, alive for the whole measurement.
            let code = unsafe { sys::cuStreamSynchronize(s) };
            check_call(code, "cuStreamSynchronize")
        };
        let [halo, dag, one, chain] = &self.graphs;
        let rows = [
            measure(m, || (0..8).try_for_each(|k| l.halo(k)), sync)?,
            measure(m, || halo.launch(s), sync)?,
            measure(m, || dag.launch(s), sync)?,
            measure(m, || one.launch(s), sync)?,
            measure(m, || chain.launch(s), sync)?,
        ];
        self.calls += WARM_UP + 2 * m;
        let u = self
            .stream
            .clone_dtoh(&self.u)
            .map_err(driver("copying the grid to the host"))?;
        sync()?;
        check_halo(&u, 3 * self.calls, "raw CUDA")?;
        for (kernels, t) in [1, CHAIN + 1].into_iter().zip(&self.tiny) {
            let got = self
                .stream
                .clone_dtoh(t)
                .map_err(driver("copying a tiny value"))?;
            sync()?;
            let want = (kernels * self.calls) as f64;
            if got.first() != Some(&want) {
                return Err(Failure::Run(format!(
                    "latency: raw CUDA graph of {kernels} tiny kernels: t = {got:?}, expected {want}"
                )));
            }
        }
        Ok(rows)
    }
}

impl Drop for RawGraphs {
    fn drop(&mut self) {
        // Nothing may still use the buffers or graphs when they go (after an error mid-round).
        if let Err(e) = self.stream.synchronize() {
            eprintln!("latency: raw CUDA: synchronizing before freeing the buffers: {e}");
        }
    }
}
