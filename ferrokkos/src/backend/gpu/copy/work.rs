//! What copies and fills share: the graph rule, the end of a submission, temporaries.

use crate::backend::gpu::builtin;
use crate::backend::gpu::driver::{DeviceBuffer as _, Driver};
use crate::backend::gpu::instance::Instance;
use crate::backend::gpu::queue::Submission;
use crate::error::{Error, Result};
use crate::space::Allocation;

/// Refuses, in a graph (a recording instance), a copy or fill that the host would carry out
/// or wait for (`device_only` false): only work the GPU does alone can be recorded.
pub(super) fn recordable<D: Driver>(
    gpu: &Instance<D>,
    device_only: bool,
    what: &dyn Fn() -> String,
) -> Result<()> {
    if gpu.queue().is_recording() && !device_only {
        return Err(Error::Unsupported {
            what: what(),
            reason: "a graph holds only copies and fills the GPU carries out alone: both \
                     Views in memory the GPU reaches, distinct allocations, elements of at \
                     most 32 bytes for a strided fill"
                .into(),
        });
    }
    Ok(())
}

/// How a submission ends.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum End {
    /// Numbered and stamped; the caller does not wait.
    Async,
    /// Waited for.
    Wait,
    /// Numbered, stamped and marked: an asynchronous copy into pinned host memory, which the
    /// host will read while the work queued after it runs (a halo staged for a message while
    /// the interior computes), so the host's wait for it waits for it alone.
    ToHost,
}

/// Ends a submission of `deep_copy` work as `end` says.
pub(super) fn finish<'a, D: Driver>(
    mut sub: Submission<'_, D>,
    allocs: impl Iterator<Item = &'a Allocation>,
    end: End,
    what: &dyn Fn() -> String,
) -> Result<()> {
    sub.note("deep_copy", "");
    match end {
        End::Async => {
            sub.finish(allocs);
            Ok(())
        }
        End::Wait => sub.finish_and_wait(allocs, what).map(drop),
        End::ToHost => sub.finish_marked(allocs, what).map(drop),
    }
}

/// A temporary device buffer of `bytes` on `gpu`'s stream, for one copy (freed after it, in
/// the stream's order, when dropped).
pub(super) fn temp<D: Driver>(
    gpu: &Instance<D>,
    bytes: usize,
    what: &dyn Fn() -> String,
) -> Result<D::DeviceBuffer> {
    let temp = D::DeviceBuffer::on_stream(gpu.queue().stream(), bytes.max(1), what)?;
    if temp.ptr() == 0 {
        return Err(Error::Allocation {
            label: "deep_copy temporary".into(),
            bytes: bytes as u128,
            space: D::MEMORY_SPACE,
        });
    }
    Ok(temp)
}

/// Enqueues the built-in kernel `entry` over `count` elements on `sub`'s stream, with the packed
/// parameters `packed` (each at its offset in `offsets`), in a grid-stride launch.
///
/// # Safety
///
/// The parameters follow the entry's signature, and the memory they describe is memory the device
/// reaches, borrowed for this work and ordered by `sub`.
pub(super) unsafe fn launch_builtin<D: Driver>(
    gpu: &Instance<D>,
    sub: &mut Submission<'_, D>,
    entry: &'static str,
    count: usize,
    packed: &[u8],
    offsets: &[usize],
    what: &dyn Fn() -> String,
) -> Result<()> {
    let shared = gpu.shared();
    let f = shared
        .kernels
        .builtin(&shared.ctx, &shared.info, entry, builtin::entry_source)?;
    let mut params = builtin::param_pointers(packed, offsets);
    let block = 256u32;
    let grid = count.div_ceil(block as usize).clamp(1, 1 << 20) as u32;
    // SAFETY: the caller's contract; any grid is correct for the kernels' grid-stride loops.
    unsafe { D::launch(&f, grid, block, 0, sub.stream(), params.pointers(), what) }
}
