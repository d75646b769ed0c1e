//! Control flow: `if` / `else` as statements and values, `for` over ranges (reversed, stepped),
//! `while`, `loop`, `break`, `continue`, `return`, blocks with values, tuple `let`s, shadowed
//! captures and loop conditions with statements; an NVRTC error points at the Rust line.
//!
//! Each runs on Threads with Rust's results, and its generated C++ compiles with NVRTC (sm_80 and
//! sm_90).

// The reference computations mirror the kernel bodies, which are written to exercise each construct.
#![allow(
    clippy::neg_cmp_op_on_partial_ord,
    clippy::manual_is_multiple_of,
    clippy::nonminimal_bool
)]

use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Result, kernel};

use crate::common::{check_device_code, runtime, threads as exec, view_from};

/// The kernel of [`if_else_as_statement_and_as_value`] (and of its differential case): `if` /
/// `else` as statements and as values on `x`, into the columns of `y`.
macro_rules! if_else_kernel {
    ($x:ident, $y:ident) => {
        ::ferrokkos::kernel!(|i| {
            let v = $x[i];
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
                $y[i] = big - 1000;
            } else if sign == 0 {
                $y[i] = 7;
            } else {
                $y[i] = big + 1000;
            }
        })
    };
}
pub(crate) use if_else_kernel;

#[test]
fn if_else_as_statement_and_as_value() -> Result<()> {
    runtime();
    let n = 40;
    let x = view_from("x", &(0..n).map(|k| k as i32 - 20).collect::<Vec<_>>())?;
    let y = View::<i32, 1>::new("y", [n])?;
    let k = if_else_kernel!(x, y);
    parallel_for("branches", RangePolicy::new(&exec(), 0, n)?, &k)?;
    for (i, g) in y.to_vec()?.iter().enumerate() {
        let v = i as i32 - 20;
        let big = if v.abs() > 10 { v * 2 + 1 } else { v };
        let want = if v < 0 {
            big - 1000
        } else if v == 0 {
            7
        } else {
            big + 1000
        };
        assert_eq!(*g, want, "element {i}");
    }
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let g = tu.generated();
    assert!(g.contains("} else if (sign == 0) {"), "{g}");
    assert!(g.contains("v < 0 ? -1 : v == 0 ? 0 : 1"), "{g}");
    check_device_code(&tu);
    Ok(())
}

/// The kernel of [`for_loops_over_ranges`] (and of its differential case): `for` over ranges
/// (half-open, inclusive, reversed, stepped, reversed and stepped) up to the index, each loop
/// folding its values into a column of `y` (wrapping, so that long loops may overflow).
macro_rules! for_loops_kernel {
    ($y:ident) => {
        ::ferrokkos::kernel!(|i| {
            let mut s = 0u64;
            for k in 0..i {
                s += k as u64;
            }
            $y[(i, 0)] = s;
            let mut t = 0u64;
            for k in 1..=i {
                t = t.wrapping_mul(3).wrapping_add(k as u64);
            }
            $y[(i, 1)] = t;
            let mut r = 0u64;
            for k in (0..i).rev() {
                r = r.wrapping_mul(2).wrapping_add(k as u64);
            }
            $y[(i, 2)] = r;
            let mut q = 0u64;
            for k in (2..i + 9).step_by(3) {
                q = q.wrapping_mul(5).wrapping_add(k as u64);
            }
            $y[(i, 3)] = q;
            let mut p = 0u64;
            for k in (1..i + 7).rev().step_by(2) {
                p = p.wrapping_mul(7).wrapping_add(k as u64);
            }
            $y[(i, 4)] = p;
        })
    };
}
pub(crate) use for_loops_kernel;

#[test]
fn for_loops_over_ranges() -> Result<()> {
    runtime();
    let n = 16usize;
    let y = View::<u64, 2>::new("y", [n, 5])?;
    let k = for_loops_kernel!(y);
    parallel_for("loops", RangePolicy::new(&exec(), 0, n)?, &k)?;
    let g = y.host()?;
    for i in 0..n {
        let want = [
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
        ];
        for (r, w) in want.iter().enumerate() {
            assert_eq!(g[(i, r)], *w, "loop {r} at {i}");
        }
    }
    check_device_code(&TranslationUnit::for_kernel(&k, Iterate::Right));
    Ok(())
}

/// The kernel of [`while_loop_break_and_continue`] (and of its differential case): per element
/// of `x`, a `while` loop (Collatz steps of `x[i] + 1`), a `loop` with `break` and `continue` (the
/// sum of the odd numbers up to `x[i] % 1000`) and a `for` left by `break` (the least divisor
/// of `x[i] + 2` below 20, or 0), into the columns of `y`.
macro_rules! while_loop_kernel {
    ($x:ident, $y:ident) => {
        ::ferrokkos::kernel!(|i| {
            // Collatz steps.
            let mut v = $x[i] as u64 + 1;
            let mut steps = 0u32;
            while v != 1 {
                v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
                steps += 1;
            }
            $y[(i, 0)] = steps;
            let mut k = 0u32;
            let mut odd = 0u32;
            loop {
                k += 1;
                if k > $x[i] % 1000 {
                    break;
                }
                if k % 2 == 0 {
                    continue;
                }
                odd += k;
            }
            $y[(i, 1)] = odd;
            let mut found = 0u32;
            for d in 2..20u32 {
                if ($x[i] + 2) % d == 0 {
                    found = d;
                    break;
                }
            }
            $y[(i, 2)] = found;
        })
    };
}
pub(crate) use while_loop_kernel;

#[test]
fn while_loop_break_and_continue() -> Result<()> {
    runtime();
    let n = 30;
    let x = view_from("x", &(0..n as u32).collect::<Vec<_>>())?;
    let y = View::<u32, 2>::new("y", [n, 3])?;
    let k = while_loop_kernel!(x, y);
    parallel_for("loops", RangePolicy::new(&exec(), 0, n)?, &k)?;
    let g = y.host()?;
    for i in 0..n {
        let mut v = i as u64 + 1;
        let mut steps = 0;
        while v != 1 {
            v = if v % 2 == 0 { v / 2 } else { 3 * v + 1 };
            steps += 1;
        }
        let odd: u32 = (1..=i as u32 % 1000).filter(|k| k % 2 == 1).sum();
        let found = (2..20u32).find(|d| (i as u32 + 2) % d == 0).unwrap_or(0);
        assert_eq!(
            [g[(i, 0)], g[(i, 1)], g[(i, 2)]],
            [steps, odd, found],
            "at {i}"
        );
    }
    check_device_code(&TranslationUnit::for_kernel(&k, Iterate::Right));
    Ok(())
}

/// The kernel of [`return_ends_an_iteration_and_blocks_have_values`] (and of its differential
/// case): per element `v` of `x`, `-1` below -5 (then `return`), else 100 when `v > 0 && { block }`
/// holds, else `v`, into `y`.
macro_rules! return_kernel {
    ($x:ident, $y:ident) => {
        ::ferrokkos::kernel!(|i| {
            let v = $x[i];
            // A block with statements on the right of `&&` runs only when the left side holds.
            let small = v > 0 && {
                let t = v * 2;
                t < 10
            };
            if v < -5 {
                $y[i] = -1;
                return;
            }
            $y[i] = if small { 100 } else { v };
        })
    };
}
pub(crate) use return_kernel;

#[test]
fn return_ends_an_iteration_and_blocks_have_values() -> Result<()> {
    runtime();
    let n = 20;
    let x = view_from("x", &(0..n).map(|k| k as i32 - 10).collect::<Vec<_>>())?;
    let y = View::<i32, 1>::new("y", [n])?;
    let k = return_kernel!(x, y);
    parallel_for("return", RangePolicy::new(&exec(), 0, n)?, &k)?;
    for (i, g) in y.to_vec()?.iter().enumerate() {
        let v = i as i32 - 10;
        let want = if v < -5 {
            -1
        } else if v > 0 && v * 2 < 10 {
            100
        } else {
            v
        };
        assert_eq!(*g, want, "at {i}");
    }
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let g = tu.generated();
    assert!(
        g.contains("bool fk_cond = v > 0;") && g.contains("if (fk_cond) {"),
        "{g}"
    );
    assert!(g.contains("return;"), "{g}");
    check_device_code(&tu);
    Ok(())
}

/// The kernel of [`tuple_lets_and_shadowed_captures`] (and of its differential case): tuple `let`s
/// into columns 0 and 1 of `y`; a local that shadows the capture `scale` and a `while` whose
/// condition needs statements, its steps and end value into column 2.
macro_rules! tuple_lets_and_shadowing_kernel {
    ($scale:ident, $y:ident) => {
        ::ferrokkos::kernel!(|i| {
            let (a, mut b) = (i as i64, 10i64);
            b += a;
            // Swapping through a tuple reads the old names first, as Rust does.
            let (a, b) = (b, a);
            $y[(i, 0)] = a;
            $y[(i, 1)] = b;
            // A local that shadows a capture gets its own C++ name.
            let scale = $scale * 2;
            let mut m = i as i64;
            let mut steps = 0i64;
            // A loop condition that needs statements is evaluated on every iteration.
            while {
                let doubled = m * 2;
                doubled < 400
            } {
                m += scale;
                steps += 1;
            }
            $y[(i, 2)] = steps * 1000 + m;
        })
    };
}
pub(crate) use tuple_lets_and_shadowing_kernel;

/// The kernel without captures of [`tuple_lets_and_shadowed_captures`] (and of its differential
/// case).
macro_rules! capture_free_kernel {
    () => {
        ::ferrokkos::kernel!(|i| {
            let _t = i * 2;
        })
    };
}
pub(crate) use capture_free_kernel;

/// Tuple `let`s bind their values before their names; a local that shadows a capture and a loop
/// condition with statements; a kernel without captures.
#[test]
fn tuple_lets_and_shadowed_captures() -> Result<()> {
    runtime();
    let scale = 3i64;
    let n = 10;
    let y = View::<i64, 2>::new("y", [n, 3])?;
    let k = tuple_lets_and_shadowing_kernel!(scale, y);
    parallel_for("tuples and shadowing", RangePolicy::new(&exec(), 0, n)?, &k)?;
    assert_eq!(y.get((3, 0))?, 13);
    assert_eq!(y.get((3, 1))?, 3);
    let g = y.host()?;
    for i in 0..n {
        let (mut m, mut steps) = (i as i64, 0);
        while m * 2 < 400 {
            m += 6;
            steps += 1;
        }
        assert_eq!(
            [g[(i, 0)], g[(i, 1)], g[(i, 2)]],
            [10 + i as i64, i as i64, steps * 1000 + m],
            "at {i}"
        );
    }
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    assert!(
        tu.generated()
            .contains("const i64 scale_1 = fk::wrapping_mul(scale, 2LL);"),
        "{}",
        tu.generated()
    );
    assert!(
        tu.generated().contains("while (true) {"),
        "{}",
        tu.generated()
    );
    check_device_code(&tu);
    let empty = capture_free_kernel!();
    parallel_for("empty", RangePolicy::new(&exec(), 0, n)?, &empty)?;
    check_device_code(&TranslationUnit::for_kernel(&empty, Iterate::Right));
    Ok(())
}

#[test]
fn an_nvrtc_error_in_a_body_points_at_the_rust_line() -> Result<()> {
    runtime();
    let y = View::<f64, 1>::new("y", [4])?;
    let line = line!() + 3;
    let k = kernel!(|i| {
        let t = i as f64;
        y[i] = t * 2.0;
    });
    let mut tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    if !ferrokkos::nvrtc::require_or_skip() {
        return Ok(());
    }
    // Break the C++ of the statement on `line` (as a bug in the emitter would).
    tu.source = tu.source.replace(
        "y(fk_proven, i) = t * 2.0;",
        "y(fk_proven, i) = t * undefined_name;",
    );
    let err = tu.compile_cubin(90).unwrap_err();
    let text = err.to_string();
    let at = format!("{}({line})", file!());
    assert!(
        text.contains(&at) && text.contains("undefined_name"),
        "{text}"
    );
    Ok(())
}

/// The labelled loops of [`labelled_loops_break_and_continue_outer_loops`], in plain Rust.
fn labelled(i: i64) -> i64 {
    let mut found = -1i64;
    let mut skipped = 0i64;
    'rows: for a in 0..20i64 {
        for b in 0..20i64 {
            if (a * b) % 7 == 3 && b > i % 5 {
                skipped += 1;
                continue 'rows;
            }
            if a * 20 + b == i * 11 + 5 {
                found = a * 100 + b;
                break 'rows;
            }
        }
        let wasted = a * 2;
        skipped += wasted % 3;
    }
    let mut count = 0i64;
    'outer: loop {
        let mut k = 0i64;
        while k < 10 {
            k += 1;
            count += k;
            if count > 40 + i {
                break 'outer;
            }
            if k == 3 {
                continue 'outer;
            }
        }
    }
    found * 1000 + skipped * 10 + count
}

/// `break 'label` and `continue 'label` leave or restart an outer `for`, `loop` or `while` on
/// every space as in Rust (a `goto` to targets after the loop and at the end of its body, which
/// sits in a block of its own so that C++ accepts the jump past its declarations).
fn labelled_loops_break_and_continue_outer_loops<S: Launch>(exec: &S) -> Result<()> {
    let n = 40;
    let out = crate::spaces::SView::<S, i64, 1>::new("out", [n])?;
    parallel_for(
        "labels",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let m = i as i64;
            let mut found = -1i64;
            let mut skipped = 0i64;
            'rows: for a in 0..20i64 {
                for b in 0..20i64 {
                    if (a * b) % 7 == 3 && b > m % 5 {
                        skipped += 1;
                        continue 'rows;
                    }
                    if a * 20 + b == m * 11 + 5 {
                        found = a * 100 + b;
                        break 'rows;
                    }
                }
                let wasted = a * 2;
                skipped += wasted % 3;
            }
            let mut count = 0i64;
            'outer: loop {
                let mut k = 0i64;
                while k < 10 {
                    k += 1;
                    count += k;
                    if count > 40 + m {
                        break 'outer;
                    }
                    if k == 3 {
                        continue 'outer;
                    }
                }
            }
            out[i] = found * 1000 + skipped * 10 + count;
        }),
    )?;
    let want: Vec<i64> = (0..n as i64).map(labelled).collect();
    assert_eq!(crate::spaces::download(&out)?, want);
    Ok(())
}

per_space!(
    labelled_loops_break_and_continue_outer_loops,
    labelled_loops_break_and_continue_outer_loops
);

/// The kernel of [`labelled_loops_become_gotos_that_compile`], in plain Rust.
fn gotos(i: i32) -> i32 {
    let mut acc = 0i32;
    'a: for x in 0..6i32 {
        for z in 0..4i32 {
            if z == i && x % 2 == 0 {
                continue 'a;
            }
            if x == 5 && z == 3 {
                break 'a;
            }
        }
        let t = x * 2;
        acc += t;
    }
    acc
}

#[test]
fn labelled_loops_become_gotos_that_compile() -> Result<()> {
    runtime();
    let y = View::<i32, 1>::new("y", [5])?;
    let k = kernel!(|i| {
        let m = i as i32;
        let mut acc = 0i32;
        'a: for x in 0..6i32 {
            for z in 0..4i32 {
                if z == m && x % 2 == 0 {
                    continue 'a;
                }
                if x == 5 && z == 3 {
                    break 'a;
                }
            }
            let t = x * 2;
            acc += t;
        }
        y[i] = acc;
    });
    parallel_for("gotos", RangePolicy::new(&exec(), 0, 5)?, &k)?;
    assert_eq!(y.to_vec()?, (0..5).map(gotos).collect::<Vec<_>>());
    assert_ne!(gotos(0), gotos(4));
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    assert!(text.contains("goto fk_continue_a;"), "{text}");
    assert!(text.contains("goto fk_break_a;"), "{text}");
    assert!(
        text.contains("fk_continue_a: ;") && text.contains("fk_break_a: ;"),
        "{text}"
    );
    check_device_code(&tu);
    Ok(())
}
