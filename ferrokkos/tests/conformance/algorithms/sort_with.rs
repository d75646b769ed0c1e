//! `sort_with` and `sort_by_key_with`: the merge sort whose comparator is a device closure, on
//! every space: stable against the standard library's `sort_by`, sizes that are and are not powers
//! of two, strided Views, element types that are not sort keys, and the errors (a comparator that
//! is not a strict weak order loses no element).

use crate::spaces::{SView, download, upload};
use ferrokkos::prelude::*;
use ferrokkos::{Error, Result, kernel, sort_by_key_with, sort_with, subview};

/// A fixed pseudo-random stream (splitmix64).
fn stream(seed: u64, n: usize) -> Vec<u64> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        })
        .collect()
}

const SIZES: [usize; 10] = [0, 1, 2, 3, 7, 64, 100, 1000, 4097, 70_001];

/// Descending by absolute value, stable among equal magnitudes (`-3` and `3` keep their order).
fn sorts_by_a_device_comparator<S: Launch>(exec: &S) -> Result<()> {
    for (i, n) in SIZES.into_iter().enumerate() {
        let data: Vec<i32> = stream(i as u64, n)
            .iter()
            .map(|&b| (b % 41) as i32 - 20)
            .collect();
        let v = upload::<S, i32>("v", &data)?;
        sort_with(
            exec,
            &v,
            kernel!(|a: i32, b: i32| -> bool { a.abs() > b.abs() }),
        )?;
        let mut want = data.clone();
        want.sort_by_key(|a| std::cmp::Reverse(a.abs()));
        assert_eq!(download(&v)?, want, "n {n}");
    }
    Ok(())
}
per_space!(sorts_by_a_device_comparator, sorts_by_a_device_comparator);

/// Floats ascending by `<` (no NaNs), and arrays by their second field, descending.
fn sorts_floats_and_arrays<S: Launch>(exec: &S) -> Result<()> {
    let n = 20_011;
    let data: Vec<f64> = stream(5, n)
        .iter()
        .map(|&b| (b >> 11) as f64 / (1u64 << 53) as f64 - 0.5)
        .collect();
    let v = upload::<S, f64>("x", &data)?;
    sort_with(exec, &v, kernel!(|a: f64, b: f64| -> bool { a < b }))?;
    let mut want = data.clone();
    want.sort_by(f64::total_cmp);
    assert_eq!(download(&v)?, want);

    let data: Vec<[u32; 2]> = stream(6, n)
        .iter()
        .enumerate()
        .map(|(i, &b)| [i as u32, (b % 100) as u32])
        .collect();
    let v = upload::<S, [u32; 2]>("pairs", &data)?;
    sort_with(
        exec,
        &v,
        kernel!(|a: [u32; 2], b: [u32; 2]| -> bool { a[1] > b[1] }),
    )?;
    let mut want = data.clone();
    want.sort_by(|a, b| b[1].cmp(&a[1]));
    assert_eq!(download(&v)?, want);
    Ok(())
}
per_space!(sorts_floats_and_arrays, sorts_floats_and_arrays);

/// Values move with their keys, stably; keys and values that are columns of two strided Views.
fn moves_values_with_their_keys<S: Launch>(exec: &S) -> Result<()> {
    for (i, n) in SIZES.into_iter().enumerate() {
        let keys: Vec<u64> = stream(40 + i as u64, n).iter().map(|b| b % 13).collect();
        let ids: Vec<u32> = (0..n as u32).collect();
        let (k, v) = (
            upload::<S, u64>("keys", &keys)?,
            upload::<S, u32>("ids", &ids)?,
        );
        sort_by_key_with(exec, &k, &v, kernel!(|a: u64, b: u64| -> bool { a < b }))?;
        let mut want: Vec<(u64, u32)> = keys.iter().copied().zip(ids).collect();
        want.sort_by_key(|p| p.0);
        let got: Vec<(u64, u32)> = download(&k)?.into_iter().zip(download(&v)?).collect();
        assert_eq!(got, want, "n {n}");
    }

    let n = 3001;
    let m = SView::<S, i64, 2>::new("m", [n, 2])?;
    let w = SView::<S, f32, 2>::new("w", [n, 3])?;
    parallel_for(
        "fill",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            m[(i, 0)] = ((i * 7919) % 1000) as i64;
            m[(i, 1)] = -1;
            w[(i, 0)] = 0.5;
            w[(i, 1)] = i as f32;
            w[(i, 2)] = 0.25;
        }),
    )?;
    let (col_k, col_v) = (subview(&m, (ALL, 0))?, subview(&w, (ALL, 1))?);
    sort_by_key_with(
        exec,
        &col_k,
        &col_v,
        kernel!(|a: i64, b: i64| -> bool { a > b }),
    )?;
    let (gm, gw) = (download(&m)?, download(&w)?);
    let mut want: Vec<(i64, f32)> = (0..n)
        .map(|i| (((i * 7919) % 1000) as i64, i as f32))
        .collect();
    want.sort_by_key(|p| std::cmp::Reverse(p.0));
    for (i, &(key, val)) in want.iter().enumerate() {
        assert_eq!((gm[2 * i], gw[3 * i + 1]), (key, val), "row {i}");
        assert_eq!((gm[2 * i + 1], gw[3 * i], gw[3 * i + 2]), (-1, 0.5, 0.25));
    }
    Ok(())
}
per_space!(moves_values_with_their_keys, moves_values_with_their_keys);

/// A comparator that is not a strict weak order (`a < b` and `b < a` both true for some pairs) is
/// an error naming the View; the View keeps every element, each once, and values stay with keys.
/// Mismatched extents and keys and values in one allocation are errors that change nothing.
fn sort_with_errors_lose_nothing<S: Launch>(exec: &S) -> Result<()> {
    // Long enough that a merge of two runs is cut into chunks on every space.
    let n = 20_000;
    let keys: Vec<u32> = stream(9, n).iter().map(|&b| b as u32).collect();
    let ids: Vec<u32> = (0..n as u32).collect();
    let (k, v) = (
        upload::<S, u32>("erratic", &keys)?,
        upload::<S, u32>("ids", &ids)?,
    );
    let erratic = kernel!(|a: u32, b: u32| -> bool { (a ^ b) % 3 == 1 });
    match sort_by_key_with(exec, &k, &v, erratic) {
        Err(Error::InvalidArgument { reason, .. }) => {
            assert!(
                reason.contains("\"erratic\"") && reason.contains("strict weak order"),
                "{reason}"
            );
        }
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
    let (gk, gv) = (download(&k)?, download(&v)?);
    assert!(gk.iter().zip(&gv).all(|(&key, &i)| keys[i as usize] == key));
    let mut seen = gv.clone();
    seen.sort_unstable();
    assert_eq!(seen, ids, "a permutation");

    let short = upload::<S, u32>("short", &[1, 2])?;
    let less = kernel!(|a: u32, b: u32| -> bool { a < b });
    match sort_by_key_with(exec, &k, &short, less) {
        Err(Error::ExtentMismatch {
            dst_label,
            src_label,
            ..
        }) => assert_eq!(
            (dst_label.as_str(), src_label.as_str()),
            ("short", "erratic")
        ),
        other => panic!("expected ExtentMismatch, got {other:?}"),
    }
    let rows = upload::<S, u32>("rows", &[5, 4, 3, 2, 1, 0])?;
    let (r0, r1) = (subview(&rows, (0..3,))?, subview(&rows, (3..6,))?);
    match sort_by_key_with(exec, &r0, &r1, less) {
        Err(Error::InvalidArgument { reason, .. }) => assert!(reason.contains("rows"), "{reason}"),
        other => panic!("expected InvalidArgument, got {other:?}"),
    }
    assert_eq!(download(&rows)?, [5, 4, 3, 2, 1, 0]);
    Ok(())
}
per_space!(sort_with_errors_lose_nothing, sort_with_errors_lose_nothing);
