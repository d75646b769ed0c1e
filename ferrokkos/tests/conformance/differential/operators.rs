//! Differential cases of the core language: `let` and compound assignment, every operator on every
//! primitive type, literals and `bool` operators (`kernel_language/operators.rs`).

// The reference computations mirror the kernel bodies, written to exercise each construct.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::manual_is_multiple_of,
    clippy::nonminimal_bool,
    clippy::approx_constant
)]

use super::*;
use crate::kernel_language::operators::{
    bool_operators_kernel, float_operators_kernel, integer_operators_kernel, let_assignment_kernel,
    literals_kernel,
};

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
            let_assignment_kernel!(x, y),
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

/// Every operator on one primitive integer type, on the edge values of
/// `kernel_language/operators.rs` and random values of the type.
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
                    integer_operators_kernel!(x, out, cmp),
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
                    float_operators_kernel!(x, out, cmp),
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
            literals_kernel!(x, y),
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
            bool_operators_kernel!(x, y),
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
