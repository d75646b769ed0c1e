//! The CUDA driver as the GPU runtime's [`Driver`]: the handle types of this layer, each trait
//! method a call of the inherent method of the same name (whose docs give the CUDA calls).

use std::ffi::CStr;
use std::sync::Arc;

use super::{Context, DeviceBuffer, DeviceInfo, Event, Module, PinnedBuffer, Stream, memory};
use crate::backend::cuda::jit::KernelCache;
use crate::backend::gpu::driver as gpu;
use crate::error::Result;
use crate::space::DeviceType;

/// The CUDA driver API (libcuda through cudarc).
pub(crate) struct CudaDriver;

impl gpu::Driver for CudaDriver {
    const SPACE: &'static str = "Cuda";
    const DEVICE_TYPE: DeviceType = DeviceType::Cuda;
    const DEVICE_METADATA: &'static str = "Cuda device";
    type Context = Context;
    type DeviceInfo = DeviceInfo;
    type Kernels = KernelCache;
    type Stream = Stream;
    type Event = Event;
    type DeviceBuffer = DeviceBuffer;
    type PinnedBuffer = PinnedBuffer;
    type Module = Module;

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
}

impl gpu::Kernels for KernelCache {
    fn clear(&self) {
        KernelCache::clear(self);
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

impl gpu::Module for Module {
    fn global(&self, name: &CStr, what: impl FnOnce() -> String) -> Result<Option<(u64, usize)>> {
        Module::global(self, name, what)
    }
}
