//! Device closures, `kernel!(|x: f64| -> bool { x > t })`: functions of values with captured
//! values, called by kernels as `f.call(x)`, with plain Rust's results on every space; each is one
//! C++ function per translation unit (and per instantiation in generic code), its captures one
//! struct parameter, and NVRTC compiles them.

use crate::common::check_device_code;
use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::kernel::DeviceFn;
use ferrokkos::prelude::*;
use ferrokkos::{DeviceValue, Result, kernel};

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
struct Band {
    lo: f64,
    hi: f64,
}

const SCALE: f64 = 0.5;

fn closures_called_in_kernels_match_plain_rust<S: Launch>(exec: &S) -> Result<()> {
    let n = 23usize;
    let x_h: Vec<f64> = (0..n).map(|k| (k as f64 - 11.0) * 0.75).collect();
    let x = upload::<S, f64>("x", &x_h)?;
    let y = SView::<S, f64, 1>::new("y", [n])?;
    let flags = SView::<S, u32, 1>::new("flags", [n])?;
    let band = Band { lo: -2.0, hi: 3.0 };
    let weights = [2.0f64, -1.0, 0.25];
    let shift = 7u32;
    let inside = kernel!(|v: f64| -> bool { v >= band.lo && v <= band.hi });
    let poly = kernel!(|v: f64| -> f64 {
        let mut s = 0.0;
        let mut p = 1.0;
        for k in 0..3 {
            s += weights[k] * p;
            p *= v;
        }
        s * SCALE
    });
    let pick = kernel!(|a: f64, b: f64, first: bool| -> f64 { if first { a } else { b } });
    let code = kernel!(|i: u32| -> u32 { (i << 2) + shift });
    parallel_for(
        "closures",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let v = x[i];
            y[i] = pick.call(poly.call(v), -v, inside.call(v));
            flags[i] = code.call(i as u32) + inside.call(v) as u32;
        }),
    )?;
    let (y, flags) = (download(&y)?, download(&flags)?);
    for i in 0..n {
        let v = x_h[i];
        let inside = (-2.0..=3.0).contains(&v);
        let poly = (2.0 - v + 0.25 * v * v) * 0.5;
        assert_eq!(y[i], if inside { poly } else { -v }, "y[{i}]");
        assert_eq!(
            flags[i],
            ((i as u32) << 2) + 7 + inside as u32,
            "flags[{i}]"
        );
    }
    // The host calls the same closures.
    assert!(inside.call(0.0) && !inside.call(3.5));
    assert_eq!(pick.call(1.0, 2.0, false), 2.0);
    Ok(())
}

per_space!(
    closures_called_in_kernels_match_plain_rust,
    closures_called_in_kernels_match_plain_rust
);

/// A closure made in generic code: one per instantiation.
fn clamp_below<T: DeviceValue + PartialOrd + ferrokkos::kernel::DeviceScalar>(
    limit: T,
) -> impl DeviceFn<(T,), Output = T> {
    kernel!(|v: T| -> T { if v < limit { limit } else { v } })
}

/// A closure of generic code that differs only by a constant: one per instantiation.
fn times<const K: usize>() -> impl DeviceFn<(f64,), Output = f64> {
    kernel!(|v: f64| -> f64 { v * K as f64 })
}

fn closures_of_each_instantiation_are_their_own<S: Launch>(exec: &S) -> Result<()> {
    let n = 9usize;
    let x_h: Vec<f64> = (0..n).map(|k| k as f64 + 0.5).collect();
    let x = upload::<S, f64>("x", &x_h)?;
    let y = SView::<S, f64, 1>::new("y", [n])?;
    let (two, three) = (times::<2>().closure(), times::<3>().closure());
    parallel_for(
        "times",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| y[i] = two.call(x[i]) * 10.0 + three.call(x[i])),
    )?;
    let want: Vec<f64> = x_h.iter().map(|v| v * 20.0 + v * 3.0).collect();
    assert_eq!(download(&y)?, want);
    Ok(())
}

per_space!(
    closures_of_each_instantiation_are_their_own,
    closures_of_each_instantiation_are_their_own
);

/// Each closure is one C++ function taking its captures first, its captures travel as one struct
/// parameter, generic closures give one function per type, and NVRTC compiles them.
#[test]
fn closures_are_device_functions_of_their_captures_and_arguments() -> Result<()> {
    crate::common::runtime();
    let x = View::<f64, 1>::new("x", [4])?;
    let y = View::<f32, 1>::new("y", [4])?;
    let t = 0.5;
    let w = [1.0f64, 2.0];
    let above = kernel!(|v: f64| -> bool { v > t });
    let lin = kernel!(|a: f64, b: f64| -> f64 { a * w[0] + b * w[1] });
    let lo64 = clamp_below(1.5f64).closure();
    let lo32 = clamp_below(2.5f32).closure();
    let (two, three) = (times::<2>().closure(), times::<3>().closure());
    let k = kernel!(|i| {
        let a = if above.call(x[i]) {
            lin.call(x[i], 1.0)
        } else {
            0.0
        };
        let b = two.call(a) + three.call(a);
        y[i] = (lo64.call(b) + lin.call(a, a)) as f32 + lo32.call(y[i]);
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    for (want, count) in [
        (
            "static __device__ bool closure_fn(const f64 t, const f64 v)",
            1,
        ),
        ("(const fk::Array<f64, 2> w, const f64 a, const f64 b)", 1),
        ("(const f64 limit, const f64 v)", 1),
        ("(const f32 limit, const f32 v)", 1),
        ("(const f64 v) {", 2),
        ("static __device__ f64 closure_fn", 4),
        ("const Captures above", 1),
        ("lin.c0", 2),
    ] {
        assert_eq!(text.matches(want).count(), count, "{want}\n{text}");
    }
    check_device_code(&tu);
    Ok(())
}

/// A closure without captures still travels as a (one-byte) parameter.
fn closures_without_captures_run<S: Launch>(exec: &S) -> Result<()> {
    let n = 5usize;
    let y = SView::<S, i64, 1>::new("y", [n])?;
    let square = kernel!(|v: i64| -> i64 { v * v });
    parallel_for(
        "squares",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| y[i] = square.call(i as i64) - 1),
    )?;
    assert_eq!(download(&y)?, [-1, 0, 3, 8, 15]);
    Ok(())
}

per_space!(closures_without_captures_run, closures_without_captures_run);
