//! The host drivers of the three patterns: split the work, run it on the participants, join the
//! partial results in a fixed order.

use std::any::Any;
use std::ops::Range;
use std::sync::Mutex;
use std::sync::atomic::AtomicU64;

use super::threads::Threads;
use super::work::{STEAL_PARTS, StealCursors, Work};
use crate::dispatch::HostExecutionSpace;
use crate::error::Result;
use crate::reducer::Reducer;

/// Describes a launch for error messages: `parallel_for "label" on Threads`.
pub(super) fn describe<'a>(
    pattern: &'a str,
    label: &'a str,
    space: &'a str,
) -> impl Fn() -> String + 'a {
    move || format!("{pattern} \"{label}\" on {space}")
}

/// At most this many per-chunk partial results exist in one launch (chunks are enlarged to fit).
const MAX_PARTIALS: u64 = 1024;

/// One partial result per participant or chunk, each written once, then read in index order.
struct Partials<V>(Vec<Mutex<Option<V>>>);

impl<V> Partials<V> {
    fn new(n: usize) -> Self {
        Partials((0..n).map(|_| Mutex::new(None)).collect())
    }

    fn put(&self, k: usize, value: V) {
        *self.0[k].lock().unwrap_or_else(|e| e.into_inner()) = Some(value);
    }

    /// The partial results that were written, in index order.
    fn into_values(self) -> impl Iterator<Item = V> {
        self.0
            .into_iter()
            .filter_map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
    }
}

/// The state of one part of a stealing reduction (see [`run_reduce`]).
enum PartState<V> {
    /// Not finished (or not claimed) yet.
    Pending,
    /// Its partial result, until its block's owner takes it.
    Done(V),
    /// Taken by its owner, or abandoned by a panic in the kernel (which the launch re-raises).
    Gone,
}

/// The partial results of the parts of a stealing reduction, `STEAL_PARTS` per block: each
/// written once by the thread that ran the part, then taken by the block's owner, in order.
struct PartResults<V>(Vec<Mutex<PartState<V>>>);

impl<V> PartResults<V> {
    fn new(n: usize) -> Self {
        PartResults((0..n).map(|_| Mutex::new(PartState::Pending)).collect())
    }

    fn set(&self, k: usize, state: PartState<V>) {
        *self.0[k].lock().unwrap_or_else(|e| e.into_inner()) = state;
    }

    /// Part `k`'s result, once its thread has finished it (`None` if a panic abandoned it).
    fn wait_take(&self, k: usize) -> Option<V> {
        let mut spins = 0u32;
        loop {
            let mut slot = self.0[k].lock().unwrap_or_else(|e| e.into_inner());
            match std::mem::replace(&mut *slot, PartState::Gone) {
                PartState::Done(v) => return Some(v),
                PartState::Gone => return None,
                PartState::Pending => *slot = PartState::Pending,
            }
            drop(slot);
            // The part is running on another thread (claimed, since every part of this block was
            // claimed before its owner waits): at most one part's time.
            if spins < 1 << 10 {
                std::hint::spin_loop();
                spins += 1;
            } else {
                std::thread::yield_now();
            }
        }
    }
}

/// Marks a part abandoned if its kernel panics, so that its owner stops waiting for it.
struct AbandonOnUnwind<'a, V> {
    parts: &'a PartResults<V>,
    k: usize,
}

impl<V> Drop for AbandonOnUnwind<'_, V> {
    fn drop(&mut self) {
        if std::thread::panicking() {
            self.parts.set(self.k, PartState::Gone);
        }
    }
}

/// Runs `body` over every item of `work`. Static blocks large enough are stolen from once a
/// participant's own block is done ([`Work::run_stealing`]); a `parallel_for` has no partial
/// results, so which thread runs an item changes nothing but the time.
pub(crate) fn run_for<S: HostExecutionSpace>(
    space: &S,
    what: &dyn Fn() -> String,
    work: Work,
    body: &(impl Fn(Range<u64>) + Sync),
) -> Result<()> {
    let next = AtomicU64::new(0);
    let cursors = work.steals(space.concurrency()).then(StealCursors::new);
    space.run_participants(what, &|part, count| match &cursors {
        Some(c) if work.steals(count) => work.run_stealing(part, count, c, body),
        _ => work.run(part, count, &next, |_, items| body(items)),
    })
}

/// Runs `body` over every item of `work`, each thread (static schedules) or chunk (dynamic) into its
/// own accumulator starting at the identity, and joins the accumulators in thread or chunk order.
///
/// On Threads with a static schedule the participants' accumulators are joined along the pool's
/// completion tree as participants finish (`pool/reduce.rs`): the dispatcher joins only its
/// children's, never a list of every thread's, and the grouping depends only on the thread count
/// (the same bits every run). Blocks large enough are cut into parts and stolen from as in
/// [`run_for`], so that a thread given the expensive rows (denormal numbers cost some processors
/// a hundred cycles an operation) or woken late does not hold up the others: each part reduces
/// into its own partial result, and a block's owner joins its parts' results in order (waiting
/// for a thief still on one), so the value depends only on where the parts are cut, not on who
/// ran them. Per-chunk accumulators (dynamic schedules, at most [`MAX_PARTIALS`]) are joined in
/// chunk order after the launch.
pub(crate) fn run_reduce<S: HostExecutionSpace, R: Reducer>(
    space: &S,
    what: &dyn Fn() -> String,
    work: Work,
    reducer: &R,
    body: &(impl Fn(Range<u64>, &mut R::Value) + Sync),
) -> Result<R::Value> {
    let per_thread = work.is_static();
    if per_thread && let Some(threads) = (space as &dyn Any).downcast_ref::<Threads>() {
        let next = AtomicU64::new(0);
        let concurrency = space.concurrency();
        let stealing = work.steals(concurrency).then(|| {
            (
                StealCursors::new(),
                PartResults::new(concurrency * STEAL_PARTS as usize),
            )
        });
        let reduced = threads.broadcast_reduce(
            what,
            &|part| {
                let mut acc = reducer.init();
                match &stealing {
                    Some((cursors, parts)) if work.steals(part.count) => {
                        work.claim_parts(part.index, part.count, cursors, |block, q, items| {
                            let k = block * STEAL_PARTS as usize + q as usize;
                            let _abandon = AbandonOnUnwind { parts, k };
                            let mut value = reducer.init();
                            if !items.is_empty() {
                                body(items, &mut value);
                            }
                            parts.set(k, PartState::Done(value));
                        });
                        // Every part of this block has been claimed; join them in order.
                        for q in 0..STEAL_PARTS as usize {
                            if let Some(value) =
                                parts.wait_take(part.index * STEAL_PARTS as usize + q)
                            {
                                reducer.join(&mut acc, &value);
                            }
                        }
                    }
                    _ => work.run(part.index, part.count, &next, |_, items| {
                        body(items, &mut acc)
                    }),
                }
                acc
            },
            &|into, from| reducer.join(into, from),
        )?;
        let mut result = reduced.unwrap_or_else(|| reducer.init());
        reducer.finalize(&mut result);
        return Ok(result);
    }
    let participants = space.concurrency();
    let work = if per_thread {
        work
    } else {
        work.with_chunk_cap(MAX_PARTIALS)
    };
    let slots = if per_thread {
        participants
    } else {
        work.chunk_count(participants) as usize
    };
    let partials = Partials::new(slots);
    let next = AtomicU64::new(0);
    space.run_participants(what, &|part, count| {
        if per_thread {
            let mut acc = reducer.init();
            work.run(part, count, &next, |_, items| body(items, &mut acc));
            partials.put(part, acc);
        } else {
            work.run(part, count, &next, |chunk, items| {
                let mut acc = reducer.init();
                body(items, &mut acc);
                partials.put(chunk as usize, acc);
            });
        }
    })?;
    let mut values = partials.into_values();
    let mut result = values.next().unwrap_or_else(|| reducer.init());
    for v in values {
        reducer.join(&mut result, &v);
    }
    reducer.finalize(&mut result);
    Ok(result)
}

/// Runs a scan: with one thread, a single final pass; otherwise a first pass computes each chunk's
/// total, the totals are combined into exclusive prefixes in chunk order, and a final pass runs each
/// chunk from its prefix. Returns the total (finalized).
pub(crate) fn run_scan<S: HostExecutionSpace, R: Reducer>(
    space: &S,
    what: &dyn Fn() -> String,
    work: Work,
    len: u64,
    reducer: &R,
    body: &(impl Fn(Range<u64>, &mut R::Value, bool) + Sync),
) -> Result<R::Value> {
    let participants = space.concurrency();
    if participants == 1 {
        let total = Partials::new(1);
        space.run_participants(what, &|_, _| {
            let mut acc = reducer.init();
            if len > 0 {
                body(0..len, &mut acc, true);
            }
            total.put(0, acc);
        })?;
        let mut total = total.into_values().next().unwrap_or_else(|| reducer.init());
        reducer.finalize(&mut total);
        return Ok(total);
    }
    let work = work.with_chunk_cap(MAX_PARTIALS);
    let chunks = work.chunk_count(participants) as usize;
    let sums = Partials::new(chunks);
    let next = AtomicU64::new(0);
    space.run_participants(what, &|part, count| {
        work.run(part, count, &next, |chunk, items| {
            let mut acc = reducer.init();
            body(items, &mut acc, false);
            sums.put(chunk as usize, acc);
        })
    })?;
    let mut prefixes = Vec::with_capacity(chunks);
    let mut running = reducer.init();
    for (k, slot) in sums.0.into_iter().enumerate() {
        prefixes.push(running.clone());
        if let Some(v) = slot.into_inner().unwrap_or_else(|e| e.into_inner()) {
            if k == 0 {
                running = v;
            } else {
                reducer.join(&mut running, &v);
            }
        }
    }
    let next = AtomicU64::new(0);
    space.run_participants(what, &|part, count| {
        work.run(part, count, &next, |chunk, items| {
            let mut acc = prefixes[chunk as usize].clone();
            body(items, &mut acc, true);
        })
    })?;
    reducer.finalize(&mut running);
    Ok(running)
}
