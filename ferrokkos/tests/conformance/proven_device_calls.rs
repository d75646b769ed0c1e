//! Bounds proved at launch through `#[device]` calls (`kernel/device_bounds.rs`): a device
//! function lists its View reads as maps of its parameters, a kernel's launch composes them with a
//! call's arguments and proves them with the body's own accesses; the proven body then calls the
//! function with its Views read unchecked. A read outside the proven part, or one the list cannot
//! describe, keeps its check and still panics naming the View.

use ferrokkos::__private::{DeviceCoord, DeviceFunction};
use ferrokkos::Result;
use ferrokkos::prelude::*;
use ferrokkos::traits::HostExecutionSpace;

use crate::common::{self, panic_message};

/// The 5-point Laplacian of `u` at `(i, j)`.
#[device]
fn lap(u: &View<f64, 2>, i: i64, j: i64) -> f64 {
    u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)] - 4.0 * u[(i, j)]
}

/// `u[2k + 1, 3]` and its extent: a scaled map and a literal coordinate.
#[device]
fn odd(u: &View<f64, 2>, k: usize) -> f64 {
    u[(2 * k + 1, 3)] + u.extent(0) as f64
}

/// Reads at a loop's local: the list cannot describe it.
#[device]
fn window(x: &View<f64, 1>, i: usize) -> f64 {
    let mut s = 0.0;
    for k in 0..3 {
        s += x[i + k];
    }
    s
}

/// Rebinds its parameter before reading: the list cannot describe it.
#[device]
fn rebinds(x: &View<f64, 1>, i: usize) -> f64 {
    let i = i + 1;
    x[i]
}

/// Passes its View on to another device function: the list cannot describe it.
#[device]
fn passes_on(x: &View<f64, 1>, i: usize) -> f64 {
    rebinds(x, i)
}

#[test]
fn a_device_function_lists_its_reads_as_maps_of_its_parameters() {
    let p = |param, coef, offset| DeviceCoord::Param {
        param,
        coef,
        offset,
    };
    let lap = <__fk_device_lap as DeviceFunction>::ACCESSES.expect("affine reads");
    let maps: Vec<(usize, Vec<DeviceCoord>)> =
        lap.iter().map(|a| (a.view, a.map.to_vec())).collect();
    assert_eq!(
        maps,
        vec![
            (0, vec![p(1, 1, -1), p(2, 1, 0)]),
            (0, vec![p(1, 1, 1), p(2, 1, 0)]),
            (0, vec![p(1, 1, 0), p(2, 1, -1)]),
            (0, vec![p(1, 1, 0), p(2, 1, 1)]),
            (0, vec![p(1, 1, 0), p(2, 1, 0)]),
        ]
    );
    let odd = <__fk_device_odd as DeviceFunction>::ACCESSES.expect("affine reads");
    assert_eq!(odd.len(), 1);
    assert_eq!(odd[0].map, [p(1, 2, 1), DeviceCoord::Fixed(3)]);
    assert!(<__fk_device_window as DeviceFunction>::ACCESSES.is_none());
    assert!(<__fk_device_rebinds as DeviceFunction>::ACCESSES.is_none());
    assert!(<__fk_device_passes_on as DeviceFunction>::ACCESSES.is_none());
}

/// The Laplacian over the interior of an `n` x `n` field, in plain Rust (same operation order).
fn lap_reference(u: &[f64], n: usize) -> Vec<f64> {
    let mut v = vec![0.0; n * n];
    let at = |i: usize, j: usize| u[i * n + j];
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            v[i * n + j] =
                at(i - 1, j) + at(i + 1, j) + at(i, j - 1) + at(i, j + 1) - 4.0 * at(i, j);
        }
    }
    v
}

fn device_stencil<S: HostExecutionSpace>(exec: &S) -> Result<()> {
    let n = 23usize;
    let host: Vec<f64> = (0..n * n)
        .map(|p| ((p * 7919) % 1009) as f64 * 0.5)
        .collect();
    let u = View::<f64, 2>::new("u", [n, n])?;
    let v = View::<f64, 2>::new("v", [n, n])?;
    u.host_mut()?
        .as_mut_slice()
        .expect("contiguous")
        .copy_from_slice(&host);
    let stencil = kernel!(|(i, j)| v[(i, j)] = lap(&u, i, j));
    let e = n as i128;
    // The function's reads reach one cell around (i, j): the interior is proved.
    assert_eq!(
        stencil.proven_box_over(&[(0, e), (0, e)], 64),
        Some(vec![(1, e - 1), (1, e - 1)])
    );
    // Arguments shifted by the caller shift the proved part.
    let shifted = kernel!(|(i, j)| v[(i, j)] = lap(&u, i + 1, j - 2));
    assert_eq!(
        shifted.proven_box_over(&[(0, e), (0, e)], 64),
        Some(vec![(0, e - 2), (3, e)])
    );
    // A scaled map with a literal coordinate: 2k + 1 < 23 for k <= 10.
    let y = View::<f64, 1>::new("y", [n])?;
    let scaled = kernel!(|k: usize| y[k] = odd(&u, k));
    assert_eq!(scaled.proven_box_over(&[(0, e)], 64), Some(vec![(0, 11)]));
    let last = n as i64 - 1;
    parallel_for(
        "lap",
        MDRangePolicy::new(exec, [1, 1], [last, last])?,
        &stencil,
    )?;
    assert_eq!(v.to_vec()?, lap_reference(&host, n), "on {}", S::NAME);
    parallel_for("odd", RangePolicy::new(exec, 0, 11)?, &scaled)?;
    let want: Vec<f64> = (0..n)
        .map(|k| {
            if k < 11 {
                host[(2 * k + 1) * n + 3] + n as f64
            } else {
                0.0
            }
        })
        .collect();
    assert_eq!(y.to_vec()?, want, "on {}", S::NAME);
    Ok(())
}

#[test]
fn a_device_stencil_is_proved_at_its_calls_arguments_and_matches_plain_rust() {
    common::runtime();
    device_stencil(&Serial::default_instance().unwrap()).unwrap();
    device_stencil(&Threads::default_instance().unwrap()).unwrap();
}

fn device_reach_panics<S: HostExecutionSpace>(exec: &S) -> String {
    let u = View::<f64, 2>::new("u device reach", [8, 8]).unwrap();
    let v = View::<f64, 2>::new("v device reach", [8, 8]).unwrap();
    let reach = kernel!(|(i, j)| v[(i, j)] = lap(&u, i, j));
    panic_message(|| parallel_for("reach", MDRangePolicy::new(exec, [0, 0], [8, 8])?, &reach))
}

#[test]
fn a_device_function_reading_outside_the_view_still_panics_naming_it() {
    common::runtime();
    for msg in [
        device_reach_panics(&Serial::default_instance().unwrap()),
        device_reach_panics(&Threads::default_instance().unwrap()),
    ] {
        assert!(
            msg.contains("is out of bounds for View \"u device reach\" with extents [8, 8]"),
            "{msg}"
        );
    }
}

fn unlisted_reads_panic<S: HostExecutionSpace>(exec: &S) -> Vec<String> {
    let x = View::<f64, 1>::new("x unlisted", [6]).unwrap();
    let y = View::<f64, 1>::new("y unlisted", [6]).unwrap();
    let idx = View::<i64, 1>::new("idx unlisted", [6]).unwrap();
    let a = kernel!(|i: usize| y[i] = window(&x, i));
    let b = kernel!(|i: usize| y[i] = rebinds(&x, i));
    let c = kernel!(|i: usize| y[i] = passes_on(&x, i));
    // An argument that is not affine in the index: `lap`'s maps cannot be composed with it.
    let u = View::<f64, 2>::new("u unlisted", [6, 6]).unwrap();
    let d = kernel!(|i: usize| y[i] = lap(&u, idx[i] + 5, 1));
    // Only `y[i]` (and `idx[i]`) are proved: the whole range.
    let whole = Some(vec![(0, 6)]);
    assert_eq!(a.proven_box_over(&[(0, 6)], 64), whole);
    assert_eq!(b.proven_box_over(&[(0, 6)], 64), whole);
    assert_eq!(c.proven_box_over(&[(0, 6)], 64), whole);
    assert_eq!(d.proven_box_over(&[(0, 6)], 64), whole);
    let policy = || RangePolicy::new(exec, 0, 6);
    vec![
        panic_message(|| parallel_for("a", policy()?, &a)),
        panic_message(|| parallel_for("b", policy()?, &b)),
        panic_message(|| parallel_for("c", policy()?, &c)),
        panic_message(|| parallel_for("d", policy()?, &d)),
    ]
}

#[test]
fn reads_the_list_cannot_describe_keep_their_checks() {
    common::runtime();
    for msgs in [
        unlisted_reads_panic(&Serial::default_instance().unwrap()),
        unlisted_reads_panic(&Threads::default_instance().unwrap()),
    ] {
        for msg in &msgs[..3] {
            assert!(
                msg.contains("is out of bounds for View \"x unlisted\" with extents [6]"),
                "{msg}"
            );
        }
        assert!(
            msgs[3].contains("is out of bounds for View \"u unlisted\" with extents [6, 6]"),
            "{}",
            msgs[3]
        );
    }
}
