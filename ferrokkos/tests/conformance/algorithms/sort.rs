//! `sort`, `sort_by_key` and `sort_by`: every key type in its order (floats in `total_cmp`'s, the
//! same bits on every space), stable pairs with values of any size, strided Views, sizes around the
//! GPU's tiles (4096 keys; 4608 for 4-byte keys alone; 6144 for 4-byte keys with 4-byte values) and
//! many tiles, and the errors.

use crate::spaces::{SView, download, upload};
use ferrokkos::prelude::*;
use ferrokkos::traits::{Element, HostExecutionSpace, SortKey};
use ferrokkos::{
    BinOp1D, BinOp3D, BinSort, Error, Result, kernel, sort, sort_by, sort_by_key, subview,
};

/// A fixed pseudo-random stream (splitmix64).
struct Mix(u64);

impl Mix {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }
}

/// The sizes every sort is checked at: empty, one, a few, around the GPU's tiles, several tiles.
const SIZES: [usize; 14] = [
    0, 1, 2, 100, 4095, 4096, 4097, 4607, 4608, 4609, 6143, 6144, 6145, 70_001,
];

/// A key type with its reference order and a generator of keys (full range, or `spread` values).
trait Key: SortKey + Element + Copy + PartialEq {
    fn key(bits: u64, spread: Option<u64>) -> Self;
    fn order(a: &Self, b: &Self) -> std::cmp::Ordering;
    fn same(a: &Self, b: &Self) -> bool;
}

macro_rules! int_keys {
    ($($t:ty),*) => {$(
        impl Key for $t {
            fn key(bits: u64, spread: Option<u64>) -> $t {
                match spread {
                    Some(s) => ((bits % s) as i64 - (s / 2) as i64) as $t,
                    None => bits as $t,
                }
            }
            fn order(a: &$t, b: &$t) -> std::cmp::Ordering {
                a.cmp(b)
            }
            fn same(a: &$t, b: &$t) -> bool {
                a == b
            }
        }
    )*};
}
int_keys!(u32, i32, u64, i64, usize, isize);

macro_rules! float_keys {
    ($($t:ty => $b:ty),*) => {$(
        impl Key for $t {
            fn key(bits: u64, spread: Option<u64>) -> $t {
                match spread {
                    // Few values, with both zeros, infinities and NaNs of both signs among them.
                    Some(s) => match bits % s {
                        0 => -0.0,
                        1 => 0.0,
                        2 => <$t>::INFINITY,
                        3 => -<$t>::NAN,
                        4 => <$t>::NAN,
                        5 => <$t>::NEG_INFINITY,
                        6 => <$t>::MIN_POSITIVE / 4.0,
                        k => (k as $t - (s / 2) as $t) * 0.5,
                    },
                    // Any bits: every class of float, NaN payloads included.
                    None => <$t>::from_bits(bits as $b),
                }
            }
            fn order(a: &$t, b: &$t) -> std::cmp::Ordering {
                a.total_cmp(b)
            }
            fn same(a: &$t, b: &$t) -> bool {
                a.to_bits() == b.to_bits()
            }
        }
    )*};
}
float_keys!(f32 => u32, f64 => u64);

/// `n` keys from `seed`.
fn keys_of<K: Key>(n: usize, seed: u64, spread: Option<u64>) -> Vec<K> {
    let mut m = Mix(seed);
    (0..n).map(|_| K::key(m.next(), spread)).collect()
}

/// Sorts keys of type `K` on `exec` and compares with the standard library's sort in `K`'s order.
fn check_keys<K: Key, S: Launch>(exec: &S) -> Result<()> {
    for (i, n) in SIZES.into_iter().enumerate() {
        for spread in [None, Some(11), Some(1)] {
            let data: Vec<K> = keys_of(n, 17 + i as u64, spread);
            let v = upload::<S, K>("keys", &data)?;
            sort(exec, &v)?;
            let got = download(&v)?;
            let mut want = data.clone();
            want.sort_by(K::order);
            let same = got.iter().zip(&want).all(|(a, b)| K::same(a, b));
            assert!(
                same && got.len() == n,
                "{} keys, n {n}, spread {spread:?}: first difference at {:?}",
                std::any::type_name::<K>(),
                got.iter().zip(&want).position(|(a, b)| !K::same(a, b))
            );
        }
    }
    Ok(())
}

fn every_key_type_sorts_in_its_order<S: Launch>(exec: &S) -> Result<()> {
    check_keys::<u32, S>(exec)?;
    check_keys::<i32, S>(exec)?;
    check_keys::<f32, S>(exec)?;
    check_keys::<u64, S>(exec)?;
    check_keys::<i64, S>(exec)?;
    check_keys::<f64, S>(exec)?;
    check_keys::<usize, S>(exec)?;
    check_keys::<isize, S>(exec)
}
per_space!(
    every_key_type_sorts_in_its_order,
    every_key_type_sorts_in_its_order
);

/// `sort_by_key` of keys `K` with values `V` made from each pair's original index, against a stable
/// sort of the pairs.
fn check_pairs<K: Key, V: Element + PartialEq + std::fmt::Debug, S: Launch>(
    exec: &S,
    value: impl Fn(usize) -> V,
) -> Result<()> {
    for (i, n) in SIZES.into_iter().enumerate() {
        for spread in [None, Some(7)] {
            let data: Vec<K> = keys_of(n, 99 + i as u64, spread);
            let vals: Vec<V> = (0..n).map(&value).collect();
            let (k, v) = (
                upload::<S, K>("keys", &data)?,
                upload::<S, V>("values", &vals)?,
            );
            sort_by_key(exec, &k, &v)?;
            let mut want: Vec<(K, V)> = data.iter().copied().zip(vals.iter().copied()).collect();
            want.sort_by(|a, b| K::order(&a.0, &b.0));
            let (gk, gv) = (download(&k)?, download(&v)?);
            for (j, (key, val)) in gk.iter().zip(&gv).enumerate() {
                assert!(
                    K::same(key, &want[j].0) && *val == want[j].1,
                    "{} keys with {} values, n {n}, spread {spread:?}: element {j} is \
                     ({key:?}, {val:?}), not {:?}",
                    std::any::type_name::<K>(),
                    std::any::type_name::<V>(),
                    want[j]
                );
            }
        }
    }
    Ok(())
}

fn pairs_sort_stably_with_values_of_any_size<S: Launch>(exec: &S) -> Result<()> {
    check_pairs::<u32, u32, S>(exec, |i| i as u32)?;
    check_pairs::<u32, f64, S>(exec, |i| i as f64 * 0.5)?;
    check_pairs::<i64, u64, S>(exec, |i| (i as u64) << 33)?;
    check_pairs::<f32, i32, S>(exec, |i| -(i as i32))?;
    check_pairs::<f64, u8, S>(exec, |i| i as u8)?;
    check_pairs::<u64, u16, S>(exec, |i| i as u16)?;
    check_pairs::<i32, [f32; 3], S>(exec, |i| [i as f32, 1.0, -(i as f32)])?;
    check_pairs::<u32, [u64; 2], S>(exec, |i| [i as u64, !(i as u64)])?;
    check_pairs::<u32, [u32; 2], S>(exec, |i| [i as u32, 7])
}
per_space!(
    pairs_sort_stably_with_values_of_any_size,
    pairs_sort_stably_with_values_of_any_size
);

/// Many tiles on a GPU (more than the scans' 256 ranges, some of them empty), keys and values of 8
/// bytes; then keys and values of 4 bytes, few distinct keys (long runs of equal keys across
/// tiles and ranges keep their order).
fn many_tiles_sort_as_one<S: Launch>(exec: &S) -> Result<()> {
    let n = (1 << 20) + 123;
    let data: Vec<u64> = keys_of(n, 5, None);
    let idx: Vec<u64> = (0..n as u64).collect();
    let (k, v) = (
        upload::<S, u64>("keys", &data)?,
        upload::<S, u64>("idx", &idx)?,
    );
    sort_by_key(exec, &k, &v)?;
    let (gk, gv) = (download(&k)?, download(&v)?);
    assert!(gk.windows(2).all(|w| w[0] <= w[1]), "sorted");
    assert!(gk.iter().zip(&gv).all(|(key, &i)| data[i as usize] == *key));
    let mut seen = gv.clone();
    seen.sort_unstable();
    assert!(
        seen.iter().enumerate().all(|(i, &x)| x == i as u64),
        "a permutation"
    );

    let n = (3 << 20) + 77;
    let data: Vec<u32> = keys_of(n, 6, Some(1000));
    let idx: Vec<u32> = (0..n as u32).collect();
    let (k, v) = (
        upload::<S, u32>("keys", &data)?,
        upload::<S, u32>("idx", &idx)?,
    );
    sort_by_key(exec, &k, &v)?;
    let mut want: Vec<(u32, u32)> = data.iter().copied().zip(idx).collect();
    want.sort_by_key(|p| p.0);
    let got: Vec<(u32, u32)> = download(&k)?.into_iter().zip(download(&v)?).collect();
    assert_eq!(
        got.iter().zip(&want).position(|(a, b)| a != b),
        None,
        "{n} pairs of 4 bytes with 1000 distinct keys sort stably"
    );
    Ok(())
}
per_space!(many_tiles_sort_as_one, many_tiles_sort_as_one);

/// A strided View (a column of a 2-D View) sorts in place, the other column untouched; so do
/// keys and values that are two columns of one View.
fn strided_views_sort_in_place<S: Launch>(exec: &S) -> Result<()> {
    let n = 5000;
    let m = SView::<S, i32, 2>::new("m", [n, 2])?;
    let host: Vec<i32> = keys_of::<i32>(2 * n, 3, Some(1000));
    let mirror = create_mirror_view(&m)?;
    {
        let mut g = mirror.host_mut()?;
        for i in 0..n {
            g[(i, 0)] = host[2 * i];
            g[(i, 1)] = host[2 * i + 1];
        }
    }
    deep_copy(&m, &mirror)?;
    let col0 = subview(&m, (ALL, 0))?;
    let col1 = subview(&m, (ALL, 1))?;
    sort(exec, &col0)?;
    let got = download(&m)?;
    let mut want0: Vec<i32> = (0..n).map(|i| host[2 * i]).collect();
    want0.sort();
    assert!((0..n).all(|i| got[2 * i] == want0[i] && got[2 * i + 1] == host[2 * i + 1]));
    sort_by_key(exec, &col1, &col0)?;
    let got = download(&m)?;
    let mut pairs: Vec<(i32, i32)> = (0..n).map(|i| (host[2 * i + 1], want0[i])).collect();
    pairs.sort_by_key(|p| p.0);
    assert!((0..n).all(|i| (got[2 * i + 1], got[2 * i]) == pairs[i]));
    Ok(())
}
per_space!(strided_views_sort_in_place, strided_views_sort_in_place);

/// Values of another extent, and keys and values in one allocation (contiguous rows of one View),
/// are errors that name the Views; nothing is changed.
fn sort_errors_name_the_views<S: Launch>(exec: &S) -> Result<()> {
    let k = upload::<S, u32>("k", &[3, 2, 1])?;
    let v = upload::<S, u32>("v", &[1, 2])?;
    match sort_by_key(exec, &k, &v) {
        Err(Error::ExtentMismatch {
            dst_label,
            src_label,
            ..
        }) => assert_eq!((dst_label.as_str(), src_label.as_str()), ("v", "k")),
        other => panic!("expected ExtentMismatch, got {other:?}"),
    }
    assert_eq!(download(&k)?, [3, 2, 1]);
    let rows = SView::<S, u32, 2>::new("rows", [2, 3])?;
    let (r0, r1) = (subview(&rows, (0, ALL))?, subview(&rows, (1, ALL))?);
    match sort_by_key(exec, &r0, &r1) {
        Err(Error::Borrow { label, .. }) => assert_eq!(label, "rows"),
        other => panic!("expected a borrow error, got {other:?}"),
    }
    Ok(())
}
per_space!(sort_errors_name_the_views, sort_errors_name_the_views);

/// `sort_by` with a comparator: descending, stable among equal keys, on both host spaces.
fn comparator_sorts_stably<S: HostExecutionSpace>(exec: &S) -> Result<()> {
    for n in [0, 1, 3, 1000, 100_003] {
        let data: Vec<[u32; 2]> = keys_of::<u64>(n, 8, None)
            .iter()
            .enumerate()
            .map(|(i, &b)| [(b % 5) as u32, i as u32])
            .collect();
        let v = crate::common::view_from("pairs", &data)?;
        sort_by(exec, &v, |a, b| b[0].cmp(&a[0]))?;
        let mut want = data.clone();
        want.sort_by(|a, b| b[0].cmp(&a[0]));
        assert_eq!(v.to_vec()?, want, "n {n}");
    }
    Ok(())
}

#[test]
fn sort_by_on_serial_is_stable() -> Result<()> {
    crate::common::runtime();
    comparator_sorts_stably(&Serial::default_instance()?)
}

#[test]
fn sort_by_on_threads_is_stable() -> Result<()> {
    crate::common::runtime();
    comparator_sorts_stably(&Threads::default_instance()?)
}

/// A View in device memory cannot be sorted on a host space, nor a pageable host View on Cuda:
/// errors that name the View and the space.
#[test]
#[ignore = "needs a CUDA GPU"]
fn sorts_refuse_memory_their_space_does_not_reach() -> Result<()> {
    crate::common::runtime();
    let d = View::<u32, 1, LayoutRight, ferrokkos::CudaSpace>::new("device keys", [10])?;
    let err = sort(&Threads::default_instance()?, &d)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("device keys") && err.contains("CudaSpace"),
        "{err}"
    );
    let h = View::<u32, 1>::new("host keys", [10])?;
    let err = sort(&ferrokkos::Cuda::default_instance()?, &h)
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("host keys") && err.contains("pageable"),
        "{err}"
    );
    Ok(())
}

/// Kokkos' bins of `x` under `BinOp1D(max_bins, min, max)`, computed here from its formula.
fn reference_bin_1d(x: f64, max_bins: usize, min: f64, max: f64, integer: bool) -> usize {
    let wide = max - min;
    let mul = if integer && wide <= max_bins as f64 {
        1.0
    } else {
        max_bins as f64 / wide
    };
    (mul * (x - min)) as usize
}

/// BinSort with BinOp1D: the permutation sorts by bin, keeping the keys' order within a bin; the
/// counts and offsets are the bins'; `sort` reorders values of rank 1 to 3; with
/// `sort_within_bins` each bin's keys are in order.
fn bin_sort_1d_orders_by_bin<S: Launch>(exec: &S) -> Result<()> {
    let n = 30_001;
    let keys: Vec<f64> = keys_of::<u64>(n, 4, None)
        .iter()
        .map(|&b| (b % 10_000) as f64 / 10_000.0)
        .collect();
    let k = upload::<S, f64>("x", &keys)?;
    let bs = BinSort::new(exec, &k, BinOp1D::new(64, 0.0, 1.0)?, false)?;
    let bin = |x: f64| reference_bin_1d(x, 64, 0.0, 1.0, false);
    let mut want: Vec<usize> = (0..n).collect();
    want.sort_by_key(|&i| bin(keys[i]));
    assert_eq!(download(bs.permute_vector())?, want);
    let mut counts = vec![0u32; 65];
    keys.iter().for_each(|&x| counts[bin(x)] += 1);
    assert_eq!(download(bs.bin_count())?, counts);
    let offsets: Vec<usize> = counts
        .iter()
        .scan(0usize, |s, &c| {
            let o = *s;
            *s += c as usize;
            Some(o)
        })
        .collect();
    assert_eq!(download(bs.bin_offsets())?, offsets);
    // Values of rank 1, 2 and 3 follow the permutation.
    let v1 = upload::<S, u32>("v1", &(0..n as u32).collect::<Vec<_>>())?;
    bs.sort(exec, &v1)?;
    assert!(
        download(&v1)?
            .iter()
            .zip(&want)
            .all(|(&v, &w)| v as usize == w)
    );
    let v2 = SView::<S, i64, 2>::new("v2", [n, 2])?;
    parallel_for(
        "fill",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            v2[(i, 0)] = i as i64;
            v2[(i, 1)] = -(i as i64);
        }),
    )?;
    bs.sort(exec, &v2)?;
    let got = download(&v2)?;
    assert!((0..n).all(|i| got[2 * i] == want[i] as i64 && got[2 * i + 1] == -(want[i] as i64)));
    let v3 = SView::<S, f32, 3>::new("v3", [n, 2, 2])?;
    parallel_for(
        "fill",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            for a in 0..2 {
                for b in 0..2 {
                    v3[(i, a, b)] = (i * 4 + a * 2 + b) as f32;
                }
            }
        }),
    )?;
    bs.sort(exec, &v3)?;
    let got = download(&v3)?;
    assert!((0..n).all(|i| (0..4).all(|c| got[4 * i + c] == (want[i] * 4 + c) as f32)));
    // Within bins: the keys themselves in order.
    let within = BinSort::new(exec, &k, BinOp1D::new(64, 0.0, 1.0)?, true)?;
    let perm = download(within.permute_vector())?;
    assert!(perm.windows(2).all(|w| keys[w[0]] <= keys[w[1]]));
    assert_eq!(download(within.bin_count())?, counts);
    assert!(within.sort_within_bins());
    Ok(())
}
per_space!(bin_sort_1d_orders_by_bin, bin_sort_1d_orders_by_bin);

/// BinSort with BinOp3D over points, on a range of the keys, with values sorted into another
/// range; integer keys of BinOp1D with one bin per value; keys outside the bins are an error that
/// names the first one.
fn bin_sort_3d_ranges_and_errors<S: Launch>(exec: &S) -> Result<()> {
    let n = 5000;
    let pts: Vec<f64> = keys_of::<u64>(3 * n, 6, None)
        .iter()
        .map(|&b| (b % 1000) as f64 / 100.0)
        .collect();
    let p = SView::<S, f64, 2>::new("points", [n, 3])?;
    let host = crate::common::view_from("pts", &pts)?;
    let flat = View::<f64, 2>::new("flat", [n, 3])?;
    for i in 0..n {
        for d in 0..3 {
            flat.set((i, d), host.get(3 * i + d)?)?;
        }
    }
    deep_copy(&p, &flat)?;
    let op = BinOp3D::new([4, 3, 5], [0.0; 3], [10.0; 3])?;
    let range = 100..4100;
    let bs = BinSort::with_range(exec, &p, range.clone(), op, false)?;
    let cell = |i: usize| {
        let b = |d: usize, m: usize| ((m as f64 / 10.0) * pts[3 * i + d]) as usize;
        (b(0, 4) * 3 + b(1, 3)) * 5 + b(2, 5)
    };
    let mut want: Vec<usize> = range.clone().collect();
    want.sort_by_key(|&i| cell(i));
    assert_eq!(download(bs.permute_vector())?, want);
    assert_eq!(download(bs.bin_count())?.len(), 60);
    // Values sorted into rows 0..4000.
    let v = upload::<S, u32>("v", &(0..n as u32).collect::<Vec<_>>())?;
    bs.sort_range(exec, &v, 0..4000)?;
    let got = download(&v)?;
    assert!((0..4000).all(|i| got[i] as usize == want[i] - 100));
    assert!((4000..n).all(|i| got[i] as usize == i));
    assert!(bs.sort_range(exec, &v, 0..10).is_err());

    // Integer keys, range narrower than the bins: one bin per value.
    let ik = upload::<S, i32>("ik", &[5, -2, 3, 5, -2])?;
    let ibs = BinSort::new(exec, &ik, BinOp1D::new(100, -2, 5)?, false)?;
    assert_eq!(download(ibs.permute_vector())?, [1, 4, 2, 0, 3]);
    assert_eq!(download(ibs.bin_count())?[..8], [2, 0, 0, 0, 0, 1, 0, 2]);

    // A key outside the bins (and a NaN) is an error naming the first one.
    let bad = upload::<S, f64>("bad", &[0.5, 2.0, f64::NAN, 0.1])?;
    let err = BinSort::new(exec, &bad, BinOp1D::new(8, 0.0, 1.0)?, false)
        .err()
        .expect("a key outside the bins");
    let msg = err.to_string();
    assert!(msg.contains("index 1") && msg.contains("\"bad\""), "{msg}");
    assert!(BinOp1D::new(8, 1.0, 1.0).is_err());
    assert!(BinOp3D::new([0, 1, 1], [0.0; 3], [1.0; 3]).is_err());
    assert!(BinSort::with_range(exec, &ik, 3..9, BinOp1D::new(4, -2, 5)?, false).is_err());
    Ok(())
}
per_space!(bin_sort_3d_ranges_and_errors, bin_sort_3d_ranges_and_errors);
