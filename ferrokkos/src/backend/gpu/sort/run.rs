//! [`GpuSort`]: the checks, the borrows and the launches of one GPU sort.

use std::any::Any;
use std::marker::PhantomData;
use std::sync::Arc;

use super::plan::{Carry, Plan};
use super::source::{self, THREADS};
use crate::backend::gpu::builtin;
use crate::backend::gpu::copy::Borrows;
use crate::backend::gpu::copy::plan::PointerKind;
use crate::backend::gpu::driver::{Driver, Function as _, Stream as _};
use crate::backend::gpu::instance::Instance;
use crate::backend::gpu::queue::Submission;
use crate::error::{Error, Result};
use crate::space::{DeviceSort, KeyKind, SortKeys, SortPart};

/// A GPU backend's sorts (its memory spaces' `MemorySpace::device_sort`).
pub(crate) struct GpuSort<D: Driver>(PhantomData<fn() -> D>);

impl<D: Driver> GpuSort<D> {
    /// The sorts of the backend of driver `D`.
    pub(crate) const fn new() -> GpuSort<D> {
        GpuSort(PhantomData)
    }
}

impl<D: Driver> DeviceSort for GpuSort<D> {
    fn sort(
        &self,
        exec: &dyn Any,
        keys: &SortKeys<'_>,
        values: Option<&SortPart<'_>>,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        let gpu = exec
            .downcast_ref::<Arc<Instance<D>>>()
            .ok_or_else(|| Error::Unsupported {
                what: what(),
                reason: format!(
                    "View \"{}\" is in {} memory, which this execution space does not sort: \
                     sort it on a {} instance",
                    keys.part.label,
                    D::MEMORY_SPACE,
                    D::MEMORY_SPACE
                ),
            })?;
        gpu.shared().check_alive(what)?;
        if gpu.queue().is_recording() {
            return Err(Error::Unsupported {
                what: what(),
                reason: "a graph cannot hold a sort (its temporaries are allocated when it is \
                         queued); sort outside the graph"
                    .into(),
            });
        }
        reached::<D>(&keys.part, what)?;
        if let Some(v) = values {
            reached::<D>(v, what)?;
        }
        let plan = Plan::new(
            keys.count,
            keys.part.size,
            values.map(|v| (v.size, v.align)),
        )?;
        let mut uses = vec![(keys.part.alloc, true)];
        if let Some(v) = values {
            uses.push((v.alloc, true));
        }
        let borrows = Borrows::take_each(&uses)?;
        let mut sub = gpu.queue().begin_work(what)?;
        borrows.order(&mut sub, what)?;
        sub.trace("kernel", what, || vec![("keys", plan.n.to_string())]);
        // The instance's own, kept for its next sort (only its stream's work uses it).
        let temp = sub.scratch().sort(plan.bytes)?;
        let launches = Launches {
            gpu,
            plan: &plan,
            temp,
            kind: keys.kind,
        };
        launches.enqueue(&mut sub, keys, values, what)?;
        sub.note("sort", keys.part.label);
        sub.finish(borrows.allocs());
        Ok(())
    }
}

/// Refuses memory the device cannot reach (pageable host memory).
fn reached<D: Driver>(part: &SortPart<'_>, what: &dyn Fn() -> String) -> Result<()> {
    match D::pointer_kind(part.ptr)? {
        PointerKind::Pageable => Err(Error::Unsupported {
            what: what(),
            reason: format!(
                "View \"{}\" is in pageable host memory, which the GPU cannot sort; copy it into \
                 a space the GPU reaches",
                part.label
            ),
        }),
        _ => Ok(()),
    }
}

/// The launches of one sort, over its temporaries at `temp`.
struct Launches<'a, D: Driver> {
    gpu: &'a Instance<D>,
    plan: &'a Plan,
    temp: u64,
    kind: KeyKind,
}

impl<D: Driver> Launches<'_, D> {
    /// Sorts digit by digit, and gathers the values that travelled by index.
    fn enqueue(
        &self,
        sub: &mut Submission<'_, D>,
        keys: &SortKeys<'_>,
        values: Option<&SortPart<'_>>,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        let p = self.plan;
        let key_ptr = keys.part.ptr as u64;
        let n = p.n as u64;
        let value_ptr = match (p.carry, values) {
            (Carry::Direct(_), Some(v)) => v.ptr as u64,
            (Carry::Indexed { .. }, Some(_)) => {
                let index = self.temp + p.index as u64;
                self.launch(sub, source::IOTA, grid_for(p.n), 0, &[index, n], what)?;
                index
            }
            _ => 0,
        };
        self.passes(sub, key_ptr, value_ptr, what)?;
        if let (Carry::Indexed { word, words }, Some(v)) = (p.carry, values) {
            let copy = self.temp + p.value_copy as u64;
            // SAFETY: the copy of `n` elements fits its place in `temp`; the values are borrowed
            // and ordered by `sub`.
            unsafe {
                sub.stream()
                    .copy_async(copy, v.ptr as u64, p.n * v.size, what)?
            };
            let args = [
                v.ptr as u64,
                copy,
                self.temp + p.index as u64,
                n,
                words as u64,
            ];
            self.launch(
                sub,
                source::gather_entry(word),
                grid_for(p.n),
                0,
                &args,
                what,
            )?;
        }
        Ok(())
    }

    /// Per digit: `up`, the two scans and `down`, the keys (and values) between the caller's
    /// buffers and the others.
    fn passes(
        &self,
        sub: &mut Submission<'_, D>,
        key_ptr: u64,
        value_ptr: u64,
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        let p = self.plan;
        let entries = source::entries_for(p.key_bytes, p.sweep_value_bytes(), p.count_bytes)
            .ok_or_else(|| Error::Internal {
                what: what(),
                reason: format!("no sort kernels for {p:?}"),
            })?;
        let kind = match self.kind {
            KeyKind::Unsigned => 0,
            KeyKind::Signed => 1,
            KeyKind::Float => 2,
        };
        let (n, tiles) = (p.n as u64, p.tiles as u64);
        let down_shared = source::down_dynamic_shared(p.key_bytes, p.sweep_value_bytes());
        let (blocks, range_blocks) = (p.blocks as u32, p.ranges as u32);
        let counts = self.temp + p.counts as u64;
        let sums = self.temp + p.sums as u64;
        let (mut kin, mut kout) = (key_ptr, self.temp + p.alt_keys as u64);
        let (mut vin, mut vout) = match value_ptr {
            0 => (0, 0),
            v => (v, self.temp + p.alt_values as u64),
        };
        for pass in 0..p.passes as u64 {
            let shift = 8 * pass;
            let up = [kin, n, kind, shift, counts, tiles];
            self.launch(sub, entries.up, blocks, 0, &up, what)?;
            let scan = [counts, tiles, sums];
            self.launch(sub, entries.scan_ranges, range_blocks, 0, &scan, what)?;
            self.launch(sub, entries.scan_tiles, range_blocks, 0, &scan, what)?;
            let down = [kin, kout, vin, vout, n, kind, shift, counts, tiles];
            self.launch(sub, entries.down, blocks, down_shared, &down, what)?;
            (kin, kout) = (kout, kin);
            (vin, vout) = (vout, vin);
        }
        Ok(())
    }

    /// Launches `entry` (loaded on first use) with `grid` blocks of [`THREADS`], `dynamic_shared`
    /// bytes of dynamic shared memory (opted into where it is more than 0), and the 64-bit
    /// parameters `args`.
    fn launch(
        &self,
        sub: &mut Submission<'_, D>,
        entry: &'static str,
        grid: u32,
        dynamic_shared: usize,
        args: &[u64],
        what: &dyn Fn() -> String,
    ) -> Result<()> {
        let shared = self.gpu.shared();
        let f = shared
            .kernels
            .builtin(&shared.ctx, &shared.info, entry, source::entry_source)?;
        if dynamic_shared > 0 {
            f.set_max_dynamic_shared(dynamic_shared, what)?;
        }
        let packed: Vec<u8> = args.iter().flat_map(|a| a.to_ne_bytes()).collect();
        let offsets: Vec<usize> = (0..args.len()).map(|k| 8 * k).collect();
        let mut params = builtin::param_pointers(&packed, &offsets);
        // SAFETY: every entry of the sort takes `args.len()` 64-bit parameters, the pointers
        // among them address the borrowed Views (memory the device reaches, checked) or the
        // sort's temporaries, laid out by the plan for `n` keys; `sub` orders the launch after
        // the Views' pending work. `up` and `down` walk the tiles over any grid, the scans take a
        // block per range of the plan (each reads every range's sums, and reads and writes its own
        // tiles' counts); the others loop over any grid. `down` takes the dynamic shared memory
        // its entry was compiled for, opted into above.
        unsafe {
            D::launch(
                &f,
                grid.max(1),
                THREADS as u32,
                dynamic_shared as u32,
                sub.stream(),
                params.pointers(),
                what,
            )
        }
    }
}

/// The grid of a grid-stride loop over `n` elements.
fn grid_for(n: usize) -> u32 {
    n.div_ceil(THREADS).clamp(1, 1 << 16) as u32
}
