//! [`Cuda`]: the CUDA execution space. An instance owns a non-blocking stream; work on it runs on the
//! GPU in submission order, asynchronously to the host.

use std::sync::Arc;

use super::backend::{CudaBackend, CudaInstance, CudaShared, backend_shared, default_instance};
use super::driver::CudaDriver;
use super::runtime::Queue;
use super::spaces::{CudaHostPinnedSpace, CudaSpace, CudaUVMSpace};
use crate::backend::gpu::space::GpuSpace;
use crate::error::Result;
use crate::runtime;
use crate::space::{DeviceType, ExecutionSpace};

/// The CUDA execution space (Kokkos' `Kokkos::Cuda`): kernels written with [`crate::kernel!`] run
/// on the GPU, asynchronously to the host, in submission order per instance.
///
/// Each instance owns a CUDA stream. [`Cuda::new_instance`] and [`crate::partition_space`] create
/// more, whose work may overlap; dropping the last handle of an instance waits for its work and
/// destroys its stream. Views the work uses are tracked: reading them on the host, or using them
/// from another instance, first waits for that work.
///
/// ```no_run
/// use ferrokkos::prelude::*;
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let cuda = Cuda::default_instance()?;
/// let x = View::<f64, 1, LayoutRight, CudaSpace>::new("x", [1000])?;
/// parallel_for("fill", RangePolicy::new(&cuda, 0, 1000)?, kernel!(|i| x[i] = i as f64 * 0.5))?;
/// let sum: f64 = parallel_reduce("sum", RangePolicy::new(&cuda, 0, 1000)?,
///     kernel!(|i, acc: &mut f64| *acc += x[i]), Sum::new())?;
/// assert_eq!(sum, 0.5 * 999.0 * 1000.0 / 2.0);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
#[derive(Clone)]
pub struct Cuda {
    inner: Arc<CudaInstance>,
}

impl Cuda {
    /// A new instance with its own stream.
    pub(crate) fn create(shared: &Arc<CudaShared>) -> Result<Cuda> {
        Ok(Cuda::from(CudaInstance::create(shared, false)?))
    }

    /// The handle of an instance.
    pub(crate) fn from(inner: Arc<CudaInstance>) -> Cuda {
        Cuda { inner }
    }

    /// A new instance with its own stream, independent of the others (Kokkos'
    /// `Cuda(cudaStream_t)` with a fresh stream).
    pub fn new_instance() -> Result<Cuda> {
        let shared = backend_shared(|| "creating a Cuda instance".into())?;
        shared.check_alive(|| "creating a Cuda instance".into())?;
        Cuda::create(&shared)
    }

    /// Whether the process has a usable GPU and ferrokkos started its Cuda backend.
    pub fn is_available() -> bool {
        runtime::state(String::new).is_ok_and(|s| s.backend::<CudaBackend>().is_some())
    }

    /// The device this backend runs on: name, compute capability, multiprocessors, memory, driver.
    pub fn device() -> Result<CudaDevice> {
        let shared = backend_shared(|| "reading the Cuda device".into())?;
        let i = &shared.info;
        Ok(CudaDevice {
            ordinal: i.ordinal,
            name: i.name.clone(),
            compute_capability: i.compute_capability,
            multiprocessors: i.sm_count,
            memory_bytes: i.total_memory,
            driver_version: shared.driver_version,
            max_param_bytes: i.max_param_bytes,
            max_threads_per_block: i.max_threads_per_block,
            max_threads_per_multiprocessor: i.max_threads_per_sm,
            max_blocks_per_multiprocessor: i.max_blocks_per_sm,
            warp_size: i.warp_size,
            shared_memory_per_block: i.shared_memory_per_block,
            l2_cache_bytes: i.l2_cache_bytes,
            memory_pools: i.memory_pools,
            concurrent_managed_access: i.concurrent_managed_access,
        })
    }

    /// How this process obtained its kernels so far: compiled by NVRTC or loaded from the on-disk
    /// cache, and how long the slowest and the last took (from the launch's request to loaded code).
    pub fn jit_stats() -> Result<super::JitStats> {
        Ok(
            backend_shared(|| "reading the kernel cache statistics".into())?
                .kernels
                .stats(),
        )
    }

    /// The device's free and total memory in bytes (`cuMemGetInfo`).
    pub fn memory_info() -> Result<(usize, usize)> {
        backend_shared(|| "reading the device memory".into())?
            .ctx
            .memory_info()
    }

    /// The CUDA driver objects (streams, events, loaded modules, retained contexts) that ferrokkos
    /// holds in this process right now. Works also before initialize and after finalize: once
    /// finalized, with every View and instance handle dropped, all are zero.
    pub fn live_handles() -> super::CudaHandles {
        super::driver::live::handles()
    }

    pub(crate) fn shared(&self) -> &Arc<CudaShared> {
        self.inner.shared()
    }

    pub(crate) fn queue(&self) -> &Arc<Queue> {
        self.inner.queue()
    }
}

/// The GPU the Cuda space runs on.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CudaDevice {
    /// The device number (after `CUDA_VISIBLE_DEVICES`).
    pub ordinal: usize,
    /// The device's name.
    pub name: String,
    /// The compute capability, `(9, 0)` for sm_90.
    pub compute_capability: (u32, u32),
    /// The number of streaming multiprocessors.
    pub multiprocessors: u32,
    /// The device memory, in bytes.
    pub memory_bytes: usize,
    /// The CUDA driver's version, `(13, 0)`.
    pub driver_version: (i32, i32),
    /// The most bytes of kernel parameters one launch may pass.
    pub max_param_bytes: usize,
    /// The most threads a block may have.
    pub max_threads_per_block: u32,
    /// The most threads resident on one multiprocessor.
    pub max_threads_per_multiprocessor: u32,
    /// The most blocks resident on one multiprocessor.
    pub max_blocks_per_multiprocessor: u32,
    /// The warp size in threads.
    pub warp_size: u32,
    /// Shared memory a block may use without opting in to more, in bytes.
    pub shared_memory_per_block: usize,
    /// The L2 cache size in bytes.
    pub l2_cache_bytes: usize,
    /// Whether CudaSpace allocations come from the stream-ordered pool (`cuMemAllocAsync`).
    pub memory_pools: bool,
    /// Whether the host may touch managed memory while kernels run.
    pub concurrent_managed_access: bool,
}

impl std::fmt::Debug for Cuda {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Cuda")
            .field("instance", &self.inner.id())
            .field("device", &self.inner.shared().info.ordinal)
            .finish()
    }
}

impl PartialEq for Cuda {
    fn eq(&self, other: &Self) -> bool {
        Arc::ptr_eq(&self.inner, &other.inner)
    }
}

impl ExecutionSpace for Cuda {
    type MemorySpace = CudaSpace;
    type SharedSpace = CudaUVMSpace;
    type SharedHostPinnedSpace = CudaHostPinnedSpace;
    // Views default to LayoutRight on every space here, so MDRange walks follow it: consecutive
    // threads take consecutive last indices, which are adjacent in memory.
    type ArrayLayout = crate::layout::LayoutRight;
    const NAME: &'static str = "Cuda";
    const DEVICE_TYPE: DeviceType = DeviceType::Cuda;
    type Kind = crate::space::DeviceKind;

    fn default_instance() -> Result<Self> {
        default_instance().map(Cuda::from)
    }

    fn fence(&self, label: &str) -> Result<()> {
        let _tools = crate::tools::FenceScope::begin(label, self.device_id());
        self.inner
            .queue()
            .fence(&|| format!("fence \"{label}\" on Cuda instance {}", self.inner.id()))
    }

    /// The most threads resident on the device at once (multiprocessors times threads per
    /// multiprocessor).
    fn concurrency(&self) -> usize {
        let i = &self.inner.shared().info;
        i.sm_count as usize * i.max_threads_per_sm as usize
    }

    /// Copies get the instance's state (an `Arc<CudaInstance>`).
    fn copy_instance(&self, _: crate::seal::Token) -> &dyn std::any::Any {
        &self.inner
    }

    fn instance_id(&self) -> u32 {
        self.inner.id()
    }

    fn device_id(&self) -> u32 {
        self.inner.device_id()
    }

    /// New instances, one per weight, each with its own stream. CUDA streams do not divide the
    /// device, so the weights only need to be valid (finite and positive).
    fn partition(&self, weights: &[f64]) -> Result<Vec<Self>> {
        self.inner
            .shared()
            .check_alive(|| "partition_space on Cuda".into())?;
        crate::space::split_concurrency(1, weights)?;
        weights
            .iter()
            .map(|_| Cuda::create(self.inner.shared()))
            .collect()
    }
}

impl GpuSpace for Cuda {
    type Driver = CudaDriver;

    fn gpu_instance(&self) -> &CudaInstance {
        &self.inner
    }

    fn from_gpu_instance(inner: Arc<CudaInstance>) -> Cuda {
        Cuda::from(inner)
    }
}
