//! `#[device]` functions generic over device values (`fn pick<T: DeviceValue>(..) -> T`): one
//! function for numbers, user structs and arrays, defined once per instantiation in the translation
//! unit, run on every space with plain Rust's results.

use crate::common::check_device_code;
use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{DeviceValue, Result, kernel};

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
struct Cell2 {
    lo: f64,
    hi: f64,
}

/// One of two values.
#[ferrokkos::device]
fn pick<T: DeviceValue>(first: bool, a: T, b: T) -> T {
    if first { a } else { b }
}

/// The element at `i` of a View of any device value, and its neighbour (around the end).
#[ferrokkos::device]
fn pair_at<T>(v: &View<T, 1>, i: usize) -> [T; 2]
where
    T: DeviceValue,
{
    [v[i], v[(i + 1) % v.extent(0)]]
}

/// Exchanges two values in place (the kernel language has no `std::mem::swap`).
#[allow(clippy::manual_swap)]
#[ferrokkos::device]
fn exchange<T: ferrokkos::DeviceValue>(a: &mut T, b: &mut T) {
    let t = *a;
    *a = *b;
    *b = t;
}

/// The kernel's result in plain Rust.
fn want(cells: &[Cell2], x: &[f64], i: usize) -> (Cell2, f64, [f64; 2]) {
    let n = cells.len();
    let mut c = if i % 2 == 0 {
        cells[i]
    } else {
        cells[(i + 1) % n]
    };
    let mut lo = c.lo;
    let mut hi = c.hi;
    if lo > hi {
        std::mem::swap(&mut lo, &mut hi);
    }
    c = Cell2 { lo, hi };
    let s = if x[i] > 0.0 { x[i] } else { 0.0 };
    (c, s, [x[i], x[(i + 1) % n]])
}

fn generic_device_functions_take_any_device_value<S: Launch>(exec: &S) -> Result<()> {
    let n = 9usize;
    let cells_h: Vec<Cell2> = (0..n)
        .map(|k| Cell2 {
            lo: (k * 7 % 5) as f64,
            hi: (k * 3 % 4) as f64,
        })
        .collect();
    let x_h: Vec<f64> = (0..n).map(|k| k as f64 - 4.0).collect();
    let cells = upload::<S, Cell2>("cells", &cells_h)?;
    let x = upload::<S, f64>("x", &x_h)?;
    let out = SView::<S, Cell2, 1>::new("out", [n])?;
    let pos = SView::<S, f64, 1>::new("pos", [n])?;
    let pairs = SView::<S, [f64; 2], 1>::new("pairs", [n])?;
    parallel_for(
        "generic",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let both = pair_at(&cells, i);
            let mut c = pick(i % 2 == 0, both[0], both[1]);
            let mut lo = c.lo;
            let mut hi = c.hi;
            if lo > hi {
                exchange(&mut lo, &mut hi);
            }
            c = Cell2 { lo, hi };
            out[i] = c;
            pos[i] = pick(x[i] > 0.0, x[i], 0.0);
            pairs[i] = pair_at(&x, i);
        }),
    )?;
    let (out, pos, pairs) = (download(&out)?, download(&pos)?, download(&pairs)?);
    for i in 0..n {
        let (c, s, p) = want(&cells_h, &x_h, i);
        assert_eq!((out[i], pos[i], pairs[i]), (c, s, p), "element {i}");
    }
    Ok(())
}

per_space!(
    generic_device_functions_take_any_device_value,
    generic_device_functions_take_any_device_value
);

/// Each instantiation is its own C++ function (a struct, an array, a number), and NVRTC compiles
/// them.
#[test]
fn generic_device_functions_are_defined_per_value_type() -> Result<()> {
    crate::common::runtime();
    let cells = View::<Cell2, 1>::new("cells", [4])?;
    let x = View::<f64, 1>::new("x", [4])?;
    let y = View::<f32, 1>::new("y", [4])?;
    let k = kernel!(|i| {
        let c = pick(i == 0, cells[i], cells[3 - i]);
        let p = pick(i == 1, pair_at(&x, i), [1.0, 2.0]);
        let mut a = y[i];
        let mut b = 2.0f32;
        exchange(&mut a, &mut b);
        y[i] = a + b + (c.lo + p[0]) as f32;
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    for (want, count) in [
        ("static __device__ Cell2 pick_fn", 1),
        ("static __device__ fk::Array<f64, 2> pick_fn", 1),
        ("static __device__ fk::Array<Cell2, 2> pair_at_fn", 0),
        ("static __device__ fk::Array<f64, 2> pair_at_fn", 1),
        ("static __device__ void exchange_fn", 1),
    ] {
        assert_eq!(text.matches(want).count(), count, "{want}\n{text}");
    }
    check_device_code(&tu);
    Ok(())
}

/// The sum of an array of any length (kernels loop over ranges, not iterators).
#[allow(clippy::needless_range_loop)]
#[ferrokkos::device]
fn total<const N: usize>(a: [f64; N]) -> f64 {
    let mut s = 0.0;
    for k in 0..N {
        s += a[k];
    }
    s
}

/// `N` consecutive elements of `v` from `i` (around the end).
#[allow(clippy::needless_range_loop)]
#[ferrokkos::device]
fn window<const N: usize>(v: &View<f64, 1>, i: usize) -> [f64; N] {
    let mut w = [0.0; N];
    for k in 0..N {
        w[k] = v[(i + k) % v.extent(0)];
    }
    w
}

/// `x` in each of `N` places: `N` is only in the result's type, and still each length is its own
/// C++ function.
#[ferrokkos::device]
fn spread<const N: usize>(x: f64) -> [f64; N] {
    [x; N]
}

fn device_functions_generic_over_an_array_length<S: Launch>(exec: &S) -> Result<()> {
    let n = 7usize;
    let x_h: Vec<f64> = (0..n).map(|k| (k * k) as f64).collect();
    let x = upload::<S, f64>("x", &x_h)?;
    let y = SView::<S, f64, 1>::new("y", [n])?;
    parallel_for(
        "windows",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let three: [f64; 3] = window(&x, i);
            let five: [f64; 5] = window(&x, i);
            let twice: [f64; 2] = spread(x[i]);
            y[i] = total(three) * 10.0 + total(five) + total([1.0, 2.0]) + total(twice);
        }),
    )?;
    let got = download(&y)?;
    for i in 0..n {
        let w = |m: usize| (0..m).map(|k| x_h[(i + k) % n]).sum::<f64>();
        assert_eq!(
            got[i],
            w(3) * 10.0 + w(5) + 3.0 + 2.0 * x_h[i],
            "element {i}"
        );
    }
    Ok(())
}

per_space!(
    device_functions_generic_over_an_array_length,
    device_functions_generic_over_an_array_length
);

/// One C++ function per length.
#[test]
fn array_length_generics_are_defined_per_length() -> Result<()> {
    crate::common::runtime();
    let x = View::<f64, 1>::new("x", [8])?;
    let y = View::<f64, 1>::new("y", [8])?;
    let k = kernel!(|i| {
        let a: [f64; 2] = window(&x, i);
        let b: [f64; 4] = window(&x, i);
        let c: [f64; 3] = window(&x, i);
        let s2: [f64; 2] = spread(1.0);
        let s3: [f64; 3] = spread(2.0);
        y[i] = total(a) + total(b) + total(c) + total(s2) + total(s3);
    });
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    for (want, count) in [
        ("static __device__ f64 total_fn", 3),
        ("static __device__ fk::Array<f64, 2> spread_fn", 1),
        ("static __device__ fk::Array<f64, 3> spread_fn", 1),
        ("static __device__ fk::Array<f64, 2> window_fn", 1),
        ("static __device__ fk::Array<f64, 4> window_fn", 1),
        ("static __device__ fk::Array<f64, 3> window_fn", 1),
    ] {
        assert_eq!(text.matches(want).count(), count, "{want}\n{text}");
    }
    check_device_code(&tu);
    Ok(())
}
