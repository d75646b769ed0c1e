//! One launch of a kernel on a [`Cuda`] instance (the patterns' entry points are in
//! `patterns.rs`).
//!
//! A launch checks and borrows the kernel's captured Views (they must be reachable by the GPU),
//! takes the compiled entry from the kernel cache, packs the parameters (the iteration space, the
//! pattern's buffers, the captures; captures beyond the parameter limit go through a buffer in
//! device memory that the launch allocates and frees stream-ordered), orders itself after device
//! work on other instances that uses the same allocations, enqueues, and stamps the allocations
//! with its sequence number. Only reductions and scans that return a value to the host wait.

use std::cell::RefCell;

use super::driver::{self, Stream, StreamBuffer};
use super::instance::Cuda;
use super::jit::JitKey;
use super::queue::Submission;
use crate::error::{Error, Result};
use crate::kernel::{DeviceKernel, DevicePattern, ParamWriter, Slot, UnitOptions};
use crate::policy::Iterate;
use crate::reducer::{DevicePlace, ReducerCxx};
use crate::view::kernel_access::{LaunchBorrows, Reach};

thread_local! {
    /// The parameter buffers of this thread's launches (reused: no allocation per launch once
    /// they have grown).
    static BUFFERS: RefCell<Buffers> = const {
        RefCell::new(Buffers {
            params: Vec::new(),
            slots: Vec::new(),
            caps: Vec::new(),
        })
    };
}

/// A thread's launch buffers: the parameters with the slot of each, and the captures packed on
/// their own (for captures passed through device memory).
struct Buffers {
    params: Vec<u8>,
    slots: Vec<Slot>,
    caps: Vec<u8>,
}

/// Launches `f` with the parameters `slots` (into `params` or external).
///
/// # Safety
/// As for [`driver::launch_with_pointers`]; every external slot points at a value that lives until
/// the call returns.
#[allow(clippy::too_many_arguments)]
unsafe fn fire(
    f: &driver::Function,
    grid: u32,
    block: u32,
    shared_bytes: u32,
    stream: &Stream,
    params: &[u8],
    slots: &[Slot],
    what: &dyn Fn() -> String,
) -> Result<()> {
    let mut pointers = [std::ptr::null_mut::<std::ffi::c_void>(); driver::MAX_PARAMS];
    if slots.len() > pointers.len() {
        return Err(Error::Unsupported {
            what: what(),
            reason: format!(
                "the kernel has {} parameters; at most {} are supported",
                slots.len(),
                driver::MAX_PARAMS
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
        driver::launch_with_pointers(
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

/// The grid of a `parallel_for` gives each thread about this many iterations (grid-stride), but has
/// at least [`MIN_WAVES`] times the grid that fills the device (resident blocks per multiprocessor
/// times multiprocessors). Measured with BabelStream on an H100: one thread per element is 4-6%
/// slower than a capped grid on Copy and Mul; a grid of one or two waves is 3% slower on Add and
/// Triad; about 4 iterations per thread matches the best hand-written kernel on every kernel at
/// 2^25 and 2^27 doubles. `FERROKKOS_CUDA_MAX_WAVES=w` caps the grid at `w` waves instead (0: one
/// thread per iteration), for tuning.
const ITERATIONS_PER_THREAD: u64 = 4;

/// See [`ITERATIONS_PER_THREAD`].
const MIN_WAVES: u64 = 8;

/// The `FERROKKOS_CUDA_MAX_WAVES` override (`u64::MAX` when not set).
fn max_waves() -> u64 {
    static WAVES: std::sync::OnceLock<u64> = std::sync::OnceLock::new();
    *WAVES.get_or_init(|| {
        std::env::var("FERROKKOS_CUDA_MAX_WAVES")
            .ok()
            .and_then(|v| v.trim().parse().ok())
            .unwrap_or(u64::MAX)
    })
}

/// What the grid of a launch depends on.
#[derive(Clone, Copy, Debug)]
struct GridInput {
    /// The number of iterations.
    count: u64,
    /// A `parallel_for` (grid-stride loops; reductions and scans run one wave at most).
    for_pattern: bool,
    /// The occupancy calculator's block size for the kernel.
    block: u32,
    /// The blocks of one full wave on the device.
    full_grid: u32,
    /// A tiled multidimensional `parallel_for`: points per tile (the block) and tiles (the grid).
    tiles: Option<(u32, u64)>,
    /// The `FERROKKOS_CUDA_MAX_WAVES` override (`u64::MAX`: none; 0: one thread per iteration).
    max_waves: u64,
}

/// The grid and block of a launch (pure: unit-tested below). A short range gets a block just big
/// enough, a warp multiple at most the occupancy calculator's size (launching and retiring idle
/// threads costs device time). A `parallel_for` takes enough blocks for about
/// [`ITERATIONS_PER_THREAD`] iterations per thread but at least [`MIN_WAVES`] waves; reductions
/// and scans one wave. A tiled launch runs one block per tile, of the tile's points.
fn grid_size(g: GridInput) -> (u64, u32) {
    let block = g.block.min(
        g.count
            .next_multiple_of(32)
            .max(32)
            .min(u64::from(u32::MAX)) as u32,
    );
    if let Some((points, tiles)) = g.tiles {
        return (tiles.clamp(1, u64::from(i32::MAX as u32)), points);
    }
    let wanted = g.count.div_ceil(u64::from(block)).max(1);
    let full = u64::from(g.full_grid);
    let cap = match (g.for_pattern, g.max_waves) {
        (true, u64::MAX) => {
            (full * MIN_WAVES).max(g.count.div_ceil(u64::from(block) * ITERATIONS_PER_THREAD))
        }
        (true, 0) => u64::from(i32::MAX as u32),
        (true, waves) => full * waves,
        (false, _) => full,
    };
    (wanted.min(cap).max(1), block)
}

/// Which pattern a launch runs, with the reducer of reductions and scans.
#[derive(Clone, Copy)]
pub(super) enum Kind<'a> {
    For,
    Reduce(&'a ReducerCxx),
    Scan(&'a ReducerCxx),
}

/// The iteration space of a launch: its iteration count, its walk order, and how to write its
/// launch parameters.
pub(super) struct Space<'a> {
    /// The number of iterations.
    pub(super) count: u64,
    /// The walk order of a multidimensional index.
    pub(super) iterate: Iterate,
    /// The largest extent (for 32-bit decomposition of multidimensional indices).
    pub(super) max_extent: u64,
    /// Writes the launch parameters of the iteration space.
    pub(super) write: &'a dyn Fn(&mut ParamWriter<'_>),
    /// The launch's label.
    pub(super) label: &'a str,
    /// For a tiled multidimensional `parallel_for`: the points per tile (the block size) and the
    /// number of tiles (the parameters then include the tile sizes).
    pub(super) tiles: Option<(u32, u64)>,
}

/// The result of one launch's enqueueing.
pub(super) enum Done<'a> {
    /// Enqueued; nothing to wait for.
    Async,
    /// Enqueued and waited for; the locked submission holds the result in its pinned scratch.
    Waited(Submission<'a>, *const u8),
}

/// Runs one launch of `dk` on `cuda`.
pub(super) fn launch<'q>(
    cuda: &'q Cuda,
    what: &dyn Fn() -> String,
    dk: &dyn DeviceKernel,
    kind: Kind<'_>,
    reducer_type: &'static str,
    space: Space<'_>,
    dest: Option<&DevicePlace<'_>>,
) -> Result<Done<'q>> {
    let shared = cuda.shared();
    shared.check_alive(what)?;
    // The place a reduction writes its result to, borrowed for the launch like a written View.
    let _dest_borrow = match dest {
        Some(d) => {
            d.alloc.borrow_exclusive_async()?;
            Some(ReleaseOnDrop(d.alloc))
        }
        None => None,
    };
    let borrows = LaunchBorrows::take(
        |f| dk.device_accesses(f),
        dk.device_is_unsafe(),
        Reach::Device,
        what,
    )?;
    let info = &shared.info;
    let index32 = space.count < (1 << 31) && space.max_extent < (1 << 31);
    BUFFERS.with(|cell| {
        let mut buffers = cell.borrow_mut();
        let Buffers {
            params,
            slots,
            caps,
        } = &mut *buffers;
        // The captures' size: large arrays are counted, not copied.
        params.clear();
        slots.clear();
        let caps_len = {
            let mut w = ParamWriter::with_slots(params, slots);
            dk.pack_captures(&mut w);
            w.total_len()
        };
        // The launch parameters plus the captures, or plus one pointer to them.
        let extras = match kind {
            Kind::For => 0,
            Kind::Reduce(_) => 8 * 3,
            Kind::Scan(_) => 8 + 8 + 8 + 8,
        };
        let by_pointer = 8 * 16 + extras + caps_len > info.max_param_bytes;
        let tiled = matches!(kind, Kind::For) && space.tiles.is_some();
        let options = UnitOptions {
            index32,
            captures_by_pointer: by_pointer,
            fused_join: true,
            tiled,
        };
        let (pattern, pattern_bits, extra, value_size) = match kind {
            Kind::For => (
                DevicePattern::For {
                    iterate: space.iterate,
                },
                0,
                None,
                0,
            ),
            Kind::Reduce(r) => (
                DevicePattern::Reduce {
                    iterate: space.iterate,
                    reducer: r,
                },
                1,
                None,
                r.size,
            ),
            Kind::Scan(r) => (
                DevicePattern::Scan { reducer: r },
                2,
                Some("_prefix"),
                r.size,
            ),
        };
        let variant = pattern_bits
            | (matches!(space.iterate, Iterate::Left) as u32) << 2
            | (index32 as u32) << 3
            | (by_pointer as u32) << 4
            | (tiled as u32) << 5;
        let key = JitKey {
            kernel: dk.device_key(),
            reducer: reducer_type,
            variant,
        };
        let loaded = shared.kernels.get(
            &shared.ctx,
            info,
            key,
            || dk.device_unit(&pattern, options),
            extra,
            value_size,
        )?;
        let (mut grid, block) = grid_size(GridInput {
            count: space.count,
            for_pattern: matches!(kind, Kind::For),
            block: loaded.block,
            full_grid: loaded.full_grid,
            tiles: space.tiles.filter(|_| tiled),
            max_waves: max_waves(),
        });

        let stream: &Stream = cuda.queue().stream();
        let mut sub = cuda.queue().begin();
        for a in borrows.allocations().chain(dest.map(|d| d.alloc)) {
            sub.order_after(a, what)?;
        }
        let pattern = match kind {
            Kind::For => "parallel_for",
            Kind::Reduce(_) => "parallel_reduce",
            Kind::Scan(_) => "parallel_scan",
        };
        sub.note(pattern, space.label);
        sub.trace(
            "kernel",
            || match space.label {
                "" => pattern.to_string(),
                label => label.to_string(),
            },
            || vec![("pattern", pattern.to_string()), ("space", "Cuda".into())],
        );
        // Captures too large for the parameters travel in device memory that the launches below
        // read; it frees itself after them (stream-ordered), also when an enqueue fails.
        let caps_dev = if by_pointer {
            caps.clear();
            dk.pack_captures(&mut ParamWriter::new(caps));
            let dev = StreamBuffer::new(stream, caps.len(), what)?;
            // SAFETY: `dev` has `caps.len()` bytes, stream-ordered before the launch below; the
            // source is this thread's buffer, which a copy from pageable memory reads before
            // the call returns.
            unsafe {
                driver::copy_async(dev.ptr(), caps.as_ptr() as u64, caps.len(), stream, what)?
            };
            Some(dev)
        } else {
            None
        };
        let finish_caps = |w: &mut ParamWriter<'_>| match &caps_dev {
            Some(dev) => w.push(dev.ptr()),
            None => dk.pack_captures(w),
        };
        // Everything from the first enqueue on: an error in it must still stamp the allocations
        // (kernels already enqueued may write them), so it is run here and stamped below.
        let enqueued = (|| -> Result<Option<u64>> {
            let result = match kind {
                Kind::For => {
                    params.clear();
                    slots.clear();
                    let mut w = ParamWriter::with_slots(params, slots);
                    (space.write)(&mut w);
                    finish_caps(&mut w);
                    // SAFETY: the parameters follow the entry's signature (the unit was generated from
                    // the same kernel, pattern and options); every View pointer in them is borrowed for
                    // this launch and stamped with it below, so its memory outlives the kernel (an
                    // allocation waits for its stamped work before it is freed) and host access waits.
                    unsafe {
                        fire(
                            &loaded.main,
                            grid as u32,
                            block,
                            0,
                            stream,
                            params,
                            slots,
                            what,
                        )?
                    };
                    None
                }
                Kind::Reduce(r) => {
                    // Scratch: the block counter, the partial values, the result.
                    let partials_bytes = (grid as usize * r.size).next_multiple_of(256);
                    let counter = sub.scratch().counter()?;
                    let base = sub.scratch().device(partials_bytes + r.size)?;
                    let result = dest.map_or(base + partials_bytes as u64, |d| d.ptr);
                    params.clear();
                    slots.clear();
                    let mut w = ParamWriter::with_slots(params, slots);
                    (space.write)(&mut w);
                    w.push(base);
                    w.push(counter);
                    w.push(result);
                    finish_caps(&mut w);
                    let shared_bytes = (block as usize * r.size) as u32;
                    // SAFETY: as for `parallel_for`; `base` has room for `grid` partial values, the
                    // counter is zero, and `result` has room for the value.
                    unsafe {
                        fire(
                            &loaded.main,
                            grid as u32,
                            block,
                            shared_bytes,
                            stream,
                            params,
                            slots,
                            what,
                        )?
                    };
                    Some(result)
                }
                Kind::Scan(r) => {
                    let per_block = space.count.div_ceil(grid);
                    grid = space.count.div_ceil(per_block).max(1);
                    let totals_bytes = (grid as usize * r.size).next_multiple_of(256);
                    let base = sub.scratch().device(totals_bytes + r.size)?;
                    let total = base + totals_bytes as u64;
                    let shared_bytes = (block as usize * r.size) as u32;
                    for final_pass in [false, true] {
                        params.clear();
                        slots.clear();
                        let mut w = ParamWriter::with_slots(params, slots);
                        (space.write)(&mut w);
                        w.push(per_block);
                        w.push(base);
                        w.push(base);
                        w.push(final_pass);
                        finish_caps(&mut w);
                        // SAFETY: as for `parallel_for`; `base` has room for `grid` totals.
                        unsafe {
                            fire(
                                &loaded.main,
                                grid as u32,
                                block,
                                shared_bytes,
                                stream,
                                params,
                                slots,
                                what,
                            )?
                        };
                        if !final_pass {
                            params.clear();
                            slots.clear();
                            let mut w = ParamWriter::with_slots(params, slots);
                            w.push(grid as u32);
                            w.push(base);
                            w.push(total);
                            let prefix = loaded.extra.as_ref().ok_or_else(|| missing(what))?;
                            // SAFETY: `_prefix(u32 n, V* totals, V* total)` with `base` holding `n`
                            // totals and `total` room for one value.
                            unsafe { fire(prefix, 1, 1, 0, stream, params, slots, what)? };
                        }
                    }
                    Some(total)
                }
            };
            Ok(result)
        })();
        let stamp_all = || borrows.allocations().chain(dest.map(|d| d.alloc));
        let result = match enqueued {
            Ok(result) => result,
            Err(e) => {
                sub.finish(stamp_all());
                return Err(e);
            }
        };
        match result {
            None => {
                sub.finish(borrows.allocations());
                Ok(Done::Async)
            }
            Some(_) if dest.is_some() => {
                sub.finish(borrows.allocations().chain(dest.map(|d| d.alloc)));
                Ok(Done::Async)
            }
            Some(device_value) => {
                let size = match kind {
                    Kind::Reduce(r) | Kind::Scan(r) => r.size,
                    Kind::For => 0,
                };
                let pinned = match sub.scratch().pinned(size.max(1)) {
                    Ok(pinned) => pinned,
                    Err(e) => {
                        sub.finish(stamp_all());
                        return Err(e);
                    }
                };
                // SAFETY: `pinned` has room for `size` bytes; nothing else uses it while the
                // submission holds the queue's lock.
                let copied =
                    unsafe { driver::copy_async(pinned as u64, device_value, size, stream, what) };
                if let Err(e) = copied {
                    sub.finish(stamp_all());
                    return Err(e);
                }
                let sub = sub.finish_and_wait(borrows.allocations(), what)?;
                Ok(Done::Waited(sub, pinned))
            }
        }
    })
}

/// Gives back an exclusive launch borrow.
struct ReleaseOnDrop<'a>(&'a crate::space::Allocation);

impl Drop for ReleaseOnDrop<'_> {
    fn drop(&mut self) {
        self.0.release_exclusive();
    }
}

/// The error for a unit without its second entry (never happens: both come from one unit).
pub(super) fn missing(what: &dyn Fn() -> String) -> Error {
    Error::Unsupported {
        what: what(),
        reason: "the compiled kernel lacks its second entry".into(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// An H100-like device: blocks of 1024 from the occupancy calculator, 132 SMs x 2 blocks.
    fn input(count: u64, for_pattern: bool) -> GridInput {
        GridInput {
            count,
            for_pattern,
            block: 1024,
            full_grid: 264,
            tiles: None,
            max_waves: u64::MAX,
        }
    }

    #[test]
    fn short_ranges_get_one_small_block() {
        assert_eq!(grid_size(input(1, true)), (1, 32));
        assert_eq!(grid_size(input(33, true)), (1, 64));
        assert_eq!(grid_size(input(1000, false)), (1, 1024));
    }

    #[test]
    fn long_for_ranges_give_each_thread_about_four_iterations_but_at_least_eight_waves() {
        // 2^25 iterations: 2^25 / (1024 * 4) = 8192 blocks, more than 8 waves (2112).
        assert_eq!(grid_size(input(1 << 25, true)), (8192, 1024));
        // 2^22: 1024 blocks would be under 8 waves, and 2^22 / 1024 = 4096 wanted: 2112.
        assert_eq!(grid_size(input(1 << 22, true)), (2112, 1024));
    }

    #[test]
    fn reductions_run_one_wave_at_most() {
        assert_eq!(grid_size(input(1 << 25, false)), (264, 1024));
        assert_eq!(grid_size(input(10_000, false)), (10, 1024));
    }

    #[test]
    fn the_wave_override_caps_or_lifts_the_grid() {
        let capped = GridInput {
            max_waves: 1,
            ..input(1 << 25, true)
        };
        assert_eq!(grid_size(capped), (264, 1024));
        let one_per_iteration = GridInput {
            max_waves: 0,
            ..input(1 << 25, true)
        };
        assert_eq!(grid_size(one_per_iteration), (32768, 1024));
    }

    #[test]
    fn tiled_launches_run_a_block_per_tile() {
        let tiled = GridInput {
            tiles: Some((256, 5000)),
            ..input(1 << 20, true)
        };
        assert_eq!(grid_size(tiled), (5000, 256));
        let none = GridInput {
            tiles: Some((256, 0)),
            ..input(0, true)
        };
        assert_eq!(grid_size(none), (1, 256));
    }
}
