//! Submission: a planned launch enqueued on the instance's stream under its queue's lock. It
//! orders itself after other instances' work on the same allocations, notes and traces the work,
//! copies by-pointer captures to device memory, enqueues the pattern's launches (a scan's
//! `_prefix` launch between its two passes), stamps the allocations, and copies back a value the
//! host waits for.

use std::sync::Arc;

use super::super::driver::{DeviceBuffer as _, Driver, Stream as _};
use super::super::instance::Instance;
use super::super::kernels::Loaded;
use super::super::queue::Submission;
use super::params::{Buffers, Captures, Packed, Tail};
use super::plan::{Plan, Work};
use super::{Done, Space};
use crate::error::{Error, Result};
use crate::kernel::{DeviceKernel, Slot};
use crate::reducer::DevicePlace;
use crate::view::kernel_access::LaunchBorrows;

/// The most kernel parameters any driver takes (CUDA's and HIP's limit), the size of the array of
/// their pointers.
const POINTERS: usize = 64;

/// Launches `f` with the parameters `p` (in its bytes or external).
///
/// # Safety
/// As for [`Driver::launch`]; every external slot points at a value that lives until the call
/// returns.
unsafe fn fire<D: Driver>(
    f: &D::Function,
    grid: u32,
    block: u32,
    shared_bytes: u32,
    stream: &D::Stream,
    p: Packed<'_>,
    what: &dyn Fn() -> String,
) -> Result<()> {
    let (params, slots) = (p.params, p.slots);
    let mut pointers = [std::ptr::null_mut::<std::ffi::c_void>(); POINTERS];
    if slots.len() > D::MAX_PARAMS.min(POINTERS) {
        return Err(Error::Unsupported {
            what: what(),
            reason: format!(
                "the kernel has {} parameters; at most {} are supported",
                slots.len(),
                D::MAX_PARAMS.min(POINTERS)
            ),
        });
    }
    for (p, slot) in pointers.iter_mut().zip(slots) {
        *p = match *slot {
            Slot::At(at) => params[at as usize..].as_ptr().cast_mut().cast(),
            Slot::External(ptr) => ptr.cast_mut().cast(),
        };
    }
    // SAFETY: one pointer per parameter of the kernel, each to its value (in `params` or where the
    // caller's value lives), valid during the call; the rest is the caller's contract.
    unsafe {
        D::launch(
            f,
            grid,
            block,
            shared_bytes,
            stream,
            &mut pointers[..slots.len()],
            what,
        )
    }
}

/// A planned launch, ready to be submitted.
pub(super) struct Planned<'l, D: Driver> {
    /// Describes the launch for errors.
    pub(super) what: &'l dyn Fn() -> String,
    pub(super) dk: &'l dyn DeviceKernel,
    pub(super) space: &'l Space<'l>,
    /// Where a reduction writes its value on the device, if not to the scratch.
    pub(super) dest: Option<&'l DevicePlace<'l>>,
    /// The captured Views' allocations, borrowed for the launch.
    pub(super) borrows: &'l LaunchBorrows<'l>,
    /// The compiled entries.
    pub(super) loaded: &'l Loaded<D>,
    pub(super) plan: Plan,
}

/// Submits `l` on `inst`'s queue, packing its parameters in `buffers`.
pub(super) fn submit<'q, D: Driver>(
    inst: &'q Instance<D>,
    l: &Planned<'_, D>,
    buffers: &mut Buffers,
) -> Result<Done<'q, D>> {
    let what = l.what;
    let stream = inst.queue().stream();
    let recording = inst.queue().is_recording();
    if recording && l.dest.is_none() && !matches!(l.plan.work, Work::For) {
        return Err(Error::Unsupported {
            what: what(),
            reason: "in a graph, a reduction writes its result into a rank-0 View the GPU \
                     reaches (a reduction into a host value, and a scan, return a value to the \
                     host, which a graph cannot)"
                .into(),
        });
    }
    let mut sub = begin(inst, l)?;
    // Captures too large for the parameters travel in device memory that the launches below
    // read; it frees itself after them (stream-ordered), also when an enqueue fails.
    let caps_dev = stage_captures(l, &mut sub, stream, recording, buffers)?;
    let captures = match &caps_dev {
        Some(Caps::Stream(dev)) => Captures::Pointer(dev.ptr()),
        Some(Caps::Kept(ptr)) => Captures::Pointer(*ptr),
        None => Captures::Params(l.dk),
    };
    // Everything from the first enqueue on: an error in it must still stamp the allocations
    // (kernels already enqueued may write them), so it is run here and stamped in `complete`.
    let enqueued = enqueue(l, &mut sub, stream, buffers, captures);
    complete(l, sub, stream, enqueued)
}

/// Locks `inst`'s queue for `l`'s work, orders it after other instances' work on its allocations,
/// and notes and traces it.
fn begin<'q, D: Driver>(inst: &'q Instance<D>, l: &Planned<'_, D>) -> Result<Submission<'q, D>> {
    let what = l.what;
    let mut sub = inst.queue().begin_work(what)?;
    for (a, writes) in l.borrows.held().chain(l.dest.map(|d| (d.alloc, true))) {
        sub.order_after(a, writes, what)?;
    }
    let pattern = l.plan.pattern.name();
    sub.note(pattern, l.space.label);
    sub.trace(
        "kernel",
        || match l.space.label {
            "" => pattern.to_string(),
            label => label.to_string(),
        },
        || vec![("pattern", pattern.to_string()), ("space", D::SPACE.into())],
    );
    Ok(sub)
}

/// The device copy of `l`'s captures when they go by pointer: a stream-ordered buffer, or in a
/// graph (`recording`) memory the graph keeps, written once now (every replay reads it; the
/// recording stream is capturing, so that copy is not stream-ordered).
fn stage_captures<D: Driver>(
    l: &Planned<'_, D>,
    sub: &mut Submission<'_, D>,
    stream: &Arc<D::Stream>,
    recording: bool,
    buffers: &mut Buffers,
) -> Result<Option<Caps<D>>> {
    if !l.plan.entry.by_pointer {
        return Ok(None);
    }
    let what = l.what;
    let caps = buffers.captures_alone(l.dk);
    if recording {
        let ptr = sub.scratch().device(caps.len())?;
        // SAFETY: `ptr` is new memory of `caps.len()` bytes that nothing else uses; the source is
        // this thread's buffer, read before the call returns.
        unsafe {
            D::copy_sync(
                stream.context(),
                ptr,
                caps.as_ptr() as u64,
                caps.len(),
                what,
            )?
        };
        return Ok(Some(Caps::Kept(ptr)));
    }
    let dev = D::DeviceBuffer::on_stream(stream, caps.len(), what)?;
    // SAFETY: `dev` has `caps.len()` bytes, stream-ordered before the launch; the source is this
    // thread's buffer, which a copy from pageable memory reads before the call returns.
    unsafe { stream.copy_async(dev.ptr(), caps.as_ptr() as u64, caps.len(), what)? };
    Ok(Some(Caps::Stream(dev)))
}

/// Ends the submission after its launches were `enqueued`: stamps the allocations (all of them,
/// the destination too, when the launches failed or wrote a device place), and for a value the
/// host waits for, copies it to the pinned scratch if it is not there and waits.
fn complete<'q, D: Driver>(
    l: &Planned<'_, D>,
    mut sub: Submission<'q, D>,
    stream: &D::Stream,
    enqueued: Result<Option<Value>>,
) -> Result<Done<'q, D>> {
    let what = l.what;
    let stamp_all = || {
        l.borrows
            .allocations()
            .chain(l.dest.map(|d| -> &crate::space::Allocation { d.alloc }))
    };
    let result = match enqueued {
        Ok(result) => result,
        Err(e) => {
            sub.finish(stamp_all());
            return Err(e);
        }
    };
    match result {
        None => {
            sub.finish(l.borrows.allocations());
            Ok(Done::Async)
        }
        Some(_) if l.dest.is_some() => {
            sub.finish(stamp_all());
            Ok(Done::Async)
        }
        Some(Value::Pinned(pinned)) => {
            // The join wrote the value straight into the pinned scratch: one wait, no copy.
            let sub = sub.finish_and_wait(l.borrows.allocations(), what)?;
            Ok(Done::Waited(sub, pinned))
        }
        Some(Value::Device(device_value)) => {
            let size = l.plan.entry.value_size;
            let pinned = match sub.scratch().pinned(size.max(1)) {
                Ok(pinned) => pinned,
                Err(e) => {
                    sub.finish(stamp_all());
                    return Err(e);
                }
            };
            // SAFETY: `pinned` has room for `size` bytes; nothing else uses it while the
            // submission holds the queue's lock.
            let copied = unsafe { stream.copy_async(pinned as u64, device_value, size, what) };
            if let Err(e) = copied {
                sub.finish(stamp_all());
                return Err(e);
            }
            let sub = sub.finish_and_wait(l.borrows.allocations(), what)?;
            Ok(Done::Waited(sub, pinned))
        }
    }
}

/// Where by-pointer captures are: a stream-ordered buffer freed after the launch (in the stream's
/// order, when it drops), or a graph's kept scratch.
enum Caps<D: Driver> {
    Stream(D::DeviceBuffer),
    Kept(u64),
}

/// Where the value of a reduction or scan is once its launches have run.
enum Value {
    /// At this device address (a scan's total), to be copied back.
    Device(u64),
    /// In the instance's pinned scratch, written there by the kernel (pinned host memory has the
    /// same address on the device with unified addressing).
    Pinned(*mut u8),
}

/// Enqueues the launches of `l`'s pattern on `stream`; returns where the value of a reduction or
/// scan is.
fn enqueue<D: Driver>(
    l: &Planned<'_, D>,
    sub: &mut Submission<'_, D>,
    stream: &D::Stream,
    buffers: &mut Buffers,
    captures: Captures<'_>,
) -> Result<Option<Value>> {
    let (what, plan, main) = (l.what, &l.plan, &l.loaded.main);
    let (grid, block, shared_bytes) = (plan.grid as u32, plan.block, plan.shared_bytes);
    // A league's level-1 scratch: a slice of the instance's buffer per block of the grid.
    let team_scratch = match &l.space.team {
        Some(team) => {
            let bytes = team.scratch.global_bytes(plan.grid, what)?;
            Some(sub.scratch().team(bytes)?)
        }
        None => None,
    };
    match plan.work {
        Work::For => {
            let p = buffers.main(l.space.write, team_scratch, Tail::For, captures);
            // SAFETY: the parameters follow the entry's signature (the unit was generated from
            // the same kernel, pattern and options); every View pointer in them is borrowed for
            // this launch and stamped with it by the caller, so its memory outlives the kernel (an
            // allocation waits for its stamped work before it is freed) and host access waits. A
            // league's level-1 scratch has `grid` slices of its stride, and only this stream's
            // work uses the instance's buffer (freed in its order when it grows).
            unsafe { fire::<D>(main, grid, block, shared_bytes, stream, p, what)? };
            Ok(None)
        }
        Work::Reduce { .. } => {
            // Scratch: the block counter, the partial values, the result.
            let counter = sub.scratch().counter()?;
            let base = sub.scratch().device(plan.scratch_bytes())?;
            // The value goes to the caller's device place, else straight to the pinned scratch.
            // Growing the scratch here is safe: every earlier use of it was waited for.
            let (result, value) = match l.dest {
                Some(d) => (d.ptr, Value::Device(d.ptr)),
                None => {
                    let pinned = sub.scratch().pinned(plan.entry.value_size.max(1))?;
                    (pinned as u64, Value::Pinned(pinned))
                }
            };
            let tail = Tail::Reduce {
                partials: base,
                counter,
                result,
            };
            let p = buffers.main(l.space.write, team_scratch, tail, captures);
            // SAFETY: as for `parallel_for`; `base` has room for `grid` partial values, the
            // counter is zero, and `result` has room for the value: the caller's place, or the
            // pinned scratch, which the device addresses at its host address and which nothing
            // else uses until this launch has been waited for (the submission holds the queue).
            unsafe { fire::<D>(main, grid, block, shared_bytes, stream, p, what)? };
            Ok(Some(value))
        }
        Work::Scan {
            per_block,
            totals_bytes,
        } => {
            let base = sub.scratch().device(plan.scratch_bytes())?;
            let total = base + totals_bytes as u64;
            for final_pass in [false, true] {
                let tail = Tail::Scan {
                    per_block,
                    totals: base,
                    final_pass,
                };
                let p = buffers.main(l.space.write, team_scratch, tail, captures);
                // SAFETY: as for `parallel_for`; `base` has room for `grid` totals.
                unsafe { fire::<D>(main, grid, block, shared_bytes, stream, p, what)? };
                if !final_pass {
                    let p = buffers.prefix(grid, base, total);
                    let prefix = l.loaded.extra.as_ref().ok_or_else(|| Error::Internal {
                        what: what(),
                        reason: "the compiled scan lacks its _prefix entry".into(),
                    })?;
                    // SAFETY: `_prefix(u32 n, V* totals, V* total)` with `base` holding `n`
                    // totals and `total` room for one value.
                    unsafe { fire::<D>(prefix, 1, 1, 0, stream, p, what)? };
                }
            }
            Ok(Some(Value::Device(total)))
        }
    }
}
