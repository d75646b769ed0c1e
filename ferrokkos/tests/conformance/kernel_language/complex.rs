//! Complex numbers in kernels (num-complex's `Complex<f32>` and `Complex<f64>`): View elements,
//! captures, locals, `Complex::new`, `from_polar`, the fields `re` / `im`, arithmetic, compound
//! assignment and the methods, on every space with num-complex's results (bit for bit for the
//! exact operations, within a few ulps for the transcendental ones).

use crate::spaces::{SView, download, upload};
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
        out[i] = w.scale(a.norm() + a.arg() + a.re);
    });
    let tu = k.cuda_source(Iterate::Right);
    let text = tu.generated();
    assert!(text.contains("const c64 b = c64(a.im, 2.0);"), "{text}");
    crate::common::check_cuda(&tu);
    Ok(())
}
