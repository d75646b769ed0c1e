//! Differential cases of the representative kernels: axpy, a 2D stencil, a dot product, scans and
//! an iterated kernel with loops, branches, math and a device function
//! (`kernel_language/representative.rs`).

// The reference computations mirror the kernel bodies, written to exercise each construct.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::manual_is_multiple_of,
    clippy::nonminimal_bool,
    clippy::approx_constant
)]

use super::*;
// Kernels call `#[device]` functions through the marker types generated next to them.
use crate::kernel_language::representative::{
    __fk_device_smoothstep, axpy_kernel, dot_kernel, iterate_reference, loops_branches_math_kernel,
    offsets_scan_kernel, stencil_2d_kernel, stencil_reference,
};

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
        parallel_for("axpy", RangePolicy::new(exec, 0, n)?, axpy_kernel!(a, x, y))?;
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
                stencil_2d_kernel!(u, out),
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
        let k = dot_kernel!(x, y);
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
            offsets_scan_kernel!(c, offsets),
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
            loops_branches_math_kernel!(x, steps, y, flips),
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
