//! The std algorithms with a comparator or a binary predicate, on every space, against the same
//! search on a Rust slice: ties, sizes across the 256-element chunks and their levels, element
//! types that are not numbers.

use crate::spaces::upload;
use ferrokkos::prelude::*;
use ferrokkos::std_algorithms::{
    adjacent_find_by, is_sorted_by, is_sorted_until_by, max_element_by, min_element_by,
    minmax_element_by,
};
use ferrokkos::{Result, kernel};

/// `n` pairs from a fixed stream (splitmix64), the first field among `spread` values.
fn pairs(n: usize, seed: u64, spread: u64) -> Vec<[i32; 2]> {
    let mut s = seed;
    (0..n)
        .map(|i| {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            [((z ^ (z >> 31)) % spread) as i32, i as i32]
        })
        .collect()
}

/// By the first field only, so equal first fields are ties that only the position breaks.
fn element_searches_keep_cpp_positions<S: Launch>(exec: &S) -> Result<()> {
    let less = kernel!(|a: [i32; 2], b: [i32; 2]| -> bool { a[0] < b[0] });
    for (k, n) in [0usize, 1, 2, 255, 256, 257, 5000, 70_000]
        .into_iter()
        .enumerate()
    {
        for spread in [3u64, 1000] {
            let data = pairs(n, k as u64 * 7 + spread, spread);
            let v = upload::<S, [i32; 2]>("v", &data)?;
            let first = data.iter().map(|p| p[0]);
            let (lo, hi) = (first.clone().min(), first.max());
            let want_min = lo.map(|m| data.iter().position(|p| p[0] == m).unwrap());
            let want_max = hi.map(|m| data.iter().position(|p| p[0] == m).unwrap());
            let want_last_max = hi.map(|m| data.iter().rposition(|p| p[0] == m).unwrap());
            assert_eq!(min_element_by(exec, &v, less)?, want_min, "n {n}");
            assert_eq!(max_element_by(exec, &v, less)?, want_max, "n {n}");
            assert_eq!(
                minmax_element_by(exec, &v, less)?,
                want_min.zip(want_last_max),
                "n {n}"
            );
        }
    }
    Ok(())
}
per_space!(
    element_searches_keep_cpp_positions,
    element_searches_keep_cpp_positions
);

/// `is_sorted_by`, `is_sorted_until_by` (descending order) and `adjacent_find_by` (a step of more
/// than 1) against the slice's.
fn order_checks_match_the_slice<S: Launch>(exec: &S) -> Result<()> {
    let greater = kernel!(|a: f64, b: f64| -> bool { a > b });
    let jump = kernel!(|a: f64, b: f64| -> bool { (b - a).abs() > 1.0 });
    for n in [0usize, 1, 2, 1000] {
        for cut in [None, Some(n / 2), Some(n.saturating_sub(1))] {
            let mut data: Vec<f64> = (0..n).map(|i| -(i as f64) * 0.5).collect();
            if let Some(c) = cut.filter(|&c| c > 0) {
                data[c] += 10.0;
            }
            let v = upload::<S, f64>("v", &data)?;
            let until = data
                .windows(2)
                .position(|w| w[1] > w[0])
                .map_or(n, |i| i + 1);
            assert_eq!(
                is_sorted_until_by(exec, &v, greater)?,
                until,
                "n {n} {cut:?}"
            );
            assert_eq!(
                is_sorted_by(exec, &v, greater)?,
                until == n,
                "n {n} {cut:?}"
            );
            let step = data.windows(2).position(|w| (w[1] - w[0]).abs() > 1.0);
            assert_eq!(adjacent_find_by(exec, &v, jump)?, step, "n {n} {cut:?}");
        }
    }
    Ok(())
}
per_space!(order_checks_match_the_slice, order_checks_match_the_slice);
