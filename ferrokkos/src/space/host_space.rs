//! [`HostSpace`]: ordinary host memory, 64-byte aligned, with live-byte accounting.

use std::alloc::Layout;
use std::ptr::NonNull;

use super::{HostAccessible, Init, MemoryRecord, MemorySpace, MemoryStats, RawMemory};
use crate::error::{Error, Result};
use crate::runtime;

/// HostSpace's accounting. A process static (atomics only, nothing to free): ferrokkos runs once
/// per process, and Views that outlive finalize still update it when they free their memory.
static HOST_MEMORY: MemoryRecord = MemoryRecord::new();

/// Alignment of every HostSpace allocation, in bytes (a cache line; enough for AVX-512 loads).
pub const HOST_ALIGNMENT: usize = 64;

/// Host memory (Kokkos' `HostSpace`): the default memory space of Serial and Threads.
///
/// Allocations are 64-byte aligned and zero-filled. Large allocations come straight from the operating
/// system as untouched zero pages, so they cost nothing until first use, with or without
/// `WithoutInitializing` ([`crate::ViewAlloc::without_initializing`]).
///
/// ```
/// use ferrokkos::{HostSpace, InitSettings, MemorySpace, View};
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let before = HostSpace.stats()?.live_bytes;
/// let v = View::<f64, 1>::new("v", [1000])?;
/// assert_eq!(HostSpace.stats()?.live_bytes, before + 8000);
/// assert_eq!(v.as_ptr() as usize % 64, 0);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct HostSpace;

impl crate::seal::Sealed for HostSpace {}

impl MemorySpace for HostSpace {
    const NAME: &'static str = "HostSpace";
    const HOST_ACCESSIBLE: bool = true;
    type HostMirror = HostSpace;
    type HostStaging = HostSpace;

    fn stats(&self) -> Result<MemoryStats> {
        runtime::state(|| "reading HostSpace statistics".into())?;
        Ok(HOST_MEMORY.stats())
    }

    fn allocate(
        &self,
        label: &str,
        bytes: usize,
        _init: Init,
        _: crate::seal::Token,
    ) -> Result<RawMemory> {
        runtime::state(|| format!("allocating View \"{label}\" in HostSpace"))?;
        let record = &HOST_MEMORY;
        if bytes == 0 {
            return Ok(RawMemory::empty());
        }
        let failed = || Error::Allocation {
            label: label.to_string(),
            bytes: bytes as u128,
            space: Self::NAME,
        };
        // Over-allocate by one alignment unit with a small alignment so that the global allocator can
        // use calloc, whose large blocks are fresh zero pages from the OS (no memset, no touching).
        let total = bytes.checked_add(HOST_ALIGNMENT).ok_or_else(failed)?;
        let layout = Layout::from_size_align(total, 16).map_err(|_| failed())?;
        // SAFETY: `layout` has a non-zero size.
        let base = unsafe { std::alloc::alloc_zeroed(layout) };
        let base = NonNull::new(base).ok_or_else(failed)?;
        let offset = base.as_ptr().align_offset(HOST_ALIGNMENT);
        // SAFETY: `offset < HOST_ALIGNMENT`, so `base + offset .. + bytes` lies inside the block.
        let ptr = unsafe { base.add(offset) };
        record.add(bytes);
        Ok(RawMemory::new(
            ptr,
            bytes,
            Self::NAME,
            Box::new(HostRelease {
                record,
                layout,
                offset,
                bytes,
            }),
        ))
    }
}

// SAFETY: HostSpace memory is ordinary host memory from the global allocator.
unsafe impl HostAccessible for HostSpace {}

/// Frees one HostSpace block and updates the accounting.
struct HostRelease {
    record: &'static MemoryRecord,
    layout: Layout,
    offset: usize,
    bytes: usize,
}

impl super::Release for HostRelease {
    unsafe fn release(&mut self, ptr: NonNull<u8>) {
        // SAFETY: `ptr` is `base + offset` of a block allocated with `self.layout` (see `allocate`), and
        // the caller guarantees it is released once.
        unsafe { std::alloc::dealloc(ptr.as_ptr().sub(self.offset), self.layout) };
        self.record.remove(self.bytes);
    }
}
