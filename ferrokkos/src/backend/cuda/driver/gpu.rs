//! The CUDA driver as the GPU runtime's [`Driver`]: the handle types of this layer, each trait
//! method a call of the inherent method of the same name (whose docs give the CUDA calls).

use std::ffi::CStr;
use std::sync::Arc;

use super::{
    Context, DeviceBuffer, DeviceInfo, Event, Executable, Function, Graph, MAX_PARAMS, Module,
    Node, PinnedBuffer, Stream, memory,
};
use crate::backend::cuda::jit_cache::DiskCache;
use crate::backend::gpu::arch::GpuArch;
use crate::backend::gpu::driver as gpu;
use crate::error::Result;
use crate::space::DeviceType;

/// The CUDA driver API (libcuda through cudarc).
pub(crate) struct CudaDriver;

impl gpu::Driver for CudaDriver {
    const SPACE: &'static str = "Cuda";
    const DEVICE_TYPE: DeviceType = DeviceType::Cuda;
    const DEVICE_METADATA: &'static str = "Cuda device";
    const MEMORY_SPACE: &'static str = "CudaSpace";
    type Context = Context;
    type DeviceInfo = DeviceInfo;
    type Stream = Stream;
    type Event = Event;
    type DeviceBuffer = DeviceBuffer;
    type PinnedBuffer = PinnedBuffer;
    type Module = Module;
    type Function = Function;
    type Compiler = DiskCache;
    type Graph = Graph;
    type GraphExec = Executable;

    const MAX_PARAMS: usize = MAX_PARAMS;
    const DEFAULT_DYNAMIC_SHARED: usize = 48 << 10;

    unsafe fn launch(
        f: &Function,
        grid: u32,
        block: u32,
        shared_bytes: u32,
        stream: &Stream,
        pointers: &mut [*mut std::ffi::c_void],
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        // SAFETY: the trait's contract is `launch_with_pointers`'.
        unsafe { super::launch_with_pointers(f, grid, block, shared_bytes, stream, pointers, what) }
    }

    fn pointer_kind(ptr: *const u8) -> Result<gpu::PointerKind> {
        memory::pointer_kind(ptr)
    }

    unsafe fn fill_sync(
        ctx: &Context,
        dst: u64,
        value: u8,
        bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        // SAFETY: the trait's contract is `memory::fill_sync`'s.
        unsafe { memory::fill_sync(ctx, dst, value, bytes, what) }
    }

    unsafe fn copy_sync(
        ctx: &Context,
        dst: u64,
        src: u64,
        bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        // SAFETY: the trait's contract is `memory::copy`'s.
        unsafe { memory::copy(dst, src, bytes, ctx, what) }
    }
}

impl gpu::Context for Context {
    fn synchronize(&self, what: impl FnOnce() -> String) -> Result<()> {
        Context::synchronize(self, what)
    }
}

impl gpu::DeviceInfo for DeviceInfo {
    fn ordinal(&self) -> usize {
        self.ordinal
    }

    fn name(&self) -> &str {
        &self.name
    }

    fn sm_count(&self) -> u32 {
        self.sm_count
    }

    fn max_param_bytes(&self) -> usize {
        self.max_param_bytes
    }

    fn gpu_arch(&self) -> GpuArch {
        GpuArch::CUDA
    }

    fn max_threads_per_block(&self) -> u32 {
        self.max_threads_per_block
    }

    fn shared_memory_per_block(&self) -> usize {
        self.shared_memory_per_block
    }

    fn shared_memory_per_block_optin(&self) -> usize {
        self.shared_memory_per_block_optin
    }

    /// Pageable memory is staged through the host on Cuda, as Kokkos' Cuda backend does: even
    /// where the device can reach it (HMM, `CU_DEVICE_ATTRIBUTE_PAGEABLE_MEMORY_ACCESS`), its
    /// kernels would read it page by page across the bus.
    fn pageable_memory_access(&self) -> bool {
        false
    }
}

impl gpu::Stream<CudaDriver> for Stream {
    fn new(ctx: &Arc<Context>, what: impl FnOnce() -> String) -> Result<Self> {
        Stream::new(ctx, what)
    }

    fn context(&self) -> &Arc<Context> {
        Stream::context(self)
    }

    fn synchronize(&self, what: impl FnOnce() -> String) -> Result<()> {
        Stream::synchronize(self, what)
    }

    unsafe fn copy_async(
        &self,
        dst: u64,
        src: u64,
        bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        // SAFETY: the trait's contract is `memory::copy_async`'s.
        unsafe { memory::copy_async(dst, src, bytes, self, what) }
    }

    fn wait_event(&self, event: &Event, what: impl FnOnce() -> String) -> Result<()> {
        Stream::wait_event(self, event, what)
    }

    unsafe fn fill_async(
        &self,
        dst: u64,
        pattern: &[u8],
        count: usize,
        what: impl FnOnce() -> String,
    ) -> Result<()> {
        // SAFETY: the trait's contract is `memory::fill_async`'s.
        unsafe { memory::fill_async(dst, pattern, count, self, what) }
    }
}

impl gpu::Event<CudaDriver> for Event {
    fn record(stream: &Arc<Stream>, timing: bool, what: impl FnOnce() -> String) -> Result<Self> {
        Event::record(stream, timing, what)
    }

    fn synchronize(&self, what: impl FnOnce() -> String) -> Result<()> {
        Event::synchronize(self, what)
    }

    fn is_complete(&self) -> Result<bool> {
        Event::is_complete(self)
    }

    fn elapsed_ms_since(&self, earlier: &Self, what: impl FnOnce() -> String) -> Result<f32> {
        Event::elapsed_ms_since(self, earlier, what)
    }
}

impl gpu::DeviceBuffer<CudaDriver> for DeviceBuffer {
    fn new(ctx: &Arc<Context>, bytes: usize, what: impl FnOnce() -> String) -> Result<Self> {
        DeviceBuffer::new(ctx, bytes, what)
    }

    fn on_stream(
        stream: &Arc<Stream>,
        bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<Self> {
        DeviceBuffer::on_stream(stream, bytes, what)
    }

    fn ptr(&self) -> u64 {
        DeviceBuffer::ptr(self)
    }

    fn len(&self) -> usize {
        DeviceBuffer::len(self)
    }

    fn free(self) -> Result<()> {
        DeviceBuffer::free(self)
    }
}

impl gpu::PinnedBuffer<CudaDriver> for PinnedBuffer {
    fn new(ctx: &Arc<Context>, bytes: usize, what: impl FnOnce() -> String) -> Result<Self> {
        PinnedBuffer::new(ctx, bytes, what)
    }

    fn ptr(&self) -> *mut u8 {
        PinnedBuffer::ptr(self)
    }

    fn len(&self) -> usize {
        PinnedBuffer::len(self)
    }

    fn free(self) -> Result<()> {
        PinnedBuffer::free(self)
    }
}

impl gpu::Module<CudaDriver> for Module {
    fn load(ctx: &Arc<Context>, image: &[u8], what: impl FnOnce() -> String) -> Result<Arc<Self>> {
        Module::load(ctx, image, what)
    }

    fn function(self: &Arc<Self>, name: &str, what: impl FnOnce() -> String) -> Result<Function> {
        Module::function(self, name, what)
    }

    fn global(&self, name: &CStr, what: impl FnOnce() -> String) -> Result<Option<(u64, usize)>> {
        Module::global(self, name, what)
    }
}

impl gpu::Function for Function {
    fn suggested_block_size(
        &self,
        shared_per_thread: usize,
        sm_count: u32,
        what: impl FnOnce() -> String,
    ) -> Result<(u32, u32)> {
        Function::suggested_block_size(self, shared_per_thread, sm_count, what)
    }

    fn max_active_blocks_per_sm(
        &self,
        block: u32,
        shared_bytes: usize,
        what: impl FnOnce() -> String,
    ) -> Result<u32> {
        Function::max_active_blocks_per_sm(self, block, shared_bytes, what)
    }

    fn set_max_dynamic_shared(&self, bytes: usize, what: impl FnOnce() -> String) -> Result<()> {
        Function::set_max_dynamic_shared(self, bytes, what)
    }

    fn max_threads_per_block(&self, what: impl FnOnce() -> String) -> Result<u32> {
        Function::max_threads_per_block(self, what)
    }

    fn static_shared_bytes(&self, what: impl FnOnce() -> String) -> Result<usize> {
        Function::static_shared_bytes(self, what)
    }
}

impl gpu::Graph<CudaDriver> for Graph {
    type Node = Node;

    fn new(ctx: &Arc<Context>, what: impl FnOnce() -> String) -> Result<Self> {
        Graph::new(ctx, what)
    }

    unsafe fn begin_capture(stream: &Stream, what: impl FnOnce() -> String) -> Result<()> {
        // SAFETY: the trait's contract is `Graph::begin_capture`'s.
        unsafe { Graph::begin_capture(stream, what) }
    }

    fn end_capture(stream: &Stream, what: impl FnOnce() -> String) -> Result<Self> {
        Graph::end_capture(stream, what)
    }

    fn add_child(
        &mut self,
        deps: &[Node],
        child: &Self,
        what: impl FnOnce() -> String,
    ) -> Result<Node> {
        Graph::add_child(self, deps, child, what)
    }

    fn add_empty(&mut self, deps: &[Node], what: impl FnOnce() -> String) -> Result<Node> {
        Graph::add_empty(self, deps, what)
    }

    fn instantiate(&self, what: impl FnOnce() -> String) -> Result<Executable> {
        Graph::instantiate(self, what)
    }
}

impl gpu::GraphExec<CudaDriver> for Executable {
    unsafe fn launch(&self, stream: &Stream, what: impl FnOnce() -> String) -> Result<()> {
        // SAFETY: the trait's contract is `Executable::launch`'s.
        unsafe { Executable::launch(self, stream, what) }
    }

    fn upload(&self, stream: &Stream, what: impl FnOnce() -> String) -> Result<()> {
        Executable::upload(self, stream, what)
    }
}
