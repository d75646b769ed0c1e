//! The device rows of `deep_copy` (DESIGN.md decision 9; the table is in `view/deep_copy.rs`):
//! copies and fills that involve memory the GPU reaches, carried out on a Cuda instance's
//! stream.
//!
//! Where each side's memory really is comes from the driver's pointer attributes, not from the
//! View's declared space: an unmanaged View over a `Vec` (pageable memory, which the device cannot
//! address) is filled and copied on the host side of the transfer, whatever space it claims.

use std::any::Any;
use std::sync::Arc;

use super::backend::{CudaInstance, default_instance};
use super::builtin::{self, Desc};
use super::driver::{self, PointerKind, Stream, StreamBuffer};
use super::runtime::Submission;
use crate::error::{Error, Result};
use crate::space::{Allocation, DeviceCopy, Elem, Side};

/// Where `side`'s memory really is, from the driver's pointer attributes.
fn kind(side: &Side<'_>) -> Result<PointerKind> {
    driver::pointer_kind(side.ptr)
}

/// The instance a copy runs on: the given one or the default.
fn instance(exec: Option<&Arc<CudaInstance>>) -> Result<Arc<CudaInstance>> {
    match exec {
        Some(e) => Ok(Arc::clone(e)),
        None => default_instance(),
    }
}

/// The borrows of one copy (exclusive on the destination, shared on the source), or of one
/// collective operation (see `collective.rs`), released on drop.
pub(super) struct Borrows<'a> {
    held: Vec<(&'a Arc<Allocation>, bool)>,
}

impl<'a> Borrows<'a> {
    fn take(
        dst: Option<&'a Arc<Allocation>>,
        src: Option<&'a Arc<Allocation>>,
    ) -> Result<Borrows<'a>> {
        let mut b = Borrows { held: Vec::new() };
        if let Some(d) = dst {
            d.borrow_exclusive_async()?;
            b.held.push((d, true));
        }
        if let Some(s) = src
            && !dst.is_some_and(|d| Arc::ptr_eq(d, s))
        {
            s.borrow_shared_async()?;
            b.held.push((s, false));
        }
        Ok(b)
    }

    /// Borrows each allocation of `uses` (distinct allocations), exclusively where its flag
    /// says the work writes it; on a conflict, what was taken is released and the error
    /// returned.
    pub(super) fn take_each(uses: &[(&'a Arc<Allocation>, bool)]) -> Result<Borrows<'a>> {
        let mut b = Borrows { held: Vec::new() };
        for &(a, writes) in uses {
            if writes {
                a.borrow_exclusive_async()?;
            } else {
                a.borrow_shared_async()?;
            }
            b.held.push((a, writes));
        }
        Ok(b)
    }

    pub(super) fn allocs(&self) -> impl Iterator<Item = &'a Allocation> + '_ {
        self.held.iter().map(|(a, _)| -> &'a Allocation { a })
    }

    /// Orders `sub` after the work on other queues that uses the borrowed allocations.
    pub(super) fn order(&self, sub: &mut Submission<'_>, what: &dyn Fn() -> String) -> Result<()> {
        for (a, writes) in &self.held {
            sub.order_after(a, *writes, what)?;
        }
        Ok(())
    }
}

/// Refuses, in a graph (a recording instance), a copy or fill that the host would carry out or
/// wait for: only work the GPU does alone can be recorded.
fn recordable(cuda: &CudaInstance, ok: bool, what: &dyn Fn() -> String) -> Result<()> {
    if cuda.queue().is_recording() && !ok {
        return Err(Error::Unsupported {
            what: what(),
            reason: "a graph holds only copies and fills the GPU carries out alone: both Views \
                     in memory the GPU reaches, distinct allocations, elements of at most 32 \
                     bytes for a strided fill"
                .into(),
        });
    }
    Ok(())
}

impl Drop for Borrows<'_> {
    fn drop(&mut self) {
        for (a, exclusive) in &self.held {
            if *exclusive {
                a.release_exclusive();
            } else {
                a.release_shared();
            }
        }
    }
}

/// Ends a submission: waits for it when `blocking`, else only numbers and stamps it.
fn finish<'a>(
    mut sub: Submission<'_>,
    allocs: impl Iterator<Item = &'a Allocation>,
    blocking: bool,
    what: &dyn Fn() -> String,
) -> Result<()> {
    sub.note("deep_copy", "");
    if blocking {
        sub.finish_and_wait(allocs, what).map(drop)
    } else {
        sub.finish(allocs);
        Ok(())
    }
}

/// [`finish`] for an asynchronous copy into pinned host memory: the host will read it while the
/// work queued after it runs (a halo staged for a message while the interior computes), so the
/// submission is marked and the host's wait for it waits for it alone.
fn finish_to_host<'a>(
    mut sub: Submission<'_>,
    allocs: impl Iterator<Item = &'a Allocation>,
    what: &dyn Fn() -> String,
) -> Result<()> {
    sub.note("deep_copy", "");
    sub.finish_marked(allocs, what).map(drop)
}

/// The device rows of `deep_copy` for the CUDA memory spaces (their `MemorySpace::device_copy`).
pub(crate) struct CudaCopies;

impl DeviceCopy for CudaCopies {
    fn copy(
        &self,
        exec: Option<&dyn Any>,
        dst: &Side<'_>,
        src: &Side<'_>,
        elem: Elem,
        blocking: bool,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        let (cuda, blocking) = instance_of(exec, blocking);
        copy(cuda, dst, src, elem, blocking, what)
    }

    fn fill(
        &self,
        exec: Option<&dyn Any>,
        dst: &Side<'_>,
        value: &[u8],
        elem: Elem,
        blocking: bool,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        let (cuda, blocking) = instance_of(exec, blocking);
        fill(cuda, dst, value, elem, blocking, what)
    }
}

/// The Cuda instance `exec` is, if it is one. An instance of another backend (a host space, whose
/// work runs synchronously) gets the copy on the default instance, waited for.
fn instance_of(exec: Option<&dyn Any>, blocking: bool) -> (Option<&Arc<CudaInstance>>, bool) {
    let cuda = exec.and_then(|e| e.downcast_ref::<Arc<CudaInstance>>());
    (cuda, blocking || (exec.is_some() && cuda.is_none()))
}

/// Copies `src` into `dst` (equal extents, not the same elements) on `exec` (or the default
/// instance); waits for the copy when `blocking`.
fn copy(
    exec: Option<&Arc<CudaInstance>>,
    dst: &Side<'_>,
    src: &Side<'_>,
    elem: Elem,
    blocking: bool,
    what: &dyn Fn() -> String,
) -> Result<()> {
    let count = dst.count();
    if count == 0 {
        return Ok(());
    }
    let cuda = instance(exec)?;
    cuda.shared().check_alive(what)?;
    let same_alloc = match (dst.alloc, src.alloc) {
        (Some(a), Some(b)) => Arc::ptr_eq(a, b),
        _ => false,
    };
    recordable(&cuda, !same_alloc, what)?;
    if same_alloc {
        // Overlapping Views of one allocation: through a temporary, so that source values win.
        let temp = temp(&cuda, count * elem.size, what)?;
        let strides = compact_strides(src.extents);
        let t = Side {
            alloc: None,
            ptr: temp.ptr() as *mut u8,
            extents: src.extents,
            strides: &strides,
        };
        copy(Some(&cuda), &t, src, elem, true, what)?;
        return copy(Some(&cuda), dst, &t, elem, blocking, what);
    }
    let borrows = Borrows::take(dst.alloc, src.alloc)?;
    let (dk, sk) = (kind(dst)?, kind(src)?);
    let pageable = PointerKind::Pageable;
    recordable(&cuda, dk != pageable && sk != pageable, what)?;
    // The host reads (or writes) a pageable side itself, not in stream order: device work still
    // using it (possible where the GPU reaches pageable memory) is waited for first, before the
    // queue is locked (waiting for work on this queue locks it).
    if sk == PointerKind::Pageable {
        wait_host(None, src.alloc)?;
    }
    let stream: &Stream = cuda.queue().stream();
    let mut sub = cuda.queue().begin_work(what)?;
    borrows.order(&mut sub, what)?;
    sub.trace("copy", what, || {
        vec![("bytes", (count * elem.size).to_string())]
    });
    let contiguous = dst.is_contiguous() && src.is_contiguous() && dst.same_layout(src);
    if contiguous {
        // One copy of the whole block (cuMemcpy works between any two kinds of memory; into or
        // out of pageable memory it completes before it returns).
        // SAFETY: both blocks hold `count` elements (contiguous, equal extents), the borrows keep
        // them alive and unshared, and the submission orders the copy after their pending work.
        unsafe {
            driver::copy_async(
                dst.ptr as u64,
                src.ptr as u64,
                count * elem.size,
                stream,
                what,
            )?
        };
        if !blocking && dk == PointerKind::PinnedHost {
            return finish_to_host(sub, borrows.allocs(), what);
        }
        return finish(sub, borrows.allocs(), blocking, what);
    }
    let device = |k: PointerKind| k != PointerKind::Pageable;
    match (device(dk), device(sk)) {
        (true, true) => {
            copy_kernel(&cuda, &mut sub, dst, src, elem, what)?;
            finish(sub, borrows.allocs(), blocking, what)
        }
        (false, false) => {
            // Two pageable blocks: element by element on the host.
            drop(sub);
            wait_host(dst.alloc, src.alloc)?;
            host_copy(dst, src, elem);
            Ok(())
        }
        (true, false) => upload_strided(&cuda, sub, &borrows, dst, src, elem, what),
        (false, true) => download_strided(&cuda, sub, &borrows, dst, src, elem, what),
    }
}

/// A strided copy from pageable host memory `src` into device-reachable `dst`: gathered on the
/// host (its device work was waited for), uploaded to a temporary, scattered by the copy kernel;
/// waited for.
fn upload_strided(
    cuda: &CudaInstance,
    mut sub: Submission<'_>,
    borrows: &Borrows<'_>,
    dst: &Side<'_>,
    src: &Side<'_>,
    elem: Elem,
    what: &dyn Fn() -> String,
) -> Result<()> {
    let staging = gather(src, elem);
    let temp = temp(cuda, staging.len(), what)?;
    // SAFETY: `temp` has `staging.len()` bytes; a copy from pageable memory reads the source
    // before it returns.
    unsafe {
        driver::copy_async(
            temp.ptr(),
            staging.as_ptr() as u64,
            staging.len(),
            cuda.queue().stream(),
            what,
        )?
    };
    let strides = compact_strides(src.extents);
    let t = Side {
        alloc: None,
        ptr: temp.ptr() as *mut u8,
        extents: src.extents,
        strides: &strides,
    };
    copy_kernel(cuda, &mut sub, dst, &t, elem, what)?;
    let r = finish(sub, borrows.allocs(), true, what);
    drop(temp);
    r
}

/// A strided copy from device-reachable `src` into pageable host memory `dst`: packed on the device
/// into a temporary, downloaded, scattered on the host; waited for.
fn download_strided(
    cuda: &CudaInstance,
    mut sub: Submission<'_>,
    borrows: &Borrows<'_>,
    dst: &Side<'_>,
    src: &Side<'_>,
    elem: Elem,
    what: &dyn Fn() -> String,
) -> Result<()> {
    let count = dst.count();
    let temp = temp(cuda, count * elem.size, what)?;
    let strides = compact_strides(src.extents);
    let t = Side {
        alloc: None,
        ptr: temp.ptr() as *mut u8,
        extents: src.extents,
        strides: &strides,
    };
    copy_kernel(cuda, &mut sub, &t, src, elem, what)?;
    let mut staging = vec![0u8; count * elem.size];
    // SAFETY: `staging` has room for the packed block; a copy into pageable memory completes
    // before the call returns.
    let downloaded = unsafe {
        driver::copy_async(
            staging.as_mut_ptr() as u64,
            temp.ptr(),
            staging.len(),
            cuda.queue().stream(),
            what,
        )
    };
    if let Err(e) = downloaded {
        // The packing kernel is enqueued and reads `src`: stamp it before giving up.
        sub.finish(borrows.allocs());
        return Err(e);
    }
    finish(sub, borrows.allocs(), true, what)?;
    scatter(dst, &staging, elem);
    Ok(())
}

/// Fills every element of `dst` with the element whose bytes are `value`.
fn fill(
    exec: Option<&Arc<CudaInstance>>,
    dst: &Side<'_>,
    value: &[u8],
    elem: Elem,
    blocking: bool,
    what: &dyn Fn() -> String,
) -> Result<()> {
    let count = dst.count();
    if count == 0 {
        return Ok(());
    }
    let cuda = instance(exec)?;
    cuda.shared().check_alive(what)?;
    let borrows = Borrows::take(dst.alloc, None)?;
    let pageable = kind(dst)? == PointerKind::Pageable;
    let big = elem.size > builtin::MAX_FILL_BYTES
        && !(dst.is_contiguous() && value.iter().all(|b| *b == 0));
    recordable(&cuda, !pageable && !big, what)?;
    if pageable {
        // Host-only memory (e.g. an unmanaged View over a `Vec` or calloc'd memory): the device
        // cannot write it, so fill it here.
        wait_host(dst.alloc, None)?;
        for k in 0..count {
            // SAFETY: `offset_of` stays inside the View's span; the exclusive borrow keeps other
            // users out, and no device work uses the memory any more.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    value.as_ptr(),
                    dst.ptr.add(dst.offset_of(k, elem)),
                    elem.size,
                )
            };
        }
        drop(borrows);
        return Ok(());
    }
    let stream: &Stream = cuda.queue().stream();
    let mut sub = cuda.queue().begin_work(what)?;
    borrows.order(&mut sub, what)?;
    sub.trace("fill", what, || {
        vec![("bytes", (count * elem.size).to_string())]
    });
    let contiguous = dst.is_contiguous();
    let zero = value.iter().all(|b| *b == 0);
    let repeated = matches!(elem.size, 1 | 2 | 4) && (dst.ptr as usize).is_multiple_of(elem.size);
    if contiguous && zero {
        // SAFETY: the block has `count * size` bytes, borrowed exclusively and ordered after its
        // pending work.
        unsafe { driver::fill_async(dst.ptr as u64, &[0], count * elem.size, stream, what)? };
    } else if contiguous && repeated {
        // SAFETY: as above; the pattern is one element of 1, 2 or 4 bytes and the block is
        // aligned to it.
        unsafe { driver::fill_async(dst.ptr as u64, value, count, stream, what)? };
    } else if elem.size <= builtin::MAX_FILL_BYTES {
        let shared = cuda.shared();
        let f = shared.kernels.builtin(
            &shared.ctx,
            &shared.info,
            builtin::fill_entry(elem.align),
            builtin::entry_source,
        )?;
        let words = (elem.size / builtin::word_bytes(elem.align)) as u32;
        // A contiguous View is one block of `count` elements from element 0 (its lowest address),
        // whatever its layout: the kernel's contiguous path fills it in memory order.
        let (extents, strides) = match contiguous {
            true => (&[count][..], &[1][..]),
            false => (dst.extents, dst.strides),
        };
        let d = Desc::new(dst.ptr as u64, extents, strides)?;
        let mut params = builtin::pack_fill(count as u64, extents.len() as u32, words, &d, value)?;
        let (grid, block) = grid_for(count);
        // SAFETY: the parameters follow the entry's signature; `d` describes the borrowed View.
        unsafe { driver::launch(&f, grid, block, 0, stream, &mut params, what)? };
    } else {
        // Large elements: one element uploaded, then copied into every position.
        let temp = temp(&cuda, elem.size, what)?;
        // SAFETY: `temp` has room for one element; the source is read before the call returns.
        unsafe { driver::copy_async(temp.ptr(), value.as_ptr() as u64, elem.size, stream, what)? };
        let zeros = vec![0usize; dst.extents.len()];
        let t = Side {
            alloc: None,
            ptr: temp.ptr() as *mut u8,
            extents: dst.extents,
            strides: &zeros,
        };
        copy_kernel(&cuda, &mut sub, dst, &t, elem, what)?;
        let r = finish(sub, borrows.allocs(), true, what);
        drop(temp);
        return r;
    }
    finish(sub, borrows.allocs(), blocking, what)
}

/// A grid-stride launch shape for `count` elements.
fn grid_for(count: usize) -> (u32, u32) {
    let block = 256u32;
    let grid = count.div_ceil(block as usize).clamp(1, 1 << 20) as u32;
    (grid, block)
}

/// Enqueues the built-in strided copy kernel.
fn copy_kernel(
    cuda: &CudaInstance,
    sub: &mut Submission<'_>,
    dst: &Side<'_>,
    src: &Side<'_>,
    elem: Elem,
    what: &dyn Fn() -> String,
) -> Result<()> {
    let shared = cuda.shared();
    let f = shared.kernels.builtin(
        &shared.ctx,
        &shared.info,
        builtin::copy_entry(elem.align),
        builtin::entry_source,
    )?;
    let words = (elem.size / builtin::word_bytes(elem.align)) as u32;
    let d = Desc::new(dst.ptr as u64, dst.extents, dst.strides)?;
    let s = Desc::new(src.ptr as u64, src.extents, src.strides)?;
    let count = dst.count();
    let mut params = builtin::pack_copy(count as u64, dst.extents.len() as u32, words, &d, &s);
    let (grid, block) = grid_for(count);
    // SAFETY: the parameters follow the entry's signature; both descriptors describe memory the
    // device reaches (checked by the caller), borrowed for this copy and ordered by `sub`.
    unsafe { driver::launch(&f, grid, block, 0, sub.stream(), &mut params, what) }
}

/// Waits for device work on the allocations before host code touches them.
fn wait_host(a: Option<&Arc<Allocation>>, b: Option<&Arc<Allocation>>) -> Result<()> {
    for x in [a, b].into_iter().flatten() {
        x.wait_pending()?;
    }
    Ok(())
}

/// Copies element by element between two host blocks.
fn host_copy(dst: &Side<'_>, src: &Side<'_>, elem: Elem) {
    for k in 0..dst.count() {
        // SAFETY: both offsets stay inside their Views' spans; the borrows keep other users out.
        unsafe {
            std::ptr::copy_nonoverlapping(
                src.ptr.add(src.offset_of(k, elem)),
                dst.ptr.add(dst.offset_of(k, elem)),
                elem.size,
            )
        };
    }
}

/// The elements of a host block, packed in row-major order.
fn gather(src: &Side<'_>, elem: Elem) -> Vec<u8> {
    let count = src.count();
    let mut out = vec![0u8; count * elem.size];
    for k in 0..count {
        // SAFETY: the offset stays inside the View's span, `out` has room for `count` elements,
        // and the borrow keeps writers out.
        unsafe {
            std::ptr::copy_nonoverlapping(
                src.ptr.add(src.offset_of(k, elem)),
                out.as_mut_ptr().add(k * elem.size),
                elem.size,
            )
        };
    }
    out
}

/// Writes packed row-major elements into a host block.
fn scatter(dst: &Side<'_>, packed: &[u8], elem: Elem) {
    for k in 0..dst.count() {
        // SAFETY: as in `gather`, with the exclusive borrow of the destination.
        unsafe {
            std::ptr::copy_nonoverlapping(
                packed.as_ptr().add(k * elem.size),
                dst.ptr.add(dst.offset_of(k, elem)),
                elem.size,
            )
        };
    }
}

/// Row-major strides of a compact block with `extents`.
fn compact_strides(extents: &[usize]) -> Vec<usize> {
    let mut strides = vec![1; extents.len()];
    for r in (0..extents.len().saturating_sub(1)).rev() {
        strides[r] = strides[r + 1] * extents[r + 1].max(1);
    }
    strides
}

/// A temporary device buffer of `bytes` on `cuda`'s stream, for one copy (freed after it,
/// stream-ordered, when dropped).
fn temp<'s>(
    cuda: &'s CudaInstance,
    bytes: usize,
    what: &dyn Fn() -> String,
) -> Result<StreamBuffer<'s>> {
    let temp = StreamBuffer::new(cuda.queue().stream(), bytes.max(1), what)?;
    if temp.ptr() == 0 {
        return Err(Error::Allocation {
            label: "deep_copy temporary".into(),
            bytes: bytes as u128,
            space: "CudaSpace",
        });
    }
    Ok(temp)
}
