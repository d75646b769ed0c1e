//! Kokkos' whole set of atomics on Views: the `atomic_<op>_fetch` forms (new value), `mul`, `div`,
//! `mod`, `nand`, `lshift`, `rshift`, the increments and decrements, every integer width (8- and
//! 16-bit ones, which the GPU updates through their 32-bit word), complex `add` / `sub`, and the
//! `_ord` forms with a memory order and scope, on every space with the values plain Rust gives;
//! every operation on every type compiles with NVRTC and hiprtc.

use crate::common::check_device_code;
use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Complex, Result, kernel};

/// Each iteration owns one element and runs a chain of integer atomics on it: the previous values
/// (`fetch`) and new values (`_fetch`) are those of the same chain in plain Rust (wrapping `mul`,
/// truncating `div` and `mod`, `nand`, masked shifts, increments).
fn integer_chains_match_rust<S: Launch>(exec: &S) -> Result<()> {
    let n = 300;
    let start: Vec<i32> = (0..n as i32).map(|k| k * 7919 - 1_000_000).collect();
    let h = upload::<S, i32>("h", &start)?;
    let seen = SView::<S, i32, 2>::new("seen", [n, 8])?;
    parallel_for(
        "integer_chains",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let k = i as i32;
            seen[(i, 0)] = h.atomic_fetch_mul(i, 3 + k);
            seen[(i, 1)] = h.atomic_div_fetch(i, 7);
            seen[(i, 2)] = h.atomic_fetch_mod(i, 1000 + k);
            seen[(i, 3)] = h.atomic_nand_fetch(i, 0x0ff0);
            seen[(i, 4)] = h.atomic_lshift_fetch(i, 35);
            seen[(i, 5)] = h.atomic_fetch_rshift(i, 2);
            seen[(i, 6)] = h.atomic_inc_fetch(i) + h.atomic_fetch_dec(i);
            h.atomic_increment(i);
            h.atomic_mul(i, -1);
            seen[(i, 7)] = h.atomic_fetch_inc(i);
            h.atomic_dec(i);
            h.atomic_decrement(i);
        }),
    )?;
    let (mut want_h, mut want_seen) = (Vec::new(), Vec::new());
    for (k, &x0) in start.iter().enumerate() {
        let k = k as i32;
        let x1 = x0.wrapping_mul(3 + k);
        let x2 = x1 / 7;
        let x3 = x2 % (1000 + k);
        let x4 = !(x3 & 0x0ff0);
        let x5 = x4.wrapping_shl(35);
        let x6 = x5 >> 2;
        let x7 = (x6 + 1).wrapping_mul(-1);
        want_seen.extend([x0, x2, x2, x4, x5, x5, (x6 + 1) + (x6 + 1), x7]);
        want_h.push(x7 - 1);
    }
    assert_eq!(download(&seen)?, want_seen);
    assert_eq!(download(&h)?, want_h);
    Ok(())
}

per_space!(integer_chains_match_rust, integer_chains_match_rust);

/// Every 8- and 16-bit type under contention: all iterations update four neighbouring elements (one
/// 32-bit word on the GPU), and each element ends as a sequential fold (wrapping add, min, max, or,
/// xor commute).
fn narrow_integers_match_a_sequential_fold<S: Launch>(exec: &S) -> Result<()> {
    let n = 1000usize;
    let add8 = upload::<S, u8>("add8", &[250, 1, 2, 3])?;
    let max8 = upload::<S, i8>("max8", &[i8::MIN; 4])?;
    let min16 = upload::<S, u16>("min16", &[u16::MAX; 4])?;
    let xor16 = upload::<S, i16>("xor16", &[0, -1, 5, 7])?;
    let or8 = upload::<S, u8>("or8", &[0; 4])?;
    parallel_for(
        "narrow",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let v = ((i * 2654435761usize) >> 5) as u32;
            let j = i % 4;
            add8.atomic_add(j, v as u8);
            max8.atomic_max(j, v as i8);
            min16.atomic_min(j, (v >> 3) as u16);
            xor16.atomic_xor(j, v as i16);
            or8.atomic_or(j, 1u8 << (v % 8));
        }),
    )?;
    let vs = (0..n).map(|i| (i, ((i * 2654435761usize) >> 5) as u32));
    let mut want = (
        [250u8, 1, 2, 3],
        [i8::MIN; 4],
        [u16::MAX; 4],
        [0i16, -1, 5, 7],
        [0u8; 4],
    );
    for (i, v) in vs {
        let j = i % 4;
        want.0[j] = want.0[j].wrapping_add(v as u8);
        want.1[j] = want.1[j].max(v as i8);
        want.2[j] = want.2[j].min((v >> 3) as u16);
        want.3[j] ^= v as i16;
        want.4[j] |= 1 << (v % 8);
    }
    assert_eq!(download(&add8)?, want.0);
    assert_eq!(download(&max8)?, want.1);
    assert_eq!(download(&min16)?, want.2);
    assert_eq!(download(&xor16)?, want.3);
    assert_eq!(download(&or8)?, want.4);
    Ok(())
}

per_space!(
    narrow_integers_match_a_sequential_fold,
    narrow_integers_match_a_sequential_fold
);

/// Float `mul` and `div` by powers of two are exact in any order; `_fetch` forms give the new
/// value; `exchange` and `compare_exchange` on a 16-bit integer chain the previous values.
fn float_products_and_narrow_exchanges_match_rust<S: Launch>(exec: &S) -> Result<()> {
    let n = 64usize;
    let prod = upload::<S, f64>("prod", &[3.0])?;
    let quot = upload::<S, f32>("quot", &[1.0])?;
    let fresh = SView::<S, f64, 1>::new("fresh", [n])?;
    let last = upload::<S, u16>("last", &[9999])?;
    let prev = SView::<S, u16, 1>::new("prev", [n])?;
    parallel_for(
        "float_products",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            prod.atomic_mul(0, 2.0);
            quot.atomic_div(0, 0.5);
            fresh[i] = prod.atomic_max_fetch(0, 0.0);
            prev[i] = last.atomic_exchange(0, i as u16);
            last.atomic_compare_exchange(0, 12345, 0);
        }),
    )?;
    assert_eq!(download(&prod)?[0], 3.0 * 2f64.powi(n as i32));
    assert_eq!(download(&quot)?[0], 2f32.powi(n as i32));
    assert!(
        download(&fresh)?
            .iter()
            .all(|&f| f >= 6.0 && f <= 3.0 * 2f64.powi(n as i32))
    );
    let mut chain = download(&prev)?;
    chain.extend(download(&last)?);
    chain.sort_unstable();
    let mut want: Vec<u16> = (0..n as u16).collect();
    want.push(9999);
    assert_eq!(chain, want);
    Ok(())
}

per_space!(
    float_products_and_narrow_exchanges_match_rust,
    float_products_and_narrow_exchanges_match_rust
);

/// Complex `add` and `sub` act on each component; with sums of small integers they are exact in
/// any order; the `_fetch` form gives a new value.
fn complex_sums_match_rust<S: Launch>(exec: &S) -> Result<()> {
    let n = 500usize;
    let sum = upload::<S, Complex<f64>>("sum", &[Complex::new(0.5, -0.5)])?;
    let diff = upload::<S, Complex<f32>>("diff", &[Complex::new(0.0, 0.0)])?;
    let after = SView::<S, Complex<f64>, 1>::new("after", [n])?;
    parallel_for(
        "complex_sums",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let z = Complex::new(i as f64, (i % 7) as f64);
            sum.atomic_add(0, z);
            diff.atomic_sub(0, Complex::new(1.0f32, i as f32));
            after[i] = sum.atomic_add_fetch(0, Complex::new(0.0, 0.0));
        }),
    )?;
    let re: f64 = (0..n).map(|i| i as f64).sum();
    let im: f64 = (0..n).map(|i| (i % 7) as f64).sum();
    assert_eq!(download(&sum)?[0], Complex::new(re + 0.5, im - 0.5));
    assert_eq!(download(&diff)?[0], Complex::new(-(n as f32), -(re as f32)));
    assert!(
        download(&after)?
            .iter()
            .all(|z| z.re >= 0.5 && z.re <= re + 0.5)
    );
    Ok(())
}

per_space!(complex_sums_match_rust, complex_sums_match_rust);

/// The `_ord` forms take a memory order and a scope and give the relaxed forms' values: a counter
/// bumped with every order, a flag published with release stores and read with acquire loads.
fn ordered_forms_give_the_relaxed_values<S: Launch>(exec: &S) -> Result<()> {
    let n = 400usize;
    let count = upload::<S, u64>("count", &[0])?;
    let flag = upload::<S, i32>("flag", &[0])?;
    let olds = SView::<S, u64, 1>::new("olds", [n])?;
    parallel_for(
        "ordered",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            count.atomic_add_ord(0, 1, MemoryOrder::Relaxed, MemoryScope::Device);
            count.atomic_fetch_add_ord(0, 1, MemoryOrder::Acquire, MemoryScope::Device);
            count.atomic_sub_fetch_ord(0, 1, MemoryOrder::Release, MemoryScope::System);
            count.atomic_inc_ord(0, MemoryOrder::AcqRel, MemoryScope::Device);
            olds[i] = count.atomic_fetch_add_ord(0, 0, MemoryOrder::SeqCst, MemoryScope::System);
            flag.atomic_store_ord(0, 1, MemoryOrder::Release, MemoryScope::Device);
            flag.atomic_max_ord(
                0,
                flag.atomic_load_ord(0, MemoryOrder::Acquire, MemoryScope::Device),
                MemoryOrder::Relaxed,
                MemoryScope::Device,
            );
        }),
    )?;
    assert_eq!(download(&count)?[0], 2 * n as u64);
    assert_eq!(download(&flag)?[0], 1);
    assert!(
        download(&olds)?
            .iter()
            .all(|&o| o >= 2 && o <= 2 * n as u64)
    );
    Ok(())
}

per_space!(
    ordered_forms_give_the_relaxed_values,
    ordered_forms_give_the_relaxed_values
);

/// The fences of each order are in the generated C++: before the operation for a release, after it
/// for an acquire, system-wide for `MemoryScope::System`; a relaxed operation has none.
#[test]
fn memory_orders_place_their_fences() -> Result<()> {
    crate::common::runtime();
    let h = View::<u32, 1>::new("h", [2])?;
    let out = View::<u32, 1>::new("out", [2])?;
    let k = kernel!(|i| {
        h.atomic_add(0, 1);
        out[i] = h.atomic_fetch_or_ord(1, 2, MemoryOrder::Acquire, MemoryScope::Device);
        h.atomic_store_ord(0, 5, MemoryOrder::Release, MemoryScope::System);
    });
    parallel_for(
        "fences",
        RangePolicy::new(&Serial::default_instance()?, 0, 2)?,
        &k,
    )?;
    assert_eq!(out.to_vec()?, vec![0, 2]);
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    let add = text.find("fk::atomic_add(&h(").expect("the relaxed add");
    let or = text.find("fk::atomic_or(&h(").expect("the acquire or");
    let store = text
        .find("fk::atomic_store(&h(")
        .expect("the release store");
    let device = text
        .find("fk::atomic_fence_device();")
        .expect("a device fence");
    let system = text
        .find("fk::atomic_fence_system();")
        .expect("a system fence");
    assert!(
        add < or && or < device && device < system && system < store,
        "{text}"
    );
    assert_eq!(text.matches("fk::atomic_fence_").count(), 2, "{text}");
    check_device_code(&tu);
    Ok(())
}

/// Every operation on a View of `$t`, as the C++ of one kernel: NVRTC and hiprtc compile it.
macro_rules! every_operation_compiles {
    (@common $t:ty, $one:expr) => {{
        let h = View::<$t, 1>::new("h", [4])?;
        let out = View::<$t, 1>::new("out", [4])?;
        let one: $t = $one;
        let k = kernel!(|i| {
            let a = h.atomic_fetch_add(0, one) + h.atomic_sub_fetch(1, one);
            let b = h.atomic_fetch_mul(2, one) + h.atomic_div_fetch(3, one);
            let c = h.atomic_min_fetch(0, one) + h.atomic_fetch_max_ord(1, one, MemoryOrder::SeqCst, MemoryScope::System);
            h.atomic_add(0, a);
            h.atomic_sub(1, b);
            h.atomic_mul(2, c);
            h.atomic_div(3, one);
            h.atomic_min(0, one);
            h.atomic_max(1, one);
            let e = h.atomic_exchange(0, a);
            let f = h.atomic_compare_exchange_ord(1, b, e, MemoryOrder::AcqRel, MemoryScope::Device);
            h.atomic_store(2, f);
            out[i] = h.atomic_load(3) + h.atomic_add_fetch(2, one);
        });
        check_device_code(&TranslationUnit::for_kernel(&k, Iterate::Right));
    }};
    ($t:ty, $one:expr) => {
        every_operation_compiles!(@common $t, $one)
    };
    ($t:ty, $one:expr, ints) => {{
        every_operation_compiles!(@common $t, $one);
        let h = View::<$t, 1>::new("h", [4])?;
        let out = View::<$t, 1>::new("out", [4])?;
        let one: $t = $one;
        let k = kernel!(|i| {
            let a = h.atomic_fetch_mod(0, 3) + h.atomic_mod_fetch(1, one);
            let b = h.atomic_fetch_and(2, one) | h.atomic_or_fetch(3, one);
            let c = h.atomic_fetch_xor(0, one) ^ h.atomic_nand_fetch(1, one) ^ h.atomic_fetch_nand(2, one);
            let d = h.atomic_fetch_lshift(3, 1) + h.atomic_rshift_fetch(0, 2) + h.atomic_and_fetch(1, one);
            let e = h.atomic_fetch_or(2, one) ^ h.atomic_xor_fetch(3, one) ^ h.atomic_lshift_fetch(0, 1) ^ h.atomic_fetch_rshift(1, 1);
            h.atomic_mod(0, 3);
            h.atomic_and(1, a);
            h.atomic_or(2, b);
            h.atomic_xor(3, c);
            h.atomic_nand(0, d);
            h.atomic_lshift(1, 1);
            h.atomic_rshift(2, 1);
            h.atomic_inc(3);
            h.atomic_dec(0);
            h.atomic_increment(1);
            h.atomic_decrement_ord(2, MemoryOrder::Release, MemoryScope::Device);
            let f = h.atomic_fetch_inc(3) + h.atomic_inc_fetch(0) + h.atomic_fetch_dec(1) + h.atomic_dec_fetch(2);
            out[i] = e + f;
        });
        check_device_code(&TranslationUnit::for_kernel(&k, Iterate::Right));
    }};
}

#[test]
fn every_atomic_operation_compiles_for_every_type() -> Result<()> {
    crate::common::runtime();
    every_operation_compiles!(i8, 1, ints);
    every_operation_compiles!(i16, 1, ints);
    every_operation_compiles!(i32, 1, ints);
    every_operation_compiles!(i64, 1, ints);
    every_operation_compiles!(isize, 1, ints);
    every_operation_compiles!(u8, 1, ints);
    every_operation_compiles!(u16, 1, ints);
    every_operation_compiles!(u32, 1, ints);
    every_operation_compiles!(u64, 1, ints);
    every_operation_compiles!(usize, 1, ints);
    every_operation_compiles!(f32, 1.0);
    every_operation_compiles!(f64, 1.0);
    Ok(())
}
