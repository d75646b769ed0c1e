//! The kernel language of `kernel!`: every supported construct runs on the host with Rust's results,
//! and its generated C++ compiles with NVRTC (sm_80 and sm_90).

// The reference computations mirror the kernel bodies, which are written to exercise each construct.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::manual_is_multiple_of,
    clippy::nonminimal_bool
)]

mod common;

use common::{check_cuda, runtime, threads as exec, view_from};
use ferrokkos::prelude::*;
use ferrokkos::{Result, kernel};

#[test]
fn let_assignment_and_compound_assignment() -> Result<()> {
    runtime();
    let n = 64;
    let x = view_from("x", &(0..n).map(|k| k as i64 - 20).collect::<Vec<_>>())?;
    let y = View::<i64, 1>::new("y", [n])?;
    let k = kernel!(|i| {
        let a = x[i];
        let mut b = a * 3;
        b += 7;
        b -= a;
        b *= 2;
        b /= 3;
        b %= 5;
        b <<= 2;
        b >>= 1;
        b &= 0xff;
        b |= 0x100;
        b ^= 0x11;
        let c: i64;
        c = b + 1;
        y[i] = c;
    });
    parallel_for("let", RangePolicy::new(&exec(), 0, n)?, &k)?;
    let got = y.to_vec()?;
    for (i, g) in got.iter().enumerate() {
        let a = i as i64 - 20;
        let mut b = a * 3;
        b += 7;
        b -= a;
        b *= 2;
        b /= 3;
        b %= 5;
        b <<= 2;
        b >>= 1;
        b &= 0xff;
        b |= 0x100;
        b ^= 0x11;
        assert_eq!(*g, b + 1, "element {i}");
    }
    let tu = k.cuda_source(Iterate::Right);
    assert!(
        tu.generated().contains("i64 b = fk::wrapping_mul(a, 3LL);"),
        "{}",
        tu.generated()
    );
    assert!(
        tu.generated().contains("const i64 a = x(i);"),
        "{}",
        tu.generated()
    );
    check_cuda(&tu);
    Ok(())
}

/// Every operator on one primitive type, on the host and in C++.
macro_rules! operators_on {
    ($name:ident, $t:ty, $values:expr) => {
        #[test]
        fn $name() -> Result<()> {
            runtime();
            let values: Vec<$t> = $values;
            let n = values.len();
            let x = view_from("x", &values)?;
            let out = View::<$t, 2>::new("out", [n, 8])?;
            let cmp = View::<bool, 2>::new("cmp", [n, 6])?;
            let k = kernel!(|i| {
                let a = x[i];
                let b = x[(i + 1) % x.extent(0)];
                out[(i, 0)] = a.wrapping_add(b);
                out[(i, 1)] = a.wrapping_sub(b);
                out[(i, 2)] = a.wrapping_mul(b);
                out[(i, 3)] = if b != 0 { a / b } else { 0 };
                out[(i, 4)] = if b != 0 { a % b } else { 0 };
                out[(i, 5)] = (a & b) | (a ^ !b);
                out[(i, 6)] = a << (i as u32 % 7);
                out[(i, 7)] = a >> (i as u32 % 7);
                cmp[(i, 0)] = a == b;
                cmp[(i, 1)] = a != b;
                cmp[(i, 2)] = a < b && b > a;
                cmp[(i, 3)] = a <= b || b >= a;
                cmp[(i, 4)] = !(a < b);
                cmp[(i, 5)] = a > b;
            });
            parallel_for("ops", RangePolicy::new(&exec(), 0, n)?, &k)?;
            let (o, c) = (out.host()?, cmp.host()?);
            for i in 0..n {
                let (a, b) = (values[i], values[(i + 1) % n]);
                let want = [
                    a.wrapping_add(b),
                    a.wrapping_sub(b),
                    a.wrapping_mul(b),
                    if b != 0 { a / b } else { 0 },
                    if b != 0 { a % b } else { 0 },
                    (a & b) | (a ^ !b),
                    a << (i as u32 % 7),
                    a >> (i as u32 % 7),
                ];
                for (r, w) in want.iter().enumerate() {
                    assert_eq!(o[(i, r)], *w, "{} op {r} on {a}, {b}", stringify!($t));
                }
                let want = [
                    a == b,
                    a != b,
                    a < b && b > a,
                    a <= b || b >= a,
                    !(a < b),
                    a > b,
                ];
                for (r, w) in want.iter().enumerate() {
                    assert_eq!(
                        c[(i, r)],
                        *w,
                        "{} comparison {r} on {a}, {b}",
                        stringify!($t)
                    );
                }
            }
            check_cuda(&k.cuda_source(Iterate::Right));
            Ok(())
        }
    };
}

operators_on!(operators_on_i8, i8, vec![-128, -7, -1, 0, 1, 5, 100, 127]);
operators_on!(
    operators_on_i16,
    i16,
    vec![-32768, -300, -1, 0, 1, 77, 32767]
);
operators_on!(
    operators_on_i32,
    i32,
    vec![i32::MIN, -70000, -3, 0, 2, 9, i32::MAX]
);
operators_on!(
    operators_on_i64,
    i64,
    vec![i64::MIN, -1 << 40, -3, 0, 2, 9, i64::MAX]
);
operators_on!(
    operators_on_isize,
    isize,
    vec![isize::MIN, -3, 0, 2, 9, isize::MAX]
);
operators_on!(operators_on_u8, u8, vec![0, 1, 2, 7, 100, 200, 255]);
operators_on!(operators_on_u16, u16, vec![0, 1, 3, 300, 40000, 65535]);
operators_on!(
    operators_on_u32,
    u32,
    vec![0, 1, 3, 70000, 3_000_000_000, u32::MAX]
);
operators_on!(
    operators_on_u64,
    u64,
    vec![0, 1, 3, 1 << 40, u64::MAX - 1, u64::MAX]
);
operators_on!(
    operators_on_usize,
    usize,
    vec![0, 1, 3, 1 << 40, usize::MAX]
);

macro_rules! float_operators_on {
    ($name:ident, $t:ident) => {
        #[test]
        fn $name() -> Result<()> {
            runtime();
            let values: Vec<$t> = vec![-3.5, -0.0, 0.25, 1.0, 7.75, 1e30, $t::MIN_POSITIVE];
            let n = values.len();
            let x = view_from("x", &values)?;
            let out = View::<$t, 2>::new("out", [n, 6])?;
            let cmp = View::<bool, 2>::new("cmp", [n, 4])?;
            let k = kernel!(|i| {
                let a = x[i];
                let b = x[(i + 1) % x.extent(0)];
                out[(i, 0)] = a + b;
                out[(i, 1)] = a - b * 2.0;
                out[(i, 2)] = -a * b;
                out[(i, 3)] = a / b;
                out[(i, 4)] = a % b;
                out[(i, 5)] = 0.5 * a + 1.0 / 3.0;
                cmp[(i, 0)] = a < b;
                cmp[(i, 1)] = a >= b;
                cmp[(i, 2)] = a == b || a != a;
                cmp[(i, 3)] = !(a > b) && true;
            });
            parallel_for("float ops", RangePolicy::new(&exec(), 0, n)?, &k)?;
            let (o, c) = (out.host()?, cmp.host()?);
            for i in 0..n {
                let (a, b) = (values[i], values[(i + 1) % n]);
                let want = [
                    a + b,
                    a - b * 2.0,
                    -a * b,
                    a / b,
                    a % b,
                    0.5 * a + 1.0 / 3.0,
                ];
                for (r, w) in want.iter().enumerate() {
                    assert_eq!(o[(i, r)].to_bits(), w.to_bits(), "op {r} on {a}, {b}");
                }
                let want = [a < b, a >= b, a == b || a != a, !(a > b) && true];
                for (r, w) in want.iter().enumerate() {
                    assert_eq!(c[(i, r)], *w, "comparison {r} on {a}, {b}");
                }
            }
            let tu = k.cuda_source(Iterate::Right);
            if stringify!($t) == "f32" {
                // Unsuffixed literals next to an f32 are f32 in C++ too.
                assert!(
                    tu.generated().contains("0.5f * a + 1.0f / 3.0f"),
                    "{}",
                    tu.generated()
                );
            } else {
                assert!(
                    tu.generated().contains("0.5 * a + 1.0 / 3.0"),
                    "{}",
                    tu.generated()
                );
            }
            check_cuda(&tu);
            Ok(())
        }
    };
}

float_operators_on!(float_operators_on_f32, f32);
float_operators_on!(float_operators_on_f64, f64);

#[test]
fn literals_take_the_type_rust_infers() -> Result<()> {
    runtime();
    let x = view_from("x", &[1.5f32, 2.5])?;
    let y = View::<f64, 1>::new("y", [2])?;
    let k = kernel!(|i| {
        let alone = 2.0; // f64: nothing constrains it
        let with_f32 = x[i] * 2.0; // f32
        let n = 3; // i32
        y[i] = alone * (with_f32 as f64) + n as f64;
    });
    parallel_for("literals", RangePolicy::new(&exec(), 0, 2)?, &k)?;
    assert_eq!(y.to_vec()?, vec![9.0, 13.0]);
    let tu = k.cuda_source(Iterate::Right);
    let g = tu.generated();
    assert!(g.contains("const f64 alone = 2.0;"), "{g}");
    assert!(g.contains("const f32 with_f32 = x(i) * 2.0f;"), "{g}");
    assert!(g.contains("const i32 n = 3;"), "{g}");
    check_cuda(&tu);
    Ok(())
}

#[test]
fn bool_operators() -> Result<()> {
    runtime();
    let x = view_from("x", &[true, false, true, false])?;
    let y = View::<bool, 1>::new("y", [4])?;
    let k = kernel!(|i| {
        let a = x[i];
        let b = x[(i + 1) % 4];
        y[i] = (a & b) | (a ^ b) && !b || a == b;
    });
    parallel_for("bools", RangePolicy::new(&exec(), 0, 4)?, &k)?;
    let v = [true, false, true, false];
    for i in 0..4 {
        let (a, b) = (v[i], v[(i + 1) % 4]);
        assert_eq!(y.get(i)?, (a & b) | (a ^ b) && !b || a == b);
    }
    check_cuda(&k.cuda_source(Iterate::Right));
    Ok(())
}

#[test]
fn casts_follow_rust() -> Result<()> {
    runtime();
    let values = [1e20f64, -1e20, f64::NAN, 3.99, -3.99, 300.0, -129.5, 0.0];
    let x = view_from("x", &values)?;
    let n = values.len();
    let out = View::<i64, 2>::new("out", [n, 6])?;
    let f = View::<f32, 1>::new("f", [n])?;
    let k = kernel!(|i| {
        let v = x[i];
        out[(i, 0)] = v as i32 as i64;
        out[(i, 1)] = v as u8 as i64;
        out[(i, 2)] = v as i8 as i64;
        out[(i, 3)] = (v as i64) as u16 as i64;
        out[(i, 4)] = v as u64 as i64;
        out[(i, 5)] = (v > 0.0) as i64 + (i as i32) as i64;
        f[i] = v as f32;
    });
    parallel_for("casts", RangePolicy::new(&exec(), 0, n)?, &k)?;
    let o = out.host()?;
    for (i, &v) in values.iter().enumerate() {
        let want = [
            v as i32 as i64,
            v as u8 as i64,
            v as i8 as i64,
            (v as i64) as u16 as i64,
            v as u64 as i64,
            (v > 0.0) as i64 + (i as i32) as i64,
        ];
        for (r, w) in want.iter().enumerate() {
            assert_eq!(o[(i, r)], *w, "cast {r} of {v}");
        }
        assert_eq!(f.get(i)?.to_bits(), (v as f32).to_bits());
    }
    let tu = k.cuda_source(Iterate::Right);
    assert!(
        tu.generated().contains("fk::cast<i32>(v)"),
        "{}",
        tu.generated()
    );
    check_cuda(&tu);
    Ok(())
}

#[test]
fn if_else_as_statement_and_as_value() -> Result<()> {
    runtime();
    let n = 40;
    let x = view_from("x", &(0..n).map(|k| k as i32 - 20).collect::<Vec<_>>())?;
    let y = View::<i32, 1>::new("y", [n])?;
    let k = kernel!(|i| {
        let v = x[i];
        let sign = if v < 0 {
            -1
        } else if v == 0 {
            0
        } else {
            1
        };
        let big = if v.abs() > 10 {
            let t = v * 2;
            t + 1
        } else {
            v
        };
        if sign < 0 {
            y[i] = big - 1000;
        } else if sign == 0 {
            y[i] = 7;
        } else {
            y[i] = big + 1000;
        }
    });
    parallel_for("branches", RangePolicy::new(&exec(), 0, n)?, &k)?;
    for (i, g) in y.to_vec()?.iter().enumerate() {
        let v = i as i32 - 20;
        let big = if v.abs() > 10 { v * 2 + 1 } else { v };
        let want = if v < 0 {
            big - 1000
        } else if v == 0 {
            7
        } else {
            big + 1000
        };
        assert_eq!(*g, want, "element {i}");
    }
    let tu = k.cuda_source(Iterate::Right);
    let g = tu.generated();
    assert!(g.contains("} else if (sign == 0) {"), "{g}");
    assert!(g.contains("v < 0 ? -1 : v == 0 ? 0 : 1"), "{g}");
    check_cuda(&tu);
    Ok(())
}

#[test]
fn for_loops_over_ranges() -> Result<()> {
    runtime();
    let n = 16usize;
    let y = View::<u64, 2>::new("y", [n, 5])?;
    let k = kernel!(|i| {
        let mut s = 0u64;
        for k in 0..i {
            s += k as u64;
        }
        y[(i, 0)] = s;
        let mut t = 0u64;
        for k in 1..=i {
            t = t * 3 + k as u64;
        }
        y[(i, 1)] = t;
        let mut r = 0u64;
        for k in (0..i).rev() {
            r = r * 2 + k as u64;
        }
        y[(i, 2)] = r;
        let mut q = 0u64;
        for k in (2..i + 9).step_by(3) {
            q = q * 5 + k as u64;
        }
        y[(i, 3)] = q;
        let mut p = 0u64;
        for k in (1..i + 7).rev().step_by(2) {
            p = p * 7 + k as u64;
        }
        y[(i, 4)] = p;
    });
    parallel_for("loops", RangePolicy::new(&exec(), 0, n)?, &k)?;
    let g = y.host()?;
    for i in 0..n {
        let want = [
            (0..i).map(|k| k as u64).sum(),
            (1..=i).fold(0u64, |t, k| t * 3 + k as u64),
            (0..i).rev().fold(0u64, |r, k| r * 2 + k as u64),
            (2..i + 9).step_by(3).fold(0u64, |q, k| q * 5 + k as u64),
            (1..i + 7)
                .rev()
                .step_by(2)
                .fold(0u64, |p, k| p * 7 + k as u64),
        ];
        for (r, w) in want.iter().enumerate() {
            assert_eq!(g[(i, r)], *w, "loop {r} at {i}");
        }
    }
    check_cuda(&k.cuda_source(Iterate::Right));
    Ok(())
}

#[test]
fn while_loop_break_and_continue() -> Result<()> {
    runtime();
    let n = 30;
    let y = View::<u32, 2>::new("y", [n, 3])?;
    let k = kernel!(|i| {
        // Collatz steps.
        let mut v = i as u64 + 1;
        let mut steps = 0u32;
        while v != 1 {
            v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
            steps += 1;
        }
        y[(i, 0)] = steps;
        let mut k = 0u32;
        let mut odd = 0u32;
        loop {
            k += 1;
            if k > i as u32 {
                break;
            }
            if k % 2 == 0 {
                continue;
            }
            odd += k;
        }
        y[(i, 1)] = odd;
        let mut found = 0u32;
        for d in 2..20u32 {
            if (i as u32 + 2) % d == 0 {
                found = d;
                break;
            }
        }
        y[(i, 2)] = found;
    });
    parallel_for("loops", RangePolicy::new(&exec(), 0, n)?, &k)?;
    let g = y.host()?;
    for i in 0..n {
        let mut v = i as u64 + 1;
        let mut steps = 0;
        while v != 1 {
            v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
            steps += 1;
        }
        let odd: u32 = (1..=i as u32).filter(|k| k % 2 == 1).sum();
        let found = (2..20u32).find(|d| (i as u32 + 2) % d == 0).unwrap_or(0);
        assert_eq!(
            [g[(i, 0)], g[(i, 1)], g[(i, 2)]],
            [steps, odd, found],
            "at {i}"
        );
    }
    check_cuda(&k.cuda_source(Iterate::Right));
    Ok(())
}

#[test]
fn return_ends_an_iteration_and_blocks_have_values() -> Result<()> {
    runtime();
    let n = 20;
    let y = View::<i32, 1>::new("y", [n])?;
    let k = kernel!(|i| {
        let v = i as i32 - 10;
        // A block with statements on the right of `&&` runs only when the left side holds.
        let small = v > 0 && {
            let t = v * 2;
            t < 10
        };
        if v < -5 {
            y[i] = -1;
            return;
        }
        y[i] = if small { 100 } else { v };
    });
    parallel_for("return", RangePolicy::new(&exec(), 0, n)?, &k)?;
    for (i, g) in y.to_vec()?.iter().enumerate() {
        let v = i as i32 - 10;
        let want = if v < -5 {
            -1
        } else if v > 0 && v * 2 < 10 {
            100
        } else {
            v
        };
        assert_eq!(*g, want, "at {i}");
    }
    let tu = k.cuda_source(Iterate::Right);
    let g = tu.generated();
    assert!(
        g.contains("bool fk_cond = v > 0;") && g.contains("if (fk_cond) {"),
        "{g}"
    );
    assert!(g.contains("return;"), "{g}");
    check_cuda(&tu);
    Ok(())
}

/// `x as T` for one source type to every numeric type, on the host and in C++.
macro_rules! casts_from {
    ($name:ident, $s:ty, $values:expr) => {
        #[test]
        fn $name() -> Result<()> {
            runtime();
            let values: Vec<$s> = $values;
            let n = values.len();
            let x = view_from("x", &values)?;
            let (o_i8, o_i16, o_i32, o_i64) = (
                View::<i8, 1>::new("i8", [n])?,
                View::<i16, 1>::new("i16", [n])?,
                View::<i32, 1>::new("i32", [n])?,
                View::<i64, 1>::new("i64", [n])?,
            );
            let (o_u8, o_u16, o_u32, o_u64) = (
                View::<u8, 1>::new("u8", [n])?,
                View::<u16, 1>::new("u16", [n])?,
                View::<u32, 1>::new("u32", [n])?,
                View::<u64, 1>::new("u64", [n])?,
            );
            let (o_isize, o_usize, o_f32, o_f64) = (
                View::<isize, 1>::new("isize", [n])?,
                View::<usize, 1>::new("usize", [n])?,
                View::<f32, 1>::new("f32", [n])?,
                View::<f64, 1>::new("f64", [n])?,
            );
            let k = kernel!(|i| {
                let v = x[i];
                o_i8[i] = v as i8;
                o_i16[i] = v as i16;
                o_i32[i] = v as i32;
                o_i64[i] = v as i64;
                o_u8[i] = v as u8;
                o_u16[i] = v as u16;
                o_u32[i] = v as u32;
                o_u64[i] = v as u64;
                o_isize[i] = v as isize;
                o_usize[i] = v as usize;
                o_f32[i] = v as f32;
                o_f64[i] = v as f64;
            });
            parallel_for("casts", RangePolicy::new(&exec(), 0, n)?, &k)?;
            for (i, &v) in values.iter().enumerate() {
                assert_eq!(o_i8.get(i)?, v as i8, "{v:?} as i8");
                assert_eq!(o_i16.get(i)?, v as i16, "{v:?} as i16");
                assert_eq!(o_i32.get(i)?, v as i32, "{v:?} as i32");
                assert_eq!(o_i64.get(i)?, v as i64, "{v:?} as i64");
                assert_eq!(o_u8.get(i)?, v as u8, "{v:?} as u8");
                assert_eq!(o_u16.get(i)?, v as u16, "{v:?} as u16");
                assert_eq!(o_u32.get(i)?, v as u32, "{v:?} as u32");
                assert_eq!(o_u64.get(i)?, v as u64, "{v:?} as u64");
                assert_eq!(o_isize.get(i)?, v as isize, "{v:?} as isize");
                assert_eq!(o_usize.get(i)?, v as usize, "{v:?} as usize");
                assert_eq!(
                    o_f32.get(i)?.to_bits(),
                    (v as f32).to_bits(),
                    "{v:?} as f32"
                );
                assert_eq!(
                    o_f64.get(i)?.to_bits(),
                    (v as f64).to_bits(),
                    "{v:?} as f64"
                );
            }
            check_cuda(&k.cuda_source(Iterate::Right));
            Ok(())
        }
    };
}

casts_from!(casts_from_i8, i8, vec![i8::MIN, -1, 0, 1, i8::MAX]);
casts_from!(
    casts_from_i16,
    i16,
    vec![i16::MIN, -300, -1, 0, 300, i16::MAX]
);
casts_from!(
    casts_from_i32,
    i32,
    vec![i32::MIN, -70000, -1, 0, 70000, i32::MAX]
);
casts_from!(
    casts_from_i64,
    i64,
    vec![i64::MIN, -(1 << 40), -1, 0, 1 << 40, i64::MAX]
);
casts_from!(casts_from_isize, isize, vec![isize::MIN, -1, 0, isize::MAX]);
casts_from!(casts_from_u8, u8, vec![0, 1, 127, 128, 255]);
casts_from!(casts_from_u16, u16, vec![0, 255, 256, 40000, u16::MAX]);
casts_from!(casts_from_u32, u32, vec![0, 70000, 1 << 31, u32::MAX]);
casts_from!(casts_from_u64, u64, vec![0, 1 << 40, 1 << 63, u64::MAX]);
casts_from!(casts_from_usize, usize, vec![0, 1 << 40, usize::MAX]);
casts_from!(
    casts_from_f32,
    f32,
    vec![
        f32::MIN,
        -3.9e9,
        -129.5,
        -0.5,
        0.0,
        0.9,
        255.5,
        3e9,
        1e20,
        f32::MAX,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY
    ]
);
casts_from!(
    casts_from_f64,
    f64,
    vec![
        f64::MIN,
        -1e19,
        -3.9e9,
        -129.5,
        -0.5,
        0.0,
        0.9,
        255.5,
        3e9,
        1e19,
        1e300,
        f64::NAN,
        f64::NEG_INFINITY
    ]
);

#[test]
fn casts_from_bool() -> Result<()> {
    runtime();
    let x = view_from("x", &[false, true])?;
    let (a, b, c) = (
        View::<u8, 1>::new("a", [2])?,
        View::<i64, 1>::new("b", [2])?,
        View::<usize, 1>::new("c", [2])?,
    );
    let k = kernel!(|i| {
        a[i] = x[i] as u8 + 1;
        b[i] = x[i] as i64 - 1;
        c[i] = x[i] as usize;
    });
    parallel_for("bool casts", RangePolicy::new(&exec(), 0, 2)?, &k)?;
    assert_eq!(
        (a.to_vec()?, b.to_vec()?, c.to_vec()?),
        (vec![1, 2], vec![-1, 0], vec![0, 1])
    );
    check_cuda(&k.cuda_source(Iterate::Right));
    Ok(())
}

#[test]
fn tuple_lets_bind_values_before_names() -> Result<()> {
    runtime();
    let y = View::<i64, 2>::new("y", [4, 2])?;
    let k = kernel!(|i| {
        let (a, mut b) = (i as i64, 10i64);
        b += a;
        // Swapping through a tuple reads the old names first, as Rust does.
        let (a, b) = (b, a);
        y[(i, 0)] = a;
        y[(i, 1)] = b;
    });
    parallel_for("tuple lets", RangePolicy::new(&exec(), 0, 4)?, &k)?;
    assert_eq!(y.get((3, 0))?, 13);
    assert_eq!(y.get((3, 1))?, 3);
    check_cuda(&k.cuda_source(Iterate::Right));
    Ok(())
}

#[test]
fn an_nvrtc_error_in_a_body_points_at_the_rust_line() -> Result<()> {
    runtime();
    let y = View::<f64, 1>::new("y", [4])?;
    let line = line!() + 3;
    let k = kernel!(|i| {
        let t = i as f64;
        y[i] = t * 2.0;
    });
    let mut tu = k.cuda_source(Iterate::Right);
    if !ferrokkos::nvrtc::require_or_skip() {
        return Ok(());
    }
    // Break the C++ of the statement on `line` (as a bug in the emitter would).
    tu.source = tu
        .source
        .replace("y(i) = t * 2.0;", "y(i) = t * undefined_name;");
    let err = tu.compile_cubin(90).unwrap_err();
    let text = err.to_string();
    let at = format!("ferrokkos/tests/kernel_language.rs({line})");
    assert!(
        text.contains(&at) && text.contains("undefined_name"),
        "{text}"
    );
    Ok(())
}

#[test]
fn shadowing_captures_and_conditions_with_statements() -> Result<()> {
    runtime();
    let scale = 3i64;
    let y = View::<i64, 1>::new("y", [10])?;
    let k = kernel!(|i| {
        // A local that shadows a capture gets its own C++ name.
        let scale = scale * 2;
        let mut n = i as i64;
        let mut steps = 0i64;
        // A loop condition that needs statements is evaluated on every iteration.
        while {
            let doubled = n * 2;
            doubled < 40
        } {
            n += scale;
            steps += 1;
        }
        y[i] = steps * 100 + n;
    });
    parallel_for("shadowing", RangePolicy::new(&exec(), 0, 10)?, &k)?;
    for (i, g) in y.to_vec()?.iter().enumerate() {
        let (mut n, mut steps) = (i as i64, 0);
        while n * 2 < 40 {
            n += 6;
            steps += 1;
        }
        assert_eq!(*g, steps * 100 + n, "at {i}");
    }
    let tu = k.cuda_source(Iterate::Right);
    assert!(
        tu.generated()
            .contains("const i64 scale_1 = fk::wrapping_mul(scale, 2LL);"),
        "{}",
        tu.generated()
    );
    assert!(
        tu.generated().contains("while (true) {"),
        "{}",
        tu.generated()
    );
    check_cuda(&tu);
    // A kernel without captures.
    let empty = kernel!(|i| {
        let _t = i * 2;
    });
    parallel_for("empty", RangePolicy::new(&exec(), 0, 10)?, &empty)?;
    check_cuda(&empty.cuda_source(Iterate::Right));
    Ok(())
}
