//! Differential cases of control flow: `if` / `else` as statements and values, `for` over ranges,
//! `while`, `loop`, `break`, `continue`, `return`, blocks with values, tuple `let`s and shadowed
//! captures (`kernel_language/control_flow.rs`).

// The reference computations mirror the kernel bodies, written to exercise each construct.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::manual_is_multiple_of,
    clippy::nonminimal_bool,
    clippy::approx_constant
)]

use super::*;
use crate::kernel_language::control_flow::{
    capture_free_kernel, for_loops_kernel, if_else_kernel, return_kernel,
    tuple_lets_and_shadowing_kernel, while_loop_kernel,
};

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
            if_else_kernel!(x, y),
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
        parallel_for("loops", RangePolicy::new(exec, 0, n)?, for_loops_kernel!(y))?;
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
            while_loop_kernel!(x, y),
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
            return_kernel!(x, y),
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
            tuple_lets_and_shadowing_kernel!(scale, y),
        )?;
        // A kernel without captures.
        parallel_for(
            "empty",
            RangePolicy::new(exec, 0, n)?,
            capture_free_kernel!(),
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
