//! Differential cases of the patterns inside `kernel!`: reductions with one and several
//! accumulators, an MDRange reduction, scans and atomics (`kernel_language/features.rs`).

// The reference computations mirror the kernel bodies, written to exercise each construct.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::manual_is_multiple_of,
    clippy::nonminimal_bool,
    clippy::approx_constant
)]

use super::*;
use crate::kernel_language::features::{
    atomics_kernel, exclusive_inclusive_scan_kernel, md_fill_kernel, md_sum_kernel, min_loc_kernel,
    min_max_count_kernel, running_max_scan_kernel, sum_of_squares_kernel,
};

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
        parallel_reduce("sumsq", p.clone(), sum_of_squares_kernel!(x), &mut sum)?;
        let (lo, hi, count) = parallel_reduce(
            "stats",
            p.clone(),
            min_max_count_kernel!(x),
            (Min::new(), Max::new(), Sum::<u32>::new()),
        )?;
        let m = parallel_reduce("minloc", p, min_loc_kernel!(x), MinLoc::<f64, usize>::new())?;
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
            md_fill_kernel!(a),
        )?;
        let mut sums = Vec::new();
        for order in [Iterate::Left, Iterate::Right] {
            let s: i64 = parallel_reduce(
                "sum2d",
                MDRangePolicy::new(exec, [0, 0], [n, m])?.iterate(order),
                md_sum_kernel!(a),
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
            exclusive_inclusive_scan_kernel!(counts, excl, incl),
        )?;
        let m = SView::<S, u32, 1>::new("m", [n])?;
        let top = parallel_scan_with(
            "runmax",
            RangePolicy::new(exec, 0, n)?,
            running_max_scan_kernel!(counts, m),
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
            atomics_kernel!(x, hist, lo, hi, fsum, umax),
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
