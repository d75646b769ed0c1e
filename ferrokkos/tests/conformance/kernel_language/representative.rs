//! Representative kernels (axpy, a 2D stencil, a dot product, a scan, and a kernel with loops,
//! branches, math and a device function):
//! - differential tests: on random inputs the `kernel!` run on the host gives exactly what the plain
//!   Rust function gives (the host half of the equivalence; the CUDA backend adds the device half);
//! - snapshots: the generated C++ equals `tests/snapshots/<name>.cu`, reviewed by a person
//!   (`FERROKKOS_UPDATE_SNAPSHOTS=1` rewrites them; review the diff);
//! - NVRTC compiles each for sm_80 and sm_90.
//!
//! Each kernel is a macro, shared with `differential/representative.rs`. Inside a macro `line!()`
//! gives the line of the macro's invocation, so in the snapshots every statement's `#line` names
//! the test's line that invokes the kernel macro.

use crate::common::{Rng, check_device_code, random_view, runtime, threads as exec, unflatten};
use ferrokkos::codegen::{TranslationUnit, UnitOptions};
use ferrokkos::prelude::*;
use ferrokkos::{Result, device};

const SEEDS: [u64; 4] = [1, 42, 2026, 0x5eed];

/// Compares the generated part of `tu` with `tests/snapshots/<name>.cu` (or writes it when
/// `FERROKKOS_UPDATE_SNAPSHOTS=1`). The `#line` directives that point back into the unit itself
/// depend on the device header's length, so they are compared as `#line N`.
fn snapshot(name: &str, tu: &TranslationUnit) {
    let text: String = tu
        .generated()
        .lines()
        .map(|l| {
            if l.starts_with("#line ") && l.ends_with(".cu\"") {
                "#line N (back in the unit)".to_string()
            } else {
                l.to_string()
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
        + "\n";
    let path = format!("{}/tests/snapshots/{name}.cu", env!("CARGO_MANIFEST_DIR"));
    if std::env::var("FERROKKOS_UPDATE_SNAPSHOTS").is_ok_and(|v| v == "1") {
        std::fs::write(&path, &text).unwrap();
        return;
    }
    let want = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{path}: {e} (FERROKKOS_UPDATE_SNAPSHOTS=1 creates it)"));
    assert!(
        want == text,
        "the generated C++ of {name} changed; review it and rerun with FERROKKOS_UPDATE_SNAPSHOTS=1\n\
         --- now ---\n{text}"
    );
}

/// The kernel of [`axpy`] (and of its differential case): `y[i] = a * x[i] + y[i]`.
macro_rules! axpy_kernel {
    ($a:ident, $x:ident, $y:ident) => {
        ::ferrokkos::kernel!(|i| $y[i] = $a * $x[i] + $y[i])
    };
}
pub(crate) use axpy_kernel;

#[test]
fn axpy() -> Result<()> {
    for seed in SEEDS {
        let mut rng = Rng::new(seed);
        let n = 1000 + (rng.next_u64() % 1000) as usize;
        let (x, xs) = random_view("x", &mut rng, n)?;
        let (y, ys) = random_view("y", &mut rng, n)?;
        let a = rng.f64_in(-2.0, 2.0);
        let k = axpy_kernel!(a, x, y);
        parallel_for("axpy", RangePolicy::new(&exec(), 0, n)?, &k)?;
        let want: Vec<f64> = xs.iter().zip(&ys).map(|(x, y)| a * x + y).collect();
        assert_eq!(y.to_vec()?, want, "seed {seed}");
        if seed == SEEDS[0] {
            let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
            snapshot("axpy", &tu);
            check_device_code(&tu);
        }
    }
    Ok(())
}

/// The plain Rust 5-point stencil: interior points average their neighbours, the border is copied.
pub(crate) fn stencil_reference(u: &[f64], n: usize, m: usize) -> Vec<f64> {
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

/// The kernel of [`stencil_2d`] (and of its differential case): the 5-point stencil of `u` into
/// `out` over an MDRange (see [`stencil_reference`]).
macro_rules! stencil_2d_kernel {
    ($u:ident, $out:ident) => {
        ::ferrokkos::kernel!(|(i, j)| {
            let ni = $u.extent(0) as i64;
            let nj = $u.extent(1) as i64;
            if i == 0 || j == 0 || i == ni - 1 || j == nj - 1 {
                $out[(i, j)] = $u[(i, j)];
            } else {
                $out[(i, j)] =
                    0.25 * ($u[(i - 1, j)] + $u[(i + 1, j)] + $u[(i, j - 1)] + $u[(i, j + 1)]);
            }
        })
    };
}
pub(crate) use stencil_2d_kernel;

#[test]
fn stencil_2d() -> Result<()> {
    for seed in SEEDS {
        let mut rng = Rng::new(seed);
        let (n, m) = (
            20 + (rng.next_u64() % 30) as usize,
            10 + (rng.next_u64() % 40) as usize,
        );
        let (flat, data) = random_view("u_flat", &mut rng, n * m)?;
        let u = unflatten("u", &flat, n, m)?;
        let out = View::<f64, 2>::new("out", [n, m])?;
        let k = stencil_2d_kernel!(u, out);
        parallel_for(
            "stencil",
            MDRangePolicy::new(&exec(), [0, 0], [n as i64, m as i64])?,
            &k,
        )?;
        let want = stencil_reference(&data, n, m);
        let got = out.host()?;
        for i in 0..n {
            for j in 0..m {
                assert_eq!(got[(i, j)], want[i * m + j], "seed {seed} at ({i}, {j})");
            }
        }
        if seed == SEEDS[0] {
            let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
            snapshot("stencil_2d", &tu);
            check_device_code(&tu);
        }
    }
    Ok(())
}

/// The kernel of [`dot`] (and of its differential case): the sum of `x[i] * y[i]`.
macro_rules! dot_kernel {
    ($x:ident, $y:ident) => {
        ::ferrokkos::kernel!(|i, acc| *acc += $x[i] * $y[i])
    };
}
pub(crate) use dot_kernel;

#[test]
fn dot() -> Result<()> {
    for seed in SEEDS {
        let mut rng = Rng::new(seed);
        let n = 5000 + (rng.next_u64() % 5000) as usize;
        let (x, xs) = random_view("x", &mut rng, n)?;
        let (y, ys) = random_view("y", &mut rng, n)?;
        let k = dot_kernel!(x, y);
        // Serial: one partial, joined in index order, so the plain fold is bit-identical.
        let serial = RangePolicy::new(&Serial::default_instance()?, 0, n)?;
        let mut sum = 0.0;
        parallel_reduce("dot", serial, &k, &mut sum)?;
        let want = xs.iter().zip(&ys).fold(0.0, |s, (x, y)| s + x * y);
        assert_eq!(sum, want, "seed {seed}");
        // Threads: the same value up to rounding, and bit-identical from run to run.
        let threads = |_: ()| -> Result<f64> {
            let mut s = 0.0;
            parallel_reduce("dot", RangePolicy::new(&exec(), 0, n)?, &k, &mut s)?;
            Ok(s)
        };
        let t = threads(())?;
        assert!(
            (t - want).abs() <= 1e-9 * xs.len() as f64 * 100.0,
            "seed {seed}: {t} vs {want}"
        );
        assert_eq!(t.to_bits(), threads(())?.to_bits());
        if seed == SEEDS[0] {
            let tu = TranslationUnit::reduce_kernel::<Sum<f64>, _>(&k, Iterate::Right);
            snapshot("dot", &tu);
            check_device_code(&tu);
            // As launches compile it: the last block joins the partial values.
            let fused = UnitOptions {
                fused_join: true,
                ..UnitOptions::default()
            };
            let tu = TranslationUnit::reduce_kernel_with::<Sum<f64>, _>(&k, Iterate::Right, fused);
            snapshot("dot_fused", &tu);
            check_device_code(&tu);
        }
    }
    Ok(())
}

/// The kernel of [`scan`] (and of its differential case): the exclusive prefix sums of `counts`
/// into `offsets` (the total is the scan's result).
macro_rules! offsets_scan_kernel {
    ($counts:ident, $offsets:ident) => {
        ::ferrokkos::kernel!(|i, partial, is_final| {
            if is_final {
                $offsets[i] = *partial;
            }
            *partial += $counts[i];
        })
    };
}
pub(crate) use offsets_scan_kernel;

#[test]
fn scan() -> Result<()> {
    runtime();
    for seed in SEEDS {
        let mut rng = Rng::new(seed);
        let n = 100 + (rng.next_u64() % 3000) as usize;
        let counts: Vec<u32> = (0..n).map(|_| (rng.next_u64() % 17) as u32).collect();
        let c = View::<u32, 1>::new("counts", [n])?;
        {
            let mut g = c.host_mut()?;
            for (k, v) in counts.iter().enumerate() {
                g[k] = *v;
            }
        }
        let offsets = View::<u32, 1>::new("offsets", [n])?;
        let k = offsets_scan_kernel!(c, offsets);
        let total: u32 = parallel_scan("offsets", RangePolicy::new(&exec(), 0, n)?, &k)?;
        let mut want = Vec::with_capacity(n);
        let mut run = 0u32;
        for v in &counts {
            want.push(run);
            run += v;
        }
        assert_eq!((offsets.to_vec()?, total), (want, run), "seed {seed}");
        if seed == SEEDS[0] {
            let tu = TranslationUnit::scan_kernel::<Sum<u32>, _>(&k);
            snapshot("scan", &tu);
            check_device_code(&tu);
        }
    }
    Ok(())
}

/// A smooth step (a device function called by the kernel below).
#[device]
pub(crate) fn smoothstep(lo: f64, hi: f64, x: f64) -> f64 {
    let t = ((x - lo) / (hi - lo)).clamp(0.0, 1.0);
    t * t * (3.0 - 2.0 * t)
}

/// The plain Rust version of the `loops_branches_math` kernel.
pub(crate) fn iterate_reference(x: f64, steps: u32) -> (f64, u32) {
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

/// The kernel of [`loops_branches_math`] (and of its differential case): `steps` iterations on
/// `x[i]` with a `for` loop, `if` / `continue` / `break`, an `if` value, math methods and the
/// device function [`smoothstep`] (see [`iterate_reference`]), the end value into `y` and the
/// count of the large values into `flips`. The caller has the marker type of `smoothstep`
/// (`__fk_device_smoothstep`) in scope: kernels call device functions through it.
macro_rules! loops_branches_math_kernel {
    ($x:ident, $steps:ident, $y:ident, $flips:ident) => {
        ::ferrokkos::kernel!(|i| {
            let mut v = $x[i];
            let mut f = 0u32;
            for k in 0..$steps {
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
            $y[i] = v;
            $flips[i] = f;
        })
    };
}
pub(crate) use loops_branches_math_kernel;

#[test]
fn loops_branches_math() -> Result<()> {
    for seed in SEEDS {
        let mut rng = Rng::new(seed);
        let n = 300;
        let (x, xs) = random_view("x", &mut rng, n)?;
        let steps = 5 + (rng.next_u64() % 20) as u32;
        let y = View::<f64, 1>::new("y", [n])?;
        let flips = View::<u32, 1>::new("flips", [n])?;
        let k = loops_branches_math_kernel!(x, steps, y, flips);
        parallel_for("iterate", RangePolicy::new(&exec(), 0, n)?, &k)?;
        let (gy, gf) = (y.to_vec()?, flips.to_vec()?);
        for (i, &v) in xs.iter().enumerate() {
            let (wv, wf) = iterate_reference(v, steps);
            assert_eq!(
                (gy[i].to_bits(), gf[i]),
                (wv.to_bits(), wf),
                "seed {seed} at {i}"
            );
        }
        if seed == SEEDS[0] {
            let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
            snapshot("loops_branches_math", &tu);
            check_device_code(&tu);
        }
    }
    Ok(())
}
