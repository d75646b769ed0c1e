//! Reductions over a broadcast: each participant produces a partial result, and the partial results
//! are joined along the completion tree, each participant folding its children's into its own as
//! they finish, so no thread makes a pass over all of them and the join order is fixed (index order,
//! grouped by the tree, which depends only on the number of participants).

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::ops::Range;

use crossbeam_utils::CachePadded;

use super::{Busy, Part, Shared};
use crate::error::Result;

/// One partial result per participant (`None`: not produced, because the participant panicked, or
/// already joined into its parent's), each followed by a cache line of padding so that no two share
/// a line. (Padding rather than `CachePadded`'s alignment: an over-aligned allocation takes the
/// allocator's slow path, which measurably costs every reduction.)
struct Partials<V>(Vec<Padded<UnsafeCell<Option<V>>>>);

/// A value followed by [`PAD`] bytes (left uninitialized: they are never read).
#[repr(C)]
struct Padded<T> {
    value: T,
    _pad: [MaybeUninit<u8>; PAD],
}

/// Bytes between two partial results: a cache line, or two where the hardware fetches lines in pairs.
const PAD: usize = std::mem::size_of::<CachePadded<u8>>();

// SAFETY: the cells are only accessed from the closures of `Shared::broadcast_reduce`, as
// `Shared::run` schedules them: cell `i` by the thread running participant `i` (its `f`, then the
// joins into it), then, after a happens-before edge, by its parent's thread (the one join from it),
// and never again; so no two threads access a cell without synchronization. Values move between
// threads, hence `V: Send`.
unsafe impl<V: Send> Sync for Partials<V> {}

impl<V> Partials<V> {
    fn cell(&self, i: usize) -> *mut Option<V> {
        self.0[i].value.get()
    }
}

impl Shared {
    /// [`Shared::broadcast_reduce_with`] for a dispatcher that waits for held workers.
    #[cfg(test)]
    pub(crate) fn broadcast_reduce<V: Send>(
        &self,
        workers: Range<usize>,
        part: &(dyn Fn(Part) -> V + Sync),
        join: &(dyn Fn(&mut V, &V) + Sync),
    ) -> Result<Option<V>> {
        self.broadcast_reduce_with(workers, part, join, Busy::Wait)
    }

    /// Runs `part` once per participant (as [`Shared::broadcast_with`], doing `busy` when workers
    /// are held) and returns their results joined with `join(into, from)` in participant order:
    /// `None` only if no participant produced one (which needs a panic, and that is re-raised
    /// instead).
    pub(crate) fn broadcast_reduce_with<V: Send>(
        &self,
        workers: Range<usize>,
        part: &(dyn Fn(Part) -> V + Sync),
        join: &(dyn Fn(&mut V, &V) + Sync),
        busy: Busy<'_>,
    ) -> Result<Option<V>> {
        let partials = Partials(
            (0..workers.len() + 1)
                .map(|_| Padded {
                    value: UnsafeCell::new(None),
                    _pad: [MaybeUninit::uninit(); PAD],
                })
                .collect(),
        );
        let cell = |i: usize| partials.cell(i);
        let produce = |p: Part| {
            let value = part(p);
            // SAFETY: participant `p.index` runs once, and its cell is this thread's until the
            // participant finishes (see `Partials`).
            unsafe { *cell(p.index) = Some(value) };
        };
        let fold = |into: usize, from: usize| {
            // SAFETY: `Shared::run` calls this on the thread of participant `into`, which owns its
            // cell, after participant `from` (a child, so `from != into`) finished with happens-before;
            // nobody else touches either cell now (see `Partials`).
            let (into, from) = unsafe { (&mut *cell(into), (*cell(from)).take()) };
            match (into, from) {
                (Some(into), Some(from)) => join(into, &from),
                (into @ None, from) => *into = from,
                (Some(_), None) => {}
            }
        };
        self.run(workers, &produce, Some(&fold), busy)?;
        let mut cells = partials.0;
        Ok(cells[0].value.get_mut().take())
    }
}
