//! Allocation, copies, fills and pointer classification.
//!
//! Addresses are `u64` (`CUdeviceptr`) for memory the device addresses and `*mut u8` for pinned host
//! memory. With unified addressing (every 64-bit platform CUDA 12 supports) a host pointer's value
//! is also a valid `CUdeviceptr`, so copies take `u64` for both ends and work in every direction.
//!
//! A request for 0 bytes allocates nothing and returns the null address (0 / a null pointer);
//! freeing the null address does nothing. Callers that need a non-null pointer for an empty
//! allocation must substitute their own.

use std::ffi::c_void;

use cudarc::driver::sys;

use super::{Context, Stream, check, init};
use crate::error::{BackendError, Error, Result};

/// Allocates `bytes` of device memory on `ctx`'s device: stream-ordered (`cuMemAllocAsync`, from
/// the device's default pool) when `stream` is given and the device supports memory pools, so the
/// memory may be used by work enqueued on `stream` from now on; otherwise `cuMemAlloc`, usable
/// anywhere at once. The stream must belong to `ctx`.
pub(crate) fn alloc_device(
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
pub(crate) unsafe fn free_device(ctx: &Context, ptr: u64, stream: Option<&Stream>) -> Result<()> {
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
pub(crate) fn alloc_host_pinned(
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
pub(crate) unsafe fn free_host_pinned(ctx: &Context, ptr: *mut u8) -> Result<()> {
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
pub(crate) fn alloc_managed(
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
pub(crate) unsafe fn free_managed(ctx: &Context, ptr: u64) -> Result<()> {
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

/// What kind of memory an address points into, as the driver sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum PointerKind {
    /// Device memory (`cuMemAlloc`, `cuMemAllocAsync`, or another library's device allocation):
    /// only the device (and the driver's copies) can access it.
    Device,
    /// Managed memory (`cuMemAllocManaged`): the host and the device can both access it.
    Managed,
    /// Pinned host memory (`cuMemHostAlloc`, or host memory registered with `cuMemHostRegister`):
    /// the host accesses it directly and the device through unified addressing.
    PinnedHost,
    /// Memory the driver does not know: plain host memory (`Vec`, `malloc`, `calloc`, the stack).
    /// Only the host can write it; the device's memset refuses it.
    Pageable,
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
mod tests {
    use std::sync::Arc;

    use super::super::{Context, test_context};
    use super::*;

    /// The address of a host pointer as a `CUdeviceptr` (unified addressing).
    fn addr<T>(p: *const T) -> u64 {
        p as u64
    }

    #[test]
    fn fill_patterns_must_be_1_2_or_4_bytes_and_aligned() {
        assert_eq!(fill_element(0x1001, &[1]).expect("1 byte"), 1);
        assert_eq!(fill_element(0x1002, &[1, 2]).expect("2 bytes"), 2);
        assert_eq!(fill_element(0x1004, &[1, 2, 3, 4]).expect("4 bytes"), 4);
        for bad in [&[][..], &[1, 2, 3], &[0; 8]] {
            let err = fill_element(0x1000, bad).expect_err("bad length");
            assert!(
                matches!(&err, Error::InvalidArgument { operation: "fill_async", reason }
                    if reason.contains(&bad.len().to_string())),
                "{err:?}"
            );
        }
        let err = fill_element(0x1002, &[0; 4]).expect_err("misaligned");
        assert!(matches!(err, Error::InvalidArgument { .. }), "{err:?}");
    }

    /// A stream on `ctx` for the tests.
    fn stream(ctx: &Arc<Context>) -> Stream {
        Stream::new(ctx, || "test stream".into()).expect("stream")
    }

    /// `bytes` of device memory copied back to a Vec.
    fn read_back(ctx: &Context, src: u64, bytes: usize) -> Vec<u8> {
        let mut out = vec![0u8; bytes];
        // SAFETY: `src` holds `bytes` bytes, `out` too; the device is idle for them.
        unsafe {
            copy(addr(out.as_mut_ptr()), src, bytes, ctx, || {
                "read back".into()
            })
        }
        .expect("copy back");
        out
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn every_kind_allocates_and_frees() {
        let ctx = test_context();
        let s = stream(&ctx);
        let bytes = 1 << 20;
        let d = alloc_device(&ctx, bytes, None, || "device".into()).expect("device");
        let da = alloc_device(&ctx, bytes, Some(&s), || "device async".into()).expect("async");
        let h = alloc_host_pinned(&ctx, bytes, || "pinned".into()).expect("pinned");
        let m = alloc_managed(&ctx, bytes, || "managed".into()).expect("managed");
        assert!(d != 0 && da != 0 && !h.is_null() && m != 0);
        assert_eq!(
            alloc_device(&ctx, 0, None, || "empty".into()).expect("0"),
            0
        );
        // SAFETY: each pointer is a live allocation of its kind; no work uses them (the async one is
        // freed in the order of its stream).
        unsafe {
            free_device(&ctx, da, Some(&s)).expect("free async");
            free_device(&ctx, d, None).expect("free device");
            free_host_pinned(&ctx, h).expect("free pinned");
            free_managed(&ctx, m).expect("free managed");
            free_device(&ctx, 0, None).expect("free null");
        }
        s.synchronize(|| "sync".into()).expect("sync");
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn free_memory_goes_down_by_the_allocation_and_back() {
        let ctx = test_context();
        let bytes = 256 << 20;
        let (before, total) = ctx.memory_info().expect("info");
        let d = alloc_device(&ctx, bytes, None, || "device".into()).expect("device");
        let (during, _) = ctx.memory_info().expect("info");
        // SAFETY: a live allocation that nothing uses.
        unsafe { free_device(&ctx, d, None) }.expect("free");
        let (after, _) = ctx.memory_info().expect("info");
        assert!(
            during + bytes <= before,
            "free {before} -> {during} for {bytes} bytes"
        );
        assert!(
            after >= during + bytes,
            "free {during} -> {after} after freeing {bytes}"
        );
        assert!(before <= total);
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn managed_requests_beyond_free_memory_are_refused() {
        let ctx = test_context();
        let (free, _) = ctx.memory_info().expect("info");
        let err = alloc_managed(&ctx, free + (1 << 30), || "too big".into()).expect_err("refused");
        match &err {
            Error::Backend(BackendError::Cuda {
                call, name, what, ..
            }) => {
                assert_eq!(*call, "cuMemAllocManaged");
                assert_eq!(name, "CUDA_ERROR_OUT_OF_MEMORY");
                assert_eq!(what, "too big");
            }
            other => panic!("expected BackendError::Cuda, got {other:?}"),
        }
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn copies_round_trip_through_pageable_and_pinned_memory() {
        let ctx = test_context();
        let s = stream(&ctx);
        let bytes = 1 << 20;
        let src: Vec<u8> = (0..bytes).map(|i| (i * 7 + i / 251) as u8).collect();
        let d = alloc_device(&ctx, bytes, Some(&s), || "device".into()).expect("device");

        // Pageable -> device -> pageable.
        let mut back = vec![0u8; bytes];
        // SAFETY: `src`, `d` and `back` hold `bytes` bytes and outlive the synchronize below.
        unsafe {
            copy_async(d, addr(src.as_ptr()), bytes, &s, || "h2d".into()).expect("h2d");
            copy_async(addr(back.as_mut_ptr()), d, bytes, &s, || "d2h".into()).expect("d2h");
        }
        s.synchronize(|| "sync".into()).expect("sync");
        assert!(back == src, "pageable round trip differs");

        // Pinned -> device -> pinned.
        let p_in = alloc_host_pinned(&ctx, bytes, || "pinned in".into()).expect("pinned");
        let p_out = alloc_host_pinned(&ctx, bytes, || "pinned out".into()).expect("pinned");
        // SAFETY: both pinned buffers hold `bytes` bytes; no device work uses them yet.
        unsafe {
            std::ptr::copy_nonoverlapping(src.as_ptr(), p_in, bytes);
            std::ptr::write_bytes(p_out, 0, bytes);
        }
        // SAFETY: as above; the device buffer is overwritten after the pageable round trip ended.
        unsafe {
            copy_async(d, addr(p_in), bytes, &s, || "h2d pinned".into()).expect("h2d");
            copy_async(addr(p_out), d, bytes, &s, || "d2h pinned".into()).expect("d2h");
        }
        s.synchronize(|| "sync".into()).expect("sync");
        // SAFETY: the copies completed; `p_out` holds `bytes` initialized bytes.
        let out = unsafe { std::slice::from_raw_parts(p_out, bytes) };
        assert!(out == src.as_slice(), "pinned round trip differs");

        // Synchronous copy, device -> pageable.
        assert!(read_back(&ctx, d, bytes) == src, "synchronous copy differs");

        // SAFETY: all work using them has completed.
        unsafe {
            free_device(&ctx, d, Some(&s)).expect("free");
            free_host_pinned(&ctx, p_in).expect("free");
            free_host_pinned(&ctx, p_out).expect("free");
        }
        s.synchronize(|| "sync".into()).expect("sync");
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn fills_write_1_2_and_4_byte_patterns() {
        let ctx = test_context();
        let s = stream(&ctx);
        let bytes = 4096;
        let d = alloc_device(&ctx, bytes, None, || "device".into()).expect("device");
        for pattern in [&[0xABu8][..], &[0x34, 0x12], &[1, 2, 3, 4]] {
            let n = pattern.len();
            // SAFETY: `d` holds `bytes` bytes; nothing else uses it.
            unsafe {
                fill_async(d, &[0], bytes, &s, || "clear".into()).expect("clear");
                // Fill all but the last element, to see that `count` is in elements.
                fill_async(d, pattern, bytes / n - 1, &s, || "fill".into()).expect("fill");
            }
            s.synchronize(|| "sync".into()).expect("sync");
            let out = read_back(&ctx, d, bytes);
            for (i, chunk) in out.chunks(n).enumerate() {
                let expected = if i + 1 < bytes / n {
                    pattern
                } else {
                    &[0; 4][..n]
                };
                assert_eq!(chunk, expected, "element {i} for pattern {pattern:?}");
            }
        }
        // SAFETY: refused before any driver call.
        let err = unsafe { fill_async(d, &[1, 2, 3], 4, &s, || "bad".into()) };
        assert!(matches!(err, Err(Error::InvalidArgument { .. })), "{err:?}");
        // SAFETY: the stream was synchronized; nothing uses `d`.
        unsafe { free_device(&ctx, d, None) }.expect("free");
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn managed_memory_is_shared_with_the_host() {
        let ctx = test_context();
        let s = stream(&ctx);
        let n = 1024;
        let m = alloc_managed(&ctx, n * 4, || "managed".into()).expect("managed");
        // SAFETY: `m` holds `n` u32; the fill completes before the host reads.
        unsafe { fill_async(m, &5u32.to_ne_bytes(), n, &s, || "fill".into()) }.expect("fill");
        s.synchronize(|| "sync".into()).expect("sync");
        ctx.synchronize(|| "sync".into()).expect("sync");
        // SAFETY: the device is idle; `m` holds `n` initialized u32, aligned by the allocator.
        let host = unsafe { std::slice::from_raw_parts_mut(m as *mut u32, n) };
        assert!(host.iter().all(|&v| v == 5));
        host[3] = 9;
        let back = read_back(&ctx, m, n * 4);
        assert_eq!(&back[12..16], &9u32.to_ne_bytes());
        // SAFETY: nothing uses `m` any more (`host` is not used after this).
        unsafe { free_managed(&ctx, m) }.expect("free");
    }

    #[test]
    #[ignore = "needs a CUDA GPU"]
    fn pointer_kinds_come_from_the_driver() {
        let ctx = test_context();
        let bytes = 1 << 16;
        let d = alloc_device(&ctx, bytes, None, || "device".into()).expect("device");
        let m = alloc_managed(&ctx, bytes, || "managed".into()).expect("managed");
        let h = alloc_host_pinned(&ctx, bytes, || "pinned".into()).expect("pinned");
        let v = vec![0u8; bytes];
        let zeroed = vec![0u64; 1 << 20]; // large: calloc'd by the allocator (mmap'd zero pages)
        let on_stack = 0u64;
        let cases = [
            (d as *const u8, PointerKind::Device),
            ((d + 100) as *const u8, PointerKind::Device),
            (m as *const u8, PointerKind::Managed),
            ((m + 100) as *const u8, PointerKind::Managed),
            (h.cast_const(), PointerKind::PinnedHost),
            (h.wrapping_add(100).cast_const(), PointerKind::PinnedHost),
            (v.as_ptr(), PointerKind::Pageable),
            (zeroed.as_ptr().cast::<u8>(), PointerKind::Pageable),
            ((&raw const on_stack).cast::<u8>(), PointerKind::Pageable),
            (std::ptr::null(), PointerKind::Pageable),
        ];
        for (ptr, kind) in cases {
            assert_eq!(pointer_kind(ptr).expect("kind"), kind, "{ptr:p}");
        }
        // The same from a thread on which no context was ever made current.
        let addresses: Vec<(usize, PointerKind)> =
            cases.iter().map(|&(p, k)| (p as usize, k)).collect();
        std::thread::spawn(move || {
            for (ptr, kind) in addresses {
                let got = pointer_kind(ptr as *const u8).expect("kind on a fresh thread");
                assert_eq!(got, kind, "{ptr:#x} on a fresh thread");
            }
        })
        .join()
        .expect("thread");
        // SAFETY: live allocations that nothing uses.
        unsafe {
            free_device(&ctx, d, None).expect("free");
            free_managed(&ctx, m).expect("free");
            free_host_pinned(&ctx, h).expect("free");
        }
    }
}
