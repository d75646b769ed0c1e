//! Which workers a dispatcher holds: one bit per worker, 64 to a word, touched by dispatchers only (the
//! workers never read them, so a dispatcher that launches again and again keeps these lines in its
//! own cache).
//!
//! A dispatcher takes the bits of its range in ascending order, a run of free bits at a time, and
//! takes a bit only while it holds every lower bit of its range. This is lock ordering (each bit a
//! lock, taken lowest first), so dispatchers of overlapping ranges take turns and never deadlock;
//! dispatchers of disjoint ranges never wait for each other. Uncontended, a range within one word
//! costs one compare-exchange.

use std::ops::Range;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

/// Bits per word.
const BITS: usize = 64;

/// How often a waiting dispatcher asks whether to give up.
const ASK_EVERY: Duration = Duration::from_millis(1);

/// The mask of bits `lo..hi` (`lo < hi <= 64`).
fn mask(lo: usize, hi: usize) -> u64 {
    let width = hi - lo;
    let ones = if width == BITS {
        u64::MAX
    } else {
        (1u64 << width) - 1
    };
    ones << lo
}

/// Calls `f(word, bits)` for every word that `range` touches, in ascending order.
fn for_each_word(range: Range<usize>, mut f: impl FnMut(usize, u64)) {
    let mut next = range.start;
    while next < range.end {
        let (word, lo) = (next / BITS, next % BITS);
        let hi = (range.end - word * BITS).min(BITS);
        f(word, mask(lo, hi));
        next = word * BITS + hi;
    }
}

/// The reservation bits of every worker.
pub(super) struct Reservations {
    words: Box<[CachePadded<AtomicU64>]>,
}

impl Reservations {
    pub(super) fn new(workers: usize) -> Self {
        Reservations {
            words: (0..workers.div_ceil(BITS))
                .map(|_| CachePadded::new(AtomicU64::new(0)))
                .collect(),
        }
    }

    /// Takes the workers `range`, waiting while other dispatchers hold some of them. Acquire: the
    /// work of the previous holder of each worker happens before what follows.
    pub(super) fn acquire(&self, range: Range<usize>) {
        let taken = self.acquire_unless(range, &|_| false);
        debug_assert!(taken);
    }

    /// [`Reservations::acquire`], except that while some of the workers are held, `give_up(waited)`
    /// is asked (when the wait begins, then about every millisecond); once it says so, the workers
    /// taken so far are given back and `false` is returned.
    #[inline]
    pub(super) fn acquire_unless(
        &self,
        range: Range<usize>,
        give_up: &dyn Fn(Duration) -> bool,
    ) -> bool {
        // The common case: a range within one word, all free: one compare-exchange.
        let (index, lo) = (range.start / BITS, range.start % BITS);
        if range.end - index * BITS <= BITS && lo < range.end - index * BITS {
            let word = &self.words[index];
            let wanted = mask(lo, range.end - index * BITS);
            let current = word.load(Ordering::Relaxed);
            if current & wanted == 0
                && word
                    .compare_exchange(
                        current,
                        current | wanted,
                        Ordering::Acquire,
                        Ordering::Relaxed,
                    )
                    .is_ok()
            {
                return true;
            }
        }
        self.acquire_slow(range, give_up)
    }

    /// [`Reservations::acquire_unless`] past its first try.
    #[inline(never)]
    fn acquire_slow(&self, range: Range<usize>, give_up: &dyn Fn(Duration) -> bool) -> bool {
        let mut spins = 0u32;
        // When the wait began, and when `give_up` was last asked.
        let mut waiting: Option<(Instant, Option<Instant>)> = None;
        let mut next = range.start;
        while next < range.end {
            let (index, lo) = (next / BITS, next % BITS);
            let hi = (range.end - index * BITS).min(BITS);
            let word = &self.words[index];
            let wanted = mask(lo, hi);
            let mut missing = wanted;
            while missing != 0 {
                let current = word.load(Ordering::Relaxed);
                // The lowest bits still missing that are free, up to the first one that is not: take
                // them together (all lower bits of the range are ours already).
                let lowest = missing.trailing_zeros();
                let free_run = ((!current & missing) >> lowest).trailing_ones();
                if free_run == 0 {
                    let now = Instant::now();
                    let (since, asked) = waiting.get_or_insert((now, None));
                    if asked.is_none_or(|t| now - t >= ASK_EVERY) {
                        *asked = Some(now);
                        if give_up(now - *since) {
                            word.fetch_and(!(wanted & !missing), Ordering::Release);
                            self.release(range.start..next);
                            return false;
                        }
                    }
                    backoff(&mut spins);
                    continue;
                }
                let take = mask(lowest as usize, (lowest + free_run) as usize);
                if word
                    .compare_exchange_weak(
                        current,
                        current | take,
                        Ordering::Acquire,
                        Ordering::Relaxed,
                    )
                    .is_ok()
                {
                    missing &= !take;
                    spins = 0;
                }
            }
            next = index * BITS + hi;
        }
        true
    }

    /// Gives the workers `range` back. Release: pairs with [`Reservations::acquire`].
    pub(super) fn release(&self, range: Range<usize>) {
        for_each_word(range, |word, bits| {
            self.words[word].fetch_and(!bits, Ordering::Release);
        });
    }
}

/// Spins a while, then yields the processor (the holder may be descheduled).
pub(super) fn backoff(spins: &mut u32) {
    if *spins < 1 << 10 {
        std::hint::spin_loop();
        *spins += 1;
    } else {
        std::thread::yield_now();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicUsize;

    #[test]
    fn ranges_split_into_word_masks() {
        let mut seen = Vec::new();
        for_each_word(60..130, |w, m| seen.push((w, m)));
        assert_eq!(
            seen,
            vec![(0, 0xF << 60), (1, u64::MAX), (2, 0b11)],
            "bits 60..64, 64..128, 128..130"
        );
        let mut seen = Vec::new();
        for_each_word(3..5, |w, m| seen.push((w, m)));
        assert_eq!(seen, vec![(0, 0b11000)]);
    }

    #[test]
    fn a_reserved_range_is_free_again_after_release() {
        let r = Reservations::new(130);
        r.acquire(10..129);
        assert_eq!(r.words[0].load(Ordering::Relaxed), !0u64 << 10);
        assert_eq!(r.words[1].load(Ordering::Relaxed), u64::MAX);
        assert_eq!(r.words[2].load(Ordering::Relaxed), 1);
        r.acquire(0..10);
        r.release(10..129);
        r.release(0..10);
        assert!(r.words.iter().all(|w| w.load(Ordering::Relaxed) == 0));
    }

    #[test]
    fn giving_up_returns_the_workers_taken_so_far() {
        let r = Reservations::new(130);
        r.acquire(100..101);
        let asked = std::cell::Cell::new(0);
        let taken = r.acquire_unless(10..129, &|waited| {
            assert_eq!(
                waited,
                std::time::Duration::ZERO,
                "asked when the wait begins"
            );
            asked.set(asked.get() + 1);
            true
        });
        assert!(!taken);
        assert_eq!(asked.get(), 1);
        assert_eq!(
            r.words[0].load(Ordering::Relaxed),
            0,
            "bits 10..64 given back"
        );
        assert_eq!(
            r.words[1].load(Ordering::Relaxed),
            1 << (100 - 64),
            "only the holder's bit"
        );
        assert_eq!(r.words[2].load(Ordering::Relaxed), 0);
        // Not giving up: it waits for the holder.
        let r = std::sync::Arc::new(r);
        let holder = std::sync::Arc::clone(&r);
        let t = std::thread::spawn(move || {
            std::thread::sleep(std::time::Duration::from_millis(20));
            holder.release(100..101);
        });
        assert!(r.acquire_unless(10..129, &|_| false));
        t.join().unwrap();
        r.release(10..129);
        assert!(r.words.iter().all(|w| w.load(Ordering::Relaxed) == 0));
    }

    /// Dispatchers of overlapping ranges (across word boundaries) hold their ranges one at a time and
    /// never deadlock.
    #[test]
    fn overlapping_holders_exclude_each_other_without_deadlock() {
        let r = Arc::new(Reservations::new(140));
        let owners: Arc<Vec<AtomicUsize>> =
            Arc::new((0..140).map(|_| AtomicUsize::new(0)).collect());
        let ranges = [0..70, 60..140, 5..6, 63..65, 100..140, 0..140];
        let threads: Vec<_> = ranges
            .iter()
            .cloned()
            .enumerate()
            .map(|(t, range)| {
                let (r, owners) = (Arc::clone(&r), Arc::clone(&owners));
                std::thread::spawn(move || {
                    for _ in 0..300 {
                        r.acquire(range.clone());
                        for o in &owners[range.clone()] {
                            assert_eq!(o.swap(t + 1, Ordering::Relaxed), 0, "two holders");
                        }
                        std::hint::spin_loop();
                        for o in &owners[range.clone()] {
                            assert_eq!(o.swap(0, Ordering::Relaxed), t + 1);
                        }
                        r.release(range.clone());
                    }
                })
            })
            .collect();
        for t in threads {
            t.join().unwrap();
        }
        assert!(r.words.iter().all(|w| w.load(Ordering::Relaxed) == 0));
    }
}
