//! Tests of `memory.rs`.

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
