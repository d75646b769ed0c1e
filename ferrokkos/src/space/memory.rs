//! The [`MemorySpace`] trait: a kind of memory that Views allocate in, with its byte accounting.

use std::fmt::Debug;
use std::ptr::NonNull;
use std::sync::atomic::{AtomicUsize, Ordering};

use crate::error::Result;
use crate::seal::{SealedMemorySpace, Token};

/// Whether a new allocation is zero-filled.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Init {
    /// Every byte is zero (the default, as Kokkos value-initializes Views).
    #[default]
    Zeroed,
    /// The contents are unspecified (Kokkos' `WithoutInitializing`). Host spaces still hand out zeroed
    /// memory, because safe Rust may read it; the gain there is that large allocations are not touched
    /// until first use.
    Uninitialized,
}

/// A snapshot of a memory space's accounting.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct MemoryStats {
    /// Bytes currently allocated by Views in this space.
    pub live_bytes: usize,
    /// The largest value `live_bytes` has had.
    pub high_water_bytes: usize,
    /// Allocations currently alive.
    pub live_allocations: usize,
}

/// A memory space: where a View's elements live.
///
/// Memory space values are zero-sized handles; the space's state (its accounting, later its device)
/// belongs to the runtime.
///
/// Sealed: implemented by [`crate::HostSpace`], [`crate::CudaSpace`], [`crate::CudaHostPinnedSpace`]
/// and [`crate::CudaUVMSpace`] only, because Views trust a space's allocation (its size) and its
/// claims about who can reach it. Its hidden methods (allocation, copies, reach) take a token of
/// type `SealedMethod` that only ferrokkos can make, so no other crate calls them. Memory of your
/// own goes in an unmanaged View ([`crate::View::with_slice`], [`crate::View::from_raw_parts`]).
pub trait MemorySpace: SealedMemorySpace + Copy + Default + Debug + Send + Sync + 'static {
    /// The space's name as Kokkos spells it (`"HostSpace"`).
    const NAME: &'static str;

    /// Whether host code may read and write this space's memory (true for the [`HostAccessible`]
    /// spaces).
    const HOST_ACCESSIBLE: bool = false;

    /// Whether kernels on the GPU (the Cuda execution space) may read and write this space's memory.
    const DEVICE_ACCESSIBLE: bool = false;

    /// The host-accessible space that mirrors of Views in this space live in
    /// ([`crate::create_mirror_view`]). For a host-accessible space, the space itself.
    type HostMirror: HostAccessible;

    /// The host memory to stage this space's data through on its way elsewhere (messages to
    /// other ranks, files): for GPU memory, pinned host memory, which copies reach at full
    /// speed; for a host-accessible space, the space itself. Kokkos spells the GPU case
    /// `SharedHostPinnedSpace`; here it follows the View's space, so that code generic over the
    /// execution space stages without allocating pinned memory on a host-only run.
    ///
    /// ```
    /// use ferrokkos::{HostSpace, InitSettings, MemorySpace, View, create_mirror_view_in};
    /// let _rt = ferrokkos::initialize(InitSettings::new())?;
    /// fn staging<M: MemorySpace>(v: &View<f64, 1, ferrokkos::LayoutRight, M>)
    ///     -> ferrokkos::Result<View<f64, 1, ferrokkos::LayoutRight, M::HostStaging>> {
    ///     create_mirror_view_in(M::HostStaging::default(), v)
    /// }
    /// let a = View::<f64, 1>::new("a", [4])?;
    /// assert!(staging(&a)?.shares_allocation_with(&a)); // host memory needs no staging
    /// # Ok::<(), ferrokkos::Error>(())
    /// ```
    type HostStaging: HostAccessible;

    /// The space's name.
    fn name(&self) -> &'static str {
        Self::NAME
    }

    /// The space's current accounting. An error before `initialize` or after finalize.
    fn stats(&self) -> Result<MemoryStats>;

    /// Allocates `bytes` bytes, aligned to at least 64 bytes, for the View `label`.
    ///
    /// An allocation the space cannot satisfy is [`crate::Error::Allocation`]. This is the backend's
    /// entry point for Views (only this crate can call it); users create Views instead.
    #[doc(hidden)]
    fn allocate(&self, label: &str, bytes: usize, init: Init, _: Token) -> Result<RawMemory>;

    /// Who can reach the memory at `ptr`, which an unmanaged View declared in this space wraps: the
    /// declared facts ([`MemorySpace::HOST_ACCESSIBLE`], [`MemorySpace::DEVICE_ACCESSIBLE`]) unless
    /// the backend can look the pointer up (the CUDA spaces ask the driver).
    #[doc(hidden)]
    fn reach_of(&self, ptr: *const u8, _: Token) -> Result<Reachable> {
        let _ = ptr;
        Ok(Reachable {
            host: Self::HOST_ACCESSIBLE,
            device: Self::DEVICE_ACCESSIBLE,
        })
    }

    /// The copies and fills of the backend this space belongs to, for the `deep_copy` rows that host
    /// code cannot do alone; `None` for host memory.
    #[doc(hidden)]
    fn device_copy(&self, _: Token) -> Option<&'static dyn super::copy::DeviceCopy> {
        None
    }

    /// The sorts of the backend this space belongs to, for `sort` on its instances; `None` for
    /// host memory (the host sorts in the algorithms layer).
    #[doc(hidden)]
    fn device_sort(&self, _: Token) -> Option<&'static dyn super::sort::DeviceSort> {
        None
    }
}

/// Who can reach some memory: host code, and kernels on the GPU.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Reachable {
    /// Host code can read and write it.
    pub host: bool,
    /// Kernels on the GPU can read and write it.
    pub device: bool,
}

/// A memory space whose elements host code may read and write directly.
///
/// # Safety
/// Implement only for spaces whose allocations are valid, coherent host memory for as long as they are
/// allocated: the View's host accessors dereference their pointers.
pub unsafe trait HostAccessible: MemorySpace {}

/// A space's live-byte accounting: live bytes, high-water mark and allocation count.
#[derive(Debug, Default)]
pub(crate) struct MemoryRecord {
    live: AtomicUsize,
    high_water: AtomicUsize,
    count: AtomicUsize,
}

impl MemoryRecord {
    /// An empty record.
    pub(crate) const fn new() -> MemoryRecord {
        MemoryRecord {
            live: AtomicUsize::new(0),
            high_water: AtomicUsize::new(0),
            count: AtomicUsize::new(0),
        }
    }

    pub(crate) fn add(&self, bytes: usize) {
        let live = self.live.fetch_add(bytes, Ordering::Relaxed) + bytes;
        self.high_water.fetch_max(live, Ordering::Relaxed);
        self.count.fetch_add(1, Ordering::Relaxed);
    }

    pub(crate) fn remove(&self, bytes: usize) {
        self.live.fetch_sub(bytes, Ordering::Relaxed);
        self.count.fetch_sub(1, Ordering::Relaxed);
    }

    pub(crate) fn stats(&self) -> MemoryStats {
        MemoryStats {
            live_bytes: self.live.load(Ordering::Relaxed),
            high_water_bytes: self.high_water.load(Ordering::Relaxed),
            live_allocations: self.count.load(Ordering::Relaxed),
        }
    }
}

/// Frees one allocation of a memory space.
pub(crate) trait Release: Send + Sync {
    /// Frees the memory at `ptr`.
    ///
    /// # Safety
    /// `ptr` is the pointer this releaser was created for, and it is not used afterwards.
    unsafe fn release(&mut self, ptr: NonNull<u8>);
}

/// Memory obtained from a memory space; freed when dropped.
pub struct RawMemory {
    ptr: NonNull<u8>,
    bytes: usize,
    /// The space's name for Kokkos Tools (`"Host"`, `"Cuda"`, ...).
    space: &'static str,
    release: Option<Box<dyn Release>>,
}

impl RawMemory {
    /// Wraps memory that `release` frees.
    pub(crate) fn new(
        ptr: NonNull<u8>,
        bytes: usize,
        space: &'static str,
        release: Box<dyn Release>,
    ) -> Self {
        RawMemory {
            ptr,
            bytes,
            space: crate::tools::space_name(space),
            release: Some(release),
        }
    }

    /// A zero-byte allocation: an aligned dangling pointer that is never freed.
    pub(crate) fn empty() -> Self {
        #[repr(align(64))]
        struct Align64;
        RawMemory {
            ptr: NonNull::<Align64>::dangling().cast(),
            bytes: 0,
            space: "",
            release: None,
        }
    }

    /// The start of the memory, aligned to 64 bytes.
    pub(crate) fn ptr(&self) -> NonNull<u8> {
        self.ptr
    }

    /// Reports this memory's allocation (or release) for the View `label` to tools; memory of
    /// zero bytes is not reported.
    pub(crate) fn report(&self, allocated: bool, label: &str) {
        if self.bytes > 0 {
            crate::tools::data(allocated, self.space, label, self.ptr.as_ptr(), self.bytes);
        }
    }
}

impl Drop for RawMemory {
    fn drop(&mut self) {
        if let Some(mut release) = self.release.take() {
            // SAFETY: `release` was created for `self.ptr`, and nothing uses the memory after this
            // RawMemory is dropped (Views keep it alive through their shared allocation record).
            unsafe { release.release(self.ptr) };
        }
    }
}

impl Debug for RawMemory {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("RawMemory")
            .field("ptr", &self.ptr)
            .field("bytes", &self.bytes)
            .finish()
    }
}

// SAFETY: RawMemory owns its allocation exclusively (like a Box<[u8]>); the releaser is Send + Sync.
unsafe impl Send for RawMemory {}
// SAFETY: shared references to RawMemory only read the pointer and size.
unsafe impl Sync for RawMemory {}
