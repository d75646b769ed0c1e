//! The host's sorts, in safe code over slices: a stable least-significant-digit radix sort (8-bit
//! digits) for [`SortKey`]s, with values moved alongside, and a stable merge sort for a
//! comparator. Both split their phases into parts run on the threads of the sort's host instance
//! ([`Parts`]); each part writes only memory no other part touches: its own row of counts, its own
//! slices of the destination (cut from the counts with `split_at_mut`), or its own chunk.
//!
//! The radix sort, per digit: each part counts the digits of its chunk of the source; a pass in
//! which every key has the same digit is skipped; otherwise the destination is cut into one slice
//! per (digit, part), digit-major, and each part moves its chunk's keys, in order, to the front of
//! its slices, which keeps the sort stable.

use std::any::Any;
use std::cmp::Ordering;
use std::sync::{Arc, Mutex};

use super::key::{RadixBits, SortKey};
use crate::runtime::{self, State};

/// Below this many keys a sort runs on the calling thread (waking the pool costs more).
const PARALLEL_MIN: usize = 1 << 15;
/// Below this many keys the radix sort's counts cost more than a comparison sort.
const RADIX_MIN: usize = 512;

/// Where a host sort runs its parts: the threads of a host instance (through the host backend),
/// or the calling thread when no runtime is running.
pub(crate) struct Parts<'a> {
    state: Option<Arc<State>>,
    exec: &'a dyn Any,
}

impl<'a> Parts<'a> {
    /// The parts of a sort on `exec` (a host instance).
    pub(crate) fn on(exec: &'a dyn Any) -> Parts<'a> {
        Parts {
            state: runtime::state(String::new).ok(),
            exec,
        }
    }

    /// How many parts a sort of `n` elements is split into.
    pub(super) fn count(&self, n: usize) -> usize {
        if n < PARALLEL_MIN {
            return 1;
        }
        let threads = match self.state.as_deref().and_then(State::host_bulk) {
            Some(bulk) => bulk.participants(Some(self.exec)),
            None => 1,
        };
        threads.min(n / (PARALLEL_MIN / 4)).max(1)
    }

    /// Runs `part(k)` for every `k` in `0..parts`.
    fn run(&self, parts: usize, part: &(dyn Fn(usize) + Sync)) {
        match self.state.as_deref().and_then(State::host_bulk) {
            Some(bulk) if parts > 1 => bulk.run_parts(Some(self.exec), parts, part),
            _ => (0..parts).for_each(part),
        }
    }
}

/// Where a phase runs: in `p` parts on the sort's threads, or on the calling thread alone (a
/// bucket sorted by one part).
#[derive(Clone, Copy)]
pub(super) enum Run<'p, 'a> {
    Parts(&'p Parts<'a>, usize),
    Here,
}

impl Run<'_, '_> {
    /// The number of parts.
    fn p(self) -> usize {
        match self {
            Run::Parts(_, p) => p,
            Run::Here => 1,
        }
    }

    /// Runs `part(k)` for every `k` in `0..count`.
    pub(super) fn run(self, count: usize, part: &(dyn Fn(usize) + Sync)) {
        match self {
            Run::Parts(parts, _) => parts.run(count, part),
            Run::Here => (0..count).for_each(part),
        }
    }
}

/// The start of part `k` of `parts` over `n` elements.
fn cut(k: usize, parts: usize, n: usize) -> usize {
    k * n / parts
}

/// Each part's own value, handed to it once (parts run on other threads).
pub(super) struct Each<T>(Vec<Mutex<Option<T>>>);

impl<T> Each<T> {
    pub(super) fn new(items: impl IntoIterator<Item = T>) -> Each<T> {
        Each(items.into_iter().map(|t| Mutex::new(Some(t))).collect())
    }

    pub(super) fn take(&self, k: usize) -> Option<T> {
        self.0[k].lock().unwrap_or_else(|e| e.into_inner()).take()
    }
}

/// Sorts `keys` ascending by [`SortKey::ordered`], stably, moving `values` (as long as `keys`)
/// alongside; `spare` is the values' second buffer, as long (its contents are overwritten).
pub(crate) fn radix_sort<K: SortKey, V: Copy + Send + Sync>(
    parts: &Parts<'_>,
    keys: &mut [K],
    mut values: Option<(&mut [V], &mut [V])>,
) {
    let n = keys.len();
    if n < RADIX_MIN {
        return small_sort(keys, values.map(|(v, _)| v));
    }
    let run = Run::Parts(parts, parts.count(n));
    // The keys' other buffer (zeroed pages, which the first pass touches in parallel).
    let mut key_tmp = vec![K::default(); n];
    let again = values.as_mut().map(|(a, b)| (&mut **a, &mut **b));
    if super::host_buckets::by_buckets(run, keys, &mut key_tmp, again) {
        return;
    }
    lsd(
        run,
        keys,
        &mut key_tmp,
        values,
        0..<K::Bits as RadixBits>::DIGITS,
    );
}

/// The passes of digits `digits` (least significant first) over `keys`, with `key_tmp` (as long)
/// as the other buffer and `values` moving alongside; the result ends in `keys` (and the values'
/// first buffer).
pub(super) fn lsd<K: SortKey, V: Copy + Send + Sync>(
    run: Run<'_, '_>,
    keys: &mut [K],
    key_tmp: &mut [K],
    values: Option<(&mut [V], &mut [V])>,
    digits: std::ops::Range<usize>,
) {
    let (mut values, mut value_tmp) = match values {
        Some((v, spare)) => (Some(v), Some(spare)),
        None => (None, None),
    };
    let mut in_place = true;
    for d in digits {
        let (src, dst): (&[K], &mut [K]) = match in_place {
            true => (keys, key_tmp),
            false => (key_tmp, keys),
        };
        let counts = count_digits(run, src, d);
        if single_digit(&counts, src.len()) {
            continue; // every key has this digit: the pass would not move anything
        }
        let vpair = match (values.as_deref_mut(), value_tmp.as_deref_mut()) {
            (Some(v), Some(t)) => Some(match in_place {
                true => (&*v, t),
                false => (&*t, v),
            }),
            _ => None,
        };
        pass(run, src, dst, vpair, &counts, d);
        in_place = !in_place;
    }
    if !in_place {
        copy_back(run, keys, key_tmp);
        if let (Some(v), Some(t)) = (values, value_tmp) {
            copy_back(run, v, t);
        }
    }
}

/// Whether every key counted in `counts` (of `n` keys) has one digit value.
pub(super) fn single_digit(counts: &[[usize; 256]], n: usize) -> bool {
    (0..256).any(|g| counts.iter().map(|c| c[g]).sum::<usize>() == n)
}

/// One pass: the keys of `src` (and values, if any) moved stably by digit `d` to `dst`, each part
/// its chunk, `counts` the parts' counts.
pub(super) fn pass<K: SortKey, V: Copy + Send + Sync>(
    run: Run<'_, '_>,
    src: &[K],
    dst: &mut [K],
    values: Option<(&[V], &mut [V])>,
    counts: &[[usize; 256]],
    d: usize,
) {
    let (n, p) = (src.len(), run.p());
    let key_slices = Each::new(slices(dst, counts));
    match values {
        Some((vsrc, vdst)) => {
            let value_slices = Each::new(slices(vdst, counts));
            run.run(p, &|k| {
                let (lo, hi) = (cut(k, p, n), cut(k + 1, p, n));
                if let (Some(kb), Some(vb)) = (key_slices.take(k), value_slices.take(k)) {
                    scatter_pairs(&src[lo..hi], &vsrc[lo..hi], kb, vb, d);
                }
            });
        }
        None => run.run(p, &|k| {
            let (lo, hi) = (cut(k, p, n), cut(k + 1, p, n));
            if let Some(kb) = key_slices.take(k) {
                scatter_keys(&src[lo..hi], kb, d);
            }
        }),
    }
}

/// Each part's count of each value of digit `d` in its chunk of `src`.
pub(super) fn count_digits<K: SortKey>(run: Run<'_, '_>, src: &[K], d: usize) -> Vec<[usize; 256]> {
    let (n, p) = (src.len(), run.p());
    let rows: Vec<Mutex<[usize; 256]>> = (0..p).map(|_| Mutex::new([0; 256])).collect();
    run.run(p, &|k| {
        let mut c = [0usize; 256];
        for key in &src[cut(k, p, n)..cut(k + 1, p, n)] {
            c[key.ordered().digit(d)] += 1;
        }
        *rows[k].lock().unwrap_or_else(|e| e.into_inner()) = c;
    });
    rows.into_iter()
        .map(|m| m.into_inner().unwrap_or_else(|e| e.into_inner()))
        .collect()
}

/// `dst` cut into one slice per (digit, part), digit-major, each as long as that part's count of
/// that digit; returned per part, indexed by digit.
fn slices<'d, T>(mut dst: &'d mut [T], counts: &[[usize; 256]]) -> Vec<Vec<&'d mut [T]>> {
    let mut per_part: Vec<Vec<&'d mut [T]>> =
        counts.iter().map(|_| Vec::with_capacity(256)).collect();
    for g in 0..256 {
        for (k, c) in counts.iter().enumerate() {
            let (slice, rest) = std::mem::take(&mut dst).split_at_mut(c[g]);
            per_part[k].push(slice);
            dst = rest;
        }
    }
    per_part
}

/// Puts `item` at the front of `slot` and moves the slot past it.
#[inline(always)]
fn push<T>(slot: &mut &mut [T], item: T) {
    if let Some((first, rest)) = std::mem::take(slot).split_first_mut() {
        *first = item;
        *slot = rest;
    }
}

/// Moves `src`'s keys, in order, to the slices of their digit `d`.
fn scatter_keys<K: SortKey>(src: &[K], mut slots: Vec<&mut [K]>, d: usize) {
    for &key in src {
        push(&mut slots[key.ordered().digit(d)], key);
    }
}

/// Moves `src`'s keys and their values, in order, to the slices of their digit `d`.
fn scatter_pairs<K: SortKey, V: Copy>(
    src: &[K],
    vsrc: &[V],
    mut kslots: Vec<&mut [K]>,
    mut vslots: Vec<&mut [V]>,
    d: usize,
) {
    for (&key, &value) in src.iter().zip(vsrc) {
        let g = key.ordered().digit(d);
        push(&mut kslots[g], key);
        push(&mut vslots[g], value);
    }
}

/// Copies `src` into `dst` (equal lengths) in the run's parts.
pub(super) fn copy_back<T: Copy + Send + Sync>(run: Run<'_, '_>, dst: &mut [T], src: &[T]) {
    let (n, p) = (dst.len(), run.p());
    let chunk = n.div_ceil(p).max(1);
    let chunks = Each::new(dst.chunks_mut(chunk));
    let count = n.div_ceil(chunk);
    run.run(count, &|k| {
        if let Some(c) = chunks.take(k) {
            let lo = k * chunk;
            c.copy_from_slice(&src[lo..lo + c.len()]);
        }
    });
}

/// A few keys: a comparison sort on the calling thread (stable where values move).
fn small_sort<K: SortKey, V: Copy>(keys: &mut [K], values: Option<&mut [V]>) {
    match values {
        None => keys.sort_unstable_by_key(|k| k.ordered()),
        Some(values) => {
            let mut pairs: Vec<(K, V)> = keys.iter().copied().zip(values.iter().copied()).collect();
            pairs.sort_by_key(|(k, _)| k.ordered());
            for (i, (k, v)) in pairs.into_iter().enumerate() {
                keys[i] = k;
                values[i] = v;
            }
        }
    }
}

/// Sorts `data` by `cmp`, stably: each part sorts its chunk, then rounds of merges of
/// neighbouring runs (in parallel over the pairs) join them.
pub(crate) fn merge_sort<T: Copy + Send + Sync>(
    parts: &Parts<'_>,
    data: &mut [T],
    cmp: &(dyn Fn(&T, &T) -> Ordering + Sync),
) {
    let n = data.len();
    let p = parts.count(n);
    let width = n.div_ceil(p).max(1);
    {
        let chunks = Each::new(data.chunks_mut(width));
        parts.run(n.div_ceil(width), &|k| {
            if let Some(c) = chunks.take(k) {
                c.sort_by(cmp);
            }
        });
    }
    if width >= n {
        return;
    }
    let mut tmp = data.to_vec();
    let mut in_place = true;
    let mut run = width;
    while run < n {
        let (src, dst): (&[T], &mut [T]) = match in_place {
            true => (data, &mut tmp),
            false => (&tmp, data),
        };
        let pair = 2 * run;
        let outs = Each::new(dst.chunks_mut(pair));
        parts.run(n.div_ceil(pair), &|k| {
            if let Some(out) = outs.take(k) {
                let lo = k * pair;
                let whole = &src[lo..lo + out.len()];
                let (left, right) = whole.split_at(run.min(whole.len()));
                merge(left, right, out, cmp);
            }
        });
        in_place = !in_place;
        run = pair;
    }
    if !in_place {
        copy_back(Run::Parts(parts, p), data, &tmp);
    }
}

/// Merges the sorted runs `left` and `right` into `out`, the left one's first among equals.
fn merge<T: Copy>(left: &[T], right: &[T], out: &mut [T], cmp: &dyn Fn(&T, &T) -> Ordering) {
    let (mut i, mut j) = (0, 0);
    for slot in out.iter_mut() {
        let take_right = match (left.get(i), right.get(j)) {
            (Some(l), Some(r)) => cmp(r, l) == Ordering::Less,
            (None, _) => true,
            (Some(_), None) => false,
        };
        if take_right {
            if let Some(&r) = right.get(j) {
                *slot = r;
            }
            j += 1;
        } else {
            *slot = left[i];
            i += 1;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 11
    }

    /// Without a runtime the parts run on the calling thread: the radix sort agrees with a stable
    /// sort of the pairs, for sizes around the thresholds and keys with few distinct digits.
    #[test]
    fn radix_sort_is_a_stable_sort() {
        let exec = ();
        let parts = Parts::on(&exec);
        let mut seed = 7;
        for n in [0, 1, 5, RADIX_MIN - 1, RADIX_MIN, 3000, PARALLEL_MIN + 17] {
            for spread in [u64::MAX, 1000, 1] {
                let mut keys: Vec<i64> = (0..n)
                    .map(|_| (lcg(&mut seed) % spread) as i64 - (spread / 2) as i64)
                    .collect();
                let mut values: Vec<u32> = (0..n as u32).collect();
                let mut spare = vec![0u32; n];
                let mut want: Vec<(i64, u32)> =
                    keys.iter().copied().zip(values.iter().copied()).collect();
                want.sort_by_key(|p| p.0);
                radix_sort(&parts, &mut keys, Some((&mut values, &mut spare)));
                let got: Vec<(i64, u32)> = keys.into_iter().zip(values).collect();
                assert_eq!(got, want, "n {n} spread {spread}");
            }
        }
    }

    /// The merge sort agrees with the standard library's stable sort.
    #[test]
    fn merge_sort_is_a_stable_sort() {
        let exec = ();
        let parts = Parts::on(&exec);
        let mut seed = 3;
        for n in [0, 1, 2, 100, PARALLEL_MIN * 3 + 5] {
            let mut data: Vec<(u8, u32)> = (0..n as u32)
                .map(|i| ((lcg(&mut seed) % 7) as u8, i))
                .collect();
            let mut want = data.clone();
            want.sort_by_key(|p| std::cmp::Reverse(p.0));
            merge_sort(&parts, &mut data, &|a, b| b.0.cmp(&a.0));
            assert_eq!(data, want, "n {n}");
        }
    }
}
