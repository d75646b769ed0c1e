//! Differential tests: the kernels of the `kernel!` suites (`kernel_language.rs`,
//! `kernel_features.rs`, `kernel_representative.rs`) on deterministic pseudo-random inputs (plus
//! the edge values of those suites), run on Serial, Threads and Cuda.
//!
//! Each case is a module with `inputs(seed)`, `run::<S>(exec, &inputs)` (the kernels on `S`, with
//! Views in `S::MemorySpace`, results read back through host mirrors) and `reference(&inputs)`
//! (plain Rust), and the tests `case::serial` and `case::threads` (against the reference; they run
//! everywhere) and `case::cuda` (Cuda against Serial; ignored without a GPU). The comparison
//! (`per_space::Outputs::check`) is exact for integers, booleans and floats from exact operations
//! (bit for bit, any NaN matching any NaN); the columns that may differ say how:
//! - f64 (and f32) reductions, scans and atomic sums: within 1e-12 relative to the sum of the
//!   magnitudes of the terms (Threads and Cuda join partial results in other orders);
//! - transcendental functions: CUDA's math library against Rust's (glibc's), within the ulp bound
//!   CUDA documents for the function plus one for glibc's own rounding (see [`ulps_f64`] and
//!   [`ulps_f32`] below); exact on the host spaces;
//! - `min` / `max`: the sign of a zero result may differ (CUDA's `fmin(0.0, -0.0)` is `-0.0`, Rust
//!   leaves it unspecified);
//! - the iterated kernel of `loops_branches_math`: few-ulp differences of `sin` / `cos` / `ln` grow
//!   over the iterations (measured: at most 2e-13 relative over 600 000 samples with 2-ulp
//!   perturbations), so within 1e-10 relative.

// The reference computations mirror the kernel bodies, written to exercise each construct.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::manual_is_multiple_of,
    clippy::nonminimal_bool,
    clippy::approx_constant
)]

mod common;
#[macro_use]
mod per_space;

use common::Rng;
use ferrokkos::prelude::*;
use ferrokkos::{Result, device, kernel, parallel_scan_with};
use per_space::{Float, Outputs, download, upload, upload_nd};

/// A View of rank `R` and layout `L` in the memory space of `S`.
type SView<S, T, const R: usize, L = LayoutRight> =
    View<T, R, L, <S as ExecutionSpace>::MemorySpace>;

/// A finite `f64` of random sign and magnitude between about 2^-60 and 2^70.
fn wide_f64(rng: &mut Rng) -> f64 {
    let e = (rng.next_u64() % 131) as i32 - 60;
    let sign = if rng.next_u64() % 2 == 0 { 1.0 } else { -1.0 };
    sign * rng.f64_in(1.0, 2.0) * 2f64.powi(e)
}

/// A finite `f32` of random sign and magnitude from the subnormals to about 2^100.
fn wide_f32(rng: &mut Rng) -> f32 {
    let e = (rng.next_u64() % 250) as i32 - 149;
    let sign = if rng.next_u64() % 2 == 0 { 1.0 } else { -1.0 };
    (sign * rng.f64_in(1.0, 2.0) * 2f64.powi(e)) as f32
}

/// `n` uniform values in `[lo, hi)`.
fn uniform(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..n).map(|_| rng.f64_in(lo, hi)).collect()
}

/// The sum of the magnitudes of `terms` (the scale of the rounding error of a sum in any order).
fn magnitude(terms: impl IntoIterator<Item = f64>) -> f64 {
    terms.into_iter().map(f64::abs).sum()
}

// -------------------------------------------------------------------------------------------------
// The kernel language (kernel_language.rs)
// -------------------------------------------------------------------------------------------------

mod let_assignment_and_compound_assignment {
    use super::*;

    fn inputs(seed: u64) -> Vec<i64> {
        let mut rng = Rng::new(seed);
        (0..1000)
            .map(|_| (rng.next_u64() % 2_000_001) as i64 - 1_000_000)
            .collect()
    }

    fn f(a: i64) -> i64 {
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
        b + 1
    }

    fn run<S: Launch>(exec: &S, xs: &[i64]) -> Result<Outputs> {
        let n = xs.len();
        let x = upload::<S, i64>("x", xs)?;
        let y = SView::<S, i64, 1>::new("y", [n])?;
        parallel_for(
            "let",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
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
            }),
        )?;
        let mut out = Outputs::new();
        out.put("y", download(&y)?);
        Ok(out)
    }

    fn reference(xs: &[i64]) -> Outputs {
        let mut out = Outputs::new();
        out.put("y", xs.iter().map(|a| f(*a)).collect::<Vec<_>>());
        out
    }

    differential!(inputs, run, reference);
}

/// Every operator on one primitive integer type, on the edge values of `kernel_language.rs` and
/// random values of the type.
macro_rules! int_operators {
    ($name:ident, $t:ident, $edges:expr) => {
        mod $name {
            use super::*;

            fn inputs(seed: u64) -> Vec<$t> {
                let mut rng = Rng::new(seed);
                let mut v: Vec<$t> = $edges;
                v.extend((0..300).map(|_| rng.next_u64() as $t));
                // Small values too, so that divisions and comparisons see nearby operands.
                v.extend((0..100).map(|_| (rng.next_u64() % 16) as $t));
                // MIN / -1 overflows (a panic in Rust, undefined in C++): never divide so.
                let n = v.len();
                for i in 0..n {
                    if v[i] == $t::MIN && v[(i + 1) % n] as i128 == -1 {
                        v[(i + 1) % n] = 7 as $t;
                    }
                }
                v
            }

            fn run<S: Launch>(exec: &S, values: &[$t]) -> Result<Outputs> {
                let n = values.len();
                let x = upload::<S, $t>("x", values)?;
                let out = SView::<S, $t, 2>::new("out", [n, 8])?;
                let cmp = SView::<S, bool, 2>::new("cmp", [n, 6])?;
                parallel_for(
                    "ops",
                    RangePolicy::new(exec, 0, n)?,
                    kernel!(|i| {
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
                    }),
                )?;
                let mut o = Outputs::new();
                o.put("ops", download(&out)?).put("cmp", download(&cmp)?);
                Ok(o)
            }

            fn reference(values: &[$t]) -> Outputs {
                let n = values.len();
                let (mut ops, mut cmp) = (Vec::new(), Vec::new());
                for i in 0..n {
                    let (a, b) = (values[i], values[(i + 1) % n]);
                    ops.extend([
                        a.wrapping_add(b),
                        a.wrapping_sub(b),
                        a.wrapping_mul(b),
                        if b != 0 { a / b } else { 0 },
                        if b != 0 { a % b } else { 0 },
                        (a & b) | (a ^ !b),
                        a << (i as u32 % 7),
                        a >> (i as u32 % 7),
                    ]);
                    cmp.extend([
                        a == b,
                        a != b,
                        a < b && b > a,
                        a <= b || b >= a,
                        !(a < b),
                        a > b,
                    ]);
                }
                let mut o = Outputs::new();
                o.put("ops", ops).put("cmp", cmp);
                o
            }

            differential!(inputs, run, reference);
        }
    };
}

int_operators!(operators_on_i8, i8, vec![-128, -7, -1, 0, 1, 5, 100, 127]);
int_operators!(
    operators_on_i16,
    i16,
    vec![-32768, -300, -1, 0, 1, 77, 32767]
);
int_operators!(
    operators_on_i32,
    i32,
    vec![i32::MIN, -70000, -3, 0, 2, 9, i32::MAX]
);
int_operators!(
    operators_on_i64,
    i64,
    vec![i64::MIN, -1 << 40, -3, 0, 2, 9, i64::MAX]
);
int_operators!(
    operators_on_isize,
    isize,
    vec![isize::MIN, -3, 0, 2, 9, isize::MAX]
);
int_operators!(operators_on_u8, u8, vec![0, 1, 2, 7, 100, 200, 255]);
int_operators!(operators_on_u16, u16, vec![0, 1, 3, 300, 40000, 65535]);
int_operators!(
    operators_on_u32,
    u32,
    vec![0, 1, 3, 70000, 3_000_000_000, u32::MAX]
);
int_operators!(
    operators_on_u64,
    u64,
    vec![0, 1, 3, 1 << 40, u64::MAX - 1, u64::MAX]
);
int_operators!(
    operators_on_usize,
    usize,
    vec![0, 1, 3, 1 << 40, usize::MAX]
);

/// The float operators on one float type: edge values and random values of every magnitude
/// (subnormals included). IEEE arithmetic: the same bits on every space.
macro_rules! float_operators {
    ($name:ident, $t:ident, $wide:ident) => {
        mod $name {
            use super::*;

            fn inputs(seed: u64) -> Vec<$t> {
                let mut rng = Rng::new(seed);
                let mut v: Vec<$t> = vec![
                    -3.5,
                    -0.0,
                    0.25,
                    1.0,
                    7.75,
                    1e30,
                    $t::MIN_POSITIVE,
                    $t::MAX,
                    $t::INFINITY,
                    $t::NAN,
                    0.0,
                ];
                v.extend((0..400).map(|_| $wide(&mut rng)));
                v.extend((0..100).map(|_| rng.f64_in(-8.0, 8.0) as $t));
                v
            }

            fn run<S: Launch>(exec: &S, values: &[$t]) -> Result<Outputs> {
                let n = values.len();
                let x = upload::<S, $t>("x", values)?;
                let out = SView::<S, $t, 2>::new("out", [n, 6])?;
                let cmp = SView::<S, bool, 2>::new("cmp", [n, 4])?;
                parallel_for(
                    "float ops",
                    RangePolicy::new(exec, 0, n)?,
                    kernel!(|i| {
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
                    }),
                )?;
                let mut o = Outputs::new();
                o.put("ops", download(&out)?).put("cmp", download(&cmp)?);
                Ok(o)
            }

            fn reference(values: &[$t]) -> Outputs {
                let n = values.len();
                let (mut ops, mut cmp) = (Vec::new(), Vec::new());
                for i in 0..n {
                    let (a, b) = (values[i], values[(i + 1) % n]);
                    ops.extend([
                        a + b,
                        a - b * 2.0,
                        -a * b,
                        a / b,
                        a % b,
                        0.5 * a + 1.0 / 3.0,
                    ]);
                    cmp.extend([a < b, a >= b, a == b || a != a, !(a > b) && true]);
                }
                let mut o = Outputs::new();
                o.put("ops", ops).put("cmp", cmp);
                o
            }

            differential!(inputs, run, reference);
        }
    };
}

float_operators!(float_operators_on_f32, f32, wide_f32);
float_operators!(float_operators_on_f64, f64, wide_f64);

mod literals_take_the_type_rust_infers {
    use super::*;

    fn inputs(seed: u64) -> Vec<f32> {
        let mut rng = Rng::new(seed);
        (0..200).map(|_| rng.f64_in(-1e3, 1e3) as f32).collect()
    }

    fn run<S: Launch>(exec: &S, xs: &[f32]) -> Result<Outputs> {
        let n = xs.len();
        let x = upload::<S, f32>("x", xs)?;
        let y = SView::<S, f64, 1>::new("y", [n])?;
        parallel_for(
            "literals",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let alone = 2.0; // f64: nothing constrains it
                let with_f32 = x[i] * 2.0; // f32
                let k = 3; // i32
                y[i] = alone * (with_f32 as f64) + k as f64;
            }),
        )?;
        let mut o = Outputs::new();
        o.put("y", download(&y)?);
        Ok(o)
    }

    fn reference(xs: &[f32]) -> Outputs {
        let mut o = Outputs::new();
        o.put(
            "y",
            xs.iter()
                .map(|x| 2.0 * ((x * 2.0) as f64) + 3.0)
                .collect::<Vec<f64>>(),
        );
        o
    }

    differential!(inputs, run, reference);
}

mod bool_operators {
    use super::*;

    fn inputs(seed: u64) -> Vec<bool> {
        let mut rng = Rng::new(seed);
        (0..300).map(|_| rng.next_u64() % 2 == 0).collect()
    }

    fn run<S: Launch>(exec: &S, xs: &[bool]) -> Result<Outputs> {
        let n = xs.len();
        let x = upload::<S, bool>("x", xs)?;
        let y = SView::<S, bool, 1>::new("y", [n])?;
        parallel_for(
            "bools",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let a = x[i];
                let b = x[(i + 1) % x.extent(0)];
                y[i] = (a & b) | (a ^ b) && !b || a == b;
            }),
        )?;
        let mut o = Outputs::new();
        o.put("y", download(&y)?);
        Ok(o)
    }

    fn reference(xs: &[bool]) -> Outputs {
        let n = xs.len();
        let y: Vec<bool> = (0..n)
            .map(|i| {
                let (a, b) = (xs[i], xs[(i + 1) % n]);
                (a & b) | (a ^ b) && !b || a == b
            })
            .collect();
        let mut o = Outputs::new();
        o.put("y", y);
        o
    }

    differential!(inputs, run, reference);
}

mod casts_follow_rust {
    use super::*;

    fn inputs(seed: u64) -> Vec<f64> {
        let mut rng = Rng::new(seed);
        let mut v = vec![
            1e20,
            -1e20,
            f64::NAN,
            3.99,
            -3.99,
            300.0,
            -129.5,
            0.0,
            -0.0,
            f64::INFINITY,
            f64::NEG_INFINITY,
            255.5,
            -0.5,
        ];
        v.extend((0..300).map(|_| wide_f64(&mut rng)));
        v.extend(uniform(&mut rng, 200, -400.0, 400.0));
        v
    }

    fn run<S: Launch>(exec: &S, values: &[f64]) -> Result<Outputs> {
        let n = values.len();
        let x = upload::<S, f64>("x", values)?;
        let out = SView::<S, i64, 2>::new("out", [n, 6])?;
        let f = SView::<S, f32, 1>::new("f", [n])?;
        parallel_for(
            "casts",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let v = x[i];
                out[(i, 0)] = v as i32 as i64;
                out[(i, 1)] = v as u8 as i64;
                out[(i, 2)] = v as i8 as i64;
                out[(i, 3)] = (v as i64) as u16 as i64;
                out[(i, 4)] = v as u64 as i64;
                out[(i, 5)] = (v > 0.0) as i64 + (i as i32) as i64;
                f[i] = v as f32;
            }),
        )?;
        let mut o = Outputs::new();
        o.put("ints", download(&out)?).put("f32", download(&f)?);
        Ok(o)
    }

    fn reference(values: &[f64]) -> Outputs {
        let mut ints = Vec::new();
        for (i, &v) in values.iter().enumerate() {
            ints.extend([
                v as i32 as i64,
                v as u8 as i64,
                v as i8 as i64,
                (v as i64) as u16 as i64,
                v as u64 as i64,
                (v > 0.0) as i64 + (i as i32) as i64,
            ]);
        }
        let mut o = Outputs::new();
        o.put("ints", ints)
            .put("f32", values.iter().map(|v| *v as f32).collect::<Vec<_>>());
        o
    }

    differential!(inputs, run, reference);
}

mod if_else_as_statement_and_as_value {
    use super::*;

    fn inputs(seed: u64) -> Vec<i32> {
        let mut rng = Rng::new(seed);
        let mut v: Vec<i32> = (-20..20).collect();
        v.extend((0..300).map(|_| (rng.next_u64() % 201) as i32 - 100));
        v
    }

    fn f(v: i32) -> i32 {
        let big = if v.abs() > 10 { v * 2 + 1 } else { v };
        if v < 0 {
            big - 1000
        } else if v == 0 {
            7
        } else {
            big + 1000
        }
    }

    fn run<S: Launch>(exec: &S, xs: &[i32]) -> Result<Outputs> {
        let n = xs.len();
        let x = upload::<S, i32>("x", xs)?;
        let y = SView::<S, i32, 1>::new("y", [n])?;
        parallel_for(
            "branches",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
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
            }),
        )?;
        let mut o = Outputs::new();
        o.put("y", download(&y)?);
        Ok(o)
    }

    fn reference(xs: &[i32]) -> Outputs {
        let mut o = Outputs::new();
        o.put("y", xs.iter().map(|v| f(*v)).collect::<Vec<_>>());
        o
    }

    differential!(inputs, run, reference);
}

mod for_loops_over_ranges {
    use super::*;

    fn inputs(seed: u64) -> usize {
        40 + (Rng::new(seed).next_u64() % 40) as usize
    }

    fn run<S: Launch>(exec: &S, n: &usize) -> Result<Outputs> {
        let n = *n;
        let y = SView::<S, u64, 2>::new("y", [n, 5])?;
        parallel_for(
            "loops",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let mut s = 0u64;
                for k in 0..i {
                    s += k as u64;
                }
                y[(i, 0)] = s;
                let mut t = 0u64;
                for k in 1..=i {
                    t = t.wrapping_mul(3).wrapping_add(k as u64);
                }
                y[(i, 1)] = t;
                let mut r = 0u64;
                for k in (0..i).rev() {
                    r = r.wrapping_mul(2).wrapping_add(k as u64);
                }
                y[(i, 2)] = r;
                let mut q = 0u64;
                for k in (2..i + 9).step_by(3) {
                    q = q.wrapping_mul(5).wrapping_add(k as u64);
                }
                y[(i, 3)] = q;
                let mut p = 0u64;
                for k in (1..i + 7).rev().step_by(2) {
                    p = p.wrapping_mul(7).wrapping_add(k as u64);
                }
                y[(i, 4)] = p;
            }),
        )?;
        let mut o = Outputs::new();
        o.put("y", download(&y)?);
        Ok(o)
    }

    fn reference(n: &usize) -> Outputs {
        let mut y = Vec::new();
        for i in 0..*n {
            y.extend([
                (0..i).map(|k| k as u64).sum(),
                (1..=i).fold(0u64, |t, k| t.wrapping_mul(3).wrapping_add(k as u64)),
                (0..i)
                    .rev()
                    .fold(0u64, |r, k| r.wrapping_mul(2).wrapping_add(k as u64)),
                (2..i + 9)
                    .step_by(3)
                    .fold(0u64, |q, k| q.wrapping_mul(5).wrapping_add(k as u64)),
                (1..i + 7)
                    .rev()
                    .step_by(2)
                    .fold(0u64, |p, k| p.wrapping_mul(7).wrapping_add(k as u64)),
            ]);
        }
        let mut o = Outputs::new();
        o.put("y", y);
        o
    }

    differential!(inputs, run, reference);
}

mod while_loop_break_and_continue {
    use super::*;

    fn inputs(seed: u64) -> Vec<u32> {
        let mut rng = Rng::new(seed);
        let mut v: Vec<u32> = (0..30).collect();
        v.extend((0..300).map(|_| (rng.next_u64() % 100_000) as u32));
        v
    }

    fn reference_one(x: u32) -> [u32; 3] {
        let mut v = x as u64 + 1;
        let mut steps = 0;
        while v != 1 {
            v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
            steps += 1;
        }
        let odd: u32 = (1..=x % 1000).filter(|k| k % 2 == 1).sum();
        let found = (2..20u32).find(|d| (x + 2) % d == 0).unwrap_or(0);
        [steps, odd, found]
    }

    fn run<S: Launch>(exec: &S, xs: &[u32]) -> Result<Outputs> {
        let n = xs.len();
        let x = upload::<S, u32>("x", xs)?;
        let y = SView::<S, u32, 2>::new("y", [n, 3])?;
        parallel_for(
            "loops",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                // Collatz steps.
                let mut v = x[i] as u64 + 1;
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
                    if k > x[i] % 1000 {
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
                    if (x[i] + 2) % d == 0 {
                        found = d;
                        break;
                    }
                }
                y[(i, 2)] = found;
            }),
        )?;
        let mut o = Outputs::new();
        o.put("y", download(&y)?);
        Ok(o)
    }

    fn reference(xs: &[u32]) -> Outputs {
        let mut o = Outputs::new();
        o.put(
            "y",
            xs.iter()
                .flat_map(|x| reference_one(*x))
                .collect::<Vec<_>>(),
        );
        o
    }

    differential!(inputs, run, reference);
}

mod return_ends_an_iteration_and_blocks_have_values {
    use super::*;

    fn inputs(seed: u64) -> Vec<i32> {
        let mut rng = Rng::new(seed);
        let mut v: Vec<i32> = (-10..10).collect();
        v.extend((0..200).map(|_| (rng.next_u64() % 41) as i32 - 20));
        v
    }

    fn run<S: Launch>(exec: &S, xs: &[i32]) -> Result<Outputs> {
        let n = xs.len();
        let x = upload::<S, i32>("x", xs)?;
        let y = SView::<S, i32, 1>::new("y", [n])?;
        parallel_for(
            "return",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let v = x[i];
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
            }),
        )?;
        let mut o = Outputs::new();
        o.put("y", download(&y)?);
        Ok(o)
    }

    fn reference(xs: &[i32]) -> Outputs {
        let y: Vec<i32> = xs
            .iter()
            .map(|&v| {
                if v < -5 {
                    -1
                } else if v > 0 && v * 2 < 10 {
                    100
                } else {
                    v
                }
            })
            .collect();
        let mut o = Outputs::new();
        o.put("y", y);
        o
    }

    differential!(inputs, run, reference);
}

/// `x as T` from one source type to every numeric type.
macro_rules! casts_from {
    ($name:ident, $s:ident, $values:expr, $random:expr) => {
        mod $name {
            use super::*;

            fn inputs(seed: u64) -> Vec<$s> {
                let mut rng = Rng::new(seed);
                let random: fn(&mut Rng) -> $s = $random;
                let mut v: Vec<$s> = $values;
                v.extend((0..400).map(|_| random(&mut rng)));
                v
            }

            fn run<S: Launch>(exec: &S, values: &[$s]) -> Result<Outputs> {
                let n = values.len();
                let x = upload::<S, $s>("x", values)?;
                let (o_i8, o_i16, o_i32, o_i64) = (
                    SView::<S, i8, 1>::new("i8", [n])?,
                    SView::<S, i16, 1>::new("i16", [n])?,
                    SView::<S, i32, 1>::new("i32", [n])?,
                    SView::<S, i64, 1>::new("i64", [n])?,
                );
                let (o_u8, o_u16, o_u32, o_u64) = (
                    SView::<S, u8, 1>::new("u8", [n])?,
                    SView::<S, u16, 1>::new("u16", [n])?,
                    SView::<S, u32, 1>::new("u32", [n])?,
                    SView::<S, u64, 1>::new("u64", [n])?,
                );
                let (o_isize, o_usize, o_f32, o_f64) = (
                    SView::<S, isize, 1>::new("isize", [n])?,
                    SView::<S, usize, 1>::new("usize", [n])?,
                    SView::<S, f32, 1>::new("f32", [n])?,
                    SView::<S, f64, 1>::new("f64", [n])?,
                );
                parallel_for(
                    "casts",
                    RangePolicy::new(exec, 0, n)?,
                    kernel!(|i| {
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
                    }),
                )?;
                let mut o = Outputs::new();
                o.put("i8", download(&o_i8)?)
                    .put("i16", download(&o_i16)?)
                    .put("i32", download(&o_i32)?)
                    .put("i64", download(&o_i64)?)
                    .put("u8", download(&o_u8)?)
                    .put("u16", download(&o_u16)?)
                    .put("u32", download(&o_u32)?)
                    .put("u64", download(&o_u64)?)
                    .put("isize", download(&o_isize)?)
                    .put("usize", download(&o_usize)?)
                    .put("f32", download(&o_f32)?)
                    .put("f64", download(&o_f64)?);
                Ok(o)
            }

            fn reference(values: &[$s]) -> Outputs {
                let v = values;
                let mut o = Outputs::new();
                o.put("i8", v.iter().map(|v| *v as i8).collect::<Vec<_>>())
                    .put("i16", v.iter().map(|v| *v as i16).collect::<Vec<_>>())
                    .put("i32", v.iter().map(|v| *v as i32).collect::<Vec<_>>())
                    .put("i64", v.iter().map(|v| *v as i64).collect::<Vec<_>>())
                    .put("u8", v.iter().map(|v| *v as u8).collect::<Vec<_>>())
                    .put("u16", v.iter().map(|v| *v as u16).collect::<Vec<_>>())
                    .put("u32", v.iter().map(|v| *v as u32).collect::<Vec<_>>())
                    .put("u64", v.iter().map(|v| *v as u64).collect::<Vec<_>>())
                    .put("isize", v.iter().map(|v| *v as isize).collect::<Vec<_>>())
                    .put("usize", v.iter().map(|v| *v as usize).collect::<Vec<_>>())
                    .put("f32", v.iter().map(|v| *v as f32).collect::<Vec<_>>())
                    .put("f64", v.iter().map(|v| *v as f64).collect::<Vec<_>>());
                o
            }

            differential!(inputs, run, reference);
        }
    };
}

casts_from!(
    casts_from_i8,
    i8,
    vec![i8::MIN, -1, 0, 1, i8::MAX],
    |r| r.next_u64() as i8
);
casts_from!(
    casts_from_i16,
    i16,
    vec![i16::MIN, -300, -1, 0, 300, i16::MAX],
    |r| { r.next_u64() as i16 }
);
casts_from!(
    casts_from_i32,
    i32,
    vec![i32::MIN, -70000, -1, 0, 70000, i32::MAX],
    |r| { r.next_u64() as i32 }
);
casts_from!(
    casts_from_i64,
    i64,
    vec![i64::MIN, -(1 << 40), -1, 0, 1 << 40, i64::MAX],
    |r| { (r.next_u64() as i64) >> (r.next_u64() % 64) }
);
casts_from!(
    casts_from_isize,
    isize,
    vec![isize::MIN, -1, 0, isize::MAX],
    |r| { (r.next_u64() as isize) >> (r.next_u64() % 64) }
);
casts_from!(
    casts_from_u8,
    u8,
    vec![0, 1, 127, 128, 255],
    |r| r.next_u64() as u8
);
casts_from!(
    casts_from_u16,
    u16,
    vec![0, 255, 256, 40000, u16::MAX],
    |r| r.next_u64() as u16
);
casts_from!(
    casts_from_u32,
    u32,
    vec![0, 70000, 1 << 31, u32::MAX],
    |r| r.next_u64() as u32
);
casts_from!(
    casts_from_u64,
    u64,
    vec![0, 1 << 40, 1 << 63, u64::MAX],
    |r| { r.next_u64() >> (r.next_u64() % 64) }
);
casts_from!(casts_from_usize, usize, vec![0, 1 << 40, usize::MAX], |r| {
    (r.next_u64() >> (r.next_u64() % 64)) as usize
});
casts_from!(
    casts_from_f32,
    f32,
    vec![
        f32::MIN,
        -3.9e9,
        -129.5,
        -0.5,
        0.0,
        -0.0,
        0.9,
        255.5,
        3e9,
        1e20,
        f32::MAX,
        f32::NAN,
        f32::INFINITY,
        f32::NEG_INFINITY
    ],
    wide_f32
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
        -0.0,
        0.9,
        255.5,
        3e9,
        1e19,
        1e300,
        f64::NAN,
        f64::NEG_INFINITY
    ],
    wide_f64
);

mod casts_from_bool {
    use super::*;

    fn inputs(seed: u64) -> Vec<bool> {
        let mut rng = Rng::new(seed);
        (0..100).map(|_| rng.next_u64() % 3 == 0).collect()
    }

    fn run<S: Launch>(exec: &S, xs: &[bool]) -> Result<Outputs> {
        let n = xs.len();
        let x = upload::<S, bool>("x", xs)?;
        let (a, b, c) = (
            SView::<S, u8, 1>::new("a", [n])?,
            SView::<S, i64, 1>::new("b", [n])?,
            SView::<S, usize, 1>::new("c", [n])?,
        );
        parallel_for(
            "bool casts",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                a[i] = x[i] as u8 + 1;
                b[i] = x[i] as i64 - 1;
                c[i] = x[i] as usize;
            }),
        )?;
        let mut o = Outputs::new();
        o.put("a", download(&a)?)
            .put("b", download(&b)?)
            .put("c", download(&c)?);
        Ok(o)
    }

    fn reference(xs: &[bool]) -> Outputs {
        let mut o = Outputs::new();
        o.put("a", xs.iter().map(|x| *x as u8 + 1).collect::<Vec<_>>())
            .put("b", xs.iter().map(|x| *x as i64 - 1).collect::<Vec<_>>())
            .put("c", xs.iter().map(|x| *x as usize).collect::<Vec<_>>());
        o
    }

    differential!(inputs, run, reference);
}

mod tuple_lets_and_shadowed_captures {
    use super::*;

    fn inputs(seed: u64) -> (i64, usize) {
        let mut rng = Rng::new(seed);
        (
            1 + (rng.next_u64() % 9) as i64,
            50 + (rng.next_u64() % 50) as usize,
        )
    }

    fn run<S: Launch>(exec: &S, input: &(i64, usize)) -> Result<Outputs> {
        let (scale, n) = *input;
        let y = SView::<S, i64, 2>::new("y", [n, 3])?;
        parallel_for(
            "tuples and shadowing",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let (a, mut b) = (i as i64, 10i64);
                b += a;
                // Swapping through a tuple reads the old names first, as Rust does.
                let (a, b) = (b, a);
                y[(i, 0)] = a;
                y[(i, 1)] = b;
                // A local that shadows a capture; a loop condition with statements.
                let scale = scale * 2;
                let mut m = i as i64;
                let mut steps = 0i64;
                while {
                    let doubled = m * 2;
                    doubled < 400
                } {
                    m += scale;
                    steps += 1;
                }
                y[(i, 2)] = steps * 1000 + m;
            }),
        )?;
        // A kernel without captures.
        parallel_for(
            "empty",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let _t = i * 2;
            }),
        )?;
        let mut o = Outputs::new();
        o.put("y", download(&y)?);
        Ok(o)
    }

    fn reference(input: &(i64, usize)) -> Outputs {
        let (scale, n) = *input;
        let mut y = Vec::new();
        for i in 0..n as i64 {
            let (mut m, mut steps) = (i, 0);
            while m * 2 < 400 {
                m += scale * 2;
                steps += 1;
            }
            y.extend([10 + i, i, steps * 1000 + m]);
        }
        let mut o = Outputs::new();
        o.put("y", y);
        o
    }

    differential!(inputs, run, reference);
}

// -------------------------------------------------------------------------------------------------
// Beyond the core language (kernel_features.rs)
// -------------------------------------------------------------------------------------------------

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
                    kernel!(|i| {
                        let v = x[i];
                        let w = x[(i + 3) % x.extent(0)];
                        out[(i, 0)] = v.abs();
                        out[(i, 1)] = v.sqrt();
                        out[(i, 2)] = v.cbrt();
                        out[(i, 3)] = v.exp();
                        out[(i, 4)] = v.exp2();
                        out[(i, 5)] = v.ln();
                        out[(i, 6)] = v.log2();
                        out[(i, 7)] = v.log10();
                        out[(i, 8)] = v.powi(3);
                        out[(i, 9)] = v.powf(w);
                        out[(i, 10)] = v.sin();
                        out[(i, 11)] = v.cos();
                        out[(i, 12)] = v.tan();
                        out[(i, 13)] = (v / 16.0).asin();
                        out[(i, 14)] = (v / 16.0).acos();
                        out[(i, 15)] = v.atan();
                        out[(i, 16)] = v.atan2(w);
                        out[(i, 17)] = v.sinh();
                        out[(i, 18)] = v.cosh();
                        out[(i, 19)] = v.tanh();
                        out[(i, 20)] = v.floor();
                        out[(i, 21)] = v.ceil();
                        out[(i, 22)] = v.round();
                        out[(i, 23)] = v.trunc();
                        out[(i, 24)] = v.min(w);
                        out[(i, 25)] = v.max(w);
                        out[(i, 26)] = v.mul_add(w, 1.5);
                        out[(i, 27)] = v.hypot(w);
                        out[(i, 28)] = v.signum();
                        out[(i, 29)] = v.clamp(-1.0, 2.0);
                        out[(i, 30)] = std::$t::consts::PI * v;
                        out[(i, 31)] = $t::MAX.min(v) + $t::EPSILON;
                        flags[(i, 0)] = v.is_nan();
                        flags[(i, 1)] = v.is_finite();
                    }),
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
                    kernel!(|i| {
                        let v = x[i];
                        let w = x[(i + 1) % x.extent(0)];
                        out[(i, 0)] = v.min(w);
                        out[(i, 1)] = v.max(w);
                        out[(i, 2)] = v.pow(3);
                        out[(i, 3)] = v.wrapping_add(w);
                        out[(i, 4)] = v.wrapping_sub(w);
                        out[(i, 5)] = v.wrapping_mul(w);
                        out[(i, 6)] = if w != 0 { v.rem_euclid(w) } else { 0 };
                        out[(i, 7)] = $t::MAX.min(v).max($t::MIN);
                        bits[(i, 0)] = v.count_ones();
                        bits[(i, 1)] = v.leading_zeros();
                    }),
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
            kernel!(|i| y[i] = x[i].abs()),
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

mod views_of_every_rank_and_layout {
    use super::*;

    fn inputs(seed: u64) -> (usize, Vec<f64>) {
        let mut rng = Rng::new(seed);
        let n = 3 + (rng.next_u64() % 60) as usize;
        (n, uniform(&mut rng, n, -5.0, 5.0))
    }

    fn run<S: Launch>(exec: &S, input: &(usize, Vec<f64>)) -> Result<Outputs> {
        let (n, ref base) = *input;
        let b = upload::<S, f64>("base", base)?;
        let v1 = SView::<S, f64, 1>::new("v1", [n])?;
        let v2 = SView::<S, f64, 2, LayoutLeft>::new("v2", [n, 2])?;
        let v3 = SView::<S, f64, 3>::new("v3", [n, 2, 2])?;
        let v4 = SView::<S, f64, 4, LayoutLeft>::new("v4", [n, 2, 1, 2])?;
        let v5 = SView::<S, f64, 5>::new("v5", [n, 1, 2, 1, 2])?;
        let v6 = SView::<S, f64, 6>::new("v6", [n, 1, 1, 2, 1, 2])?;
        let v7 = SView::<S, f64, 7, LayoutLeft>::new("v7", [n, 1, 1, 1, 2, 1, 2])?;
        let v8 = SView::<S, f64, 8>::new("v8", [n, 1, 1, 1, 1, 2, 1, 2])?;
        let parent = SView::<S, f64, 2>::new("parent", [n, 4])?;
        let strided = subview(&parent, (ALL, 1))?;
        parallel_for(
            "ranks",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let f = b[i];
                v1[i] = f;
                for a in 0..v2.extent(1) {
                    v2[(i, a)] = f + a as f64;
                    for c in 0..2 {
                        v3[(i, a, c)] = f * 10.0 + (a * 2 + c) as f64;
                        v4[(i, a, 0, c)] = v3[(i, a, c)] + 1.0;
                        v5[(i, 0, a, 0, c)] = v4[(i, a, 0, c)] + 1.0;
                        v6[(i, 0, 0, a, 0, c)] = v5[(i, 0, a, 0, c)] + 1.0;
                        v7[(i, 0, 0, 0, a, 0, c)] = v6[(i, 0, 0, a, 0, c)] + 1.0;
                        v8[(i, 0, 0, 0, 0, a, 0, c)] = v7[(i, 0, 0, 0, a, 0, c)] + 1.0;
                    }
                }
                strided[i] = v1[i] * 2.0 + v2.extent(0) as f64;
            }),
        )?;
        let mut o = Outputs::new();
        o.put("v1", download(&v1)?)
            .put("v2", download(&v2)?)
            .put("v3", download(&v3)?)
            .put("v4", download(&v4)?)
            .put("v5", download(&v5)?)
            .put("v6", download(&v6)?)
            .put("v7", download(&v7)?)
            .put("v8", download(&v8)?)
            .put("parent", download(&parent)?);
        Ok(o)
    }

    fn reference(input: &(usize, Vec<f64>)) -> Outputs {
        let (n, ref base) = *input;
        // Row-major over (i, a, c): the 2 x 2 trailing elements of each rank-3..8 View.
        let level = |k: f64| -> Vec<f64> {
            let mut out = Vec::new();
            for &f in base {
                for a in 0..2 {
                    for c in 0..2 {
                        out.push(f * 10.0 + (a * 2 + c) as f64 + k);
                    }
                }
            }
            out
        };
        let v2: Vec<f64> = base.iter().flat_map(|f| [*f, f + 1.0]).collect();
        let parent: Vec<f64> = base
            .iter()
            .flat_map(|f| [0.0, f * 2.0 + n as f64, 0.0, 0.0])
            .collect();
        let mut o = Outputs::new();
        o.put("v1", base.clone())
            .put("v2", v2)
            .put("v3", level(0.0))
            .put("v4", level(0.0).iter().map(|x| x + 1.0).collect::<Vec<_>>())
            .put(
                "v5",
                level(0.0).iter().map(|x| x + 1.0 + 1.0).collect::<Vec<_>>(),
            )
            .put(
                "v6",
                level(0.0)
                    .iter()
                    .map(|x| x + 1.0 + 1.0 + 1.0)
                    .collect::<Vec<_>>(),
            )
            .put(
                "v7",
                level(0.0)
                    .iter()
                    .map(|x| x + 1.0 + 1.0 + 1.0 + 1.0)
                    .collect::<Vec<_>>(),
            )
            .put(
                "v8",
                level(0.0)
                    .iter()
                    .map(|x| x + 1.0 + 1.0 + 1.0 + 1.0 + 1.0)
                    .collect::<Vec<_>>(),
            )
            .put("parent", parent);
        o
    }

    differential!(inputs, run, reference);
}

mod md_range_indices_destructure_as_tuples {
    use super::*;

    fn inputs(seed: u64) -> (usize, usize, usize) {
        let mut rng = Rng::new(seed);
        (
            2 + (rng.next_u64() % 40) as usize,
            2 + (rng.next_u64() % 40) as usize,
            2 + (rng.next_u64() % 9) as usize,
        )
    }

    fn run<S: Launch>(exec: &S, input: &(usize, usize, usize)) -> Result<Outputs> {
        let (n, m, p) = *input;
        let a = SView::<S, f64, 2>::new("a", [n, m])?;
        let b = SView::<S, i64, 3, LayoutLeft>::new("b", [n, m, p])?;
        for order in [Iterate::Right, Iterate::Left] {
            parallel_for(
                "fill",
                MDRangePolicy::new(exec, [0, 0], [n as i64, m as i64])?.iterate(order),
                kernel!(|(i, j)| a[(i, j)] = (i * 100 + j) as f64),
            )?;
            parallel_for(
                "fill3",
                MDRangePolicy::new(exec, [0, 0, 0], [n, m, p])?.iterate(order),
                kernel!(|(i, j, l): (usize, usize, usize)| {
                    b[(i, j, l)] = (i * 10000 + j * 100 + l) as i64
                }),
            )?;
        }
        let mut o = Outputs::new();
        o.put("a", download(&a)?).put("b", download(&b)?);
        Ok(o)
    }

    fn reference(input: &(usize, usize, usize)) -> Outputs {
        let (n, m, p) = *input;
        let a: Vec<f64> = common::indices([n, m])
            .into_iter()
            .map(|[i, j]| (i * 100 + j) as f64)
            .collect();
        let b: Vec<i64> = common::indices([n, m, p])
            .into_iter()
            .map(|[i, j, l]| (i * 10000 + j * 100 + l) as i64)
            .collect();
        let mut o = Outputs::new();
        o.put("a", a).put("b", b);
        o
    }

    differential!(inputs, run, reference);
}

/// The smoothing weight of a stencil.
#[device]
fn weight(d: i32) -> f64 {
    if d == 0 { 0.5 } else { 0.25 }
}

/// A weighted neighbour, calling another device function.
#[device]
fn weighted(v: f64, d: i32) -> f64 {
    weight(d) * v
}

/// Integer square root by bisection (loops and early return in a device function).
#[device]
fn isqrt(n: u64) -> u64 {
    if n < 2 {
        return n;
    }
    let mut lo = 1u64;
    let mut hi = n;
    while lo + 1 < hi {
        let mid = lo + (hi - lo) / 2;
        if mid <= n / mid {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    lo
}

mod device_functions_are_callable {
    use super::*;

    fn inputs(seed: u64) -> (Vec<f64>, Vec<u64>) {
        let mut rng = Rng::new(seed);
        let n = 500;
        let xs = uniform(&mut rng, n, -100.0, 100.0);
        let mut ks: Vec<u64> = (0..n)
            .map(|_| rng.next_u64() >> (rng.next_u64() % 64))
            .collect();
        ks[..4].copy_from_slice(&[0, 1, 2, u64::MAX]);
        (xs, ks)
    }

    fn run<S: Launch>(exec: &S, input: &(Vec<f64>, Vec<u64>)) -> Result<Outputs> {
        let n = input.0.len();
        let x = upload::<S, f64>("x", &input.0)?;
        let k = upload::<S, u64>("k", &input.1)?;
        let y = SView::<S, f64, 1>::new("y", [n])?;
        let r = SView::<S, u64, 1>::new("r", [n])?;
        parallel_for(
            "stencil",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let l = if i > 0 { i - 1 } else { i };
                let h = if i + 1 < x.extent(0) { i + 1 } else { i };
                y[i] = weighted(x[l], -1) + weighted(x[i], 0) + weighted(x[h], 1);
                r[i] = isqrt(k[i]);
            }),
        )?;
        let mut o = Outputs::new();
        o.put("y", download(&y)?).put("r", download(&r)?);
        Ok(o)
    }

    fn reference(input: &(Vec<f64>, Vec<u64>)) -> Outputs {
        let (x, k) = input;
        let n = x.len();
        let y: Vec<f64> = (0..n)
            .map(|i| {
                let (l, h) = (i.saturating_sub(1), (i + 1).min(n - 1));
                0.25 * x[l] + 0.5 * x[i] + 0.25 * x[h]
            })
            .collect();
        let r: Vec<u64> = k.iter().map(|k| isqrt(*k)).collect();
        // isqrt is right (checked against u128 arithmetic).
        for (k, s) in k.iter().zip(&r) {
            let (k, s) = (*k as u128, *s as u128);
            assert!(s * s <= k && (s + 1) * (s + 1) > k, "isqrt({k}) = {s}");
        }
        let mut o = Outputs::new();
        o.put("y", y).put("r", r);
        o
    }

    differential!(inputs, run, reference);
}

mod reductions_with_one_and_several_accumulators {
    use super::*;

    fn inputs(seed: u64) -> Vec<f64> {
        let mut rng = Rng::new(seed);
        let n = 100_000 + (rng.next_u64() % 5000) as usize;
        let mut v = uniform(&mut rng, n, -10.0, 10.0);
        // Ties of the minimum, far apart.
        let lo = -11.0;
        for k in [7, n / 3, n - 1] {
            v[k] = lo;
        }
        v
    }

    fn run<S: Launch>(exec: &S, values: &[f64]) -> Result<Outputs> {
        let n = values.len();
        let x = upload::<S, f64>("x", values)?;
        let p = RangePolicy::new(exec, 0, n)?;
        let mut sum = 0.0;
        parallel_reduce(
            "sumsq",
            p.clone(),
            kernel!(|i, acc| *acc += x[i] * x[i]),
            &mut sum,
        )?;
        let (lo, hi, count) = parallel_reduce(
            "stats",
            p.clone(),
            kernel!(|i, lo, hi: &mut f64, count| {
                let v = x[i];
                if v < *lo {
                    *lo = v;
                }
                *hi = hi.max(v);
                if v > 0.0 {
                    *count += 1;
                }
            }),
            (Min::new(), Max::new(), Sum::<u32>::new()),
        )?;
        let m = parallel_reduce(
            "minloc",
            p,
            kernel!(|i, best: &mut ValLocScalar<f64, usize>| {
                if x[i] < best.val {
                    best.val = x[i];
                    best.loc = i;
                }
            }),
            MinLoc::<f64, usize>::new(),
        )?;
        let scale = magnitude(values.iter().map(|v| v * v));
        let mut o = Outputs::new();
        o.put_f64("sumsq", vec![sum], Float::Sum { scale })
            .put("lo hi", vec![lo, hi])
            .put("count", vec![count])
            .put("minloc", vec![m.val])
            .put("loc", vec![m.loc]);
        Ok(o)
    }

    fn reference(values: &[f64]) -> Outputs {
        let sum = values.iter().fold(0.0, |s, v| s + v * v);
        let lo = values.iter().copied().fold(f64::MAX, f64::min);
        let hi = values.iter().copied().fold(f64::MIN, f64::max);
        let count = values.iter().filter(|v| **v > 0.0).count() as u32;
        let loc = values.iter().position(|v| *v == lo).unwrap();
        let scale = magnitude(values.iter().map(|v| v * v));
        let mut o = Outputs::new();
        o.put_f64("sumsq", vec![sum], Float::Sum { scale })
            .put("lo hi", vec![lo, hi])
            .put("count", vec![count])
            .put("minloc", vec![lo])
            .put("loc", vec![loc]);
        o
    }

    differential!(inputs, run, reference);
}

mod md_range_reduction {
    use super::*;

    fn inputs(seed: u64) -> (usize, usize) {
        let mut rng = Rng::new(seed);
        (
            1 + (rng.next_u64() % 300) as usize,
            1 + (rng.next_u64() % 300) as usize,
        )
    }

    fn run<S: Launch>(exec: &S, input: &(usize, usize)) -> Result<Outputs> {
        let (n, m) = (input.0 as i64, input.1 as i64);
        let a = SView::<S, i64, 2>::new("a", [input.0, input.1])?;
        parallel_for(
            "fill",
            MDRangePolicy::new(exec, [0, 0], [n, m])?,
            kernel!(|(i, j)| a[(i, j)] = i * j - 7 * j),
        )?;
        let mut sums = Vec::new();
        for order in [Iterate::Left, Iterate::Right] {
            let s: i64 = parallel_reduce(
                "sum2d",
                MDRangePolicy::new(exec, [0, 0], [n, m])?.iterate(order),
                kernel!(|(i, j), acc| *acc += a[(i, j)]),
                Sum::new(),
            )?;
            sums.push(s);
        }
        let mut o = Outputs::new();
        o.put("sums", sums);
        Ok(o)
    }

    fn reference(input: &(usize, usize)) -> Outputs {
        let (n, m) = (input.0 as i64, input.1 as i64);
        let s: i64 = (0..n)
            .flat_map(|i| (0..m).map(move |j| i * j - 7 * j))
            .sum();
        let mut o = Outputs::new();
        o.put("sums", vec![s, s]);
        o
    }

    differential!(inputs, run, reference);
}

mod scans_exclusive_inclusive_and_running_max {
    use super::*;

    fn inputs(seed: u64) -> Vec<u32> {
        let mut rng = Rng::new(seed);
        let n = 1 + (rng.next_u64() % 300_000) as usize;
        (0..n).map(|_| (rng.next_u64() % 1000) as u32).collect()
    }

    fn run<S: Launch>(exec: &S, values: &[u32]) -> Result<Outputs> {
        let n = values.len();
        let counts = upload::<S, u32>("counts", values)?;
        let excl = SView::<S, u32, 1>::new("excl", [n])?;
        let incl = SView::<S, u32, 1>::new("incl", [n])?;
        let total: u32 = parallel_scan(
            "offsets",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i, partial, is_final| {
                if is_final {
                    excl[i] = *partial;
                }
                *partial += counts[i];
                if is_final {
                    incl[i] = *partial;
                }
            }),
        )?;
        let m = SView::<S, u32, 1>::new("m", [n])?;
        let top = parallel_scan_with(
            "runmax",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i, run: &mut u32, last: bool| {
                *run = run.max(counts[i]);
                if last {
                    m[i] = *run;
                }
            }),
            Max::new(),
        )?;
        let mut o = Outputs::new();
        o.put("excl", download(&excl)?)
            .put("incl", download(&incl)?)
            .put("total", vec![total])
            .put("runmax", download(&m)?)
            .put("top", vec![top]);
        Ok(o)
    }

    fn reference(values: &[u32]) -> Outputs {
        let (mut excl, mut incl, mut run) = (Vec::new(), Vec::new(), 0u32);
        let (mut maxes, mut m) = (Vec::new(), u32::MIN);
        for v in values {
            excl.push(run);
            run += v;
            incl.push(run);
            m = m.max(*v);
            maxes.push(m);
        }
        let mut o = Outputs::new();
        o.put("excl", excl)
            .put("incl", incl)
            .put("total", vec![run])
            .put("runmax", maxes)
            .put("top", vec![m]);
        o
    }

    differential!(inputs, run, reference);
}

mod atomics_update_shared_elements {
    use super::*;

    /// The sum of all the terms added atomically (each bin's rounding is within 1e-12 of it).
    fn fsum_scale(values: &[u32]) -> f64 {
        magnitude(values.iter().map(|v| 1.0 / (1.0 + *v as f64)))
    }

    fn inputs(seed: u64) -> Vec<u32> {
        let mut rng = Rng::new(seed);
        let n = 50_000 + (rng.next_u64() % 50_000) as usize;
        (0..n).map(|_| (rng.next_u64() % 100_003) as u32).collect()
    }

    fn run<S: Launch>(exec: &S, values: &[u32]) -> Result<Outputs> {
        let n = values.len();
        let x = upload::<S, u32>("x", values)?;
        let hist = SView::<S, u32, 1>::new("hist", [10])?;
        let lo = SView::<S, i64, 1>::new("lo", [1])?;
        let hi = SView::<S, f64, 1>::new("hi", [1])?;
        let fsum = SView::<S, f64, 1>::new("fsum", [4])?;
        let umax = SView::<S, u64, 2>::new("umax", [3, 2])?;
        deep_copy(&lo, i64::MAX)?;
        deep_copy(&hi, f64::MIN)?;
        parallel_for(
            "histogram",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let v = x[i];
                hist.atomic_add(v % 10, 1);
                lo.atomic_min(0, v as i64 - 50);
                hi.atomic_max(0, v as f64 * 0.5);
                fsum.atomic_add(v % 4, 1.0 / (1.0 + v as f64));
                umax.atomic_max((v % 3, i % 2), v as u64 * 3);
            }),
        )?;
        let mut o = Outputs::new();
        o.put("hist", download(&hist)?)
            .put("lo", download(&lo)?)
            .put("hi", download(&hi)?)
            .put_f64(
                "fsum",
                download(&fsum)?,
                Float::Sum {
                    scale: fsum_scale(values),
                },
            )
            .put("umax", download(&umax)?);
        Ok(o)
    }

    fn reference(values: &[u32]) -> Outputs {
        let mut hist = vec![0u32; 10];
        let mut fsum = vec![0.0f64; 4];
        let mut umax = vec![0u64; 6];
        for (i, v) in values.iter().enumerate() {
            hist[(v % 10) as usize] += 1;
            fsum[(v % 4) as usize] += 1.0 / (1.0 + *v as f64);
            let at = (v % 3) as usize * 2 + i % 2;
            umax[at] = umax[at].max(*v as u64 * 3);
        }
        let mut o = Outputs::new();
        o.put("hist", hist)
            .put("lo", vec![*values.iter().min().unwrap() as i64 - 50])
            .put("hi", vec![*values.iter().max().unwrap() as f64 * 0.5])
            .put_f64(
                "fsum",
                fsum,
                Float::Sum {
                    scale: fsum_scale(values),
                },
            )
            .put("umax", umax);
        o
    }

    differential!(inputs, run, reference);
}

mod captured_arrays_are_read_by_index {
    use super::*;

    /// A weighted sum with weights from a captured array (generic length, as Kokkos functors
    /// carry).
    fn smooth<S: Launch, const N: usize>(
        exec: &S,
        x: &SView<S, f64, 1>,
        weights: [f64; N],
    ) -> Result<Vec<f64>> {
        let n = x.extent(0);
        let y = SView::<S, f64, 1>::new("y", [n])?;
        parallel_for(
            "smooth",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let mut s = 0.0;
                for j in 0..N {
                    s += weights[j] * x[(i + j) % x.extent(0)];
                }
                y[i] = s;
            }),
        )?;
        download(&y)
    }

    fn smooth_reference(xs: &[f64], weights: &[f64]) -> Vec<f64> {
        let n = xs.len();
        (0..n)
            .map(|i| {
                let mut s = 0.0;
                for (j, w) in weights.iter().enumerate() {
                    s += w * xs[(i + j) % n];
                }
                s
            })
            .collect()
    }

    type Input = (Vec<f64>, [f64; 8]);

    fn inputs(seed: u64) -> Input {
        let mut rng = Rng::new(seed);
        let xs = uniform(&mut rng, 777, -3.0, 3.0);
        let w: [f64; 8] = std::array::from_fn(|_| rng.f64_in(-1.0, 1.0));
        (xs, w)
    }

    fn run<S: Launch>(exec: &S, input: &Input) -> Result<Outputs> {
        let x = upload::<S, f64>("x", &input.0)?;
        let mut o = Outputs::new();
        o.put("three", smooth(exec, &x, [0.25, 0.5, 0.25])?)
            .put("one", smooth(exec, &x, [2.0])?)
            .put("eight", smooth(exec, &x, input.1)?);
        Ok(o)
    }

    fn reference(input: &Input) -> Outputs {
        let xs = &input.0;
        let mut o = Outputs::new();
        o.put("three", smooth_reference(xs, &[0.25, 0.5, 0.25]))
            .put("one", smooth_reference(xs, &[2.0]))
            .put("eight", smooth_reference(xs, &input.1));
        o
    }

    differential!(inputs, run, reference);
}

/// A constant of the program, used by name in a kernel and a device function.
const SCALE: f64 = 1.5;

/// Scales by [`SCALE`] (a device function may use constants).
#[device]
fn scaled(v: f64) -> f64 {
    v * SCALE
}

mod constants_are_used_by_value {
    use super::*;

    const OFFSET: i32 = -7;

    fn inputs(seed: u64) -> Vec<f64> {
        uniform(&mut Rng::new(seed), 300, -1e6, 1e6)
    }

    fn run<S: Launch>(exec: &S, xs: &[f64]) -> Result<Outputs> {
        let n = xs.len();
        let x = upload::<S, f64>("x", xs)?;
        let y = SView::<S, f64, 1>::new("y", [n])?;
        parallel_for(
            "constants",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| y[i] = scaled(x[i]) + SCALE + OFFSET as f64 + f64::EPSILON),
        )?;
        let mut o = Outputs::new();
        o.put("y", download(&y)?);
        Ok(o)
    }

    fn reference(xs: &[f64]) -> Outputs {
        let mut o = Outputs::new();
        o.put(
            "y",
            xs.iter()
                .map(|v| v * 1.5 + 1.5 - 7.0 + f64::EPSILON)
                .collect::<Vec<_>>(),
        );
        o
    }

    differential!(inputs, run, reference);
}

// -------------------------------------------------------------------------------------------------
// Representative kernels (kernel_representative.rs)
// -------------------------------------------------------------------------------------------------

mod axpy {
    use super::*;

    type Input = (f64, Vec<f64>, Vec<f64>);

    fn inputs(seed: u64) -> Input {
        let mut rng = Rng::new(seed);
        let n = 100_000 + (rng.next_u64() % 100_000) as usize;
        let a = rng.f64_in(-2.0, 2.0);
        (
            a,
            uniform(&mut rng, n, -10.0, 10.0),
            uniform(&mut rng, n, -10.0, 10.0),
        )
    }

    fn run<S: Launch>(exec: &S, input: &Input) -> Result<Outputs> {
        let a = input.0;
        let n = input.1.len();
        let x = upload::<S, f64>("x", &input.1)?;
        let y = upload::<S, f64>("y", &input.2)?;
        parallel_for(
            "axpy",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| y[i] = a * x[i] + y[i]),
        )?;
        let mut o = Outputs::new();
        o.put("y", download(&y)?);
        Ok(o)
    }

    fn reference(input: &Input) -> Outputs {
        let (a, xs, ys) = input;
        let mut o = Outputs::new();
        o.put(
            "y",
            xs.iter()
                .zip(ys)
                .map(|(x, y)| a * x + y)
                .collect::<Vec<_>>(),
        );
        o
    }

    differential!(inputs, run, reference);
}

/// The plain Rust 5-point stencil: interior points average their neighbours, the border is copied.
fn stencil_reference(u: &[f64], n: usize, m: usize) -> Vec<f64> {
    let mut out = vec![0.0; n * m];
    for i in 0..n {
        for j in 0..m {
            out[i * m + j] = if i == 0 || j == 0 || i == n - 1 || j == m - 1 {
                u[i * m + j]
            } else {
                0.25 * (u[(i - 1) * m + j]
                    + u[(i + 1) * m + j]
                    + u[i * m + j - 1]
                    + u[i * m + j + 1])
            };
        }
    }
    out
}

mod stencil_2d {
    use super::*;

    type Input = (usize, usize, Vec<f64>);

    fn inputs(seed: u64) -> Input {
        let mut rng = Rng::new(seed);
        let (n, m) = (
            20 + (rng.next_u64() % 300) as usize,
            10 + (rng.next_u64() % 400) as usize,
        );
        (n, m, uniform(&mut rng, n * m, -10.0, 10.0))
    }

    fn run<S: Launch>(exec: &S, input: &Input) -> Result<Outputs> {
        let (n, m, ref data) = *input;
        let u = upload_nd::<S, f64, 2, LayoutRight>("u", [n, m], data)?;
        let out = SView::<S, f64, 2>::new("out", [n, m])?;
        let mut o = Outputs::new();
        for order in [Iterate::Right, Iterate::Left] {
            parallel_for(
                "stencil",
                MDRangePolicy::new(exec, [0, 0], [n as i64, m as i64])?.iterate(order),
                kernel!(|(i, j)| {
                    let ni = u.extent(0) as i64;
                    let nj = u.extent(1) as i64;
                    if i == 0 || j == 0 || i == ni - 1 || j == nj - 1 {
                        out[(i, j)] = u[(i, j)];
                    } else {
                        out[(i, j)] =
                            0.25 * (u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)]);
                    }
                }),
            )?;
            o.put(format!("{order:?}"), download(&out)?);
        }
        Ok(o)
    }

    fn reference(input: &Input) -> Outputs {
        let (n, m, ref data) = *input;
        let want = stencil_reference(data, n, m);
        let mut o = Outputs::new();
        o.put("Right", want.clone()).put("Left", want);
        o
    }

    differential!(inputs, run, reference);
}

mod dot {
    use super::*;

    type Input = (Vec<f64>, Vec<f64>);

    fn inputs(seed: u64) -> Input {
        let mut rng = Rng::new(seed);
        let n = 500_000 + (rng.next_u64() % 500_000) as usize;
        (
            uniform(&mut rng, n, -10.0, 10.0),
            uniform(&mut rng, n, -10.0, 10.0),
        )
    }

    fn run<S: Launch>(exec: &S, input: &Input) -> Result<Outputs> {
        let n = input.0.len();
        let x = upload::<S, f64>("x", &input.0)?;
        let y = upload::<S, f64>("y", &input.1)?;
        let k = kernel!(|i, acc| *acc += x[i] * y[i]);
        let mut sum = 0.0;
        parallel_reduce("dot", RangePolicy::new(exec, 0, n)?, &k, &mut sum)?;
        // Deterministic from run to run on every space.
        let mut again = 0.0;
        parallel_reduce("dot", RangePolicy::new(exec, 0, n)?, &k, &mut again)?;
        assert_eq!(
            sum.to_bits(),
            again.to_bits(),
            "{}: not deterministic",
            S::NAME
        );
        let scale = magnitude(input.0.iter().zip(&input.1).map(|(x, y)| x * y));
        let mut o = Outputs::new();
        o.put_f64("dot", vec![sum], Float::Sum { scale });
        Ok(o)
    }

    fn reference(input: &Input) -> Outputs {
        let (xs, ys) = input;
        let want = xs.iter().zip(ys).fold(0.0, |s, (x, y)| s + x * y);
        let scale = magnitude(xs.iter().zip(ys).map(|(x, y)| x * y));
        let mut o = Outputs::new();
        o.put_f64("dot", vec![want], Float::Sum { scale });
        o
    }

    differential!(inputs, run, reference);
}

mod scan {
    use super::*;

    fn inputs(seed: u64) -> Vec<u32> {
        let mut rng = Rng::new(seed);
        let n = 100 + (rng.next_u64() % 3_000_000) as usize;
        (0..n).map(|_| (rng.next_u64() % 17) as u32).collect()
    }

    fn run<S: Launch>(exec: &S, counts: &[u32]) -> Result<Outputs> {
        let n = counts.len();
        let c = upload::<S, u32>("counts", counts)?;
        let offsets = SView::<S, u32, 1>::new("offsets", [n])?;
        let total: u32 = parallel_scan(
            "offsets",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i, partial, is_final| {
                if is_final {
                    offsets[i] = *partial;
                }
                *partial += c[i];
            }),
        )?;
        let mut o = Outputs::new();
        o.put("offsets", download(&offsets)?)
            .put("total", vec![total]);
        Ok(o)
    }

    fn reference(counts: &[u32]) -> Outputs {
        let mut want = Vec::with_capacity(counts.len());
        let mut run = 0u32;
        for v in counts {
            want.push(run);
            run += v;
        }
        let mut o = Outputs::new();
        o.put("offsets", want).put("total", vec![run]);
        o
    }

    differential!(inputs, run, reference);
}

mod f64_scan {
    use super::*;

    fn inputs(seed: u64) -> Vec<f64> {
        let mut rng = Rng::new(seed);
        let n = 1 + (rng.next_u64() % 2_000_000) as usize;
        uniform(&mut rng, n, 0.0, 1.0)
    }

    fn run<S: Launch>(exec: &S, values: &[f64]) -> Result<Outputs> {
        let n = values.len();
        let x = upload::<S, f64>("x", values)?;
        let prefix = SView::<S, f64, 1>::new("prefix", [n])?;
        let total: f64 = parallel_scan(
            "prefix",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i, partial: &mut f64, last: bool| {
                *partial += x[i];
                if last {
                    prefix[i] = *partial;
                }
            }),
        )?;
        let scale = magnitude(values.iter().copied());
        let mut o = Outputs::new();
        o.put_f64("prefix", download(&prefix)?, Float::Sum { scale })
            .put_f64("total", vec![total], Float::Sum { scale });
        Ok(o)
    }

    fn reference(values: &[f64]) -> Outputs {
        let mut run = 0.0;
        let prefix: Vec<f64> = values
            .iter()
            .map(|v| {
                run += v;
                run
            })
            .collect();
        let scale = magnitude(values.iter().copied());
        let mut o = Outputs::new();
        o.put_f64("prefix", prefix, Float::Sum { scale }).put_f64(
            "total",
            vec![run],
            Float::Sum { scale },
        );
        o
    }

    differential!(inputs, run, reference);
}

/// A smooth step (a device function called by the kernel below).
#[device]
fn smoothstep(lo: f64, hi: f64, x: f64) -> f64 {
    let t = ((x - lo) / (hi - lo)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The plain Rust version of the `loops_branches_math` kernel.
fn iterate_reference(x: f64, steps: u32) -> (f64, u32) {
    let mut v = x;
    let mut flips = 0u32;
    for k in 0..steps {
        if v.abs() > 4.0 {
            v = v.signum() * (v.abs().ln() + 1.0);
            flips += 1;
            continue;
        }
        let w = if k % 3 == 0 { v.sin() } else { v.cos() * 0.5 };
        v = v.mul_add(0.75, w) + smoothstep(-1.0, 1.0, v);
        if v.is_nan() {
            break;
        }
    }
    (v, flips)
}

mod loops_branches_math {
    use super::*;

    type Input = (Vec<f64>, u32);

    fn inputs(seed: u64) -> Input {
        let mut rng = Rng::new(seed);
        let xs = uniform(&mut rng, 3000, -10.0, 10.0);
        (xs, 5 + (rng.next_u64() % 20) as u32)
    }

    fn run<S: Launch>(exec: &S, input: &Input) -> Result<Outputs> {
        let (ref xs, steps) = *input;
        let n = xs.len();
        let x = upload::<S, f64>("x", xs)?;
        let y = SView::<S, f64, 1>::new("y", [n])?;
        let flips = SView::<S, u32, 1>::new("flips", [n])?;
        parallel_for(
            "iterate",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let mut v = x[i];
                let mut f = 0u32;
                for k in 0..steps {
                    if v.abs() > 4.0 {
                        v = v.signum() * (v.abs().ln() + 1.0);
                        f += 1;
                        continue;
                    }
                    let w = if k % 3 == 0 { v.sin() } else { v.cos() * 0.5 };
                    v = v.mul_add(0.75, w) + smoothstep(-1.0, 1.0, v);
                    if v.is_nan() {
                        break;
                    }
                }
                y[i] = v;
                flips[i] = f;
            }),
        )?;
        let mut o = Outputs::new();
        o.put_f64("y", download(&y)?, Float::Iterated { rel: 1e-10 })
            .put("flips", download(&flips)?);
        Ok(o)
    }

    fn reference(input: &Input) -> Outputs {
        let (ref xs, steps) = *input;
        let (y, f): (Vec<f64>, Vec<u32>) = xs.iter().map(|x| iterate_reference(*x, steps)).unzip();
        let mut o = Outputs::new();
        o.put_f64("y", y, Float::Iterated { rel: 1e-10 })
            .put("flips", f);
        o
    }

    differential!(inputs, run, reference);
}
