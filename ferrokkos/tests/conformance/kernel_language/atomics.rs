//! Atomics on Views: `atomic_{add,sub,min,max,and,or,xor}`, their `atomic_fetch_*` forms returning
//! the previous value, `atomic_exchange`, `atomic_compare_exchange`, `atomic_load` and
//! `atomic_store`, on every space, with the values plain Rust gives; and the C++ of every operation
//! on every atomic type compiles with NVRTC.

use crate::common::{check_device_code, view_from};
use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Result, kernel};

/// `atomic_fetch_add` hands each iteration a distinct ticket (its previous value), and
/// `atomic_fetch_sub` counts down from zero, wrapping nothing for i64.
fn fetch_add_hands_out_distinct_tickets<S: Launch>(exec: &S) -> Result<()> {
    let n = 1000;
    let counter = SView::<S, u32, 1>::new("counter", [1])?;
    let down = SView::<S, i64, 1>::new("down", [1])?;
    let tickets = SView::<S, u32, 1>::new("tickets", [n])?;
    let olds = SView::<S, i64, 1>::new("olds", [n])?;
    parallel_for(
        "tickets",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            tickets[i] = counter.atomic_fetch_add(0, 1);
            olds[i] = down.atomic_fetch_sub(0, 2) + 1;
        }),
    )?;
    let mut t = download(&tickets)?;
    t.sort_unstable();
    assert_eq!(t, (0..n as u32).collect::<Vec<_>>());
    assert_eq!(download(&counter)?, vec![n as u32]);
    let mut o = download(&olds)?;
    o.sort_unstable();
    assert_eq!(
        o,
        (0..n as i64).rev().map(|k| -2 * k + 1).collect::<Vec<_>>()
    );
    assert_eq!(download(&down)?, vec![-2 * n as i64]);
    Ok(())
}

per_space!(
    fetch_add_hands_out_distinct_tickets,
    fetch_add_hands_out_distinct_tickets
);

/// The non-fetch integer operations on each integer type agree with a sequential fold (they
/// commute, so the order of the iterations does not matter).
fn integer_updates_match_a_sequential_fold<S: Launch>(exec: &S) -> Result<()> {
    let values: Vec<u32> = (0..777u32)
        .map(|k| k.wrapping_mul(2654435761) >> 7)
        .collect();
    let n = values.len();
    let x = upload::<S, u32>("x", &values)?;
    let sub32 = upload::<S, i32>("sub32", &[i32::MIN + 5])?;
    let min64 = upload::<S, i64>("min64", &[i64::MAX])?;
    let max64 = upload::<S, u64>("max64", &[0])?;
    let and32 = upload::<S, u32>("and32", &[u32::MAX])?;
    let or64 = upload::<S, u64>("or64", &[0])?;
    let xor64 = upload::<S, i64>("xor64", &[-1])?;
    let xor32 = upload::<S, i32>("xor32", &[0])?;
    let addsz = upload::<S, usize>("addsz", &[usize::MAX])?;
    let maxisz = upload::<S, isize>("maxisz", &[isize::MIN])?;
    parallel_for(
        "integer_updates",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let v = x[i];
            sub32.atomic_sub(0, v as i32);
            min64.atomic_min(0, v as i64 - 1_000_000);
            max64.atomic_max(0, (v as u64) << 20);
            and32.atomic_and(0, v | 0xffff_0000);
            or64.atomic_or(0, 1u64 << (v % 64));
            xor64.atomic_xor(0, v as i64 * 3);
            xor32.atomic_xor(0, v as i32);
            addsz.atomic_add(0, v as usize);
            maxisz.atomic_max(0, -(v as isize));
        }),
    )?;
    assert_eq!(
        download(&sub32)?[0],
        values
            .iter()
            .fold(i32::MIN + 5, |a, &v| a.wrapping_sub(v as i32))
    );
    assert_eq!(
        download(&min64)?[0],
        values.iter().map(|&v| v as i64 - 1_000_000).min().unwrap()
    );
    assert_eq!(
        download(&max64)?[0],
        values.iter().map(|&v| (v as u64) << 20).max().unwrap()
    );
    assert_eq!(
        download(&and32)?[0],
        values.iter().fold(u32::MAX, |a, &v| a & (v | 0xffff_0000))
    );
    assert_eq!(
        download(&or64)?[0],
        values.iter().fold(0u64, |a, &v| a | 1 << (v % 64))
    );
    assert_eq!(
        download(&xor64)?[0],
        values.iter().fold(-1i64, |a, &v| a ^ (v as i64 * 3))
    );
    assert_eq!(
        download(&xor32)?[0],
        values.iter().fold(0i32, |a, &v| a ^ v as i32)
    );
    assert_eq!(
        download(&addsz)?[0],
        values
            .iter()
            .fold(usize::MAX, |a, &v| a.wrapping_add(v as usize))
    );
    assert_eq!(
        download(&maxisz)?[0],
        values.iter().map(|&v| -(v as isize)).max().unwrap()
    );
    Ok(())
}

per_space!(
    integer_updates_match_a_sequential_fold,
    integer_updates_match_a_sequential_fold
);

/// Float sums of integers are exact in any order; `min` / `max` ignore a NaN operand, as
/// `f64::min` does; `atomic_fetch_max` returns the previous value.
fn float_updates_match_rust<S: Launch>(exec: &S) -> Result<()> {
    let n = 600;
    let values: Vec<f64> = (0..n).map(|k| ((k * 7919) % 1000) as f64 - 500.0).collect();
    let x = upload::<S, f64>("x", &values)?;
    let sum = upload::<S, f64>("sum", &[0.5])?;
    let diff = upload::<S, f32>("diff", &[0.0])?;
    let lo = upload::<S, f64>("lo", &[f64::INFINITY])?;
    let hi = upload::<S, f32>("hi", &[f32::NEG_INFINITY])?;
    let seen = SView::<S, f64, 1>::new("seen", [n])?;
    parallel_for(
        "float_updates",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let v = x[i];
            sum.atomic_add(0, v);
            diff.atomic_fetch_sub(0, v as f32);
            if i % 100 == 3 {
                lo.atomic_min(0, f64::NAN);
                hi.atomic_max(0, f32::NAN);
            }
            lo.atomic_min(0, v);
            let before = hi.atomic_fetch_max(0, v as f32);
            seen[i] = before as f64;
        }),
    )?;
    let total: f64 = values.iter().sum();
    assert_eq!(download(&sum)?[0], total + 0.5);
    assert_eq!(download(&diff)?[0], -total as f32);
    let min = values.iter().copied().fold(f64::INFINITY, f64::min);
    let max = values.iter().copied().fold(f64::NEG_INFINITY, f64::max);
    assert_eq!(download(&lo)?[0], min);
    assert_eq!(download(&hi)?[0], max as f32);
    // Each previous value is -inf or some element's value, never above the final maximum.
    for s in download(&seen)? {
        assert!(
            s == f64::NEG_INFINITY || (values.contains(&s) && s <= max),
            "{s}"
        );
    }
    Ok(())
}

per_space!(float_updates_match_rust, float_updates_match_rust);

/// Every compound assignment on an atomic View is its operator's atomic: `*=`, `/=`, `%=`, `<<=`,
/// `>>=` as well as `+=` (each element updated by a few iterations, the order not mattering for
/// the values chosen).
fn compound_assignments_on_atomic_views<S: Launch>(exec: &S) -> Result<()> {
    let n = 4usize;
    let base = vec![1_000_000i64; n];
    let (m, d, r, sh) = (
        upload::<S, i64>("m", &base)?,
        upload::<S, i64>("d", &base)?,
        upload::<S, i64>("r", &base)?,
        upload::<S, u64>("sh", &[2, 4, 6, 8])?,
    );
    let f = upload::<S, f64>("f", &[1.0; 4])?;
    let (am, ad, ar, ash, af) = (m.atomic(), d.atomic(), r.atomic(), sh.atomic(), f.atomic());
    parallel_for(
        "compound",
        RangePolicy::new(exec, 0, 3 * n)?,
        kernel!(|i| {
            let k = i % n;
            am[k] *= 3;
            ad[k] /= 10;
            if i < n {
                ar[k] %= 7 + k as i64;
                ash[k] <<= 4u32;
            } else if i < 2 * n {
                ash[k] >>= 1u32;
            }
            af[k] *= 0.5;
        }),
    )?;
    assert_eq!(download(&m)?, vec![27_000_000; n]);
    assert_eq!(download(&d)?, vec![1_000; n]);
    let want_r: Vec<i64> = (0..n as i64).map(|k| 1_000_000 % (7 + k)).collect();
    assert_eq!(download(&r)?, want_r);
    assert_eq!(download(&sh)?, vec![16, 32, 48, 64]);
    assert_eq!(download(&f)?, vec![0.125; n]);
    Ok(())
}

per_space!(
    compound_assignments_on_atomic_views,
    compound_assignments_on_atomic_views
);

/// A compare-and-swap loop (load, then `atomic_compare_exchange` until the previous value is
/// the expected one) computes a maximum of f64 and of i64 values; `atomic_exchange` hands the
/// previous value on, so the previous values and the final one are the initial value and every
/// iteration's value, each once; `atomic_store` and `atomic_load` see whole values.
fn compare_exchange_and_exchange_agree_with_rust<S: Launch>(exec: &S) -> Result<()> {
    let n = 500;
    let values: Vec<f64> = (0..n)
        .map(|k| ((k * 613) % 997) as f64 * 0.25 - 60.0)
        .collect();
    let x = upload::<S, f64>("x", &values)?;
    let best = upload::<S, f64>("best", &[f64::MIN])?;
    let best_int = upload::<S, i64>("best_int", &[i64::MIN])?;
    let last = upload::<S, i32>("last", &[-1])?;
    let flag = upload::<S, u64>("flag", &[0])?;
    let prev = SView::<S, i32, 1>::new("prev", [n])?;
    let loaded = SView::<S, u64, 1>::new("loaded", [n])?;
    parallel_for(
        "cas_max",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let v = x[i];
            let mut old = best.atomic_load(0);
            while old < v {
                let now = best.atomic_compare_exchange(0, old, v);
                if now == old {
                    break;
                }
                old = now;
            }
            let w = (v * 4.0) as i64;
            let mut cur = best_int.atomic_load(0);
            loop {
                if cur >= w {
                    break;
                }
                let now = best_int.atomic_compare_exchange(0, cur, w);
                if now == cur {
                    break;
                }
                cur = now;
            }
            prev[i] = last.atomic_exchange(0, i as i32);
            flag.atomic_store(0, 0x0123_4567_89ab_cdef);
            loaded[i] = flag.atomic_load(0);
        }),
    )?;
    let max = values.iter().copied().fold(f64::MIN, f64::max);
    assert_eq!(download(&best)?[0], max);
    assert_eq!(download(&best_int)?[0], (max * 4.0) as i64);
    let mut chain = download(&prev)?;
    chain.push(download(&last)?[0]);
    chain.sort_unstable();
    assert_eq!(chain, (-1..n as i32).collect::<Vec<_>>());
    assert_eq!(download(&flag)?[0], 0x0123_4567_89ab_cdef);
    assert_eq!(download(&loaded)?, vec![0x0123_4567_89ab_cdef; n]);
    Ok(())
}

per_space!(
    compare_exchange_and_exchange_agree_with_rust,
    compare_exchange_and_exchange_agree_with_rust
);

/// Every atomic operation on a View of `$t` (with `bits`, also the bitwise ones), as the C++ of
/// one kernel: NVRTC compiles it (the header has an overload or template for each).
macro_rules! every_operation_compiles {
    ($t:ty, $one:expr) => {
        every_operation_compiles!(@check $t, $one, "fk::atomic_compare_exchange(&h(", |h: View<$t, 1>, out: View<$t, 1>, one: $t| kernel!(|i| {
            let a = h.atomic_fetch_add(0, one);
            let b = h.atomic_fetch_sub(1, one);
            let c = h.atomic_fetch_min(2, one);
            let d = h.atomic_fetch_max(3, one);
            h.atomic_add(0, one);
            h.atomic_sub(1, one);
            h.atomic_min(2, one);
            h.atomic_max(3, one);
            let e = h.atomic_exchange(0, a);
            let f = h.atomic_compare_exchange(1, b, e);
            h.atomic_store(2, f.min(c).max(d));
            out[i] = h.atomic_load(3);
        }))
    };
    ($t:ty, $one:expr, bits) => {
        every_operation_compiles!($t, $one);
        every_operation_compiles!(@check $t, $one, "fk::atomic_xor(&h(", |h: View<$t, 1>, out: View<$t, 1>, one: $t| kernel!(|i| {
            h.atomic_and(0, one);
            h.atomic_or(1, one);
            h.atomic_xor(2, one);
            let g = h.atomic_fetch_and(3, one) | h.atomic_fetch_or(0, one);
            out[i] = g ^ h.atomic_fetch_xor(1, one);
        }))
    };
    (@check $t:ty, $one:expr, $expect:literal, $make:expr) => {{
        let h = View::<$t, 1>::new("h", [4])?;
        let out = View::<$t, 1>::new("out", [4])?;
        let one: $t = $one;
        let k = ($make)(h.clone(), out.clone(), one);
        parallel_for("every_atomic", RangePolicy::new(&Serial::default_instance()?, 0, 4)?, &k)?;
        let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
        let text = tu.generated();
        assert!(text.contains($expect), "{text}");
        check_device_code(&tu);
    }};
}

#[test]
fn every_atomic_operation_compiles_for_every_atomic_type() -> Result<()> {
    crate::common::runtime();
    every_operation_compiles!(i32, 1, bits);
    every_operation_compiles!(u32, 1, bits);
    every_operation_compiles!(i64, 1, bits);
    every_operation_compiles!(u64, 1, bits);
    every_operation_compiles!(isize, 1, bits);
    every_operation_compiles!(usize, 1, bits);
    every_operation_compiles!(f32, 1.0);
    every_operation_compiles!(f64, 1.0);
    Ok(())
}

/// A fetch operation's value is computed once, as a statement of its own before the expression
/// that uses it.
#[test]
fn fetch_operations_are_statements_of_their_own() -> Result<()> {
    crate::common::runtime();
    let h = view_from("h", &[5i32])?;
    let out = View::<i32, 1>::new("out", [3])?;
    let k = kernel!(|i| out[i] = h.atomic_fetch_add(0, 1) * 2 + h.atomic_load(0));
    parallel_for(
        "fetch_once",
        RangePolicy::new(&Serial::default_instance()?, 0, 3)?,
        &k,
    )?;
    // Serial order: (5*2+6, 6*2+7, 7*2+8).
    assert_eq!(out.to_vec()?, vec![16, 19, 22]);
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(text.contains("const i32 fk_old"), "{text}");
    assert!(text.contains("= fk::atomic_add(&h(0"), "{text}");
    assert!(text.contains("= fk::atomic_load(&h(0"), "{text}");
    check_device_code(&tu);
    Ok(())
}
