//! Casts: `as` between every pair of primitive types (Rust's saturating float-to-integer rules,
//! NaN to zero) and from `bool`.
//!
//! Each runs on Threads with Rust's results, and its generated C++ compiles with NVRTC (sm_80 and
//! sm_90).

// The reference computations mirror the kernel bodies, which are written to exercise each construct.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::manual_is_multiple_of,
    clippy::nonminimal_bool
)]

use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Result, kernel};

use crate::common::{check_device_code, runtime, threads as exec, view_from};

/// The kernel of [`casts_follow_rust`] (and of its differential case): `x` (f64) cast to the
/// integer types into the six columns of `out`, and to f32 into `f`.
macro_rules! casts_follow_rust_kernel {
    ($x:ident, $out:ident, $f:ident) => {
        ::ferrokkos::kernel!(|i| {
            let v = $x[i];
            $out[(i, 0)] = v as i32 as i64;
            $out[(i, 1)] = v as u8 as i64;
            $out[(i, 2)] = v as i8 as i64;
            $out[(i, 3)] = (v as i64) as u16 as i64;
            $out[(i, 4)] = v as u64 as i64;
            $out[(i, 5)] = (v > 0.0) as i64 + (i as i32) as i64;
            $f[i] = v as f32;
        })
    };
}
pub(crate) use casts_follow_rust_kernel;

#[test]
fn casts_follow_rust() -> Result<()> {
    runtime();
    let values = [1e20f64, -1e20, f64::NAN, 3.99, -3.99, 300.0, -129.5, 0.0];
    let x = view_from("x", &values)?;
    let n = values.len();
    let out = View::<i64, 2>::new("out", [n, 6])?;
    let f = View::<f32, 1>::new("f", [n])?;
    let k = casts_follow_rust_kernel!(x, out, f);
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
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    assert!(
        tu.generated().contains("fk::cast<i32>(v)"),
        "{}",
        tu.generated()
    );
    check_device_code(&tu);
    Ok(())
}

/// The kernel of `casts_from!` (and of its differential cases): `x` cast to every numeric type,
/// one output View per type.
macro_rules! casts_from_kernel {
    (
        $x:ident,
        $i8:ident, $i16:ident, $i32:ident, $i64:ident,
        $u8:ident, $u16:ident, $u32:ident, $u64:ident,
        $isize:ident, $usize:ident, $f32:ident, $f64:ident
    ) => {
        ::ferrokkos::kernel!(|i| {
            let v = $x[i];
            $i8[i] = v as i8;
            $i16[i] = v as i16;
            $i32[i] = v as i32;
            $i64[i] = v as i64;
            $u8[i] = v as u8;
            $u16[i] = v as u16;
            $u32[i] = v as u32;
            $u64[i] = v as u64;
            $isize[i] = v as isize;
            $usize[i] = v as usize;
            $f32[i] = v as f32;
            $f64[i] = v as f64;
        })
    };
}
pub(crate) use casts_from_kernel;

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
            let k = casts_from_kernel!(
                x, o_i8, o_i16, o_i32, o_i64, o_u8, o_u16, o_u32, o_u64, o_isize, o_usize, o_f32,
                o_f64
            );
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
            check_device_code(&TranslationUnit::for_kernel(&k, Iterate::Right));
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

/// The kernel of [`casts_from_bool`] (and of its differential case): `x` (bool) cast to `u8`,
/// `i64` and `usize`, into `a`, `b` and `c`.
macro_rules! casts_from_bool_kernel {
    ($x:ident, $a:ident, $b:ident, $c:ident) => {
        ::ferrokkos::kernel!(|i| {
            $a[i] = $x[i] as u8 + 1;
            $b[i] = $x[i] as i64 - 1;
            $c[i] = $x[i] as usize;
        })
    };
}
pub(crate) use casts_from_bool_kernel;

#[test]
fn casts_from_bool() -> Result<()> {
    runtime();
    let x = view_from("x", &[false, true])?;
    let (a, b, c) = (
        View::<u8, 1>::new("a", [2])?,
        View::<i64, 1>::new("b", [2])?,
        View::<usize, 1>::new("c", [2])?,
    );
    let k = casts_from_bool_kernel!(x, a, b, c);
    parallel_for("bool casts", RangePolicy::new(&exec(), 0, 2)?, &k)?;
    assert_eq!(
        (a.to_vec()?, b.to_vec()?, c.to_vec()?),
        (vec![1, 2], vec![-1, 0], vec![0, 1])
    );
    check_device_code(&TranslationUnit::for_kernel(&k, Iterate::Right));
    Ok(())
}

/// `x + by`: a device function whose argument's type may come from its parameter.
#[ferrokkos::device]
fn offset(x: i64, by: i64) -> i64 {
    x + by
}

/// `x.try_into().unwrap()` between integer types (rustc's own suggestion for mixed index types):
/// the value in the new type, on every space; the C++ checks the range (`fk::checked_cast`, an
/// arithmetic fault where Rust panics) and compiles with NVRTC.
fn checked_integer_conversions<S: Launch>(exec: &S) -> Result<()> {
    let n = 50usize;
    let out = crate::spaces::SView::<S, i64, 1>::new("out", [n])?;
    let m = crate::spaces::SView::<S, f64, 2>::new("m", [5, 10])?;
    let shift: usize = 3;
    parallel_for(
        "convert",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let signed: i64 = i.try_into().unwrap();
            let back: u32 = (signed * 2).try_into().unwrap();
            let s: i64 = shift.try_into().unwrap();
            out[i] = signed - 7 + s + back as i64;
        }),
    )?;
    let want: Vec<i64> = (0..n as i64).map(|i| i - 7 + 3 + 2 * i).collect();
    assert_eq!(crate::spaces::download(&out)?, want);
    // An MDRange index (i64) against a usize extent.
    parallel_for(
        "mixed",
        MDRangePolicy::new(exec, [0, 0], [5, 10])?,
        kernel!(|(i, j)| {
            let col: usize = j.try_into().unwrap();
            if col + 1 < m.extent(1) {
                m[(i, j)] = (i * 10 + j) as f64;
            }
        }),
    )?;
    let got = crate::spaces::download(&m)?;
    assert_eq!(got[9], 0.0);
    assert_eq!(got[48], 48.0);
    // A conversion whose type comes from where its value goes later, as in host Rust: a
    // comparison's left operand, a device function's parameter (and literal arguments take theirs).
    parallel_for(
        "inferred",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let wide = i.try_into().unwrap();
            let limit: i64 = 40;
            if limit < wide {
                out[i] = -1;
            } else {
                let same: i64 = offset(wide, 0);
                out[i] = offset(same, 1) - 1;
            }
        }),
    )?;
    let want: Vec<i64> = (0..n as i64).map(|i| if i > 40 { -1 } else { i }).collect();
    assert_eq!(crate::spaces::download(&out)?, want);
    Ok(())
}
per_space!(checked_integer_conversions, checked_integer_conversions);

#[test]
fn checked_conversions_compile_for_every_integer_pair() -> Result<()> {
    runtime();
    let out = View::<u8, 1>::new("out", [4])?;
    let x = view_from("x", &[1i64, 2, 3, 4])?;
    let k = kernel!(|i| {
        let a: u16 = x[i].try_into().unwrap();
        let b: i8 = a.try_into().unwrap();
        let c: usize = b.try_into().unwrap();
        let d: i32 = c.try_into().unwrap();
        let e: u64 = d.try_into().unwrap();
        out[i] = e.try_into().unwrap();
    });
    parallel_for("pairs", RangePolicy::new(&exec(), 0, 4)?, &k)?;
    assert_eq!(out.to_vec()?, vec![1, 2, 3, 4]);
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    assert!(
        tu.generated().contains("fk::checked_cast<u16>("),
        "{}",
        tu.generated()
    );
    check_device_code(&tu);
    Ok(())
}
