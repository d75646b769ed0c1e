//! Differential cases of what kernels reach: Views of every rank and layout, MDRange indices,
//! device functions, captured arrays and constants (`kernel_language/features.rs`).

// The reference computations mirror the kernel bodies, written to exercise each construct.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::manual_is_multiple_of,
    clippy::nonminimal_bool,
    clippy::approx_constant
)]

use super::*;
// Kernels call `#[device]` functions through the marker types generated next to them.
use crate::kernel_language::features::{
    __fk_device_isqrt, __fk_device_scaled, __fk_device_weighted, SCALE, constants_kernel,
    device_calls_kernel, every_rank_kernel, isqrt, md_indices_kernel, md3_indices_kernel,
    weighted_sum_kernel,
};

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
            every_rank_kernel!(b, v1, v2, v3, v4, v5, v6, v7, v8, strided),
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
                md_indices_kernel!(a),
            )?;
            parallel_for(
                "fill3",
                MDRangePolicy::new(exec, [0, 0, 0], [n, m, p])?.iterate(order),
                md3_indices_kernel!(b),
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
            device_calls_kernel!(x, k, y, r),
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

/// A weighted cross stencil of `u` at an interior point (a device function reading a View).
#[device]
fn cross(u: &View<f64, 2>, i: usize, j: usize, w: f64) -> f64 {
    w * (u[(i - 1, j)] + u[(i + 1, j)]) + (1.0 - w) * (u[(i, j - 1)] + u[(i, j + 1)]) - u[(i, j)]
}

/// Whether `(i, j)` is on the border of `u` (reads the View's extents).
#[device]
fn on_border(u: &View<f64, 2>, i: usize, j: usize) -> bool {
    i == 0 || j == 0 || i + 1 == u.extent(0) || j + 1 == u.extent(1)
}

/// The cross stencil inside, zero on the border (passes the View on).
#[device]
fn interior_cross(u: &View<f64, 2>, i: usize, j: usize) -> f64 {
    if on_border(u, i, j) {
        0.0
    } else {
        cross(u, i, j, 0.75)
    }
}

/// Moves `cell` a `weight` of the way toward `toward` (a device function changing an element).
#[device]
fn relax(cell: &mut f64, toward: f64, weight: f64) {
    *cell += weight * (toward - *cell);
}

/// Adds `v` to `total` and counts it.
#[device]
fn tally(total: &mut f64, count: &mut i32, v: f64) {
    *total += v;
    *count += 1;
}

mod device_functions_take_views_and_elements {
    use super::*;

    type Input = (usize, usize, Vec<f64>, Vec<f64>);

    fn inputs(seed: u64) -> Input {
        let mut rng = Rng::new(seed);
        let n = 3 + (rng.next_u64() % 30) as usize;
        let m = 3 + (rng.next_u64() % 30) as usize;
        (
            n,
            m,
            uniform(&mut rng, n * m, -2.0, 2.0),
            uniform(&mut rng, n * m, -1.0, 1.0),
        )
    }

    fn run<S: Launch>(exec: &S, input: &Input) -> Result<Outputs> {
        let (n, m, ref a, ref b) = *input;
        let flat = upload::<S, f64>("flat", a)?;
        let u = SView::<S, f64, 2>::new("u", [n, m])?;
        // The same values in the other layout: the device function is defined once per layout.
        let w = SView::<S, f64, 2, LayoutLeft>::new("w", [n, m])?;
        let y = SView::<S, f64, 2>::new("y", [n, m])?;
        let yb = upload::<S, f64>("yb", b)?;
        let out = SView::<S, f64, 2>::new("out", [n, m])?;
        let counts = SView::<S, i32, 1>::new("counts", [n])?;
        parallel_for(
            "fill",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| for j in 0..m {
                u[(i, j)] = flat[i * m + j];
                w[(i, j)] = flat[i * m + j] * 2.0;
                y[(i, j)] = yb[i * m + j];
            }),
        )?;
        parallel_for(
            "apply",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let mut count = 0;
                for j in 0..u.extent(1) {
                    let l = interior_cross(&u, i, j);
                    let l2 = interior_cross(&w, i, j);
                    relax(&mut y[(i, j)], l, 0.25);
                    let mut t = 0.0;
                    tally(&mut t, &mut count, l);
                    tally(&mut t, &mut count, l2);
                    out[(i, j)] = t;
                }
                counts[i] = count;
            }),
        )?;
        let mut o = Outputs::new();
        o.put("y", download(&y)?)
            .put("out", download(&out)?)
            .put("counts", download(&counts)?);
        Ok(o)
    }

    fn reference(input: &Input) -> Outputs {
        let (n, m, ref a, ref b) = *input;
        let lap = |scale: f64, i: usize, j: usize| {
            if i == 0 || j == 0 || i + 1 == n || j + 1 == m {
                return 0.0;
            }
            let u = |i: usize, j: usize| a[i * m + j] * scale;
            0.75 * (u(i - 1, j) + u(i + 1, j)) + (1.0 - 0.75) * (u(i, j - 1) + u(i, j + 1))
                - u(i, j)
        };
        let mut y = b.clone();
        let mut out = vec![0.0; n * m];
        for i in 0..n {
            for j in 0..m {
                let (l, l2) = (lap(1.0, i, j), lap(2.0, i, j));
                let cell = &mut y[i * m + j];
                *cell += 0.25 * (l - *cell);
                out[i * m + j] = 0.0 + l + l2;
            }
        }
        let mut o = Outputs::new();
        o.put("y", y)
            .put("out", out)
            .put("counts", vec![2 * m as i32; n]);
        o
    }

    differential!(inputs, run, reference);
}

/// A smoothed value of `u` at `i` in any float type (a generic device function).
#[device]
fn smoothed<T>(u: &View<T, 1>, i: usize, w: T) -> T
where
    T: std::ops::Add<Output = T> + std::ops::Sub<Output = T> + std::ops::Mul<Output = T>,
{
    let edge = u[i - 1] + u[i + 1];
    u[i] + w * (edge - u[i] - u[i])
}

mod generic_device_functions_run_per_type {
    use super::*;

    fn inputs(seed: u64) -> Vec<f64> {
        let mut rng = Rng::new(seed);
        let n = 3 + (rng.next_u64() % 200) as usize;
        uniform(&mut rng, n, -3.0, 3.0)
    }

    fn run<S: Launch>(exec: &S, xs: &[f64]) -> Result<Outputs> {
        let n = xs.len();
        let x = upload::<S, f64>("x", xs)?;
        let narrow: Vec<f32> = xs.iter().map(|v| *v as f32).collect();
        let xf = upload::<S, f32>("xf", &narrow)?;
        let y = SView::<S, f64, 1>::new("y", [n])?;
        let yf = SView::<S, f32, 1>::new("yf", [n])?;
        parallel_for(
            "smooth",
            RangePolicy::new(exec, 1, n - 1)?,
            kernel!(|i| {
                y[i] = smoothed(&x, i, 0.25);
                yf[i] = smoothed(&xf, i, 0.25f32);
            }),
        )?;
        let mut o = Outputs::new();
        o.put("y", download(&y)?).put("yf", download(&yf)?);
        Ok(o)
    }

    fn reference(xs: &[f64]) -> Outputs {
        let n = xs.len();
        let narrow: Vec<f32> = xs.iter().map(|v| *v as f32).collect();
        let mut y = vec![0.0; n];
        let mut yf = vec![0.0f32; n];
        for i in 1..n - 1 {
            y[i] = xs[i] + 0.25 * ((xs[i - 1] + xs[i + 1]) - xs[i] - xs[i]);
            let u = &narrow;
            yf[i] = u[i] + 0.25 * ((u[i - 1] + u[i + 1]) - u[i] - u[i]);
        }
        let mut o = Outputs::new();
        o.put("y", y).put("yf", yf);
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
            weighted_sum_kernel!(weights, N, x, y),
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
            constants_kernel!(x, y, OFFSET),
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

/// `a × b` of 3-vectors, as a `#[device]` function over arrays.
#[device]
fn cross3(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

mod arrays_are_device_values {
    use super::*;

    type Input = (Vec<[f64; 3]>, Vec<[f64; 3]>, [[f64; 3]; 3]);

    fn inputs(seed: u64) -> Input {
        let mut rng = Rng::new(seed);
        let mut vecs = |n: usize| -> Vec<[f64; 3]> {
            (0..n)
                .map(|_| std::array::from_fn(|_| rng.f64_in(-2.0, 2.0)))
                .collect()
        };
        let (a, b) = (vecs(501), vecs(501));
        let m = std::array::from_fn(|_| std::array::from_fn(|_| rng.f64_in(-1.0, 1.0)));
        (a, b, m)
    }

    /// `m · (a × b)` per element, written component by component into a View of arrays, and the
    /// square of its length into a View of numbers.
    fn run<S: Launch>(exec: &S, input: &Input) -> Result<Outputs> {
        let n = input.0.len();
        let a = upload::<S, [f64; 3]>("a", &input.0)?;
        let b = upload::<S, [f64; 3]>("b", &input.1)?;
        let m = input.2;
        let y = SView::<S, [f64; 3], 1>::new("y", [n])?;
        let len2 = SView::<S, f64, 1>::new("len2", [n])?;
        parallel_for(
            "rotate",
            RangePolicy::new(exec, 0, n)?,
            kernel!(|i| {
                let c = cross3(a[i], b[i]);
                let mut s = 0.0;
                for r in 0..3 {
                    y[i][r] = m[r][0] * c[0] + m[r][1] * c[1] + m[r][2] * c[2];
                    s += y[i][r] * y[i][r];
                }
                len2[i] = s;
            }),
        )?;
        let mut o = Outputs::new();
        let flat: Vec<f64> = download(&y)?.into_iter().flatten().collect();
        o.put("y", flat).put("len2", download(&len2)?);
        Ok(o)
    }

    fn reference(input: &Input) -> Outputs {
        let (a, b, m) = input;
        let mut y = Vec::new();
        let mut len2 = Vec::new();
        for (a, b) in a.iter().zip(b) {
            let c = [
                a[1] * b[2] - a[2] * b[1],
                a[2] * b[0] - a[0] * b[2],
                a[0] * b[1] - a[1] * b[0],
            ];
            let mut s = 0.0;
            for row in m {
                let v = row[0] * c[0] + row[1] * c[1] + row[2] * c[2];
                y.push(v);
                s += v * v;
            }
            len2.push(s);
        }
        let mut o = Outputs::new();
        o.put("y", y).put("len2", len2);
        o
    }

    differential!(inputs, run, reference);
}
