//! Differential cases of the float and integer methods (`kernel_language/methods.rs`).

// The reference computations mirror the kernel bodies, written to exercise each construct.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::manual_is_multiple_of,
    clippy::nonminimal_bool,
    clippy::approx_constant
)]

use super::*;
use crate::kernel_language::methods::{
    float_methods_kernel, int_methods_kernel, signed_abs_kernel,
};

/// The float methods on one float type. The transcendental ones carry their tolerance on the GPU:
/// CUDA's documented maximum error (CUDA C++ Programming Guide, "Mathematical Functions") plus
/// one ulp for glibc's own rounding; the others (abs, sqrt, powi, floor, ..., mul_add, clamp) are
/// exact.
macro_rules! float_methods {
    ($name:ident, $t:ident, $put:ident, [$($ulps:expr),*]) => {
        mod $name {
            use super::*;

            /// The columns, with their kinds: transcendental ones with the ulp tolerance.
            const COLUMNS: usize = 32;

            fn kinds() -> [Float; COLUMNS] {
                let [cbrt, exp, exp2, ln, log2, log10, powf, sin, cos, tan, asin, acos, atan, atan2,
                     sinh, cosh, tanh, hypot]: [u32; 18] = [$($ulps),*];
                use Float::{Exact as E, MinMax as M, Ulps as U};
                [
                    E, E, U(cbrt), U(exp), U(exp2), U(ln), U(log2), U(log10), E, U(powf), U(sin),
                    U(cos), U(tan), U(asin), U(acos), U(atan), U(atan2), U(sinh), U(cosh),
                    U(tanh), E, E, E, E, M, M, E, U(hypot), E, E, E, M,
                ]
            }

            fn inputs(seed: u64) -> Vec<$t> {
                let mut rng = Rng::new(seed);
                let mut v: Vec<$t> = vec![
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
                v.extend(uniform(&mut rng, 300, -12.0, 12.0).into_iter().map(|x| x as $t));
                v.extend(uniform(&mut rng, 100, 0.0, 1.0).into_iter().map(|x| x as $t));
                v
            }

            fn run<S: Launch>(exec: &S, values: &[$t]) -> Result<Outputs> {
                let n = values.len();
                let x = upload::<S, $t>("x", values)?;
                let out = SView::<S, $t, 2, LayoutLeft>::new("out", [n, COLUMNS])?;
                let flags = SView::<S, bool, 2>::new("flags", [n, 2])?;
                parallel_for(
                    "math",
                    RangePolicy::new(exec, 0, n)?,
                    float_methods_kernel!($t, x, out, flags),
                )?;
                let all = download(&out)?;
                columns(n, &all, &download(&flags)?)
            }

            /// The outputs from the row-major `n` x 32 results and the flags.
            fn columns(n: usize, all: &[$t], flags: &[bool]) -> Result<Outputs> {
                let kinds = kinds();
                let mut o = Outputs::new();
                for (c, kind) in kinds.iter().enumerate() {
                    let col: Vec<$t> = (0..n).map(|i| all[i * COLUMNS + c]).collect();
                    o.$put(format!("method {c}"), col, *kind);
                }
                o.put("flags", flags.to_vec());
                Ok(o)
            }

            fn reference(values: &[$t]) -> Outputs {
                let n = values.len();
                let mut all = Vec::new();
                let mut flags = Vec::new();
                for i in 0..n {
                    let (v, w) = (values[i], values[(i + 3) % n]);
                    all.extend([
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
                    ]);
                    flags.extend([v.is_nan(), v.is_finite()]);
                }
                columns(n, &all, &flags).unwrap()
            }

            differential!(inputs, run, reference);
        }
    };
}

// cbrt exp exp2 ln log2 log10 powf sin cos tan asin acos atan atan2 sinh cosh tanh hypot
float_methods!(
    float_methods_on_f32,
    f32,
    put_f32,
    [2, 3, 3, 2, 2, 3, 5, 3, 3, 5, 3, 3, 3, 4, 4, 3, 3, 4]
);
float_methods!(
    float_methods_on_f64,
    f64,
    put_f64,
    [2, 2, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 3, 2, 2, 3]
);

/// The integer methods on one integer type, on random values small enough that `pow(3)` does not
/// overflow (a panic in a debug build).
macro_rules! int_methods {
    ($name:ident, $t:ident, $lo:expr, $hi:expr) => {
        mod $name {
            use super::*;

            fn inputs(seed: u64) -> Vec<$t> {
                let mut rng = Rng::new(seed);
                let (lo, hi): (i128, i128) = ($lo, $hi);
                let mut v: Vec<$t> = vec![lo as $t, hi as $t, 0, 1];
                v.extend(
                    (0..400).map(|_| (lo + (rng.next_u64() as i128).rem_euclid(hi - lo + 1)) as $t),
                );
                v
            }

            fn run<S: Launch>(exec: &S, values: &[$t]) -> Result<Outputs> {
                let n = values.len();
                let x = upload::<S, $t>("x", values)?;
                let out = SView::<S, $t, 2>::new("out", [n, 8])?;
                let bits = SView::<S, u32, 2>::new("bits", [n, 2])?;
                parallel_for(
                    "int methods",
                    RangePolicy::new(exec, 0, n)?,
                    int_methods_kernel!($t, x, out, bits),
                )?;
                let mut o = Outputs::new();
                o.put("out", download(&out)?).put("bits", download(&bits)?);
                Ok(o)
            }

            fn reference(values: &[$t]) -> Outputs {
                let n = values.len();
                let (mut out, mut bits) = (Vec::new(), Vec::new());
                for i in 0..n {
                    let (v, w) = (values[i], values[(i + 1) % n]);
                    out.extend([
                        v.min(w),
                        v.max(w),
                        v.wrapping_pow(3),
                        v.wrapping_add(w),
                        v.wrapping_sub(w),
                        v.wrapping_mul(w),
                        if w != 0 { v.rem_euclid(w) } else { 0 },
                        $t::MAX.min(v).max($t::MIN),
                    ]);
                    bits.extend([v.count_ones(), v.leading_zeros()]);
                }
                let mut o = Outputs::new();
                o.put("out", out).put("bits", bits);
                o
            }

            differential!(inputs, run, reference);
        }
    };
}

int_methods!(int_methods_on_i8, i8, -5, 5);
int_methods!(int_methods_on_i16, i16, -31, 31);
int_methods!(int_methods_on_i32, i32, -1290, 1290);
int_methods!(int_methods_on_i64, i64, -2_000_000, 2_000_000);
int_methods!(int_methods_on_isize, isize, -2_000_000, 2_000_000);
int_methods!(int_methods_on_u8, u8, 0, 6);
int_methods!(int_methods_on_u16, u16, 0, 40);
int_methods!(int_methods_on_u32, u32, 0, 1625);
int_methods!(int_methods_on_u64, u64, 0, 2_097_151);
int_methods!(int_methods_on_usize, usize, 0, 2_097_151);

mod signed_abs {
    use super::*;

    fn inputs(seed: u64) -> Vec<i32> {
        let mut rng = Rng::new(seed);
        let mut v = vec![-5, 0, 7, i32::MIN + 1, i32::MAX];
        v.extend((0..200).map(|_| (rng.next_u64() as i32).max(i32::MIN + 1)));
        v
    }

    fn run<S: Launch>(exec: &S, xs: &[i32]) -> Result<Outputs> {
        let n = xs.len();
        let x = upload::<S, i32>("x", xs)?;
        let y = SView::<S, i32, 1>::new("y", [n])?;
        parallel_for(
            "abs",
            RangePolicy::new(exec, 0, n)?,
            signed_abs_kernel!(x, y),
        )?;
        let mut o = Outputs::new();
        o.put("y", download(&y)?);
        Ok(o)
    }

    fn reference(xs: &[i32]) -> Outputs {
        let mut o = Outputs::new();
        o.put("y", xs.iter().map(|x| x.abs()).collect::<Vec<_>>());
        o
    }

    differential!(inputs, run, reference);
}
