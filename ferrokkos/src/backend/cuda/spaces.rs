//! The CUDA memory spaces: device memory ([`CudaSpace`]), pinned host memory
//! ([`CudaHostPinnedSpace`]) and managed memory ([`CudaUVMSpace`]), with their accounting.

use std::ptr::NonNull;
use std::sync::Arc;

use super::backend::{CudaShared, backend_shared, default_instance};
use super::driver::{self, CudaDriver, DeviceBuffer, ManagedBuffer, PinnedBuffer, PointerKind};
use crate::backend::gpu::copy::GpuCopies;
use crate::backend::gpu::sort::GpuSort;
use crate::error::{BackendError, Error, Result};
use crate::seal::{Sealed, Token};
use crate::space::host_space::HostSpace;
use crate::space::{DeviceCopy, DeviceSort};
use crate::space::{
    HostAccessible, Init, MemoryRecord, MemorySpace, MemoryStats, RawMemory, Reachable,
};

/// The device rows of `deep_copy` for the three spaces, on the default instance when given none.
static COPIES: GpuCopies<CudaDriver> = GpuCopies::new(default_instance);

/// The sorts on Cuda instances, over memory the device reaches.
static SORTS: GpuSort<CudaDriver> = GpuSort::new();

/// GPU memory (Kokkos' `CudaSpace`), the default memory space of [`super::Cuda`]. Host code
/// cannot touch its elements: a View in it has no host accessors (a compile error), and is read or
/// written from the host with [`crate::deep_copy`] through a mirror.
///
/// Allocations come from the device's stream-ordered pool and are zero-filled on the device unless
/// allocated `without_initializing`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CudaSpace;

/// Page-locked host memory (Kokkos' `CudaHostPinnedSpace`): host code and kernels both reach it,
/// and copies to and from the GPU run asynchronously at full bus speed. Allocated with flags 0
/// (cached; never write-combined, which host reads would make ~70x slower).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CudaHostPinnedSpace;

/// Managed memory (Kokkos' `CudaUVMSpace`): one address for host and device, migrated on demand.
/// An allocation larger than the device's free memory is refused.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CudaUVMSpace;

/// Which kind of CUDA memory an allocation is.
#[derive(Clone, Copy, Debug)]
enum Kind {
    Device,
    Pinned,
    Managed,
}

impl Kind {
    fn name(self) -> &'static str {
        match self {
            Kind::Device => CudaSpace::NAME,
            Kind::Pinned => CudaHostPinnedSpace::NAME,
            Kind::Managed => CudaUVMSpace::NAME,
        }
    }

    fn record(self, shared: &CudaShared) -> &Arc<MemoryRecord> {
        match self {
            Kind::Device => &shared.device_memory,
            Kind::Pinned => &shared.pinned_memory,
            Kind::Managed => &shared.managed_memory,
        }
    }
}

/// Allocates `bytes` of `kind` memory for the View `label`, zero-filled when asked.
fn allocate(kind: Kind, label: &str, bytes: usize, init: Init) -> Result<RawMemory> {
    let what = || format!("allocating View \"{label}\" in {}", kind.name());
    let shared = backend_shared(what)?;
    shared.check_alive(what)?;
    if bytes == 0 {
        return Ok(RawMemory::empty());
    }
    let failed = |e: Error| match e {
        Error::Backend(BackendError::Cuda { name, .. }) if name == "CUDA_ERROR_OUT_OF_MEMORY" => {
            Error::Allocation {
                label: label.to_string(),
                bytes: bytes as u128,
                space: kind.name(),
            }
        }
        e => e,
    };
    let ctx = &shared.ctx;
    let owned = match kind {
        Kind::Device => Owned::Device(DeviceBuffer::new(ctx, bytes, what).map_err(failed)?),
        Kind::Pinned => Owned::Pinned(PinnedBuffer::new(ctx, bytes, what).map_err(failed)?),
        Kind::Managed => Owned::Managed(ManagedBuffer::new(ctx, bytes, what).map_err(failed)?),
    };
    let ptr = owned.addr();
    let release = CudaRelease {
        memory: Some(owned),
        record: Arc::clone(kind.record(&shared)),
        bytes,
    };
    let Some(nonnull) = NonNull::new(ptr as *mut u8) else {
        return Err(failed(Error::Backend(BackendError::Cuda {
            call: "cuMemAlloc",
            name: "CUDA_ERROR_OUT_OF_MEMORY".into(),
            code: 2,
            what: what(),
        })));
    };
    release.record.add(bytes);
    // From here on the memory is freed if zeroing fails.
    let memory = RawMemory::new(nonnull, bytes, kind.name(), Box::new(release));
    // Host code may read any element of host-accessible memory, so it is always zeroed; device
    // memory only when asked.
    let zero = matches!(init, Init::Zeroed) || !matches!(kind, Kind::Device);
    if zero {
        match kind {
            Kind::Pinned => {
                // SAFETY: the block was just allocated with `bytes` bytes of host-accessible memory
                // and nothing else refers to it yet.
                unsafe { std::ptr::write_bytes(nonnull.as_ptr(), 0, bytes) };
            }
            Kind::Device | Kind::Managed => {
                // SAFETY: the block has `bytes` bytes and nothing else uses it; `copy` waits for
                // the fill below before the memory is handed out.
                unsafe { driver::fill_sync(ctx, ptr, 0, bytes, what)? };
            }
        }
    }
    Ok(memory)
}

/// The driver's owning value of one allocation, of any kind.
enum Owned {
    Device(DeviceBuffer),
    Pinned(PinnedBuffer),
    Managed(ManagedBuffer),
}

impl Owned {
    /// The address of the first byte (host and device address alike, with unified addressing).
    fn addr(&self) -> u64 {
        match self {
            Owned::Device(b) => b.ptr(),
            Owned::Pinned(b) => b.ptr() as u64,
            Owned::Managed(b) => b.ptr(),
        }
    }

    /// Frees the memory now, returning the driver's error.
    fn free(self) -> Result<()> {
        match self {
            Owned::Device(b) => b.free(),
            Owned::Pinned(b) => b.free(),
            Owned::Managed(b) => b.free(),
        }
    }
}

/// Frees one CUDA allocation and updates the accounting.
struct CudaRelease {
    /// The allocation (taken when it is released).
    memory: Option<Owned>,
    record: Arc<MemoryRecord>,
    bytes: usize,
}

impl crate::space::Release for CudaRelease {
    unsafe fn release(&mut self, ptr: NonNull<u8>) {
        // The allocation record waited for the device work that used the memory before dropping
        // it (see `Allocation::drop`), and no host reference is left (the caller's contract): the
        // owning buffer's invariant holds for its free.
        if let Some(memory) = self.memory.take() {
            debug_assert_eq!(
                memory.addr(),
                ptr.as_ptr() as u64,
                "released for another pointer"
            );
            if let Err(e) = memory.free() {
                eprintln!("ferrokkos: {e}");
            }
        }
        self.record.remove(self.bytes);
    }
}

/// Who can reach the memory at `ptr` (an unmanaged View's), by what the driver says it is:
/// device memory only the GPU, pageable host memory only the host, pinned and managed memory both.
/// Without a running Cuda backend (a View made before `initialize`) the memory cannot be looked up:
/// the GPU is then assumed not to reach it (launches refuse the View), the host as `M` declares.
fn reach_of<M: MemorySpace>(ptr: *const u8) -> Result<Reachable> {
    let Ok(shared) = backend_shared(String::new) else {
        return Ok(Reachable {
            host: M::HOST_ACCESSIBLE,
            device: false,
        });
    };
    shared.ctx.bind()?;
    Ok(match driver::pointer_kind(ptr)? {
        PointerKind::Device => Reachable {
            host: false,
            device: true,
        },
        PointerKind::Managed | PointerKind::PinnedHost => Reachable {
            host: true,
            device: true,
        },
        PointerKind::Pageable => Reachable {
            host: true,
            device: false,
        },
    })
}

/// The accounting of `kind`.
fn stats(kind: Kind) -> Result<MemoryStats> {
    let shared = backend_shared(|| format!("reading {} statistics", kind.name()))?;
    Ok(kind.record(&shared).stats())
}

impl Sealed for CudaSpace {}

impl MemorySpace for CudaSpace {
    const NAME: &'static str = "CudaSpace";
    const DEVICE_ACCESSIBLE: bool = true;
    type HostMirror = HostSpace;
    type HostStaging = CudaHostPinnedSpace;

    fn stats(&self) -> Result<MemoryStats> {
        stats(Kind::Device)
    }

    fn allocate(&self, label: &str, bytes: usize, init: Init, _: Token) -> Result<RawMemory> {
        allocate(Kind::Device, label, bytes, init)
    }

    fn reach_of(&self, ptr: *const u8, _: Token) -> Result<Reachable> {
        reach_of::<Self>(ptr)
    }

    fn device_copy(&self, _: Token) -> Option<&'static dyn DeviceCopy> {
        Some(&COPIES)
    }

    fn device_sort(&self, _: Token) -> Option<&'static dyn DeviceSort> {
        Some(&SORTS)
    }
}

impl Sealed for CudaHostPinnedSpace {}

impl MemorySpace for CudaHostPinnedSpace {
    const NAME: &'static str = "CudaHostPinnedSpace";
    const HOST_ACCESSIBLE: bool = true;
    const DEVICE_ACCESSIBLE: bool = true;
    type HostMirror = CudaHostPinnedSpace;
    type HostStaging = CudaHostPinnedSpace;

    fn stats(&self) -> Result<MemoryStats> {
        stats(Kind::Pinned)
    }

    fn allocate(&self, label: &str, bytes: usize, init: Init, _: Token) -> Result<RawMemory> {
        allocate(Kind::Pinned, label, bytes, init)
    }

    fn reach_of(&self, ptr: *const u8, _: Token) -> Result<Reachable> {
        reach_of::<Self>(ptr)
    }

    fn device_copy(&self, _: Token) -> Option<&'static dyn DeviceCopy> {
        Some(&COPIES)
    }

    fn device_sort(&self, _: Token) -> Option<&'static dyn DeviceSort> {
        Some(&SORTS)
    }
}

impl Sealed for CudaUVMSpace {}

impl MemorySpace for CudaUVMSpace {
    const NAME: &'static str = "CudaUVMSpace";
    const HOST_ACCESSIBLE: bool = true;
    const DEVICE_ACCESSIBLE: bool = true;
    type HostMirror = CudaUVMSpace;
    type HostStaging = CudaUVMSpace;

    fn stats(&self) -> Result<MemoryStats> {
        stats(Kind::Managed)
    }

    fn allocate(&self, label: &str, bytes: usize, init: Init, _: Token) -> Result<RawMemory> {
        allocate(Kind::Managed, label, bytes, init)
    }

    fn reach_of(&self, ptr: *const u8, _: Token) -> Result<Reachable> {
        reach_of::<Self>(ptr)
    }

    fn device_copy(&self, _: Token) -> Option<&'static dyn DeviceCopy> {
        Some(&COPIES)
    }

    fn device_sort(&self, _: Token) -> Option<&'static dyn DeviceSort> {
        Some(&SORTS)
    }
}

// SAFETY: pinned memory is ordinary (page-locked) host memory for as long as it is allocated.
unsafe impl HostAccessible for CudaHostPinnedSpace {}
// SAFETY: managed memory is coherent host-accessible memory; host guards wait for the device work
// that uses an allocation before handing out its elements (DESIGN.md decision 5).
unsafe impl HostAccessible for CudaUVMSpace {}
