//! The driver trait family: what the GPU runtime ([`super::queue`], [`super::fault`],
//! [`super::clock`]) needs from a GPU's driver API, and nothing else. A backend implements
//! [`Driver`] on a marker type and these traits on its handle types (CUDA's in
//! `backend/cuda/driver/gpu.rs`); the runtime is written once over them, monomorphized per driver
//! (no dynamic dispatch on the launch path).
//!
//! Invariants every implementation keeps (the runtime's soundness rests on them):
//! - a [`Stream`] runs its work in submission order, and holds its context;
//! - an [`Event`] holds the stream it was recorded on (it cannot outlive it) and completes when all
//!   work enqueued on that stream before it has completed;
//! - a buffer owns its memory and frees it once (in `free` or on drop); a [`DeviceBuffer`] made
//!   for a stream is freed in that stream's order, after the work enqueued before the free;
//! - errors name the driver call and carry `what` (the operation, its label and space).

use std::ffi::CStr;
use std::sync::Arc;

use super::arch::GpuArch;
pub(crate) use super::copy::plan::PointerKind;
use crate::error::Result;
use crate::space::DeviceType;

/// A GPU driver API (CUDA's, HIP's): its handle types and its synchronous memory operations.
pub(crate) trait Driver: Sized + Send + Sync + 'static {
    /// The execution space's name in messages ("Cuda").
    const SPACE: &'static str;
    /// The execution space's device type for tools (its device IDs' top bits).
    const DEVICE_TYPE: DeviceType;
    /// The key of the device's name in the metadata tools get ("Cuda device").
    const DEVICE_METADATA: &'static str;
    /// The device memory space's name in messages ("CudaSpace").
    const MEMORY_SPACE: &'static str;
    /// A device's context (what streams, memory and modules belong to).
    type Context: Context;
    /// What the runtime reads about a device.
    type DeviceInfo: DeviceInfo;
    /// An in-order queue of device work.
    type Stream: Stream<Self>;
    /// A point in a stream's work that the host or another stream can wait for.
    type Event: Event<Self>;
    /// Owned device memory.
    type DeviceBuffer: DeviceBuffer<Self>;
    /// Owned pinned host memory, also addressable by the device.
    type PinnedBuffer: PinnedBuffer<Self>;
    /// A loaded program of kernels and device globals.
    type Module: Module<Self>;
    /// A kernel of a loaded program.
    type Function: Function;
    /// The run-time compiler, with its cache of compiled programs on disk.
    type Compiler: Compiler<Self>;
    /// A graph of device work being built (from captured streams).
    type Graph: Graph<Self>;
    /// An instantiated graph, launched as one unit.
    type GraphExec: GraphExec<Self>;

    /// The most parameters one launch passes.
    const MAX_PARAMS: usize;
    /// The dynamic shared memory a block may use without opting in (above it,
    /// [`Function::set_max_dynamic_shared`] must allow it).
    const DEFAULT_DYNAMIC_SHARED: usize;

    /// Enqueues `f` on `stream` with `grid` blocks of `block` threads and `shared_bytes` of
    /// dynamic shared memory; `pointers` holds one pointer per kernel parameter, to its value
    /// (read during the call).
    ///
    /// # Safety
    ///
    /// The parameters match the kernel's signature, and everything they point to on the device
    /// stays valid until the kernel has completed (the launcher's borrows and stamps).
    unsafe fn launch(
        f: &Self::Function,
        grid: u32,
        block: u32,
        shared_bytes: u32,
        stream: &Self::Stream,
        pointers: &mut [*mut std::ffi::c_void],
        what: impl FnOnce() -> String,
    ) -> Result<()>;

    /// What memory `ptr` points into, from the driver's pointer attributes (an address inside an
    /// allocation is classified as the allocation; an address the driver does not know is
    /// [`PointerKind::Pageable`]).
    fn pointer_kind(ptr: *const u8) -> Result<PointerKind>;

    /// Sets `bytes` bytes at `dst` to `value` and waits until that is done. For new allocations.
    ///
    /// # Safety
    ///
    /// `dst` is device, managed or pinned memory of `ctx` valid for `bytes` bytes of writes, which
    /// nothing else accesses during the call.
    unsafe fn fill_sync(
        ctx: &Self::Context,
        dst: u64,
        value: u8,
        bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<()>;

    /// Copies `bytes` from `src` to `dst` (any direction) and waits until the copy is complete.
    /// Work on the driver's streams that touches either range must have completed.
    ///
    /// # Safety
    ///
    /// `src` and `dst` are valid for `bytes` bytes (reads and writes), do not overlap, and nothing
    /// else writes either (or reads `dst`) during the call.
    unsafe fn copy_sync(
        ctx: &Self::Context,
        dst: u64,
        src: u64,
        bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<()>;
}

/// A device's context.
pub(crate) trait Context: Send + Sync {
    /// Waits for all work on the device (every stream); the first asynchronous error, if any.
    fn synchronize(&self, what: impl FnOnce() -> String) -> Result<()>;
}

/// What the runtime reads about a device.
pub(crate) trait DeviceInfo: Send + Sync {
    /// The device's number among the visible ones.
    fn ordinal(&self) -> usize;

    /// The device's name.
    fn name(&self) -> &str;

    /// The number of multiprocessors (compute units).
    fn sm_count(&self) -> u32;

    /// The most bytes of parameters one launch passes.
    fn max_param_bytes(&self) -> usize;

    /// The lanes and limits launch planning needs.
    fn gpu_arch(&self) -> GpuArch;

    /// The most threads a block may have.
    fn max_threads_per_block(&self) -> u32;

    /// Shared memory a block may use without opting in, in bytes.
    fn shared_memory_per_block(&self) -> usize;

    /// Shared memory a block may use once its kernel opts in, in bytes.
    fn shared_memory_per_block_optin(&self) -> usize;

    /// Whether `deep_copy` lets the device's kernels read and write pageable host memory (memory
    /// the driver does not know) instead of staging it through the host.
    fn pageable_memory_access(&self) -> bool;
}

/// An in-order, non-blocking stream of device work.
pub(crate) trait Stream<D: Driver>: Send + Sync + Sized {
    /// A new stream on `ctx`.
    fn new(ctx: &Arc<D::Context>, what: impl FnOnce() -> String) -> Result<Self>;

    /// The stream's context.
    fn context(&self) -> &Arc<D::Context>;

    /// Waits for all work enqueued so far; the first asynchronous error of that work, if any.
    fn synchronize(&self, what: impl FnOnce() -> String) -> Result<()>;

    /// Enqueues a copy of `bytes` from `src` to `dst` (any direction; from pageable host memory
    /// the source is read before the call returns).
    ///
    /// # Safety
    ///
    /// `src` and `dst` are valid for `bytes` bytes until the copy has completed, do not overlap,
    /// and nothing else writes either (or reads `dst`) meanwhile.
    unsafe fn copy_async(
        &self,
        dst: u64,
        src: u64,
        bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<()>;

    /// Makes work enqueued later wait until `event` (of any stream) has completed; does not block
    /// the host.
    fn wait_event(&self, event: &D::Event, what: impl FnOnce() -> String) -> Result<()>;

    /// Enqueues a fill of `count` elements at `dst` with `pattern` (1, 2 or 4 bytes, `dst` aligned
    /// to it; other patterns are `Error::InvalidArgument`).
    ///
    /// # Safety
    ///
    /// `dst` is memory the device can write, valid for `count * pattern.len()` bytes until the
    /// fill has completed, and nothing else accesses it meanwhile.
    unsafe fn fill_async(
        &self,
        dst: u64,
        pattern: &[u8],
        count: usize,
        what: impl FnOnce() -> String,
    ) -> Result<()>;
}

/// A recorded point in a stream's work.
pub(crate) trait Event<D: Driver>: Send + Sync + Sized {
    /// Records an event on `stream` after the work enqueued so far; `timing` events can be timed
    /// ([`Event::elapsed_ms_since`]), others are cheaper.
    fn record(stream: &Arc<D::Stream>, timing: bool, what: impl FnOnce() -> String)
    -> Result<Self>;

    /// Waits until the event has completed; the first asynchronous error before it, if any.
    fn synchronize(&self, what: impl FnOnce() -> String) -> Result<()>;

    /// Whether the event has completed, without waiting.
    fn is_complete(&self) -> Result<bool>;

    /// Milliseconds from `earlier` to this event (both recorded with timing, both complete).
    fn elapsed_ms_since(&self, earlier: &Self, what: impl FnOnce() -> String) -> Result<f32>;
}

/// Owned device memory.
pub(crate) trait DeviceBuffer<D: Driver>: Send + Sync + Sized {
    /// `bytes` of device memory usable by any stream at once (0 bytes: the null address).
    fn new(ctx: &Arc<D::Context>, bytes: usize, what: impl FnOnce() -> String) -> Result<Self>;

    /// `bytes` of device memory for the work of `stream`, freed in the stream's order.
    fn on_stream(
        stream: &Arc<D::Stream>,
        bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<Self>;

    /// The device address of the first byte (0 when empty).
    fn ptr(&self) -> u64;

    /// The size in bytes.
    fn len(&self) -> usize;

    /// Frees the memory now (in the stream's order, for a stream's buffer), with the driver's
    /// error; it is not freed again either way.
    fn free(self) -> Result<()>;
}

/// Owned pinned host memory (with unified addressing, its address is also the device's).
pub(crate) trait PinnedBuffer<D: Driver>: Send + Sync + Sized {
    /// `bytes` of pinned host memory through `ctx`, not zeroed (0 bytes: a null pointer).
    fn new(ctx: &Arc<D::Context>, bytes: usize, what: impl FnOnce() -> String) -> Result<Self>;

    /// The first byte (null when empty).
    fn ptr(&self) -> *mut u8;

    /// The size in bytes.
    fn len(&self) -> usize;

    /// Frees the memory now, with the driver's error; it is not freed again either way. No device
    /// work may still use it.
    fn free(self) -> Result<()>;
}

/// A loaded program.
pub(crate) trait Module<D: Driver>: Send + Sync + Sized {
    /// Loads the compiled `image` into `ctx`.
    fn load(
        ctx: &Arc<D::Context>,
        image: &[u8],
        what: impl FnOnce() -> String,
    ) -> Result<Arc<Self>>;

    /// The kernel `name` (its `extern "C"` name).
    fn function(self: &Arc<Self>, name: &str, what: impl FnOnce() -> String)
    -> Result<D::Function>;

    /// The device address and size of the global `name`, or `None` when the program has none.
    fn global(&self, name: &CStr, what: impl FnOnce() -> String) -> Result<Option<(u64, usize)>>;
}

/// A kernel of a loaded program (it keeps its program loaded).
pub(crate) trait Function: Clone + Send + Sync {
    /// A block size that maximizes occupancy with `shared_per_thread` bytes of dynamic shared
    /// memory per thread, and the smallest grid that fills the device with it: `(grid, block)`.
    fn suggested_block_size(
        &self,
        shared_per_thread: usize,
        sm_count: u32,
        what: impl FnOnce() -> String,
    ) -> Result<(u32, u32)>;

    /// How many blocks of `block` threads with `shared_bytes` of dynamic shared memory are
    /// resident on one multiprocessor (0: such a block does not fit).
    fn max_active_blocks_per_sm(
        &self,
        block: u32,
        shared_bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<u32>;

    /// Allows launches with up to `bytes` of dynamic shared memory per block.
    fn set_max_dynamic_shared(&self, bytes: usize, what: impl FnOnce() -> String) -> Result<()>;

    /// The most threads a block of this kernel may have (its registers bound it).
    fn max_threads_per_block(&self, what: impl FnOnce() -> String) -> Result<u32>;

    /// The kernel's static shared memory, in bytes.
    fn static_shared_bytes(&self, what: impl FnOnce() -> String) -> Result<usize>;
}

/// The run-time compiler of a device's programs, with its cache on disk.
pub(crate) trait Compiler<D: Driver>: Send + Sync {
    /// The compiler with the disk cache the environment configures.
    fn from_env() -> Self;

    /// Whether the disk cache has the program (a cheap look for the file).
    fn has(&self, source: &str, program: &str, info: &D::DeviceInfo) -> bool;

    /// The compiled image of `source` for the device of `info`, named `program` in messages,
    /// compiled on up to `threads` threads or read from the disk cache, and whether it came from
    /// the disk.
    fn compile_cached(
        &self,
        source: &str,
        program: &str,
        info: &D::DeviceInfo,
        threads: u32,
    ) -> Result<(Vec<u8>, bool)>;
}

/// A graph of device work under construction: nodes in a dependency order, each a captured stream's
/// work (a child graph) or nothing (a join point).
pub(crate) trait Graph<D: Driver>: Send + Sized {
    /// A node of the graph (valid while the graph is).
    type Node: Copy;

    /// An empty graph on `ctx`.
    fn new(ctx: &Arc<D::Context>, what: impl FnOnce() -> String) -> Result<Self>;

    /// Starts capturing `stream`'s work into a graph instead of running it (relaxed mode: the
    /// capturing thread may still allocate and copy synchronously outside the stream).
    ///
    /// # Safety
    ///
    /// Until [`Graph::end_capture`] on the same stream, only work meant for the graph is enqueued
    /// on `stream`, and nothing waits for it.
    unsafe fn begin_capture(stream: &D::Stream, what: impl FnOnce() -> String) -> Result<()>;

    /// Ends the capture of `stream` and returns the captured graph (an error ends it too).
    fn end_capture(stream: &D::Stream, what: impl FnOnce() -> String) -> Result<Self>;

    /// Adds a copy of `child` as one node after `deps`.
    fn add_child(
        &mut self,
        deps: &[Self::Node],
        child: &Self,
        what: impl FnOnce() -> String,
    ) -> Result<Self::Node>;

    /// Adds an empty node after `deps`.
    fn add_empty(
        &mut self,
        deps: &[Self::Node],
        what: impl FnOnce() -> String,
    ) -> Result<Self::Node>;

    /// The executable form of the graph.
    fn instantiate(&self, what: impl FnOnce() -> String) -> Result<D::GraphExec>;
}

/// An instantiated graph. Launches of one executable graph run in their order.
pub(crate) trait GraphExec<D: Driver>: Send + Sync {
    /// Enqueues the graph's work on `stream`, after the work enqueued on it so far and after earlier
    /// launches of this graph.
    ///
    /// # Safety
    ///
    /// Every address the graph's nodes use is valid until the launch completes, and the memory
    /// they write is not used by other work meanwhile.
    unsafe fn launch(&self, stream: &D::Stream, what: impl FnOnce() -> String) -> Result<()>;

    /// Uploads the graph's launch resources ahead of its first launch, so that the first launch
    /// costs what every later one does.
    fn upload(&self, stream: &D::Stream, what: impl FnOnce() -> String) -> Result<()>;
}
