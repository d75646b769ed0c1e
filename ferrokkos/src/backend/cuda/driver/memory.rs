//! Allocation, copies, fills and pointer classification.
//!
//! Addresses are `u64` (`CUdeviceptr`) for memory the device addresses and `*mut u8` for pinned host
//! memory. With unified addressing (every 64-bit platform CUDA 12 supports) a host pointer's value
//! is also a valid `CUdeviceptr`, so copies take `u64` for both ends and work in every direction.
//!
//! A request for 0 bytes allocates nothing and returns the null address (0 / a null pointer);
//! freeing the null address does nothing. Callers that need a non-null pointer for an empty
//! allocation must substitute their own.
//!
//! The allocation and free functions are private to the driver layer: the rest of the crate gets
//! memory as the owning types of `buffer.rs`, which free it exactly once.

use std::ffi::c_void;

use cudarc::driver::sys;

use super::{Context, Stream, check, init};
use crate::backend::gpu::driver::PointerKind;
use crate::error::{BackendError, Error, Result};

/// Allocates `bytes` of device memory on `ctx`'s device: stream-ordered (`cuMemAllocAsync`, from
/// the device's default pool) when `stream` is given and the device supports memory pools, so the
/// memory may be used by work enqueued on `stream` from now on; otherwise `cuMemAlloc`, usable
/// anywhere at once. The stream must belong to `ctx`.
pub(super) fn alloc_device(
    ctx: &Context,
    bytes: usize,
    stream: Option<&Stream>,
    what: impl FnOnce() -> String,
) -> Result<u64> {
    if bytes == 0 {
        return Ok(0);
    }
    ctx.bind()?;
    let mut ptr: sys::CUdeviceptr = 0;
    if let Some(stream) = stream
        && ctx.supports_memory_pools()
    {
        debug_assert_eq!(
            stream.context().raw(),
            ctx.raw(),
            "a stream of another context"
        );
        // SAFETY: `ctx` is current on this thread and the stream belongs to it; `ptr` is valid for
        // a write.
        let code = unsafe { sys::cuMemAllocAsync(&mut ptr, bytes, stream.raw()) };
        check(code, "cuMemAllocAsync", what)?;
    } else {
        // SAFETY: `ctx` is current on this thread; `ptr` is valid for a write.
        let code = unsafe { sys::cuMemAlloc_v2(&mut ptr, bytes) };
        check(code, "cuMemAlloc", what)?;
    }
    Ok(ptr)
}

/// Frees device memory from [`alloc_device`]: stream-ordered (`cuMemFreeAsync`: freed once the work
/// enqueued on `stream` so far has completed; the call does not wait) when `stream` is given and the
/// device supports memory pools; otherwise `cuMemFree` (after synchronizing `stream` when one is
/// given), which may wait for the device. `cuMemFree` of pool memory is allowed.
///
/// # Safety
///
/// `ptr` was returned by [`alloc_device`] on `ctx` and is not freed yet; it must not be used after
/// this call, by the host or by work enqueued later. Work that uses it and may still be running is
/// allowed only on `stream` (when given). Pass a stream only for memory allocated with a stream
/// (whether the driver accepts `cuMemFreeAsync` of `cuMemAlloc` memory is not documented).
pub(super) unsafe fn free_device(ctx: &Context, ptr: u64, stream: Option<&Stream>) -> Result<()> {
    if ptr == 0 {
        return Ok(());
    }
    ctx.bind()?;
    let what = || {
        format!(
            "freeing device memory at {ptr:#x} on CUDA device {}",
            ctx.ordinal()
        )
    };
    match stream {
        Some(stream) if ctx.supports_memory_pools() => {
            // SAFETY: per the caller's contract `ptr` is a live allocation of `ctx` that is used
            // after this point only by work already enqueued on `stream`.
            let code = unsafe { sys::cuMemFreeAsync(ptr, stream.raw()) };
            check(code, "cuMemFreeAsync", what)
        }
        _ => {
            if let Some(stream) = stream {
                stream.synchronize(what)?;
            }
            // SAFETY: per the caller's contract `ptr` is a live allocation of `ctx` and no work
            // that may still run uses it (the stream, if any, was synchronized above).
            let code = unsafe { sys::cuMemFree_v2(ptr) };
            check(code, "cuMemFree", what)
        }
    }
}

/// Allocates `bytes` of pinned (page-locked) host memory (`cuMemHostAlloc` with flags 0: cached,
/// never write-combined, whose host reads are ~70x slower). With unified addressing the memory is
/// accessible from every context, and the device can address it at the same address.
pub(super) fn alloc_host_pinned(
    ctx: &Context,
    bytes: usize,
    what: impl FnOnce() -> String,
) -> Result<*mut u8> {
    if bytes == 0 {
        return Ok(std::ptr::null_mut());
    }
    ctx.bind()?;
    let mut ptr: *mut c_void = std::ptr::null_mut();
    // SAFETY: `ctx` is current on this thread; `ptr` is valid for a write; 0 is a valid flag set.
    let code = unsafe { sys::cuMemHostAlloc(&mut ptr, bytes, 0) };
    check(code, "cuMemHostAlloc", what)?;
    Ok(ptr.cast::<u8>())
}

/// Frees pinned host memory from [`alloc_host_pinned`] (`cuMemFreeHost`).
///
/// # Safety
///
/// `ptr` was returned by [`alloc_host_pinned`] and is not freed yet; no host reference to it and no
/// device work that may still run uses it; it is not used afterwards.
pub(super) unsafe fn free_host_pinned(ctx: &Context, ptr: *mut u8) -> Result<()> {
    if ptr.is_null() {
        return Ok(());
    }
    ctx.bind()?;
    // SAFETY: per the caller's contract, `ptr` is a live pinned allocation nobody uses any more.
    let code = unsafe { sys::cuMemFreeHost(ptr.cast::<c_void>()) };
    check(code, "cuMemFreeHost", || {
        format!("freeing pinned host memory at {ptr:p}")
    })
}

/// Allocates `bytes` of managed memory (`cuMemAllocManaged` with `CU_MEM_ATTACH_GLOBAL`: accessible
/// from the host and from every stream). Managed allocations succeed lazily even beyond the
/// device's memory, so a request for more than the device's free memory (`cuMemGetInfo`) is
/// refused first with [`crate::BackendError::Cuda`] `{ call: "cuMemAllocManaged", name:
/// "CUDA_ERROR_OUT_OF_MEMORY" }`, as the driver would refuse device memory.
pub(super) fn alloc_managed(
    ctx: &Context,
    bytes: usize,
    what: impl FnOnce() -> String,
) -> Result<u64> {
    if bytes == 0 {
        return Ok(0);
    }
    let (free, _) = ctx.memory_info()?;
    if bytes > free {
        return Err(Error::Backend(BackendError::Cuda {
            call: "cuMemAllocManaged",
            name: "CUDA_ERROR_OUT_OF_MEMORY".to_string(),
            code: sys::CUresult::CUDA_ERROR_OUT_OF_MEMORY as i32,
            what: what(),
        }));
    }
    let mut ptr: sys::CUdeviceptr = 0;
    let flags = sys::CUmemAttach_flags::CU_MEM_ATTACH_GLOBAL as u32;
    // SAFETY: `ctx` is current on this thread (bound by `memory_info`); `ptr` is valid for a write.
    let code = unsafe { sys::cuMemAllocManaged(&mut ptr, bytes, flags) };
    check(code, "cuMemAllocManaged", what)?;
    Ok(ptr)
}

/// Frees managed memory from [`alloc_managed`] (`cuMemFree`).
///
/// # Safety
///
/// `ptr` was returned by [`alloc_managed`] on `ctx` and is not freed yet; no host reference to it
/// and no device work that may still run uses it; it is not used afterwards.
pub(super) unsafe fn free_managed(ctx: &Context, ptr: u64) -> Result<()> {
    if ptr == 0 {
        return Ok(());
    }
    ctx.bind()?;
    // SAFETY: per the caller's contract, `ptr` is a live managed allocation nobody uses any more.
    let code = unsafe { sys::cuMemFree_v2(ptr) };
    check(code, "cuMemFree", || {
        format!("freeing managed memory at {ptr:#x}")
    })
}

/// Enqueues a copy of `bytes` from `src` to `dst` on `stream` (`cuMemcpyAsync`). With unified
/// addressing the direction comes from the addresses, so any pair of device, managed, pinned and
/// pageable host memory works. The copy is truly asynchronous only between device, managed and
/// pinned memory: with pageable host memory at either end the driver stages it through a pinned
/// buffer and may return only after the copy (or the staging of its source) is done, which is why
/// mirrors should be pinned.
///
/// # Safety
///
/// `src` and `dst` are valid for `bytes` bytes (reads and writes respectively) until the copy has
/// completed, the ranges do not overlap, and nothing else writes `dst` or `src` (or reads `dst`)
/// meanwhile.
pub(crate) unsafe fn copy_async(
    dst: u64,
    src: u64,
    bytes: usize,
    stream: &Stream,
    what: impl FnOnce() -> String,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    stream.context().bind()?;
    // SAFETY: the stream's context is current on this thread; the ranges are valid per the
    // caller's contract.
    let code = unsafe { sys::cuMemcpyAsync(dst, src, bytes, stream.raw()) };
    check(code, "cuMemcpyAsync", what)
}

/// Copies `bytes` from `src` to `dst` and waits until the copy is complete (`cuMemcpy` on the
/// legacy default stream, then `cuStreamSynchronize` of that stream, because a device-to-device
/// `cuMemcpy` may return early). Any direction, as [`copy_async`]. It does not wait for work on
/// the non-blocking [`Stream`]s of this layer: work there that touches either range must have
/// completed.
///
/// # Safety
///
/// As for [`copy_async`], for the duration of the call.
#[cfg_attr(not(test), allow(dead_code))] // used by the tests
pub(crate) unsafe fn copy(
    dst: u64,
    src: u64,
    bytes: usize,
    ctx: &Context,
    what: impl FnOnce() -> String,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    ctx.bind()?;
    // `what` is needed by one of the two calls at most.
    let mut what = Some(what);
    let mut describe = || what.take().map_or_else(String::new, |w| w());
    // SAFETY: `ctx` is current on this thread; the ranges are valid per the caller's contract.
    let code = unsafe { sys::cuMemcpy(dst, src, bytes) };
    check(code, "cuMemcpy", &mut describe)?;
    // SAFETY: the null stream is the current context's legacy default stream, always valid.
    let code = unsafe { sys::cuStreamSynchronize(std::ptr::null_mut()) };
    check(code, "cuStreamSynchronize", describe)
}

/// Sets `bytes` bytes at `dst` to `value` and waits until that is done (`cuMemsetD8` on the
/// legacy default stream, then `cuStreamSynchronize` of that stream). For new allocations.
///
/// # Safety
///
/// `dst` is device, managed or pinned memory valid for `bytes` bytes of writes, which nothing else
/// accesses during the call.
pub(crate) unsafe fn fill_sync(
    ctx: &Context,
    dst: u64,
    value: u8,
    bytes: usize,
    what: impl FnOnce() -> String,
) -> Result<()> {
    if bytes == 0 {
        return Ok(());
    }
    ctx.bind()?;
    let mut what = Some(what);
    let mut describe = || what.take().map_or_else(String::new, |w| w());
    // SAFETY: `ctx` is current on this thread; the range is valid per the caller's contract.
    let code = unsafe { sys::cuMemsetD8_v2(dst, value, bytes) };
    check(code, "cuMemsetD8", &mut describe)?;
    // SAFETY: the null stream is the current context's legacy default stream, always valid.
    let code = unsafe { sys::cuStreamSynchronize(std::ptr::null_mut()) };
    check(code, "cuStreamSynchronize", describe)
}

/// The element size of a fill pattern, or [`Error::InvalidArgument`] unless it is 1, 2 or 4 bytes
/// and `dst` is aligned to it.
fn fill_element(dst: u64, pattern: &[u8]) -> Result<usize> {
    let size = pattern.len();
    if !matches!(size, 1 | 2 | 4) {
        return Err(Error::InvalidArgument {
            operation: "fill_async",
            reason: format!("the pattern must be 1, 2 or 4 bytes long, not {size}"),
        });
    }
    if !dst.is_multiple_of(size as u64) {
        return Err(Error::InvalidArgument {
            operation: "fill_async",
            reason: format!("the address {dst:#x} is not aligned to the {size}-byte pattern"),
        });
    }
    Ok(size)
}

/// Enqueues on `stream` a fill of `count` elements at `dst` with `pattern`, whose bytes are written
/// as given (`cuMemsetD8Async`, `D16Async` or `D32Async` for a 1-, 2- or 4-byte pattern; `dst`
/// must be aligned to the pattern's size). Other pattern sizes and misaligned addresses are
/// [`Error::InvalidArgument`]. `dst` must be memory the device can write: device, managed or
/// pinned host memory, not pageable host memory (the driver answers `CUDA_ERROR_INVALID_VALUE`).
///
/// # Safety
///
/// `dst` is valid for `count * pattern.len()` bytes of writes until the fill has completed, and
/// nothing else accesses them meanwhile.
pub(crate) unsafe fn fill_async(
    dst: u64,
    pattern: &[u8],
    count: usize,
    stream: &Stream,
    what: impl FnOnce() -> String,
) -> Result<()> {
    let size = fill_element(dst, pattern)?;
    if count == 0 {
        return Ok(());
    }
    stream.context().bind()?;
    let s = stream.raw();
    // In each arm: the stream's context is current on this thread; `dst` is aligned to `size`
    // (checked by `fill_element`) and valid for `count` elements per the caller's contract.
    let (code, call) = match size {
        1 => {
            // SAFETY: see above.
            let code = unsafe { sys::cuMemsetD8Async(dst, pattern[0], count, s) };
            (code, "cuMemsetD8Async")
        }
        2 => {
            let value = u16::from_ne_bytes([pattern[0], pattern[1]]);
            // SAFETY: see above.
            let code = unsafe { sys::cuMemsetD16Async(dst, value, count, s) };
            (code, "cuMemsetD16Async")
        }
        _ => {
            let value = u32::from_ne_bytes([pattern[0], pattern[1], pattern[2], pattern[3]]);
            // SAFETY: see above.
            let code = unsafe { sys::cuMemsetD32Async(dst, value, count, s) };
            (code, "cuMemsetD32Async")
        }
    };
    check(code, call, what)
}

/// Classifies `ptr` with `cuPointerGetAttributes` (`CU_POINTER_ATTRIBUTE_IS_MANAGED` and
/// `CU_POINTER_ATTRIBUTE_MEMORY_TYPE`), so that copies and fills pick a method from what the memory
/// is, not from what a View claims it is:
/// - `IS_MANAGED` set: [`PointerKind::Managed`] (it wins over the memory type, which the driver
///   reports as device or host for managed memory);
/// - memory type `CU_MEMORYTYPE_DEVICE`: [`PointerKind::Device`];
/// - memory type `CU_MEMORYTYPE_HOST`: [`PointerKind::PinnedHost`];
/// - memory type 0 (the driver does not know the address; the call succeeds for unknown
///   addresses), or `CUDA_ERROR_INVALID_VALUE` (what some drivers answer instead):
///   [`PointerKind::Pageable`].
///
/// Any other answer is an error. An address inside an allocation is classified as the allocation.
pub(crate) fn pointer_kind(ptr: *const u8) -> Result<PointerKind> {
    init()?;
    let mut memory_type: u32 = 0;
    // The driver documents IS_MANAGED as a boolean; a zeroed 4-byte slot reads correctly whether it
    // writes 1 or 4 bytes (little-endian: the flag lands in the low byte).
    let mut is_managed: u32 = 0;
    let mut attributes = [
        sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
        sys::CUpointer_attribute::CU_POINTER_ATTRIBUTE_IS_MANAGED,
    ];
    let mut data: [*mut c_void; 2] = [
        (&raw mut memory_type).cast::<c_void>(),
        (&raw mut is_managed).cast::<c_void>(),
    ];
    // SAFETY: the driver is initialized; `attributes` and `data` hold 2 entries each, and each data
    // pointer is valid for the 4-byte value its attribute returns. The pointer is only looked up,
    // never dereferenced.
    let code = unsafe {
        sys::cuPointerGetAttributes(
            2,
            attributes.as_mut_ptr(),
            data.as_mut_ptr(),
            ptr as sys::CUdeviceptr,
        )
    };
    if code == sys::CUresult::CUDA_ERROR_INVALID_VALUE {
        return Ok(PointerKind::Pageable);
    }
    check(code, "cuPointerGetAttributes", || {
        format!("querying what kind of memory {ptr:p} points into")
    })?;
    if is_managed != 0 {
        return Ok(PointerKind::Managed);
    }
    const HOST: u32 = sys::CUmemorytype::CU_MEMORYTYPE_HOST as u32;
    const DEVICE: u32 = sys::CUmemorytype::CU_MEMORYTYPE_DEVICE as u32;
    match memory_type {
        0 => Ok(PointerKind::Pageable),
        DEVICE => Ok(PointerKind::Device),
        HOST => Ok(PointerKind::PinnedHost),
        other => Err(Error::Unsupported {
            what: format!("classifying the memory at {ptr:p}"),
            reason: format!("the driver reports the unexpected memory type {other}"),
        }),
    }
}

#[cfg(test)]
mod tests;
