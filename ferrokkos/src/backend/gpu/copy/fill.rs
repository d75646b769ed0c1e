//! Fills of a block with one element: the driver's memset, the built-in fill kernel, a broadcast
//! of one uploaded element, or a host loop ([`plan_fill`] chooses).

use super::borrows::Borrows;
use super::host::{compact, host_fill, wait_host};
use super::plan::{FillMethod, plan_fill};
use super::transfer::copy_kernel;
use super::work::{End, finish, launch_builtin, recordable, temp};
use crate::backend::gpu::builtin::{self, Desc};
use crate::backend::gpu::driver::{DeviceBuffer as _, DeviceInfo as _, Driver, Stream as _};
use crate::backend::gpu::instance::Instance;
use crate::backend::gpu::queue::Submission;
use crate::error::Result;
use crate::space::{Elem, Side};

/// Fills every element of `dst` (at least one) with the element whose bytes are `value`, on
/// `gpu`; waits for the fill when `blocking`.
pub(super) fn fill<D: Driver>(
    gpu: &Instance<D>,
    dst: &Side<'_>,
    value: &[u8],
    elem: Elem,
    blocking: bool,
    what: &dyn Fn() -> String,
) -> Result<()> {
    gpu.shared().check_alive(what)?;
    let borrows = Borrows::take(dst.alloc, None)?;
    let method = plan_fill(
        D::pointer_kind(dst.ptr)?,
        gpu.shared().info.pageable_memory_access(),
        dst.is_contiguous(),
        value,
        dst.ptr as usize,
    );
    recordable(gpu, method.device_only(), what)?;
    let end = if blocking { End::Wait } else { End::Async };
    match method {
        FillMethod::HostLoop => {
            // Memory the device cannot write (e.g. an unmanaged View over a `Vec` or calloc'd
            // memory): fill it here.
            wait_host(dst.alloc, None)?;
            host_fill(dst, value, elem);
            Ok(())
        }
        FillMethod::Memset { unit } => {
            let sub = begin(gpu, &borrows, dst.count() * elem.size, what)?;
            // SAFETY: the block is contiguous with `count * size` bytes, a multiple of `unit`
            // (the value repeats a unit of that many bytes), aligned to it (the plan checked),
            // borrowed exclusively and ordered after its pending work.
            unsafe {
                sub.stream().fill_async(
                    dst.ptr as u64,
                    &value[..unit],
                    dst.count() * elem.size / unit,
                    what,
                )?
            };
            finish(sub, borrows.allocs(), end, what)
        }
        FillMethod::Kernel => {
            let mut sub = begin(gpu, &borrows, dst.count() * elem.size, what)?;
            fill_kernel(gpu, &mut sub, dst, value, elem, what)?;
            finish(sub, borrows.allocs(), end, what)
        }
        FillMethod::Broadcast => {
            let sub = begin(gpu, &borrows, dst.count() * elem.size, what)?;
            broadcast(gpu, sub, &borrows, dst, value, elem, what)
        }
    }
}

/// Starts the submission of a fill of `bytes` on `gpu`, ordered after the borrowed memory's
/// pending work.
fn begin<'q, D: Driver>(
    gpu: &'q Instance<D>,
    borrows: &Borrows<'_>,
    bytes: usize,
    what: &dyn Fn() -> String,
) -> Result<Submission<'q, D>> {
    let mut sub = gpu.queue().begin_work(what)?;
    borrows.order(&mut sub, what)?;
    sub.trace("fill", what, || vec![("bytes", bytes.to_string())]);
    Ok(sub)
}

/// Enqueues the built-in fill kernel over `dst` (memory the device reaches; an element of at
/// most `builtin::MAX_FILL_BYTES`).
fn fill_kernel<D: Driver>(
    gpu: &Instance<D>,
    sub: &mut Submission<'_, D>,
    dst: &Side<'_>,
    value: &[u8],
    elem: Elem,
    what: &dyn Fn() -> String,
) -> Result<()> {
    let words = (elem.size / builtin::word_bytes(elem.align)) as u32;
    let count = dst.count();
    // A contiguous View is one block of `count` elements from element 0 (its lowest address),
    // whatever its layout: the kernel's contiguous path fills it in memory order.
    let (extents, strides) = match dst.is_contiguous() {
        true => (&[count][..], &[1][..]),
        false => (dst.extents, dst.strides),
    };
    let d = Desc::new(dst.ptr as u64, extents, strides)?;
    let packed = builtin::pack_fill(count as u64, extents.len() as u32, words, &d, value)?;
    let entry = builtin::fill_entry(elem.align);
    // SAFETY: the parameters follow the entry's signature; `d` describes the borrowed View, in
    // memory the device reaches (the plan's choice), and `sub` orders the fill.
    unsafe {
        launch_builtin(
            gpu,
            sub,
            entry,
            count,
            &packed,
            &builtin::FILL_PARAM_OFFSETS,
            what,
        )
    }
}

/// A fill with an element too large for the fill kernel: the element uploaded to a temporary,
/// then the copy kernel reads it (all strides 0) for every position of `dst`; waited for.
fn broadcast<D: Driver>(
    gpu: &Instance<D>,
    mut sub: Submission<'_, D>,
    borrows: &Borrows<'_>,
    dst: &Side<'_>,
    value: &[u8],
    elem: Elem,
    what: &dyn Fn() -> String,
) -> Result<()> {
    let temp = temp(gpu, elem.size, what)?;
    // SAFETY: `temp` has room for one element; the source is read before the call returns.
    unsafe {
        sub.stream()
            .copy_async(temp.ptr(), value.as_ptr() as u64, elem.size, what)?
    };
    let zeros = vec![0usize; dst.extents.len()];
    let one = compact(temp.ptr(), dst.extents, &zeros);
    copy_kernel(gpu, &mut sub, dst, &one, elem, what)?;
    let r = finish(sub, borrows.allocs(), End::Wait, what);
    drop(temp);
    r
}
