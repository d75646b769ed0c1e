//! Complex numbers in kernels (num-complex's `Complex<f32>` and `Complex<f64>`): View elements,
//! captures, locals, `Complex::new`, `from_polar`, the fields `re` / `im`, arithmetic, compound
//! assignment and the methods, on every space with num-complex's results (bit for bit for the
//! exact operations, within a few ulps for the transcendental ones).

use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Complex, Result, kernel};

fn inputs(n: usize) -> Vec<Complex<f64>> {
    (0..n)
        .map(|k| Complex::new(0.3 + k as f64 * 0.17, 1.1 - k as f64 * 0.23))
        .collect()
}

/// The exact operations, in plain Rust (num-complex).
fn exact(a: Complex<f64>, shift: Complex<f64>) -> Complex<f64> {
    let b = Complex::new(a.im, -a.re * 0.5);
    let mut w = a * b + a / b - b.conj();
    w -= shift;
    w *= a;
    w /= b.scale(2.0);
    w += Complex::new(w.im, a.norm_sqr()) % b;
    -w + b.inv().unscale(3.0)
}

/// Arithmetic, compound assignment and the exact methods give num-complex's bits on every space;
/// `exp`, `ln`, `norm`, `arg` and `from_polar` agree within a few ulps.
fn complex_arithmetic_matches_num_complex<S: Launch>(exec: &S) -> Result<()> {
    let n = 40;
    let values = inputs(n);
    let z = upload::<S, Complex<f64>>("z", &values)?;
    let out = SView::<S, Complex<f64>, 1>::new("out", [n])?;
    let trans = SView::<S, Complex<f64>, 1>::new("trans", [n])?;
    let single = SView::<S, Complex<f32>, 1>::new("single", [n])?;
    let shift = Complex::new(1.0, 2.0);
    parallel_for(
        "complex",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let a = z[i];
            let b = Complex::new(a.im, -a.re * 0.5);
            let mut w = a * b + a / b - b.conj();
            w -= shift;
            w *= a;
            w /= b.scale(2.0);
            w += Complex::new(w.im, a.norm_sqr()) % b;
            out[i] = -w + b.inv().unscale(3.0);
            trans[i] = a.exp() + a.ln() + Complex::from_polar(a.norm(), a.arg());
            let s = Complex::new(a.re as f32, a.im as f32);
            single[i] = s * Complex::new(2.0, 1.0) - s.conj();
            single[i].im += 1.0;
        }),
    )?;
    let want: Vec<Complex<f64>> = values.iter().map(|&a| exact(a, shift)).collect();
    assert_eq!(download(&out)?, want);
    for (got, a) in download(&trans)?.iter().zip(&values) {
        let w = a.exp() + a.ln() + Complex::from_polar(a.norm(), a.arg());
        let err = (got - w).norm() / w.norm();
        assert!(err < 1e-14, "{got} vs {w}");
    }
    let want: Vec<Complex<f32>> = values
        .iter()
        .map(|a| {
            let s = Complex::new(a.re as f32, a.im as f32);
            let mut v = s * Complex::new(2.0, 1.0) - s.conj();
            v.im += 1.0;
            v
        })
        .collect();
    assert_eq!(download(&single)?, want);
    Ok(())
}

per_space!(
    complex_arithmetic_matches_num_complex,
    complex_arithmetic_matches_num_complex
);

/// A Mandelbrot escape count: a loop of complex products and `norm_sqr` comparisons, whose integer
/// results must agree exactly on every space.
fn mandelbrot_counts_agree<S: Launch>(exec: &S) -> Result<()> {
    let (w, h) = (48usize, 32usize);
    let counts = SView::<S, u32, 2>::new("counts", [h, w])?;
    let (x0, y0, step) = (-2.2, -1.2, 0.07);
    parallel_for(
        "mandelbrot",
        MDRangePolicy::new(exec, [0, 0], [h, w])?,
        kernel!(|(r, c): (usize, usize)| {
            let point = Complex::new(x0 + c as f64 * step, y0 + r as f64 * step);
            let mut z = Complex::new(0.0, 0.0);
            let mut k = 0u32;
            while k < 200 && z.norm_sqr() <= 4.0 {
                z = z * z + point;
                k += 1;
            }
            counts[(r, c)] = k;
        }),
    )?;
    let mut want = Vec::with_capacity(w * h);
    for r in 0..h {
        for c in 0..w {
            let point = Complex::new(x0 + c as f64 * step, y0 + r as f64 * step);
            let mut z = Complex::new(0.0, 0.0);
            let mut k = 0u32;
            while k < 200 && z.norm_sqr() <= 4.0 {
                z = z * z + point;
                k += 1;
            }
            want.push(k);
        }
    }
    let got = download(&counts)?;
    assert_eq!(got, want);
    assert!(
        got.contains(&200) && got.contains(&1),
        "both escape and stay"
    );
    Ok(())
}

per_space!(mandelbrot_counts_agree, mandelbrot_counts_agree);

/// A quarter turn.
#[ferrokkos::device]
fn quarter_turn(z: Complex<f64>) -> Complex<f64> {
    Complex::new(-z.im, z.re)
}

#[test]
fn complex_kernels_compile_with_nvrtc() -> Result<()> {
    crate::common::runtime();
    let z = crate::common::view_from("z", &inputs(4))?;
    let out = View::<Complex<f64>, 1>::new("out", [4])?;
    let k = kernel!(|i| {
        let a = z[i];
        let b = Complex::new(a.im, 2.0);
        let mut w = a * b / a.conj() - b % a;
        w += a.exp().ln().inv();
        w = 2.0 * w - 1.0 / a + w % 0.5 + 2.0 % a;
        w *= 0.25;
        // A device function's result mixes with a real once its type is written down.
        let q: Complex<f64> = quarter_turn(w);
        w -= q * 3.0;
        out[i] = w.scale(a.norm() + a.arg() + a.re);
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(text.contains("const c64 b = c64(a.im, 2.0);"), "{text}");
    crate::common::check_device_code(&tu);
    Ok(())
}

/// The parts of `z` as bits, so that NaNs compare too (any NaN as one: neither Rust nor CUDA
/// promises a NaN's sign or payload).
fn bits(z: Complex<f64>) -> (u64, u64) {
    let b = |x: f64| {
        if x.is_nan() {
            f64::NAN.to_bits()
        } else {
            x.to_bits()
        }
    };
    (b(z.re), b(z.im))
}

/// As [`bits`], for `Complex<f32>`.
fn bits32(z: Complex<f32>) -> (u32, u32) {
    let b = |x: f32| {
        if x.is_nan() {
            f32::NAN.to_bits()
        } else {
            x.to_bits()
        }
    };
    (b(z.re), b(z.im))
}

/// The mixed arithmetic of a complex number and a real (num-complex's `Complex<T> op T` and
/// `T op Complex<T>`), in plain Rust.
fn mixed(z: Complex<f64>, t: f64) -> [Complex<f64>; 12] {
    let mut c = z;
    c *= t;
    c += 0.5;
    c /= t;
    c -= t;
    let mut r = z;
    r %= 0.75;
    [
        z + t,
        z - t,
        z * t,
        z / t,
        z % t,
        t + z,
        t - z,
        t * z,
        t / z,
        t % z,
        c,
        r * 2.0 - 1.5 / z + 0.25,
    ]
}

/// A complex number and a real mix as in num-complex, on both sides of `+ - * / %` and in compound
/// assignments, with its formulas (the real is not made a complex number first: `inf * 2.0` stays
/// infinite, `z / t` divides each part), bit for bit on every space.
fn complex_and_real_operands_match_num_complex<S: Launch>(exec: &S) -> Result<()> {
    let mut values = inputs(12);
    values.push(Complex::new(f64::INFINITY, 1.0));
    values.push(Complex::new(-0.0, f64::NAN));
    values.push(Complex::new(3.0, -0.0));
    let n = values.len();
    let z = upload::<S, Complex<f64>>("z", &values)?;
    let out = SView::<S, Complex<f64>, 2>::new("out", [n, 12])?;
    let single = SView::<S, Complex<f32>, 1>::new("single", [n])?;
    let t = 1.7;
    parallel_for(
        "mixed",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let a = z[i];
            let mut c = a;
            c *= t;
            c += 0.5;
            c /= t;
            c -= t;
            let mut r = a;
            r %= 0.75;
            out[(i, 0)] = a + t;
            out[(i, 1)] = a - t;
            out[(i, 2)] = a * t;
            out[(i, 3)] = a / t;
            out[(i, 4)] = a % t;
            out[(i, 5)] = t + a;
            out[(i, 6)] = t - a;
            out[(i, 7)] = t * a;
            out[(i, 8)] = t / a;
            out[(i, 9)] = t % a;
            out[(i, 10)] = c;
            out[(i, 11)] = r * 2.0 - 1.5 / a + 0.25;
            let s = Complex::new(a.re as f32, a.im as f32);
            let h = 0.5f32;
            single[i] = (s * h - 2.0) / 3.0 + h / s;
        }),
    )?;
    let got = download(&out)?;
    for (k, &a) in values.iter().enumerate() {
        for (j, want) in mixed(a, t).into_iter().enumerate() {
            let have = got[k * 12 + j];
            assert_eq!(
                bits(have),
                bits(want),
                "z = {a}, result {j}: {have} vs {want}"
            );
        }
    }
    let want: Vec<(u32, u32)> = values
        .iter()
        .map(|a| {
            let s = Complex::new(a.re as f32, a.im as f32);
            let h = 0.5f32;
            bits32((s * h - 2.0) / 3.0 + h / s)
        })
        .collect();
    let have: Vec<(u32, u32)> = download(&single)?.into_iter().map(bits32).collect();
    assert_eq!(have, want);
    Ok(())
}

per_space!(
    complex_and_real_operands_match_num_complex,
    complex_and_real_operands_match_num_complex
);
