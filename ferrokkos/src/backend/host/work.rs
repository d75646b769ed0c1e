//! How the iterations (or tiles) of one launch are cut into chunks and handed to host threads.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::policy::Schedule;

/// Chunks per participant that a dynamic schedule aims for when no chunk size is given.
const DYNAMIC_CHUNKS_PER_THREAD: u64 = 16;

/// A launch with the static schedule (a `parallel_for`, or a reduction on Threads) cuts each
/// participant's block into this many parts, which the owner takes in order and others steal once
/// their own block is done, so that one slow (descheduled, late-waking, or given the expensive
/// part of the data) thread holds up the launch by one part instead of its whole block.
pub(crate) const STEAL_PARTS: u64 = 8;

/// The most participants whose blocks can be stolen from (the cursors live on the dispatcher's
/// stack); a larger launch keeps plain blocks.
const STEAL_MAX_PARTICIPANTS: usize = 64;

/// The per-block cursors of a stealing launch: `cursor[p]` counts the parts of participant `p`'s
/// block that have been claimed (by `p` or a thief). Each part is claimed by exactly one
/// `fetch_add`, so every item runs once.
pub(crate) struct StealCursors([crossbeam_utils::CachePadded<AtomicU64>; STEAL_MAX_PARTICIPANTS]);

impl StealCursors {
    pub(crate) fn new() -> Self {
        StealCursors(std::array::from_fn(|_| Default::default()))
    }
}

/// The split of `len` items among the participants of one launch.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Work {
    len: u64,
    kind: Kind,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    /// One contiguous block per participant (static schedule, no chunk size).
    Blocks,
    /// Chunks of this size dealt round-robin (static schedule with a chunk size).
    RoundRobin(u64),
    /// Chunks of this size taken from a shared counter (dynamic schedule).
    Dynamic(u64),
}

impl Work {
    /// The split of `len` items for `participants` threads under `schedule` and `chunk`.
    pub(crate) fn new(
        len: u64,
        schedule: Schedule,
        chunk: Option<u64>,
        participants: usize,
    ) -> Work {
        let kind = match (schedule, chunk) {
            (Schedule::Static, None) => Kind::Blocks,
            (Schedule::Static, Some(c)) => Kind::RoundRobin(c.max(1)),
            (Schedule::Dynamic, Some(c)) => Kind::Dynamic(c.max(1)),
            (Schedule::Dynamic, None) => Kind::Dynamic(
                (len / (participants as u64 * DYNAMIC_CHUNKS_PER_THREAD).max(1)).max(1),
            ),
        };
        Work { len, kind }
    }

    /// Enlarges the chunks so that there are at most `cap` of them (for per-chunk partial results).
    pub(crate) fn with_chunk_cap(mut self, cap: u64) -> Work {
        let min = self.len.div_ceil(cap.max(1)).max(1);
        self.kind = match self.kind {
            Kind::Blocks => Kind::Blocks,
            Kind::RoundRobin(c) => Kind::RoundRobin(c.max(min)),
            Kind::Dynamic(c) => Kind::Dynamic(c.max(min)),
        };
        self
    }

    /// Whether each participant's share is fixed before the launch (so per-participant partial
    /// results, joined in participant order, are deterministic).
    pub(crate) fn is_static(&self) -> bool {
        !matches!(self.kind, Kind::Dynamic(_))
    }

    /// The number of chunks with `participants` threads.
    pub(crate) fn chunk_count(&self, participants: usize) -> u64 {
        match self.kind {
            Kind::Blocks => participants as u64,
            Kind::RoundRobin(c) | Kind::Dynamic(c) => self.len.div_ceil(c),
        }
    }

    /// The items of chunk `c` with `participants` threads.
    #[inline]
    pub(crate) fn chunk(&self, c: u64, participants: usize) -> Range<u64> {
        match self.kind {
            Kind::Blocks => {
                let p = participants as u128;
                let at = |k: u64| (k as u128 * self.len as u128 / p) as u64;
                at(c)..at(c + 1)
            }
            Kind::RoundRobin(size) | Kind::Dynamic(size) => {
                let lo = c.saturating_mul(size).min(self.len);
                lo..lo.saturating_add(size).min(self.len)
            }
        }
    }

    /// Whether a `parallel_for` over this work with `count` participants steals (static blocks
    /// large enough to cut into [`STEAL_PARTS`] parts each).
    pub(crate) fn steals(&self, count: usize) -> bool {
        self.kind == Kind::Blocks
            && count > 1
            && count <= STEAL_MAX_PARTICIPANTS
            && self.len / count as u64 >= STEAL_PARTS
    }

    /// Runs participant `part` of `count` of a stealing `parallel_for` ([`Work::steals`]): the parts
    /// of its own block in order, then any part of the other blocks still unclaimed. Calls `f` with
    /// the items of each part it claims; every item of the work is claimed exactly once over all
    /// participants.
    #[inline]
    pub(crate) fn run_stealing(
        &self,
        part: usize,
        count: usize,
        cursors: &StealCursors,
        mut f: impl FnMut(Range<u64>),
    ) {
        self.claim_parts(part, count, cursors, |_, _, items| {
            if !items.is_empty() {
                f(items)
            }
        })
    }

    /// As [`Work::run_stealing`], calling `f(block, q, items)` for every part it claims (`q` in
    /// `0..STEAL_PARTS` of participant `block`'s block; `items` may be empty): every part of every
    /// block is claimed exactly once over all participants.
    #[inline]
    pub(crate) fn claim_parts(
        &self,
        part: usize,
        count: usize,
        cursors: &StealCursors,
        mut f: impl FnMut(usize, u64, Range<u64>),
    ) {
        debug_assert!(self.steals(count));
        for k in 0..count {
            let owner = (part + k) % count;
            let block = self.chunk(owner as u64, count);
            let len = block.end - block.start;
            loop {
                let q = cursors.0[owner].fetch_add(1, Ordering::Relaxed);
                if q >= STEAL_PARTS {
                    break;
                }
                let at =
                    |q: u64| block.start + (q as u128 * len as u128 / STEAL_PARTS as u128) as u64;
                f(owner, q, at(q)..at(q + 1));
            }
        }
    }

    /// Calls `f(chunk index, items)` for every chunk participant `part` of `count` runs. `next` is the
    /// launch's shared chunk counter (used by the dynamic schedule), starting at 0.
    #[inline]
    pub(crate) fn run(
        &self,
        part: usize,
        count: usize,
        next: &AtomicU64,
        mut f: impl FnMut(u64, Range<u64>),
    ) {
        match self.kind {
            Kind::Blocks => {
                let r = self.chunk(part as u64, count);
                if !r.is_empty() {
                    f(part as u64, r);
                }
            }
            Kind::RoundRobin(_) => {
                let n = self.chunk_count(count);
                let mut c = part as u64;
                while c < n {
                    f(c, self.chunk(c, count));
                    c += count as u64;
                }
            }
            Kind::Dynamic(_) => {
                let n = self.chunk_count(count);
                loop {
                    let c = next.fetch_add(1, Ordering::Relaxed);
                    if c >= n {
                        break;
                    }
                    f(c, self.chunk(c, count));
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn covered(work: Work, count: usize) -> Vec<(usize, u64, Range<u64>)> {
        let next = AtomicU64::new(0);
        let mut out = Vec::new();
        for part in 0..count {
            work.run(part, count, &next, |c, r| out.push((part, c, r)));
        }
        out
    }

    #[test]
    fn blocks_are_contiguous_and_cover_everything() {
        let w = Work::new(10, Schedule::Static, None, 3);
        let parts = covered(w, 3);
        assert_eq!(parts, vec![(0, 0, 0..3), (1, 1, 3..6), (2, 2, 6..10)]);
    }

    #[test]
    fn stealing_covers_every_item_once_in_any_order_of_participants() {
        for (len, count) in [
            (1000u64, 4usize),
            (37, 3),
            (8 * 5, 5),
            (1 << 20, 16),
            (1001, 7),
        ] {
            let w = Work::new(len, Schedule::Static, None, count);
            assert!(w.steals(count), "{len} items, {count} threads");
            // Participants in turn order, and the last one first (it steals every other block).
            for order in [
                (0..count).collect::<Vec<_>>(),
                (0..count).rev().collect::<Vec<_>>(),
            ] {
                let cursors = StealCursors::new();
                let mut seen = vec![0u32; len as usize];
                for &p in &order {
                    w.run_stealing(p, count, &cursors, |r| {
                        r.for_each(|i| seen[i as usize] += 1)
                    });
                }
                assert!(seen.iter().all(|&n| n == 1), "{len} items, {count} threads");
            }
        }
    }

    #[test]
    fn small_or_chunked_launches_do_not_steal() {
        assert!(!Work::new(7, Schedule::Static, None, 2).steals(2));
        assert!(!Work::new(1 << 20, Schedule::Static, None, 1).steals(1));
        assert!(!Work::new(1 << 20, Schedule::Static, Some(64), 4).steals(4));
        assert!(!Work::new(1 << 20, Schedule::Dynamic, None, 4).steals(4));
        assert!(!Work::new(1 << 20, Schedule::Static, None, 65).steals(65));
    }

    #[test]
    fn round_robin_deals_chunks_in_turn() {
        let w = Work::new(10, Schedule::Static, Some(3), 2);
        let parts = covered(w, 2);
        assert_eq!(
            parts,
            vec![(0, 0, 0..3), (0, 2, 6..9), (1, 1, 3..6), (1, 3, 9..10)]
        );
    }

    #[test]
    fn dynamic_chunks_are_claimed_once() {
        let w = Work::new(100, Schedule::Dynamic, Some(7), 4);
        let mut items: Vec<u64> = covered(w, 4).into_iter().flat_map(|(_, _, r)| r).collect();
        items.sort();
        assert_eq!(items, (0..100).collect::<Vec<_>>());
    }

    #[test]
    fn chunk_cap_bounds_the_chunk_count() {
        let w = Work::new(1 << 40, Schedule::Dynamic, Some(1), 2).with_chunk_cap(1000);
        assert!(w.chunk_count(2) <= 1000);
        let w = Work::new(1 << 40, Schedule::Static, None, 2).with_chunk_cap(1000);
        assert_eq!(w.chunk_count(2), 2);
    }

    #[test]
    fn huge_blocks_do_not_overflow() {
        let w = Work::new(u64::MAX, Schedule::Static, None, 3);
        assert_eq!(w.chunk(2, 3).end, u64::MAX);
        let w = Work::new(u64::MAX, Schedule::Dynamic, Some(u64::MAX / 2), 3);
        assert_eq!(w.chunk(2, 3), u64::MAX - 1..u64::MAX);
    }
}
