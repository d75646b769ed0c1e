//! Differential cases of casts: `as` between every pair of primitive types, Rust's saturating
//! float-to-integer rules and casts from `bool`, with the kernels of `kernel_language/casts.rs`.

// The reference computations mirror the kernel bodies, written to exercise each construct.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::manual_is_multiple_of,
    clippy::nonminimal_bool,
    clippy::approx_constant
)]

use super::*;
use crate::kernel_language::casts::{
    casts_follow_rust_kernel, casts_from_bool_kernel, casts_from_kernel,
};

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
            casts_follow_rust_kernel!(x, out, f),
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
                    casts_from_kernel!(
                        x, o_i8, o_i16, o_i32, o_i64, o_u8, o_u16, o_u32, o_u64, o_isize, o_usize,
                        o_f32, o_f64
                    ),
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
            casts_from_bool_kernel!(x, a, b, c),
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
