//! The host radix sort of many keys, by buckets: one parallel pass moves the keys (and values)
//! stably by their most significant digit into 256 buckets; then each bucket is sorted by the
//! remaining digits on its own, small buckets each by one part on the calling thread of that
//! part (their passes run in the cores' caches), large ones by all parts in turn. Most significant
//! digit first, then least significant within a bucket, is still a stable sort.
//!
//! Each part writes only its own buckets: the buffers are cut into one slice per bucket with
//! `split_at_mut`, and a bucket is taken by one part (`Each`).

use std::sync::atomic::{AtomicUsize, Ordering};

use super::host::{Each, Run, copy_back, count_digits, lsd, pass, single_digit};
use super::key::{RadixBits, SortKey};

/// At least this many keys per part before the sort goes by buckets.
const BUCKETS_MIN_PER_PART: usize = 1 << 16;

/// The buckets' slices of one buffer, by the buckets' sizes.
fn cut_buckets<'d, T>(mut buf: &'d mut [T], sizes: &[usize; 256]) -> Vec<&'d mut [T]> {
    let mut out = Vec::with_capacity(256);
    for &s in sizes {
        let (b, rest) = std::mem::take(&mut buf).split_at_mut(s);
        out.push(b);
        buf = rest;
    }
    out
}

/// Sorts `keys` (with `values`: the values and their spare buffer) by buckets of the top digit,
/// `key_tmp` the keys' other buffer; false (nothing done) where that does not pay: few keys per
/// part, one digit, or every key in one bucket.
pub(super) fn by_buckets<K: SortKey, V: Copy + Send + Sync>(
    run: Run<'_, '_>,
    keys: &mut [K],
    key_tmp: &mut [K],
    values: Option<(&mut [V], &mut [V])>,
) -> bool {
    let n = keys.len();
    let digits = <K::Bits as RadixBits>::DIGITS;
    let p = match run {
        Run::Parts(_, p) => p,
        Run::Here => return false,
    };
    if p < 2 || digits < 2 || n / p < BUCKETS_MIN_PER_PART {
        return false;
    }
    let top = digits - 1;
    let counts = count_digits(run, keys, top);
    if single_digit(&counts, n) {
        return false;
    }
    let mut sizes = [0usize; 256];
    for c in &counts {
        for (s, x) in sizes.iter_mut().zip(c) {
            *s += x;
        }
    }
    // The top digit: from the first buffers to the second ones.
    let (values, mut spare) = match values {
        Some((v, s)) => (Some(v), Some(s)),
        None => (None, None),
    };
    let vpair = match (values.as_deref(), spare.as_deref_mut()) {
        (Some(v), Some(s)) => Some((v, s)),
        _ => None,
    };
    pass(run, keys, key_tmp, vpair, &counts, top);
    // Each bucket: back to the first buffers, then sorted by the lower digits there.
    let kb = cut_buckets(keys, &sizes);
    let tb = cut_buckets(key_tmp, &sizes);
    let vb: Vec<Option<(&mut [V], &mut [V])>> = match (values, spare) {
        (Some(v), Some(s)) => cut_buckets(v, &sizes)
            .into_iter()
            .zip(cut_buckets(s, &sizes))
            .map(Some)
            .collect(),
        _ => (0..256).map(|_| None).collect(),
    };
    let large = n / p;
    let mut small = Vec::with_capacity(256);
    for ((k, t), v) in kb.into_iter().zip(tb).zip(vb) {
        if k.len() > large {
            sort_bucket(run, k, t, v, top);
        } else if !k.is_empty() {
            small.push((k, t, v));
        }
    }
    let count = small.len();
    let small = Each::new(small);
    let next = AtomicUsize::new(0);
    run.run(p, &|_| {
        loop {
            let b = next.fetch_add(1, Ordering::Relaxed);
            if b >= count {
                break;
            }
            if let Some((k, t, v)) = small.take(b) {
                sort_bucket(Run::Here, k, t, v, top);
            }
        }
    });
    true
}

/// One bucket, which the top-digit pass left in `tmp` (and the values in their spare buffer):
/// copied back to `keys` (and the values' buffer), then sorted there by the digits below `top`.
fn sort_bucket<K: SortKey, V: Copy + Send + Sync>(
    run: Run<'_, '_>,
    keys: &mut [K],
    tmp: &mut [K],
    values: Option<(&mut [V], &mut [V])>,
    top: usize,
) {
    copy_back(run, keys, tmp);
    let values = values.map(|(v, s)| {
        copy_back(run, v, s);
        (v, s)
    });
    lsd(run, keys, tmp, values, 0..top);
}

#[cfg(test)]
mod tests {
    use super::super::host::Parts;
    use super::*;

    fn lcg(seed: &mut u64) -> u64 {
        *seed = seed
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        *seed >> 11
    }

    /// Four parts (run one after another without a runtime): uniform keys, keys in a few buckets,
    /// one bucket larger than a part's share, and keys in one bucket (not sorted by buckets).
    #[test]
    fn sorting_by_buckets_is_a_stable_sort() {
        let exec = ();
        let parts = Parts::on(&exec);
        let run = Run::Parts(&parts, 4);
        let n = 4 * BUCKETS_MIN_PER_PART + 123;
        let mut seed = 11;
        type Shape = (&'static str, fn(u64) -> u64);
        let shapes: [Shape; 4] = [
            ("uniform", |r| r),
            ("few buckets", |r| (r % 5) << 61 | (r >> 20)),
            ("one large bucket", |r| if r % 3 == 0 { r } else { r >> 8 }),
            ("one bucket", |r| r >> 8),
        ];
        for (name, shape) in shapes {
            let mut keys: Vec<u64> = (0..n).map(|_| shape(lcg(&mut seed) << 11)).collect();
            let mut values: Vec<u32> = (0..n as u32).collect();
            let mut spare = vec![0u32; n];
            let mut want: Vec<(u64, u32)> =
                keys.iter().copied().zip(values.iter().copied()).collect();
            want.sort_by_key(|p| p.0);
            let mut tmp = vec![0u64; n];
            let done = by_buckets(run, &mut keys, &mut tmp, Some((&mut values, &mut spare)));
            assert_eq!(done, name != "one bucket", "{name}");
            if done {
                let got: Vec<(u64, u32)> =
                    keys.iter().copied().zip(values.iter().copied()).collect();
                assert!(got == want, "{name}: not the stable order");
            }
            // Keys alone.
            let mut alone: Vec<u64> = want.iter().rev().map(|p| p.0).collect();
            if by_buckets::<u64, u32>(run, &mut alone, &mut tmp, None) {
                assert!(alone.windows(2).all(|w| w[0] <= w[1]), "{name}: keys alone");
            }
        }
    }
}
