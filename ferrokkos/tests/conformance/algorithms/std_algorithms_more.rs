//! The rest of the std algorithms on every space, each against a Rust slice: in-place setters,
//! copies and moves, comparisons and searches, partitions, in-place compactions, and the folds and
//! scans with an operation of the user's (chunked: sizes around the chunk of 256 and its square).

use crate::spaces::{SView, download, upload};
use ferrokkos::prelude::*;
use ferrokkos::std_algorithms as sa;
use ferrokkos::{Result, kernel};

/// A fixed pseudo-random stream (splitmix64).
fn ints(seed: u64, n: usize, spread: i64) -> Vec<i64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            ((z ^ (z >> 31)) % (2 * spread as u64)) as i64 - spread
        })
        .collect()
}

const SIZES: [usize; 6] = [0, 1, 7, 257, 4097, 70_001];

fn setters_and_moves_match_rust<S: Launch>(exec: &S) -> Result<()> {
    for n in SIZES {
        let h = ints(n as u64, n, 40);
        let v = upload::<S, i64>("v", &h)?;
        let w = SView::<S, i64, 1>::new("w", [n + 3])?;
        // Setters.
        assert_eq!(sa::fill_n(exec, &w, n / 2, 9)?, n / 2);
        let c = 5i64;
        sa::generate(exec, &w, kernel!(|| -> i64 { c * 2 }))?;
        assert_eq!(download(&w)?, vec![10; n + 3]);
        assert_eq!(
            sa::generate_n(exec, &w, 2.min(n), kernel!(|| -> i64 { -1 }))?,
            2.min(n)
        );
        let u = upload::<S, i64>("u", &h)?;
        sa::for_each(exec, &u, kernel!(|x: i64| -> i64 { x * x - c }))?;
        let want: Vec<i64> = h.iter().map(|x| x * x - 5).collect();
        assert_eq!(download(&u)?, want);
        assert_eq!(
            sa::for_each_n(exec, &u, n / 3, kernel!(|x: i64| -> i64 { -x }))?,
            n / 3
        );
        let want: Vec<i64> = (0..n)
            .map(|i| if i < n / 3 { -want[i] } else { want[i] })
            .collect();
        assert_eq!(download(&u)?, want);
        // Copies.
        assert_eq!(sa::copy_n(exec, &v, n / 2, &w)?, n / 2);
        assert_eq!(&download(&w)?[..n / 2], &h[..n / 2]);
        assert_eq!(sa::copy_backward(exec, &v, &w)?, 3);
        assert_eq!(&download(&w)?[3..], &h[..]);
        assert_eq!(sa::replace_copy(exec, &v, &w, 7, 70)?, n);
        let got = download(&w)?;
        assert!((0..n).all(|i| got[i] == if h[i] == 7 { 70 } else { h[i] }));
        let neg = kernel!(|x: i64| -> bool { x < 0 });
        sa::replace_copy_if(exec, &v, &w, neg, 0)?;
        let got = download(&w)?;
        assert!((0..n).all(|i| got[i] == h[i].max(0)));
        // Reordering.
        sa::reverse_copy(exec, &v, &w)?;
        let mut rev = h.clone();
        rev.reverse();
        assert_eq!(&download(&w)?[..n], &rev[..]);
        for k in [0, 1, n / 3, n] {
            if k > n {
                continue;
            }
            let mut want = h.clone();
            want.rotate_left(k);
            sa::rotate_copy(exec, &v, k, &w)?;
            assert_eq!(&download(&w)?[..n], &want[..], "rotate_copy n={n} k={k}");
            let r = upload::<S, i64>("r", &h)?;
            assert_eq!(sa::rotate(exec, &r, k)?, n - k);
            assert_eq!(download(&r)?, want, "rotate n={n} k={k}");
            let r = upload::<S, i64>("r", &h)?;
            let end = sa::shift_left(exec, &r, k)?;
            assert_eq!(end, if k == 0 { n } else { n.saturating_sub(k) });
            assert_eq!(&download(&r)?[..end], &h[k.min(n)..][..end]);
            let r = upload::<S, i64>("r", &h)?;
            let begin = sa::shift_right(exec, &r, k)?;
            assert_eq!(begin, k.min(n));
            assert_eq!(&download(&r)?[begin..], &h[..n - begin]);
        }
        if n > 1 {
            let r = upload::<S, i64>("r", &h)?;
            sa::iter_swap(exec, &r, 0, n - 1)?;
            let mut want = h.clone();
            want.swap(0, n - 1);
            assert_eq!(download(&r)?, want);
            assert!(sa::iter_swap(exec, &r, 0, n).is_err());
        }
    }
    Ok(())
}

per_space!(setters_and_moves_match_rust, setters_and_moves_match_rust);

fn comparisons_and_searches_match_rust<S: Launch>(exec: &S) -> Result<()> {
    for n in SIZES {
        let h = ints(7 + n as u64, n, 3);
        let v = upload::<S, i64>("v", &h)?;
        // Mismatch and lexicographical order against a changed copy and a prefix.
        for (k, delta) in [(n / 2, 1i64), (n / 3, -1)] {
            let mut g = h.clone();
            if n > 0 {
                g[k] += delta;
            }
            let w = upload::<S, i64>("w", &g)?;
            let want = h.iter().zip(&g).position(|(a, b)| a != b);
            assert_eq!(sa::mismatch(exec, &v, &w)?, want);
            assert_eq!(sa::lexicographical_compare(exec, &v, &w)?, h < g);
            assert_eq!(sa::lexicographical_compare(exec, &w, &v)?, g < h);
        }
        let prefix = upload::<S, i64>("prefix", &h[..n / 2])?;
        let want = if n / 2 < n { Some(n / 2) } else { None };
        assert_eq!(sa::mismatch(exec, &prefix, &v)?, want);
        assert_eq!(
            sa::lexicographical_compare(exec, &prefix, &v)?,
            h[..n / 2] < h[..]
        );
        assert_eq!(
            sa::adjacent_find(exec, &v)?,
            h.windows(2).position(|w| w[0] == w[1])
        );
        let set = upload::<S, i64>("set", &[2, -3])?;
        assert_eq!(
            sa::find_first_of(exec, &v, &set)?,
            h.iter().position(|&x| x == 2 || x == -3)
        );
        for m in [0usize, 1, 2, 3] {
            let pat: Vec<i64> = h.iter().skip(n / 2).take(m).copied().collect();
            let p = upload::<S, i64>("p", &pat)?;
            let first = if pat.is_empty() {
                Some(0)
            } else {
                h.windows(pat.len()).position(|w| w == &pat[..])
            };
            let last = if pat.is_empty() {
                None
            } else {
                h.windows(pat.len()).rposition(|w| w == &pat[..])
            };
            assert_eq!(sa::search(exec, &v, &p)?, first, "n={n} m={m}");
            assert_eq!(sa::find_end(exec, &v, &p)?, last, "n={n} m={m}");
            let run = vec![-1i64; m];
            let want = if m == 0 {
                Some(0)
            } else {
                h.windows(m).position(|w| w == &run[..])
            };
            assert_eq!(sa::search_n(exec, &v, m, -1)?, want, "n={n} m={m}");
        }
        // Order and partitions.
        let until = (1..n).find(|&i| h[i] < h[i - 1]).unwrap_or(n);
        assert_eq!(sa::is_sorted_until(exec, &v)?, until);
        let low = kernel!(|x: i64| -> bool { x < 1 });
        let mut parted: Vec<i64> = h.iter().copied().filter(|&x| x < 1).collect();
        let count_low = parted.len();
        parted.extend(h.iter().copied().filter(|&x| x >= 1));
        let p = upload::<S, i64>("parted", &parted)?;
        assert!(sa::is_partitioned(exec, &p, low)?);
        assert_eq!(sa::partition_point(exec, &p, low)?, count_low);
        let want_parted = h.iter().skip_while(|&&x| x < 1).all(|&x| x >= 1);
        assert_eq!(sa::is_partitioned(exec, &v, low)?, want_parted);
        let (yes, no) = (
            SView::<S, i64, 1>::new("yes", [n])?,
            SView::<S, i64, 1>::new("no", [n])?,
        );
        let (a, b) = sa::partition_copy(exec, &v, &yes, &no, low)?;
        let (want_yes, want_no): (Vec<i64>, Vec<i64>) = h.iter().partition(|&&x| x < 1);
        assert_eq!(&download(&yes)?[..a], &want_yes[..]);
        assert_eq!(&download(&no)?[..b], &want_no[..]);
        // In-place compactions.
        let r = upload::<S, i64>("r", &h)?;
        let end = sa::remove(exec, &r, 0)?;
        let want: Vec<i64> = h.iter().copied().filter(|&x| x != 0).collect();
        assert_eq!(&download(&r)?[..end], &want[..]);
        let r = upload::<S, i64>("r", &h)?;
        let end = sa::remove_if(exec, &r, low)?;
        let want: Vec<i64> = h.iter().copied().filter(|&x| x >= 1).collect();
        assert_eq!(&download(&r)?[..end], &want[..]);
        let end = sa::remove_copy(exec, &v, &yes, 2)?;
        let want: Vec<i64> = h.iter().copied().filter(|&x| x != 2).collect();
        assert_eq!(&download(&yes)?[..end], &want[..]);
        let r = upload::<S, i64>("r", &h)?;
        let end = sa::unique(exec, &r)?;
        let mut want = h.clone();
        want.dedup();
        assert_eq!(&download(&r)?[..end], &want[..]);
    }
    Ok(())
}

per_space!(
    comparisons_and_searches_match_rust,
    comparisons_and_searches_match_rust
);

fn folds_and_scans_with_an_operation_match_rust<S: Launch>(exec: &S) -> Result<()> {
    for n in [0usize, 1, 255, 256, 257, 65_536, 65_537, 200_003] {
        let h: Vec<u64> = ints(3 + n as u64, n, 1000)
            .into_iter()
            .map(|x| (x + 1000) as u64)
            .collect();
        let v = upload::<S, u64>("v", &h)?;
        let max = kernel!(|a: u64, b: u64| -> u64 { a.max(b) });
        assert_eq!(
            sa::reduce_with(exec, &v, 5, max)?,
            h.iter().copied().fold(5, u64::max)
        );
        let xor = kernel!(|a: u64, b: u64| -> u64 { a ^ b });
        let bit = kernel!(|x: u64| -> u64 { 1u64 << (x % 64) });
        assert_eq!(
            sa::transform_reduce_with(exec, &v, 0, xor, bit)?,
            h.iter().fold(0, |a, &x| a ^ (1u64 << (x % 64)))
        );
        let d = SView::<S, u64, 1>::new("d", [n])?;
        assert_eq!(sa::inclusive_scan_with(exec, &v, &d, max)?, n);
        let inc: Vec<u64> = h
            .iter()
            .scan(0u64, |s, &x| {
                *s = (*s).max(x);
                Some(*s)
            })
            .collect();
        assert_eq!(download(&d)?, inc, "n={n}");
        // A non-commuting associative operation: the scan keeps the order.
        let second = kernel!(|a: u64, b: u64| -> u64 { a.wrapping_mul(31).wrapping_add(b) });
        sa::exclusive_scan_with(exec, &v, &d, 7, second)?;
        let mut acc = 7u64;
        let mut want = Vec::with_capacity(n);
        for &x in &h {
            want.push(acc);
            acc = acc.wrapping_mul(31).wrapping_add(x);
        }
        // `a * 31 + b` is not associative, so only the sequential chunk order reproduces it.
        if n <= 256 {
            assert_eq!(download(&d)?, want, "n={n}");
        }
        let min = kernel!(|a: u64, b: u64| -> u64 { a.min(b) });
        sa::exclusive_scan_with(exec, &v, &d, u64::MAX, min)?;
        let mut acc = u64::MAX;
        let want: Vec<u64> = h
            .iter()
            .map(|&x| {
                let r = acc;
                acc = acc.min(x);
                r
            })
            .collect();
        assert_eq!(download(&d)?, want, "n={n}");
        // By key, with an operation.
        let keys_h: Vec<u32> = (0..n).map(|i| (i / 3 % 5) as u32).collect();
        let keys = upload::<S, u32>("keys", &keys_h)?;
        let (ok, ov) = (
            SView::<S, u32, 1>::new("ok", [n])?,
            SView::<S, u64, 1>::new("ov", [n])?,
        );
        let runs = sa::reduce_by_key_with(exec, &keys, &v, &ok, &ov, max)?;
        let mut want_k = Vec::new();
        let mut want_v: Vec<u64> = Vec::new();
        let mut scanned = Vec::with_capacity(n);
        for i in 0..n {
            if i == 0 || keys_h[i] != keys_h[i - 1] {
                want_k.push(keys_h[i]);
                want_v.push(h[i]);
            } else {
                let last = want_v.last_mut().unwrap();
                *last = (*last).max(h[i]);
            }
            scanned.push(*want_v.last().unwrap());
        }
        assert_eq!(runs, want_k.len());
        assert_eq!(&download(&ok)?[..runs], &want_k[..]);
        assert_eq!(&download(&ov)?[..runs], &want_v[..]);
        sa::inclusive_scan_by_key_with(exec, &keys, &v, &d, max)?;
        assert_eq!(download(&d)?, scanned);
    }
    Ok(())
}

per_space!(
    folds_and_scans_with_an_operation_match_rust,
    folds_and_scans_with_an_operation_match_rust
);
