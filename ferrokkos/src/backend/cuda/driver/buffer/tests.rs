//! Tests of `buffer.rs` (all need a GPU).

use std::sync::Arc;

use super::super::memory::{copy, fill_async};
use super::super::test_context;
use super::*;

/// A stream on `ctx` for the tests.
fn stream(ctx: &Arc<Context>) -> Arc<Stream> {
    Arc::new(Stream::new(ctx, || "test stream".into()).expect("stream"))
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_stream_ordered_device_buffer_is_used_and_freed_in_stream_order() {
    let ctx = test_context();
    let s = stream(&ctx);
    let bytes = 1 << 20;
    let buf = DeviceBuffer::on_stream(&s, bytes, || "device".into()).expect("alloc");
    assert_ne!(buf.ptr(), 0);
    assert_eq!(buf.len(), bytes);
    // SAFETY: `buf` has `bytes` bytes, used only on `s`.
    unsafe { fill_async(buf.ptr(), &[7], bytes, &s, || "fill".into()) }.expect("fill");
    s.synchronize(|| "sync".into()).expect("sync");
    let mut back = vec![0u8; bytes];
    // SAFETY: both ranges hold `bytes` bytes; the fill has completed.
    unsafe {
        copy(back.as_mut_ptr() as u64, buf.ptr(), bytes, &ctx, || {
            "back".into()
        })
    }
    .expect("copy back");
    assert!(back.iter().all(|&b| b == 7));
    // A second buffer is freed by its drop, after work enqueued on the stream.
    let other = DeviceBuffer::on_stream(&s, bytes, || "other".into()).expect("alloc");
    // SAFETY: `other` has `bytes` bytes, used only on `s`.
    unsafe { fill_async(other.ptr(), &[1], bytes, &s, || "fill".into()) }.expect("fill");
    drop(other);
    buf.free().expect("free in stream order");
    s.synchronize(|| "sync".into())
        .expect("sync after the frees");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_device_buffer_without_a_stream_gives_its_memory_back_when_dropped() {
    let ctx = test_context();
    let bytes = 256 << 20;
    let (before, _) = ctx.memory_info().expect("info");
    let buf = DeviceBuffer::new(&ctx, bytes, || "device".into()).expect("alloc");
    let (during, _) = ctx.memory_info().expect("info");
    drop(buf);
    let (after, _) = ctx.memory_info().expect("info");
    assert!(
        during + bytes <= before,
        "free {before} -> {during} for {bytes} bytes"
    );
    assert!(
        after >= during + bytes,
        "free {during} -> {after} after dropping {bytes}"
    );
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn empty_buffers_hold_the_null_address_and_free_nothing() {
    let ctx = test_context();
    let s = stream(&ctx);
    let d = DeviceBuffer::new(&ctx, 0, || "empty".into()).expect("device");
    let ds = DeviceBuffer::on_stream(&s, 0, || "empty".into()).expect("device on stream");
    let p = PinnedBuffer::new(&ctx, 0, || "empty".into()).expect("pinned");
    let m = ManagedBuffer::new(&ctx, 0, || "empty".into()).expect("managed");
    assert_eq!((d.ptr(), ds.ptr(), m.ptr()), (0, 0, 0));
    assert!(p.ptr().is_null());
    d.free().expect("free");
    ds.free().expect("free");
    p.free().expect("free");
    m.free().expect("free");
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn pinned_and_managed_buffers_are_host_memory_and_free_themselves() {
    let ctx = test_context();
    let bytes = 4096;
    let p = PinnedBuffer::new(&ctx, bytes, || "pinned".into()).expect("pinned");
    assert_eq!(p.len(), bytes);
    // SAFETY: `p` has `bytes` bytes of host memory that nothing else uses.
    unsafe { std::ptr::write_bytes(p.ptr(), 3, bytes) };
    // SAFETY: as above; written just before.
    assert_eq!(unsafe { *p.ptr().add(bytes - 1) }, 3);
    let m = ManagedBuffer::new(&ctx, bytes, || "managed".into()).expect("managed");
    assert_eq!(m.len(), bytes);
    // SAFETY: managed memory is host-accessible; no device work uses it.
    unsafe { std::ptr::write_bytes(m.ptr() as *mut u8, 5, bytes) };
    p.free().expect("free pinned");
    drop(m);
}
