//! The float and integer methods a kernel may call (`abs`, `sqrt`, `powi`, the transcendental
//! functions, `min` / `max` / `clamp`, `pow`, `rem_euclid`, ...).
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

use crate::common::{check_device_code, threads as exec, view_from};

/// The kernel of `float_methods_on!` (and of its differential cases): every float method on
/// `x[i]` (of type `$t`) and a neighbour, into the 32 columns of `out`, `is_nan` / `is_finite`
/// into `flags`.
macro_rules! float_methods_kernel {
    ($t:ident, $x:ident, $out:ident, $flags:ident) => {
        ::ferrokkos::kernel!(|i| {
            let v = $x[i];
            let w = $x[(i + 3) % $x.extent(0)];
            $out[(i, 0)] = v.abs();
            $out[(i, 1)] = v.sqrt();
            $out[(i, 2)] = v.cbrt();
            $out[(i, 3)] = v.exp();
            $out[(i, 4)] = v.exp2();
            $out[(i, 5)] = v.ln();
            $out[(i, 6)] = v.log2();
            $out[(i, 7)] = v.log10();
            $out[(i, 8)] = v.powi(3);
            $out[(i, 9)] = v.powf(w);
            $out[(i, 10)] = v.sin();
            $out[(i, 11)] = v.cos();
            $out[(i, 12)] = v.tan();
            $out[(i, 13)] = (v / 16.0).asin();
            $out[(i, 14)] = (v / 16.0).acos();
            $out[(i, 15)] = v.atan();
            $out[(i, 16)] = v.atan2(w);
            $out[(i, 17)] = v.sinh();
            $out[(i, 18)] = v.cosh();
            $out[(i, 19)] = v.tanh();
            $out[(i, 20)] = v.floor();
            $out[(i, 21)] = v.ceil();
            $out[(i, 22)] = v.round();
            $out[(i, 23)] = v.trunc();
            $out[(i, 24)] = v.min(w);
            $out[(i, 25)] = v.max(w);
            $out[(i, 26)] = v.mul_add(w, 1.5);
            $out[(i, 27)] = v.hypot(w);
            $out[(i, 28)] = v.signum();
            $out[(i, 29)] = v.clamp(-1.0, 2.0);
            $out[(i, 30)] = std::$t::consts::PI * v;
            $out[(i, 31)] = $t::MAX.min(v) + $t::EPSILON;
            $flags[(i, 0)] = v.is_nan();
            $flags[(i, 1)] = v.is_finite();
        })
    };
}
pub(crate) use float_methods_kernel;

/// Every float method on the edge values of one float type, on the host and in C++.
macro_rules! float_methods_on {
    ($name:ident, $t:ident) => {
        #[test]
        fn $name() -> Result<()> {
            let values: Vec<$t> = vec![
                -2.75,
                -0.5,
                -0.0,
                0.0,
                0.3,
                1.0,
                2.5,
                10.0,
                $t::NAN,
                $t::INFINITY,
            ];
            let n = values.len();
            let x = view_from("x", &values)?;
            let out = View::<$t, 2>::new("out", [n, 32])?;
            let flags = View::<bool, 2>::new("flags", [n, 2])?;
            let k = float_methods_kernel!($t, x, out, flags);
            parallel_for("math", RangePolicy::new(&exec(), 0, n)?, &k)?;
            let (o, f) = (out.host()?, flags.host()?);
            for i in 0..n {
                let (v, w) = (values[i], values[(i + 3) % n]);
                let want = [
                    v.abs(),
                    v.sqrt(),
                    v.cbrt(),
                    v.exp(),
                    v.exp2(),
                    v.ln(),
                    v.log2(),
                    v.log10(),
                    v.powi(3),
                    v.powf(w),
                    v.sin(),
                    v.cos(),
                    v.tan(),
                    (v / 16.0).asin(),
                    (v / 16.0).acos(),
                    v.atan(),
                    v.atan2(w),
                    v.sinh(),
                    v.cosh(),
                    v.tanh(),
                    v.floor(),
                    v.ceil(),
                    v.round(),
                    v.trunc(),
                    v.min(w),
                    v.max(w),
                    v.mul_add(w, 1.5),
                    v.hypot(w),
                    v.signum(),
                    v.clamp(-1.0, 2.0),
                    std::$t::consts::PI * v,
                    $t::MAX.min(v) + $t::EPSILON,
                ];
                for (r, w) in want.iter().enumerate() {
                    let g = o[(i, r)];
                    assert!(
                        g.to_bits() == w.to_bits() || (g.is_nan() && w.is_nan()),
                        "method {r} of {v}: {g} != {w}"
                    );
                }
                assert_eq!((f[(i, 0)], f[(i, 1)]), (v.is_nan(), v.is_finite()));
            }
            check_device_code(&TranslationUnit::for_kernel(&k, Iterate::Right));
            Ok(())
        }
    };
}

float_methods_on!(float_methods_on_f32, f32);
float_methods_on!(float_methods_on_f64, f64);

/// The kernel of `int_methods_on!` (and of its differential cases): the integer methods on `x[i]`
/// (of type `$t`) and its neighbour, into the 8 columns of `out`, `count_ones` /
/// `leading_zeros` into `bits`.
macro_rules! int_methods_kernel {
    ($t:ident, $x:ident, $out:ident, $bits:ident) => {
        ::ferrokkos::kernel!(|i| {
            let v = $x[i];
            let w = $x[(i + 1) % $x.extent(0)];
            $out[(i, 0)] = v.min(w);
            $out[(i, 1)] = v.max(w);
            $out[(i, 2)] = v.pow(3);
            $out[(i, 3)] = v.wrapping_add(w);
            $out[(i, 4)] = v.wrapping_sub(w);
            $out[(i, 5)] = v.wrapping_mul(w);
            $out[(i, 6)] = if w != 0 { v.rem_euclid(w) } else { 0 };
            $out[(i, 7)] = $t::MAX.min(v).max($t::MIN);
            $bits[(i, 0)] = v.count_ones();
            $bits[(i, 1)] = v.leading_zeros();
        })
    };
}
pub(crate) use int_methods_kernel;

/// The integer methods on the given values of one integer type, on the host and in C++.
macro_rules! int_methods_on {
    ($name:ident, $t:ident, $values:expr) => {
        #[test]
        fn $name() -> Result<()> {
            let values: Vec<$t> = $values;
            let n = values.len();
            let x = view_from("x", &values)?;
            let out = View::<$t, 2>::new("out", [n, 8])?;
            let bits = View::<u32, 2>::new("bits", [n, 2])?;
            let k = int_methods_kernel!($t, x, out, bits);
            parallel_for("int methods", RangePolicy::new(&exec(), 0, n)?, &k)?;
            let (o, b) = (out.host()?, bits.host()?);
            for i in 0..n {
                let (v, w) = (values[i], values[(i + 1) % n]);
                let want = [
                    v.min(w),
                    v.max(w),
                    v.wrapping_pow(3),
                    v.wrapping_add(w),
                    v.wrapping_sub(w),
                    v.wrapping_mul(w),
                    if w != 0 { v.rem_euclid(w) } else { 0 },
                    $t::MAX.min(v).max($t::MIN),
                ];
                for (r, w) in want.iter().enumerate() {
                    assert_eq!(o[(i, r)], *w, "method {r} of {v}");
                }
                assert_eq!((b[(i, 0)], b[(i, 1)]), (v.count_ones(), v.leading_zeros()));
            }
            check_device_code(&TranslationUnit::for_kernel(&k, Iterate::Right));
            Ok(())
        }
    };
}

// pow overflows in debug builds for large values: the values keep v^3 in range.
int_methods_on!(int_methods_on_i8, i8, vec![-5, -1, 0, 1, 3, 5]);
int_methods_on!(int_methods_on_i16, i16, vec![-30, -7, 0, 1, 9, 31]);
int_methods_on!(int_methods_on_i32, i32, vec![-1000, -7, 0, 1, 9, 1290]);
int_methods_on!(int_methods_on_i64, i64, vec![-100000, -7, 0, 1, 9, 2000000]);
int_methods_on!(
    int_methods_on_isize,
    isize,
    vec![-100000, -7, 0, 1, 9, 2000000]
);
int_methods_on!(int_methods_on_u8, u8, vec![0, 1, 2, 5, 6]);
int_methods_on!(int_methods_on_u16, u16, vec![0, 1, 7, 31, 40]);
int_methods_on!(int_methods_on_u32, u32, vec![0, 1, 7, 1000, 1625]);
int_methods_on!(int_methods_on_u64, u64, vec![0, 1, 7, 1000, 2097151]);
int_methods_on!(int_methods_on_usize, usize, vec![0, 1, 7, 1000, 2097151]);

/// The kernel of [`signed_abs`] (and of its differential case): `y[i] = x[i].abs()`.
macro_rules! signed_abs_kernel {
    ($x:ident, $y:ident) => {
        ::ferrokkos::kernel!(|i| $y[i] = $x[i].abs())
    };
}
pub(crate) use signed_abs_kernel;

#[test]
fn signed_abs() -> Result<()> {
    let x = view_from("x", &[-5i32, 0, 7, i32::MIN + 1])?;
    let y = View::<i32, 1>::new("y", [4])?;
    let k = signed_abs_kernel!(x, y);
    parallel_for("abs", RangePolicy::new(&exec(), 0, 4)?, &k)?;
    assert_eq!(y.to_vec()?, vec![5, 0, 7, i32::MAX]);
    check_device_code(&TranslationUnit::for_kernel(&k, Iterate::Right));
    Ok(())
}
