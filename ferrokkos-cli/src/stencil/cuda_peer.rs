//! The hand-written CUDA peer of `stencil --compare` on Cuda: the kernels of `cuda_source.rs`,
//! compiled by NVRTC in this process, run through cudarc on a stream and device buffers of their
//! own, in the device's primary context (which ferrokkos' Cuda space uses too). Kernels are
//! enqueued without waiting, as ferrokkos' launches are; `fence` and each reduction synchronize
//! the stream. cudarc panics when the driver library is missing, so [`CudaPeer::new`] checks for it
//! first.

use std::sync::Arc;

use cudarc::driver::{
    CudaContext, CudaFunction, CudaModule, CudaSlice, CudaStream, DriverError, LaunchArgs,
    LaunchConfig, PinnedHostSlice, PushKernelArg, sys,
};
use cudarc::nvrtc::Ptx;
use ferrokkos::{Cuda, CudaDevice};

use super::Implementation;
use super::cg::{Dot, Update, Vectors};
use super::cuda_source::{BLOCK_X, BLOCK_Y, source};
use super::ping_pong::PingPong;
use super::problem::Grid;
use super::tea::TeaFields;
use crate::Failure;

/// A cudarc error as a run-time failure saying what was being done.
fn driver(what: &'static str) -> impl Fn(DriverError) -> Failure {
    move |e| Failure::Run(format!("stencil: CUDA peer: {what}: {e}"))
}

/// The peer's kernels (see `cuda_source.rs`).
struct Kernels {
    sweep_init: CudaFunction,
    sweep: CudaFunction,
    cg_reset: CudaFunction,
    tea_init: CudaFunction,
    cg_apply: CudaFunction,
    cg_axpy: CudaFunction,
    cg_direction: CudaFunction,
    cg_dot: CudaFunction,
    tea_w: CudaFunction,
    tea_ur: CudaFunction,
}

impl Kernels {
    /// The kernels of `module`.
    fn new(module: &Arc<CudaModule>) -> Result<Self, Failure> {
        let f = |name: &str| {
            module.load_function(name).map_err(|e| {
                Failure::Run(format!(
                    "stencil: CUDA peer: loading kernel {name} from the NVRTC module: {e}"
                ))
            })
        };
        Ok(Kernels {
            sweep_init: f("sweep_init")?,
            sweep: f("sweep")?,
            cg_reset: f("cg_reset")?,
            tea_init: f("tea_init")?,
            cg_apply: f("cg_apply")?,
            cg_axpy: f("cg_axpy")?,
            cg_direction: f("cg_direction")?,
            cg_dot: f("cg_dot")?,
            tea_w: f("tea_w")?,
            tea_ur: f("tea_ur")?,
        })
    }
}

/// The grids the kernels are launched on.
#[derive(Clone, Copy)]
struct Grids {
    /// Every cell, halo included: one thread each.
    every: LaunchConfig,
    /// The interior: one thread each.
    interior: LaunchConfig,
    /// Reductions over the interior: one thread per column, the rows grid-stride, as many blocks
    /// as the device runs at once.
    reduce: LaunchConfig,
}

impl Grids {
    /// The grids for `grid` on a device of `sms` multiprocessors running `per_sm` blocks of the
    /// heaviest reduction each.
    fn new(grid: Grid, sms: u32, per_sm: u32) -> Grids {
        let blocks = |cells: usize, per: u32| cells.div_ceil(per as usize) as u32;
        let config = |x: u32, y: u32| LaunchConfig {
            grid_dim: (x.max(1), y.max(1), 1),
            block_dim: (BLOCK_X, BLOCK_Y, 1),
            shared_mem_bytes: 0,
        };
        let (w, n) = (grid.width(), grid.n);
        let columns = blocks(n, BLOCK_X);
        let wave = (sms.max(1) * per_sm.max(1)).div_ceil(columns.max(1));
        Grids {
            every: config(blocks(w, BLOCK_X), blocks(w, BLOCK_Y)),
            interior: config(columns, blocks(n, BLOCK_Y)),
            reduce: config(columns, wave.min(blocks(n, BLOCK_Y))),
        }
    }

    /// The blocks of a reduction's grid.
    fn reduce_blocks(&self) -> usize {
        let (x, y, _) = self.reduce.grid_dim;
        x as usize * y as usize
    }
}

/// Launches `l` on `config` (its arguments pushed as the kernel `name` takes them) without
/// waiting.
///
/// # Safety
/// The arguments must match the kernel's signature in `cuda_source.rs`, every field being one of
/// the peer's (`(n + 2)^2` cells), and `config` must be the peer's grid for that kernel: the kernels
/// index only cells they guard to be inside the grid.
unsafe fn go(
    mut l: LaunchArgs<'_>,
    config: LaunchConfig,
    name: &'static str,
) -> Result<(), Failure> {
    // SAFETY: the caller's contract.
    unsafe { l.launch(config) }
        .map(|_| ())
        .map_err(|e| Failure::Run(format!("stencil: CUDA peer: launching {name}: {e}")))
}

/// The peer: its context, stream, kernels and fields.
pub struct CudaPeer {
    /// The stream every kernel runs on, in the device's primary context (shared with ferrokkos'
    /// Cuda space).
    stream: Arc<CudaStream>,
    /// The device.
    device: CudaDevice,
    f: Kernels,
    grids: Grids,
    /// The grid's interior cells per direction, as the kernels take it.
    n: i32,
    /// The sweep's fields.
    fields: PingPong<CudaSlice<f64>>,
    /// CG's vectors.
    cg: Vectors<CudaSlice<f64>>,
    /// TeaLeaf-shaped CG's fields.
    tea: TeaFields<CudaSlice<f64>>,
    /// A reduction's partial value per block.
    partials: CudaSlice<f64>,
    /// The reductions' count of finished blocks (0 between launches).
    done: CudaSlice<u32>,
    /// A reduction's result, in page-locked host memory the last block writes.
    result: PinnedHostSlice<f64>,
    /// The device address of `result`.
    result_device: u64,
}

impl CudaPeer {
    /// The peer on the device ferrokkos' Cuda space uses, its fields allocated and initialized as
    /// ferrokkos' are.
    pub fn new(grid: Grid) -> Result<Self, Failure> {
        // SAFETY: only tries to load the driver library by its usual names; nothing is called
        // through it here.
        if !unsafe { sys::is_culib_present() } {
            return Err(Failure::Run(
                "stencil: CUDA peer: the CUDA driver library (libcuda) could not be loaded".into(),
            ));
        }
        let n = i32::try_from(grid.n)
            .ok()
            .filter(|_| (grid.cells() as u64) < (1 << 31))
            .ok_or_else(|| {
                Failure::Run(format!(
                    "stencil: CUDA peer: it indexes with int, so the grid must have fewer than \
                     2^31 cells; -n {} gives {}",
                    grid.n,
                    grid.cells()
                ))
            })?;
        let device = Cuda::device()?;
        let (major, minor) = device.compute_capability;
        let cubin =
            ferrokkos::nvrtc::compile_cubin(&source(), "stencil_peer.cu", major * 10 + minor)?;
        let ctx =
            CudaContext::new(device.ordinal).map_err(driver("retaining the primary context"))?;
        // SAFETY: every kernel runs on the one stream, so cudarc's cross-stream event tracking has
        // nothing to order. Disabled before any buffer is allocated.
        unsafe { ctx.disable_event_tracking() };
        let stream = ctx.new_stream().map_err(driver("creating a stream"))?;
        let module = ctx
            .load_module(Ptx::from_binary(cubin.image))
            .map_err(driver("loading the NVRTC-compiled kernels"))?;
        let f = Kernels::new(&module)?;
        let per_sm = [&f.cg_dot, &f.tea_w, &f.tea_ur]
            .into_iter()
            .map(|k| k.occupancy_max_active_blocks_per_multiprocessor(BLOCK_X * BLOCK_Y, 0, None))
            .collect::<Result<Vec<u32>, _>>()
            .map_err(driver("reading the kernels' occupancy"))?
            .into_iter()
            .min()
            .unwrap_or(1);
        let grids = Grids::new(grid, device.multiprocessors, per_sm);
        let alloc = |len: usize| {
            stream
                .alloc_zeros::<f64>(len)
                .map_err(driver("allocating a field"))
        };
        let cells = grid.cells();
        let field = || alloc(cells);
        // SAFETY: the memory is uninitialized until a reduction's last block writes it, and the
        // host reads it only after the stream synchronization that follows that reduction.
        // Flags: DEVICEMAP (the kernel writes it), not write-combined (the host reads it).
        let mut result =
            unsafe { ctx.alloc_pinned_with_flags::<f64>(1, sys::CU_MEMHOSTALLOC_DEVICEMAP) }
                .map_err(driver("allocating the reductions' result"))?;
        let host = result
            .as_mut_ptr()
            .map_err(driver("reading the result's address"))?;
        let mut result_device: sys::CUdeviceptr = 0;
        ctx.bind_to_thread()
            .map_err(driver("binding the context"))?;
        // SAFETY: `host` is a live page-locked allocation mapped for the device (DEVICEMAP) in
        // the current context; the driver writes the device address into `result_device`.
        unsafe { sys::cuMemHostGetDevicePointer_v2(&mut result_device, host.cast(), 0) }
            .result()
            .map_err(driver("mapping the result for the device"))?;
        let mut peer = CudaPeer {
            fields: PingPong::new(field()?, field()?),
            cg: Vectors {
                x: field()?,
                r: field()?,
                p: field()?,
                ap: field()?,
            },
            tea: TeaFields {
                kx: field()?,
                ky: field()?,
                u: field()?,
                r: field()?,
                p: field()?,
                w: field()?,
            },
            partials: alloc(grids.reduce_blocks())?,
            done: stream
                .alloc_zeros::<u32>(1)
                .map_err(driver("allocating the block counter"))?,
            result,
            result_device,
            stream,
            device,
            f,
            grids,
            n,
        };
        peer.init()?;
        Ok(peer)
    }

    /// The sweep's start values and TeaLeaf-shaped CG's coefficients, on every cell; CG's start.
    fn init(&mut self) -> Result<(), Failure> {
        let (every, n) = (self.grids.every, self.n);
        let (u, v) = self.fields.both_mut();
        let mut l = self.stream.launch_builder(&self.f.sweep_init);
        l.arg(u).arg(v).arg(&n);
        // SAFETY: `sweep_init(double*, double*, int n)` with two fields of (n + 2)^2 cells; the
        // kernel guards i, j < n + 2.
        unsafe { l.launch(every) }.map_err(driver("launching sweep_init"))?;
        let TeaFields { kx, ky, .. } = &mut self.tea;
        let mut l = self.stream.launch_builder(&self.f.tea_init);
        l.arg(kx).arg(ky).arg(&n);
        // SAFETY: `tea_init(double*, double*, int n)`, as `sweep_init`.
        unsafe { l.launch(every) }.map_err(driver("launching tea_init"))?;
        self.cg_reset()
    }

    /// Waits for the stream and reads the reduction's result.
    fn result(&self) -> Result<f64, Failure> {
        self.stream
            .synchronize()
            .map_err(driver("synchronizing after a reduction"))?;
        let r = self
            .result
            .as_slice()
            .map_err(driver("reading the reduction's result"))?;
        Ok(r[0])
    }

    /// A field's cells on the host.
    fn read(&self, v: &CudaSlice<f64>) -> Result<Vec<f64>, Failure> {
        let host = self
            .stream
            .clone_dtoh(v)
            .map_err(driver("copying a field to the host"))?;
        self.stream
            .synchronize()
            .map_err(driver("copying a field to the host"))?;
        Ok(host)
    }
}

impl Implementation for CudaPeer {
    fn name(&self) -> String {
        let (x, y, _) = self.grids.reduce.grid_dim;
        format!(
            "hand-written CUDA, one thread per cell in blocks of {BLOCK_X} x {BLOCK_Y}, int \
             indices; reductions on {x} x {y} blocks (rows grid-stride), last block joins; {}",
            self.device.name
        )
    }

    fn short_name(&self) -> &'static str {
        "cuda"
    }

    fn sweep(&mut self, steps: usize) -> Result<(), Failure> {
        let (stream, f, n, config) = (&self.stream, &self.f, self.n, self.grids.interior);
        for _ in 0..steps {
            self.fields.step(|u, v| {
                let mut l = stream.launch_builder(&f.sweep);
                l.arg(u).arg(v).arg(&n);
                // SAFETY: `sweep(const double*, double*, int n)`: two fields, the interior grid.
                unsafe { l.launch(config) }
                    .map(|_| ())
                    .map_err(driver("launching sweep"))
            })?;
        }
        Ok(())
    }

    fn fence(&mut self) -> Result<(), Failure> {
        self.stream
            .synchronize()
            .map_err(driver("synchronizing the stream"))
    }

    fn field(&self) -> Result<Vec<f64>, Failure> {
        self.read(self.fields.current())
    }

    fn cg_reset(&mut self) -> Result<(), Failure> {
        let grids = self.grids;
        let Vectors { x, r, p, ap } = &mut self.cg;
        let mut l = self.stream.launch_builder(&self.f.cg_reset);
        l.arg(x).arg(r).arg(p).arg(ap).arg(&self.n);
        // SAFETY: `cg_reset(double* x4, int n)`: four fields, every cell's grid (guarded).
        unsafe { go(l, grids.every, "cg_reset") }?;
        self.fence()
    }

    fn cg_apply(&mut self) -> Result<(), Failure> {
        let grids = self.grids;
        let mut l = self.stream.launch_builder(&self.f.cg_apply);
        l.arg(&self.cg.p).arg(&mut self.cg.ap).arg(&self.n);
        // SAFETY: `cg_apply(const double*, double*, int n)`: two fields, the interior grid.
        unsafe { go(l, grids.interior, "cg_apply") }
    }

    fn cg_dot(&mut self, dot: Dot) -> Result<f64, Failure> {
        let grids = self.grids;
        let (a, b) = self.cg.dot_operands(dot);
        let mut l = self.stream.launch_builder(&self.f.cg_dot);
        l.arg(a)
            .arg(b)
            .arg(&self.n)
            .arg(&self.partials)
            .arg(&self.done)
            .arg(&self.result_device);
        // SAFETY: `cg_dot(const double*, const double*, int n, double* partials, unsigned* done,
        // double* result)`: two fields, one partial per block of the reduction grid, the counter
        // (0 between launches) and the mapped result.
        unsafe { go(l, grids.reduce, "cg_dot") }?;
        self.result()
    }

    fn cg_update(&mut self, update: Update, a: f64) -> Result<(), Failure> {
        let (n, config) = (self.n, self.grids.interior);
        let f = match update {
            Update::X | Update::R => &self.f.cg_axpy,
            Update::P => &self.f.cg_direction,
        };
        let (y, x) = self.cg.update_operands(update);
        let mut l = self.stream.launch_builder(f);
        l.arg(y).arg(x).arg(&a).arg(&n);
        // SAFETY: `cg_axpy(double* y, const double* x, double a, int n)` and `cg_direction`
        // (the same signature): two fields, the interior grid.
        unsafe { l.launch(config) }
            .map(|_| ())
            .map_err(driver("launching a CG update"))
    }

    fn cg_solution(&self) -> Result<Vec<f64>, Failure> {
        self.read(&self.cg.x)
    }

    fn tea_reset(&mut self) -> Result<f64, Failure> {
        let grids = self.grids;
        let TeaFields { u, r, p, w, .. } = &mut self.tea;
        let mut l = self.stream.launch_builder(&self.f.cg_reset);
        l.arg(u).arg(r).arg(p).arg(w).arg(&self.n);
        // SAFETY: `cg_reset(double* x4, int n)` sets u = 0, r = p = b, w = 0: four fields, every
        // cell's grid (guarded).
        unsafe { go(l, grids.every, "cg_reset") }?;
        let mut l = self.stream.launch_builder(&self.f.cg_dot);
        let r = &self.tea.r;
        l.arg(r)
            .arg(r)
            .arg(&self.n)
            .arg(&self.partials)
            .arg(&self.done)
            .arg(&self.result_device);
        // SAFETY: as in `cg_dot`.
        unsafe { go(l, grids.reduce, "cg_dot") }?;
        self.result()
    }

    fn tea_w(&mut self) -> Result<f64, Failure> {
        let grids = self.grids;
        let TeaFields { kx, ky, p, w, .. } = &mut self.tea;
        let mut l = self.stream.launch_builder(&self.f.tea_w);
        l.arg(&*kx)
            .arg(&*ky)
            .arg(&*p)
            .arg(w)
            .arg(&self.n)
            .arg(&self.partials)
            .arg(&self.done)
            .arg(&self.result_device);
        // SAFETY: `tea_w(const double* kx, ky, p, double* w, int n, partials, done, result)`: four
        // fields, then as in `cg_dot`.
        unsafe { go(l, grids.reduce, "tea_w") }?;
        self.result()
    }

    fn tea_ur(&mut self, alpha: f64) -> Result<f64, Failure> {
        let grids = self.grids;
        let TeaFields { u, r, p, w, .. } = &mut self.tea;
        let mut l = self.stream.launch_builder(&self.f.tea_ur);
        l.arg(u)
            .arg(r)
            .arg(&*p)
            .arg(&*w)
            .arg(&alpha)
            .arg(&self.n)
            .arg(&self.partials)
            .arg(&self.done)
            .arg(&self.result_device);
        // SAFETY: `tea_ur(double* u, double* r, const double* p, const double* w, double alpha,
        // int n, partials, done, result)`: four fields, then as in `cg_dot`.
        unsafe { go(l, grids.reduce, "tea_ur") }?;
        self.result()
    }

    fn tea_p(&mut self, beta: f64) -> Result<(), Failure> {
        let grids = self.grids;
        let TeaFields { r, p, .. } = &mut self.tea;
        let mut l = self.stream.launch_builder(&self.f.cg_direction);
        l.arg(p).arg(&*r).arg(&beta).arg(&self.n);
        // SAFETY: `cg_direction(double* p, const double* r, double beta, int n)`: two fields, the
        // interior grid.
        unsafe { go(l, grids.interior, "cg_direction") }
    }

    fn tea_solution(&self) -> Result<Vec<f64>, Failure> {
        self.read(&self.tea.u)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reductions_fill_the_device_once_and_cover_the_columns() {
        let g = Grids::new(Grid { n: 4096 }, 132, 8);
        assert_eq!(g.interior.grid_dim, (128, 512, 1));
        assert_eq!(g.every.grid_dim, (129, 513, 1));
        // 132 x 8 blocks at once over 128 columns of blocks: 9 rows of blocks.
        assert_eq!(g.reduce.grid_dim, (128, 9, 1));
        assert_eq!(g.reduce_blocks(), 128 * 9);
        // A small grid: never more rows of blocks than the interior has.
        let g = Grids::new(Grid { n: 10 }, 132, 8);
        assert_eq!(g.reduce.grid_dim, (1, 2, 1));
    }

    /// The source compiles with NVRTC for the GPUs the project targets (skipped without NVRTC,
    /// unless FERROKKOS_REQUIRE_NVRTC=1).
    #[test]
    fn the_peer_compiles_for_the_gpu() {
        if !ferrokkos::nvrtc::require_or_skip() {
            return;
        }
        for arch in [80, 90] {
            if let Err(e) = ferrokkos::nvrtc::compile_cubin(&source(), "stencil_peer.cu", arch) {
                panic!("sm_{arch}: {e}");
            }
        }
    }
}
