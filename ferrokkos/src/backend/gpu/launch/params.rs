//! Parameter packing: the bytes of a launch's kernel parameters and the slot of each, in the
//! order of the entry's signature (the iteration space's, the pattern's, then the captures or one
//! pointer to them), written with [`ParamWriter`] into buffers of the launching thread.

use std::cell::Cell;

use crate::kernel::{DeviceKernel, ParamWriter, Slot};

thread_local! {
    /// The parameter buffers of this thread's last launch, kept for the next (no allocation per
    /// launch once they have grown).
    static SPARE: Cell<Option<Storage>> = const { Cell::new(None) };
}

/// The bytes behind [`Buffers`].
#[derive(Default)]
struct Storage {
    params: Vec<u8>,
    slots: Vec<Slot>,
    caps: Vec<u8>,
}

/// One launch's parameter buffers: the parameters with the slot of each, and the captures packed
/// on their own (for captures passed through device memory). They come from the launching
/// thread's spare ones and go back there when dropped.
pub(super) struct Buffers {
    storage: Storage,
    /// The size of the kernel's captures as parameters (large arrays are counted, not copied).
    pub(super) captures_len: usize,
}

impl Buffers {
    /// The buffers of a launch of `dk`, with the size of its captures measured.
    pub(super) fn for_kernel(dk: &dyn DeviceKernel) -> Buffers {
        let mut storage = SPARE.with(Cell::take).unwrap_or_default();
        storage.params.clear();
        storage.slots.clear();
        let mut w = ParamWriter::with_slots(&mut storage.params, &mut storage.slots);
        dk.pack_captures(&mut w);
        let captures_len = w.total_len();
        Buffers {
            storage,
            captures_len,
        }
    }
}

impl Drop for Buffers {
    fn drop(&mut self) {
        let storage = std::mem::take(&mut self.storage);
        // At thread exit the spare slot may be gone: the buffers are then freed here.
        let _ = SPARE.try_with(|spare| spare.set(Some(storage)));
    }
}

/// How a launch passes its captures.
#[derive(Clone, Copy)]
pub(super) enum Captures<'a> {
    /// As parameters (captured arrays in place, not copied).
    Params(&'a dyn DeviceKernel),
    /// As one pointer to their copy in device memory (the unit's `captures_by_pointer` variant).
    Pointer(u64),
}

/// The parameters of a main entry between the iteration space's and the captures.
#[derive(Clone, Copy, Debug)]
pub(super) enum Tail {
    /// `parallel_for`: none.
    For,
    /// A fused reduction: the blocks' partials, the zeroed block counter, where the value goes.
    Reduce {
        partials: u64,
        counter: u64,
        result: u64,
    },
    /// One pass of a scan: the iterations per block, the block totals (read and written: the same
    /// address twice), and whether this is the final pass.
    Scan {
        per_block: u64,
        totals: u64,
        final_pass: bool,
    },
}

/// Packed parameters: their bytes and where each parameter is (in the bytes or external).
pub(super) struct Packed<'a> {
    pub(super) params: &'a [u8],
    pub(super) slots: &'a [Slot],
}

impl Buffers {
    /// `dk`'s captures packed on their own, as the struct that the by-pointer variant reads from
    /// device memory lays them out.
    pub(super) fn captures_alone(&mut self, dk: &dyn DeviceKernel) -> &[u8] {
        self.storage.caps.clear();
        dk.pack_captures(&mut ParamWriter::new(&mut self.storage.caps));
        &self.storage.caps
    }

    /// The parameters of a main entry: the iteration space's (`space`), for a league of teams the
    /// address of its level-1 scratch (`team_scratch`), the pattern's (`tail`), then the captures.
    pub(super) fn main(
        &mut self,
        space: &dyn Fn(&mut ParamWriter<'_>),
        team_scratch: Option<u64>,
        tail: Tail,
        captures: Captures<'_>,
    ) -> Packed<'_> {
        self.storage.params.clear();
        self.storage.slots.clear();
        let Storage { params, slots, .. } = &mut self.storage;
        let mut w = ParamWriter::with_slots(params, slots);
        space(&mut w);
        if let Some(address) = team_scratch {
            w.push(address);
        }
        match tail {
            Tail::For => {}
            Tail::Reduce {
                partials,
                counter,
                result,
            } => {
                w.push(partials);
                w.push(counter);
                w.push(result);
            }
            Tail::Scan {
                per_block,
                totals,
                final_pass,
            } => {
                w.push(per_block);
                w.push(totals);
                w.push(totals);
                w.push(final_pass);
            }
        }
        match captures {
            Captures::Pointer(ptr) => w.push(ptr),
            Captures::Params(dk) => dk.pack_captures(&mut w),
        }
        self.packed()
    }

    /// The parameters of a scan's second entry, `_prefix(u32 n, V* totals, V* total)`.
    pub(super) fn prefix(&mut self, n: u32, totals: u64, total: u64) -> Packed<'_> {
        self.storage.params.clear();
        self.storage.slots.clear();
        let Storage { params, slots, .. } = &mut self.storage;
        let mut w = ParamWriter::with_slots(params, slots);
        w.push(n);
        w.push(totals);
        w.push(total);
        self.packed()
    }

    /// The parameters packed last.
    fn packed(&self) -> Packed<'_> {
        Packed {
            params: &self.storage.params,
            slots: &self.storage.slots,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The parameters of a range of 100 iterations from 0 (two `u64`s).
    fn range(w: &mut ParamWriter<'_>) {
        w.push(0u64);
        w.push(100u64);
    }

    /// Buffers for packing by hand (no kernel).
    fn with_buffers(f: impl FnOnce(&mut Buffers)) {
        let mut b = Buffers {
            storage: Storage::default(),
            captures_len: 0,
        };
        f(&mut b);
    }

    /// The parameter at `slot` of `p` as a `u64`.
    fn value(p: &Packed<'_>, slot: usize) -> u64 {
        let Slot::At(at) = p.slots[slot] else {
            panic!("slot {slot} is external");
        };
        let at = at as usize;
        u64::from_ne_bytes(p.params[at..at + 8].try_into().unwrap())
    }

    #[test]
    fn a_reduction_packs_the_range_then_partials_counter_result_then_the_captures_pointer() {
        with_buffers(|b| {
            let tail = Tail::Reduce {
                partials: 0x1000,
                counter: 0x2000,
                result: 0x3000,
            };
            let p = b.main(&range, None, tail, Captures::Pointer(0x4000));
            assert_eq!(p.slots.len(), 6);
            let values: Vec<u64> = (0..6).map(|s| value(&p, s)).collect();
            assert_eq!(values, [0, 100, 0x1000, 0x2000, 0x3000, 0x4000]);
        });
    }

    #[test]
    fn a_scan_pass_passes_the_totals_twice_and_its_flag_last_before_the_captures() {
        with_buffers(|b| {
            let tail = Tail::Scan {
                per_block: 1000,
                totals: 0x1000,
                final_pass: true,
            };
            let p = b.main(&range, None, tail, Captures::Pointer(0x4000));
            assert_eq!(p.slots.len(), 7);
            for (slot, want) in [(0, 0), (1, 100), (2, 1000), (3, 0x1000), (4, 0x1000)] {
                assert_eq!(value(&p, slot), want, "slot {slot}");
            }
            let Slot::At(flag) = p.slots[5] else {
                panic!("the flag is in the bytes")
            };
            assert_eq!(p.params[flag as usize], 1);
            assert_eq!(value(&p, 6), 0x4000);
        });
    }

    #[test]
    fn the_prefix_entry_takes_a_u32_count_and_two_addresses() {
        with_buffers(|b| {
            let p = b.prefix(10, 0x1000, 0x1100);
            assert_eq!(p.slots.len(), 3);
            let Slot::At(n) = p.slots[0] else {
                panic!("n is in the bytes")
            };
            let n = n as usize;
            assert_eq!(
                u32::from_ne_bytes(p.params[n..n + 4].try_into().unwrap()),
                10
            );
            assert_eq!((value(&p, 1), value(&p, 2)), (0x1000, 0x1100));
        });
    }

    #[test]
    fn a_for_packs_only_the_range_before_the_captures() {
        with_buffers(|b| {
            let p = b.main(&range, None, Tail::For, Captures::Pointer(7));
            let values: Vec<u64> = (0..3).map(|s| value(&p, s)).collect();
            assert_eq!(values, [0, 100, 7]);
        });
    }

    #[test]
    fn a_league_passes_its_level_1_scratch_after_its_space() {
        with_buffers(|b| {
            let p = b.main(&range, Some(0x5000), Tail::For, Captures::Pointer(7));
            let values: Vec<u64> = (0..4).map(|s| value(&p, s)).collect();
            assert_eq!(values, [0, 100, 0x5000, 7]);
        });
    }
}
