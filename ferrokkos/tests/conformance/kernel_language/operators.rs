//! The core language: `let` and compound assignment, every operator on every primitive type,
//! literals (the type Rust infers) and `bool` operators.
//!
//! Each runs on Threads with Rust's results, and its generated C++ compiles with NVRTC (sm_80 and
//! sm_90).

// The reference computations mirror the kernel bodies, which are written to exercise each construct.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::manual_is_multiple_of,
    clippy::nonminimal_bool
)]

use ferrokkos::Result;
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;

use crate::common::{check_device_code, runtime, threads as exec, view_from};

/// The kernel of [`let_assignment_and_compound_assignment`] (and of its differential case): `let`
/// and every compound assignment on `x`'s values, into `y`.
macro_rules! let_assignment_kernel {
    ($x:ident, $y:ident) => {
        ::ferrokkos::kernel!(|i| {
            let a = $x[i];
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
            $y[i] = c;
        })
    };
}
pub(crate) use let_assignment_kernel;

#[test]
fn let_assignment_and_compound_assignment() -> Result<()> {
    runtime();
    let n = 64;
    let x = view_from("x", &(0..n).map(|k| k as i64 - 20).collect::<Vec<_>>())?;
    let y = View::<i64, 1>::new("y", [n])?;
    let k = let_assignment_kernel!(x, y);
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
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    assert!(
        tu.generated().contains("i64 b = fk::wrapping_mul(a, 3LL);"),
        "{}",
        tu.generated()
    );
    assert!(
        tu.generated().contains("const i64 a = x(fk_proven, i);"),
        "{}",
        tu.generated()
    );
    check_device_code(&tu);
    Ok(())
}

/// The kernel of `operators_on!` (and of its differential cases): every integer operator on `x[i]`
/// and its neighbour, into the columns of `out`, comparisons into `cmp`.
macro_rules! integer_operators_kernel {
    ($x:ident, $out:ident, $cmp:ident) => {
        ::ferrokkos::kernel!(|i| {
            let a = $x[i];
            let b = $x[(i + 1) % $x.extent(0)];
            $out[(i, 0)] = a.wrapping_add(b);
            $out[(i, 1)] = a.wrapping_sub(b);
            $out[(i, 2)] = a.wrapping_mul(b);
            $out[(i, 3)] = if b != 0 { a / b } else { 0 };
            $out[(i, 4)] = if b != 0 { a % b } else { 0 };
            $out[(i, 5)] = (a & b) | (a ^ !b);
            $out[(i, 6)] = a << (i as u32 % 7);
            $out[(i, 7)] = a >> (i as u32 % 7);
            $cmp[(i, 0)] = a == b;
            $cmp[(i, 1)] = a != b;
            $cmp[(i, 2)] = a < b && b > a;
            $cmp[(i, 3)] = a <= b || b >= a;
            $cmp[(i, 4)] = !(a < b);
            $cmp[(i, 5)] = a > b;
        })
    };
}
pub(crate) use integer_operators_kernel;

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
            let k = integer_operators_kernel!(x, out, cmp);
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
            check_device_code(&TranslationUnit::for_kernel(&k, Iterate::Right));
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

/// The kernel of `float_operators_on!` (and of its differential cases): every float operator on
/// `x[i]` and its neighbour, into the columns of `out`, comparisons into `cmp`.
macro_rules! float_operators_kernel {
    ($x:ident, $out:ident, $cmp:ident) => {
        ::ferrokkos::kernel!(|i| {
            let a = $x[i];
            let b = $x[(i + 1) % $x.extent(0)];
            $out[(i, 0)] = a + b;
            $out[(i, 1)] = a - b * 2.0;
            $out[(i, 2)] = -a * b;
            $out[(i, 3)] = a / b;
            $out[(i, 4)] = a % b;
            $out[(i, 5)] = 0.5 * a + 1.0 / 3.0;
            $cmp[(i, 0)] = a < b;
            $cmp[(i, 1)] = a >= b;
            $cmp[(i, 2)] = a == b || a != a;
            $cmp[(i, 3)] = !(a > b) && true;
        })
    };
}
pub(crate) use float_operators_kernel;

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
            let k = float_operators_kernel!(x, out, cmp);
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
            let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
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
            check_device_code(&tu);
            Ok(())
        }
    };
}

float_operators_on!(float_operators_on_f32, f32);
float_operators_on!(float_operators_on_f64, f64);

/// The kernel of [`literals_take_the_type_rust_infers`] (and of its differential case): unsuffixed
/// literals alone (f64, i32) and next to an f32 element of `x`, into `y`.
macro_rules! literals_kernel {
    ($x:ident, $y:ident) => {
        ::ferrokkos::kernel!(|i| {
            let alone = 2.0; // f64: nothing constrains it
            let with_f32 = $x[i] * 2.0; // f32
            let n = 3; // i32
            $y[i] = alone * (with_f32 as f64) + n as f64;
        })
    };
}
pub(crate) use literals_kernel;

#[test]
fn literals_take_the_type_rust_infers() -> Result<()> {
    runtime();
    let x = view_from("x", &[1.5f32, 2.5])?;
    let y = View::<f64, 1>::new("y", [2])?;
    let k = literals_kernel!(x, y);
    parallel_for("literals", RangePolicy::new(&exec(), 0, 2)?, &k)?;
    assert_eq!(y.to_vec()?, vec![9.0, 13.0]);
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let g = tu.generated();
    assert!(g.contains("const f64 alone = 2.0;"), "{g}");
    assert!(
        g.contains("const f32 with_f32 = x(fk_proven, i) * 2.0f;"),
        "{g}"
    );
    assert!(g.contains("const i32 n = 3;"), "{g}");
    check_device_code(&tu);
    Ok(())
}

/// The kernel of [`bool_operators`] (and of its differential case): `&`, `|`, `^`, `&&`, `||`, `!`
/// and `==` on `x[i]` and its neighbour, into `y`.
macro_rules! bool_operators_kernel {
    ($x:ident, $y:ident) => {
        ::ferrokkos::kernel!(|i| {
            let a = $x[i];
            let b = $x[(i + 1) % $x.extent(0)];
            $y[i] = (a & b) | (a ^ b) && !b || a == b;
        })
    };
}
pub(crate) use bool_operators_kernel;

#[test]
fn bool_operators() -> Result<()> {
    runtime();
    let x = view_from("x", &[true, false, true, false])?;
    let y = View::<bool, 1>::new("y", [4])?;
    let k = bool_operators_kernel!(x, y);
    parallel_for("bools", RangePolicy::new(&exec(), 0, 4)?, &k)?;
    let v = [true, false, true, false];
    for i in 0..4 {
        let (a, b) = (v[i], v[(i + 1) % 4]);
        assert_eq!(y.get(i)?, (a & b) | (a ^ b) && !b || a == b);
    }
    check_device_code(&TranslationUnit::for_kernel(&k, Iterate::Right));
    Ok(())
}
