//! Copies between two blocks of equal extents: one asynchronous copy, the built-in strided copy
//! kernel, a host loop, or staging through a compact temporary ([`plan_copy`] chooses).

use std::sync::Arc;

use super::borrows::Borrows;
use super::host::{compact, compact_strides, gather, host_copy, scatter, wait_host};
use super::plan::{CopyMethod, PointerKind, copy_is_device_only, plan_copy};
use super::work::{End, finish, launch_builtin, recordable, temp};
use crate::backend::gpu::builtin::{self, Desc};
use crate::backend::gpu::driver::{DeviceBuffer as _, DeviceInfo as _, Driver, Stream as _};
use crate::backend::gpu::instance::Instance;
use crate::backend::gpu::queue::Submission;
use crate::error::Result;
use crate::space::{Elem, Side};

/// Copies `src` into `dst` (equal extents, at least one element) on `gpu`; waits for the copy
/// when `blocking`.
pub(super) fn copy<D: Driver>(
    gpu: &Instance<D>,
    dst: &Side<'_>,
    src: &Side<'_>,
    elem: Elem,
    blocking: bool,
    what: &dyn Fn() -> String,
) -> Result<()> {
    gpu.shared().check_alive(what)?;
    let same_alloc = match (dst.alloc, src.alloc) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        _ => false,
    };
    recordable(gpu, !same_alloc, what)?;
    if same_alloc {
        return copy_overlapping(gpu, dst, src, elem, blocking, what);
    }
    let borrows = Borrows::take(dst.alloc, src.alloc)?;
    let (dk, sk) = (D::pointer_kind(dst.ptr)?, D::pointer_kind(src.ptr)?);
    recordable(gpu, copy_is_device_only(dk, sk), what)?;
    let contiguous = dst.is_contiguous() && src.is_contiguous() && dst.same_layout(src);
    let method = plan_copy(
        dk,
        sk,
        contiguous,
        gpu.shared().info.pageable_memory_access(),
    );
    // The host reads (or writes) a pageable side itself, not in stream order: device work still
    // using it (possible where the GPU reaches pageable memory) is waited for first, before the
    // queue is locked (waiting for work on this queue locks it).
    if sk == PointerKind::Pageable {
        wait_host(None, src.alloc)?;
    }
    let mut sub = gpu.queue().begin_work(what)?;
    borrows.order(&mut sub, what)?;
    let bytes = dst.count() * elem.size;
    sub.trace("copy", what, || vec![("bytes", bytes.to_string())]);
    match method {
        CopyMethod::Memcpy => {
            // One copy of the whole block (the driver copies between any two kinds of memory;
            // into or out of pageable memory it completes before it returns).
            // SAFETY: both blocks hold `count` elements (contiguous, equal extents), the borrows
            // keep them alive and unshared, and the submission orders the copy after their
            // pending work.
            unsafe {
                sub.stream()
                    .copy_async(dst.ptr as u64, src.ptr as u64, bytes, what)?
            };
            let end = match (blocking, dk) {
                (true, _) => End::Wait,
                (false, PointerKind::PinnedHost) => End::ToHost,
                (false, _) => End::Async,
            };
            finish(sub, borrows.allocs(), end, what)
        }
        CopyMethod::Kernel => {
            copy_kernel(gpu, &mut sub, dst, src, elem, what)?;
            let end = if blocking { End::Wait } else { End::Async };
            finish(sub, borrows.allocs(), end, what)
        }
        CopyMethod::HostLoop => {
            // Two blocks the device does not reach: element by element on the host.
            drop(sub);
            wait_host(dst.alloc, src.alloc)?;
            host_copy(dst, src, elem);
            Ok(())
        }
        CopyMethod::Upload => upload_strided(gpu, sub, &borrows, dst, src, elem, what),
        CopyMethod::Download => download_strided(gpu, sub, &borrows, dst, src, elem, what),
    }
}

/// A copy between overlapping Views of one allocation: through a compact temporary, so that
/// the source's values win.
fn copy_overlapping<D: Driver>(
    gpu: &Instance<D>,
    dst: &Side<'_>,
    src: &Side<'_>,
    elem: Elem,
    blocking: bool,
    what: &dyn Fn() -> String,
) -> Result<()> {
    let temp = temp(gpu, dst.count() * elem.size, what)?;
    let strides = compact_strides(src.extents);
    let t = compact(temp.ptr(), src.extents, &strides);
    copy(gpu, &t, src, elem, true, what)?;
    copy(gpu, dst, &t, elem, blocking, what)
}

/// A strided copy from pageable host memory `src` into device-reachable `dst`: gathered on the
/// host (its device work was waited for), uploaded to a temporary, scattered by the copy kernel;
/// waited for.
fn upload_strided<D: Driver>(
    gpu: &Instance<D>,
    mut sub: Submission<'_, D>,
    borrows: &Borrows<'_>,
    dst: &Side<'_>,
    src: &Side<'_>,
    elem: Elem,
    what: &dyn Fn() -> String,
) -> Result<()> {
    let staging = gather(src, elem);
    let temp = temp(gpu, staging.len(), what)?;
    // SAFETY: `temp` has `staging.len()` bytes; a copy from pageable memory reads the source
    // before it returns.
    unsafe {
        sub.stream()
            .copy_async(temp.ptr(), staging.as_ptr() as u64, staging.len(), what)?
    };
    let strides = compact_strides(src.extents);
    copy_kernel(
        gpu,
        &mut sub,
        dst,
        &compact(temp.ptr(), src.extents, &strides),
        elem,
        what,
    )?;
    let r = finish(sub, borrows.allocs(), End::Wait, what);
    drop(temp);
    r
}

/// A strided copy from device-reachable `src` into pageable host memory `dst`: packed on the
/// device into a temporary, downloaded, scattered on the host; waited for.
fn download_strided<D: Driver>(
    gpu: &Instance<D>,
    mut sub: Submission<'_, D>,
    borrows: &Borrows<'_>,
    dst: &Side<'_>,
    src: &Side<'_>,
    elem: Elem,
    what: &dyn Fn() -> String,
) -> Result<()> {
    let bytes = dst.count() * elem.size;
    let temp = temp(gpu, bytes, what)?;
    let strides = compact_strides(src.extents);
    let t = compact(temp.ptr(), src.extents, &strides);
    copy_kernel(gpu, &mut sub, &t, src, elem, what)?;
    let mut staging = vec![0u8; bytes];
    // SAFETY: `staging` has room for the packed block; a copy into pageable memory completes
    // before the call returns.
    let downloaded = unsafe {
        sub.stream()
            .copy_async(staging.as_mut_ptr() as u64, temp.ptr(), bytes, what)
    };
    if let Err(e) = downloaded {
        // The packing kernel is enqueued and reads `src`: stamp it before giving up.
        sub.finish(borrows.allocs());
        return Err(e);
    }
    finish(sub, borrows.allocs(), End::Wait, what)?;
    scatter(dst, &staging, elem);
    Ok(())
}

/// Enqueues the built-in strided copy kernel from `src` to `dst` (memory the device reaches).
pub(super) fn copy_kernel<D: Driver>(
    gpu: &Instance<D>,
    sub: &mut Submission<'_, D>,
    dst: &Side<'_>,
    src: &Side<'_>,
    elem: Elem,
    what: &dyn Fn() -> String,
) -> Result<()> {
    let words = (elem.size / builtin::word_bytes(elem.align)) as u32;
    let d = Desc::new(dst.ptr as u64, dst.extents, dst.strides)?;
    let s = Desc::new(src.ptr as u64, src.extents, src.strides)?;
    let count = dst.count();
    let packed = builtin::pack_copy(count as u64, dst.extents.len() as u32, words, &d, &s);
    let entry = builtin::copy_entry(elem.align);
    // SAFETY: the parameters follow the entry's signature; both descriptors describe memory the
    // device reaches (the plan's choice), borrowed for this copy and ordered by `sub`.
    unsafe {
        launch_builtin(
            gpu,
            sub,
            entry,
            count,
            &packed,
            &builtin::COPY_PARAM_OFFSETS,
            what,
        )
    }
}
