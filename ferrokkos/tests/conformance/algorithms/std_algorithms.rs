//! The std algorithms on every space, each against the same algorithm on a Rust slice: sizes from
//! empty to many blocks, values with ties and runs, strided Views, operations that capture values,
//! and the errors (a destination too short, shared allocations).

use crate::spaces::{SView, download, upload};
use ferrokkos::prelude::*;
use ferrokkos::std_algorithms as sa;
use ferrokkos::{Error, Result, kernel, subview};

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

    /// `n` integers in `-spread..spread`.
    fn ints(&mut self, n: usize, spread: i64) -> Vec<i64> {
        (0..n)
            .map(|_| (self.next() % (2 * spread as u64)) as i64 - spread)
            .collect()
    }
}

/// Empty, one, a few, around a GPU block, many blocks.
const SIZES: [usize; 5] = [0, 1, 7, 1025, 100_003];

/// The folds: sums, counts, predicates, equality.
fn folds_match_rust<S: Launch>(exec: &S) -> Result<()> {
    let mut mix = Mix(1);
    for n in SIZES {
        let h = mix.ints(n, 50);
        let f: Vec<f64> = h.iter().map(|&x| x as f64 * 0.5).collect();
        let v = upload::<S, i64>("v", &h)?;
        let x = upload::<S, f64>("x", &f)?;
        assert_eq!(sa::reduce(exec, &v)?, h.iter().sum::<i64>(), "n={n}");
        assert_eq!(
            sa::reduce_with_init(exec, &v, 7)?,
            7 + h.iter().sum::<i64>()
        );
        // Halves of integers: every partial sum is exact, so any order gives Rust's bits.
        assert_eq!(sa::reduce(exec, &x)?, f.iter().sum::<f64>());
        let k = 3i64;
        let sq = kernel!(|a: i64| -> i64 { a * a * k });
        assert_eq!(
            sa::transform_reduce(exec, &v, 1, sq)?,
            1 + h.iter().map(|a| a * a * 3).sum::<i64>()
        );
        let dot = kernel!(|a: i64, b: f64| -> f64 { a as f64 * b });
        assert_eq!(
            sa::transform_reduce_binary(exec, &v, &x, 0.0, dot)?,
            h.iter().zip(&f).map(|(&a, &b)| a as f64 * b).sum::<f64>()
        );
        assert_eq!(
            sa::count(exec, &v, 5)?,
            h.iter().filter(|&&a| a == 5).count()
        );
        let t = 10i64;
        let big = kernel!(|a: i64| -> bool { a > t });
        let want = h.iter().filter(|&&a| a > 10).count();
        assert_eq!(sa::count_if(exec, &v, big)?, want);
        assert_eq!(sa::all_of(exec, &v, big)?, h.iter().all(|&a| a > 10));
        assert_eq!(sa::any_of(exec, &v, big)?, h.iter().any(|&a| a > 10));
        assert_eq!(sa::none_of(exec, &v, big)?, !h.iter().any(|&a| a > 10));
        let in_range = kernel!(|a: i64| -> bool { a >= -50 && a < 50 });
        assert!(sa::all_of(exec, &v, in_range)?);
        // Equality: a copy, then one changed element.
        let w = upload::<S, i64>("w", &h)?;
        assert!(sa::equal(exec, &v, &w)?);
        let near = kernel!(|a: i64, b: f64| -> bool { a as f64 * 0.5 == b });
        assert!(sa::equal_by(exec, &v, &x, near)?);
        if n > 0 {
            let mut g = h.clone();
            g[n / 2] += 1;
            let w = upload::<S, i64>("w", &g)?;
            assert!(!sa::equal(exec, &v, &w)?);
            let short = upload::<S, i64>("short", &h[..n - 1])?;
            assert!(!sa::equal(exec, &v, &short)?);
        }
    }
    Ok(())
}

per_space!(folds_match_rust, folds_match_rust);

/// Positions: the first match, the first minimum, the first and last maximum, sortedness.
fn searches_match_rust<S: Launch>(exec: &S) -> Result<()> {
    let mut mix = Mix(2);
    for n in SIZES {
        let h = mix.ints(n, 30);
        let v = upload::<S, i64>("v", &h)?;
        for target in [-30, 0, 29, 100] {
            assert_eq!(
                sa::find(exec, &v, target)?,
                h.iter().position(|&a| a == target),
                "n={n} find {target}"
            );
        }
        let neg = kernel!(|a: i64| -> bool { a < -25 });
        assert_eq!(sa::find_if(exec, &v, neg)?, h.iter().position(|&a| a < -25));
        assert_eq!(
            sa::find_if_not(exec, &v, neg)?,
            h.iter().position(|&a| a >= -25)
        );
        let min = h
            .iter()
            .min()
            .map(|m| h.iter().position(|a| a == m).unwrap());
        let max_first = h
            .iter()
            .max()
            .map(|m| h.iter().position(|a| a == m).unwrap());
        let max_last = h
            .iter()
            .max()
            .map(|m| h.iter().rposition(|a| a == m).unwrap());
        assert_eq!(sa::min_element(exec, &v)?, min, "n={n}");
        assert_eq!(sa::max_element(exec, &v)?, max_first, "n={n}");
        assert_eq!(sa::minmax_element(exec, &v)?, min.zip(max_last), "n={n}");
        assert_eq!(sa::is_sorted(exec, &v)?, h.is_sorted());
        let mut sorted = h.clone();
        sorted.sort();
        assert!(sa::is_sorted(exec, &upload::<S, i64>("s", &sorted)?)?);
    }
    // Floats: NaN is never an extreme; the largest finite value still is.
    let f = [f64::NAN, 3.0, f64::MAX, -1.0, f64::MAX, -1.0, f64::NAN];
    let x = upload::<S, f64>("x", &f)?;
    assert_eq!(sa::min_element(exec, &x)?, Some(3));
    assert_eq!(sa::max_element(exec, &x)?, Some(2));
    assert_eq!(sa::minmax_element(exec, &x)?, Some((3, 4)));
    let nans = upload::<S, f64>("nans", &[f64::NAN; 3])?;
    assert_eq!(sa::min_element(exec, &nans)?, None);
    Ok(())
}

per_space!(searches_match_rust, searches_match_rust);

/// Element-wise changes, on contiguous and strided Views.
fn modifications_match_rust<S: Launch>(exec: &S) -> Result<()> {
    let mut mix = Mix(3);
    for n in SIZES {
        let h = mix.ints(n, 20);
        let v = upload::<S, i64>("v", &h)?;
        let out = SView::<S, i64, 1>::new("out", [n + 2])?;
        assert_eq!(sa::copy(exec, &v, &out)?, n);
        assert_eq!(&download(&out)?[..n], &h[..]);
        let f = SView::<S, f64, 1>::new("f", [n])?;
        let scale = 0.25;
        let half = kernel!(|a: i64| -> f64 { a as f64 * scale });
        sa::transform(exec, &v, &f, half)?;
        let want: Vec<f64> = h.iter().map(|&a| a as f64 * 0.25).collect();
        assert_eq!(download(&f)?, want);
        let sum = kernel!(|a: i64, b: f64| -> f64 { a as f64 + b });
        let g = SView::<S, f64, 1>::new("g", [n])?;
        sa::transform_binary(exec, &v, &f, &g, sum)?;
        let want: Vec<f64> = h.iter().map(|&a| a as f64 * 1.25).collect();
        assert_eq!(download(&g)?, want);
        sa::fill(exec, &out, -7)?;
        assert_eq!(download(&out)?, vec![-7; n + 2]);
        let w = upload::<S, i64>("w", &h)?;
        sa::replace(exec, &w, 3, 300)?;
        let odd = kernel!(|a: i64| -> bool { a % 2 != 0 });
        sa::replace_if(exec, &w, odd, 1)?;
        let want: Vec<i64> = h
            .iter()
            .map(|&a| if a == 3 { 300 } else { a })
            .map(|a| if a % 2 != 0 { 1 } else { a })
            .collect();
        assert_eq!(download(&w)?, want);
        sa::reverse(exec, &w)?;
        let mut rev = want.clone();
        rev.reverse();
        assert_eq!(download(&w)?, rev);
        sa::swap_ranges(exec, &v, &w)?;
        assert_eq!((download(&v)?, download(&w)?), (rev, h.clone()));
        let d = SView::<S, i64, 1>::new("d", [n])?;
        sa::adjacent_difference(exec, &w, &d)?;
        let want: Vec<i64> = (0..n)
            .map(|i| if i == 0 { h[0] } else { h[i] - h[i - 1] })
            .collect();
        assert_eq!(download(&d)?, want);
    }
    // A strided View: a column of a row-major matrix.
    let m = SView::<S, i64, 2>::new("m", [5, 4])?;
    let mirror = create_mirror_view(&m)?;
    {
        let mut g = mirror.host_mut()?;
        for r in 0..5 {
            for c in 0..4 {
                g[(r, c)] = (4 * r + c) as i64;
            }
        }
    }
    deep_copy(&m, &mirror)?;
    let col = subview(&m, (ALL, 0))?;
    assert_eq!(sa::reduce(exec, &col)?, 4 + 8 + 12 + 16);
    sa::reverse(exec, &col)?;
    let want: Vec<i64> = (0..20)
        .map(|k| if k % 4 == 0 { 16 - k } else { k })
        .collect();
    assert_eq!(download(&m)?, want);
    Ok(())
}

per_space!(modifications_match_rust, modifications_match_rust);

/// Scans and compactions.
fn scans_and_compactions_match_rust<S: Launch>(exec: &S) -> Result<()> {
    let mut mix = Mix(4);
    for n in SIZES {
        let h = mix.ints(n, 5);
        let v = upload::<S, i64>("v", &h)?;
        let d = SView::<S, i64, 1>::new("d", [n])?;
        let total = sa::inclusive_scan(exec, &v, &d)?;
        let inc: Vec<i64> = h
            .iter()
            .scan(0, |s, &a| {
                *s += a;
                Some(*s)
            })
            .collect();
        assert_eq!((download(&d)?, total), (inc.clone(), h.iter().sum::<i64>()));
        let total = sa::exclusive_scan(exec, &v, &d, 10)?;
        let exc: Vec<i64> = (0..n).map(|i| 10 + inc[i] - h[i]).collect();
        assert_eq!((download(&d)?, total), (exc, 10 + h.iter().sum::<i64>()));
        let twice = kernel!(|a: i64| -> i64 { 2 * a });
        let total = sa::transform_inclusive_scan(exec, &v, &d, twice)?;
        assert_eq!(
            (download(&d)?, total),
            (
                inc.iter().map(|s| 2 * s).collect::<Vec<_>>(),
                2 * h.iter().sum::<i64>()
            )
        );
        let total = sa::transform_exclusive_scan(exec, &v, &d, -1, twice)?;
        let want: Vec<i64> = (0..n).map(|i| -1 + 2 * (inc[i] - h[i])).collect();
        assert_eq!(
            (download(&d)?, total),
            (want, -1 + 2 * h.iter().sum::<i64>())
        );
        let keep = kernel!(|a: i64| -> bool { a > 0 });
        let kept = sa::copy_if(exec, &v, &d, keep)?;
        let want: Vec<i64> = h.iter().copied().filter(|&a| a > 0).collect();
        assert_eq!(&download(&d)?[..kept], &want[..], "n={n}");
        let kept = sa::remove_copy_if(exec, &v, &d, keep)?;
        let want: Vec<i64> = h.iter().copied().filter(|&a| a <= 0).collect();
        assert_eq!(&download(&d)?[..kept], &want[..]);
        let kept = sa::unique_copy(exec, &v, &d)?;
        let mut want = h.clone();
        want.dedup();
        assert_eq!(&download(&d)?[..kept], &want[..]);
        // A destination that holds exactly the kept elements, and one too short.
        let want = h.iter().filter(|&&a| a > 0).count();
        let exact = SView::<S, i64, 1>::new("exact", [want])?;
        assert_eq!(sa::copy_if(exec, &v, &exact, keep)?, want);
        if want > 0 {
            let short = SView::<S, i64, 1>::new("short", [want - 1])?;
            let e = sa::copy_if(exec, &v, &short, keep).unwrap_err();
            assert!(matches!(e, Error::InvalidArgument { .. }), "{e}");
            assert!(e.to_string().contains("\"short\""), "{e}");
        }
    }
    Ok(())
}

per_space!(
    scans_and_compactions_match_rust,
    scans_and_compactions_match_rust
);

/// Segmented reductions and scans, against a sequential fold of each run of equal keys.
fn by_key_matches_rust<S: Launch>(exec: &S) -> Result<()> {
    let mut mix = Mix(5);
    for n in SIZES {
        // Runs of 1 to 8 equal keys (a key may come back later: a new run).
        let mut keys_h = Vec::with_capacity(n);
        while keys_h.len() < n {
            let (k, len) = ((mix.next() % 4) as u32, 1 + (mix.next() % 8) as usize);
            keys_h.extend(std::iter::repeat_n(k, len.min(n - keys_h.len())));
        }
        let vals_h: Vec<f64> = (0..n).map(|_| (mix.next() % 1000) as f64 * 0.001).collect();
        let keys = upload::<S, u32>("keys", &keys_h)?;
        let vals = upload::<S, f64>("vals", &vals_h)?;
        let (ok, ov) = (
            SView::<S, u32, 1>::new("ok", [n])?,
            SView::<S, f64, 1>::new("ov", [n])?,
        );
        let runs = sa::reduce_by_key(exec, &keys, &vals, &ok, &ov)?;
        let mut want_k: Vec<u32> = Vec::new();
        let mut want_v: Vec<f64> = Vec::new();
        let mut inc = vec![0.0; n];
        let mut exc = vec![0.0; n];
        for i in 0..n {
            if i == 0 || keys_h[i] != keys_h[i - 1] {
                want_k.push(keys_h[i]);
                want_v.push(0.0);
            }
            let s = want_v.last_mut().unwrap();
            exc[i] = 2.0 + *s;
            *s += vals_h[i];
            inc[i] = *s;
        }
        // Sequential sums in index order: the same bits.
        assert_eq!(runs, want_k.len(), "n={n}");
        assert_eq!(&download(&ok)?[..runs], &want_k[..]);
        assert_eq!(&download(&ov)?[..runs], &want_v[..]);
        let d = SView::<S, f64, 1>::new("d", [n])?;
        sa::inclusive_scan_by_key(exec, &keys, &vals, &d)?;
        assert_eq!(download(&d)?, inc);
        sa::exclusive_scan_by_key(exec, &keys, &vals, &d, 2.0)?;
        let got = download(&d)?;
        for i in 0..n {
            // `init + s` where Rust adds `s` to `init` in the same order: exact per run.
            assert!(
                (got[i] - exc[i]).abs() < 1e-9,
                "n={n} i={i}: {} {}",
                got[i],
                exc[i]
            );
        }
        if runs > 1 {
            let short = SView::<S, f64, 1>::new("short", [runs - 1])?;
            let e = sa::reduce_by_key(exec, &keys, &vals, &ok, &short).unwrap_err();
            assert!(e.to_string().contains("\"short\""), "{e}");
        }
    }
    Ok(())
}

per_space!(by_key_matches_rust, by_key_matches_rust);

/// Bad arguments are errors that name the Views.
#[test]
fn std_algorithm_errors_name_the_views() -> Result<()> {
    crate::common::runtime();
    let exec = Serial::default_instance()?;
    let a = View::<i64, 1>::new("a", [10])?;
    let b = View::<i64, 1>::new("b", [5])?;
    let e = sa::copy(&exec, &a, &b).unwrap_err();
    assert!(matches!(e, Error::ExtentMismatch { .. }), "{e}");
    assert!(
        e.to_string().contains("\"a\"") && e.to_string().contains("\"b\""),
        "{e}"
    );
    let e = sa::inclusive_scan(&exec, &a, &a).unwrap_err();
    assert!(e.to_string().contains("share an allocation"), "{e}");
    let plus = kernel!(|x: i64, y: i64| -> i64 { x + y });
    let e = sa::transform_binary(&exec, &a, &b, &a, plus).unwrap_err();
    assert!(matches!(e, Error::ExtentMismatch { .. }), "{e}");
    Ok(())
}
