//! Arrays as device values: `[T; N]` fields of `DeviceValue` structs, Views of arrays
//! (`View<[f64; 3], 1>`, Kokkos' `View<double*[3]>`), `#[device]` parameters and results, array
//! literals as values, nested arrays; read and written by element on every space with plain
//! Rust's results, and the generated C++ compiles with NVRTC and hiprtc.

// Kernels and device functions index arrays in loops, as Kokkos code does.
#![allow(clippy::needless_range_loop)]

use crate::common::check_device_code;
use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{DeviceValue, Result, kernel};

/// A particle as Cabana and LAMMPS hold one: arrays of components.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
struct Particle {
    pos: [f64; 3],
    vel: [f64; 3],
    /// A 2x2 block (nested arrays).
    m: [[f32; 2]; 2],
    id: [u32; 2],
}

const DIM: usize = 3;

#[device]
fn cross(a: [f64; 3], b: [f64; 3]) -> [f64; 3] {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

#[device]
fn dot(a: [f64; DIM], b: [f64; DIM]) -> f64 {
    let mut s = 0.0;
    for k in 0..DIM {
        s += a[k] * b[k];
    }
    s
}

/// Scales an array in place (a `&mut [T; N]` parameter).
#[device]
fn scale(v: &mut [f64; 3], by: f64) {
    for k in 0..3 {
        v[k] *= by;
    }
}

/// Reads element `i` of a View of arrays (a View parameter of array elements).
#[device]
fn norm1(u: &View<[f64; 3], 1>, i: usize) -> f64 {
    u[i][0].abs() + u[i][1].abs() + u[i][2].abs()
}

fn particles(n: usize) -> Vec<Particle> {
    (0..n)
        .map(|k| {
            let x = k as f64;
            Particle {
                pos: [x, -0.5 * x, 1.0],
                vel: [1.0, (k % 3) as f64, -x * 0.25],
                m: [[1.0, k as f32], [0.5, -1.0]],
                id: [k as u32, 0],
            }
        })
        .collect()
}

/// What the particle kernel does, in plain Rust.
fn step(p: Particle, dt: f64, k: usize) -> (Particle, f64) {
    let mut q = p;
    for d in 0..DIM {
        q.pos[d] += dt * q.vel[d];
    }
    let spin = [0.0, 0.0, 1.0];
    let c = [
        q.vel[1] * spin[2] - q.vel[2] * spin[1],
        q.vel[2] * spin[0] - q.vel[0] * spin[2],
        q.vel[0] * spin[1] - q.vel[1] * spin[0],
    ];
    q.vel = c;
    for d in 0..3 {
        q.vel[d] *= 0.5;
    }
    let t = q.m[0][1];
    q.m[0][1] = q.m[1][0];
    q.m[1][0] = t;
    q.id[1] = q.id[0] * 2 + (k % 5) as u32;
    let e = q.vel.iter().zip(q.vel.iter()).map(|(a, b)| a * b).sum();
    (q, e)
}

/// Structs with array fields in a View: whole-element and per-component reads and writes,
/// `#[device]` functions over arrays (by value, as results, through `&mut`), nested arrays.
fn struct_array_fields_match_rust<S: Launch>(exec: &S) -> Result<()> {
    let n = 41;
    let start = particles(n);
    let parts = upload::<S, Particle>("parts", &start)?;
    let energy = SView::<S, f64, 1>::new("energy", [n])?;
    let dt = 0.125;
    parallel_for(
        "push",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let mut q = parts[i];
            for d in 0..DIM {
                q.pos[d] += dt * q.vel[d];
            }
            let spin = [0.0, 0.0, 1.0];
            q.vel = cross(q.vel, spin);
            scale(&mut q.vel, 0.5);
            let t = q.m[0][1];
            q.m[0][1] = q.m[1][0];
            q.m[1][0] = t;
            parts[i] = q;
            parts[i].id[1] = parts[i].id[0] * 2 + (i % 5) as u32;
            energy[i] = dot(q.vel, q.vel);
        }),
    )?;
    let (want, want_e): (Vec<Particle>, Vec<f64>) = start
        .iter()
        .enumerate()
        .map(|(k, p)| step(*p, dt, k))
        .unzip();
    assert_eq!(download(&parts)?, want);
    assert_eq!(download(&energy)?, want_e);
    Ok(())
}

per_space!(
    struct_array_fields_match_rust,
    struct_array_fields_match_rust
);

/// A View of arrays (Kokkos' `View<double*[3]>`): `x[i][k]` reads, `y[i][k] = v` and
/// `y[i][k] += v` write a component, `y[i] = [a, b, c]` and `y[i] = x[i]` a whole element, and a
/// `#[device]` function reads a View of arrays.
fn views_of_arrays_match_rust<S: Launch>(exec: &S) -> Result<()> {
    let n = 29;
    let data: Vec<[f64; 3]> = (0..n)
        .map(|k| [k as f64, 2.0 - k as f64, (k % 4) as f64 * 0.5])
        .collect();
    let x = upload::<S, [f64; 3]>("x", &data)?;
    let y = SView::<S, [f64; 3], 1>::new("y", [n])?;
    let z = SView::<S, [f64; 3], 1>::new("z", [n])?;
    let w = SView::<S, f64, 1>::new("w", [n])?;
    parallel_for(
        "components",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let s = x[i][0] + x[i][1] + x[i][2];
            y[i] = [s, x[i][1] * 2.0, -x[i][2]];
            y[i][2] += 1.0;
            y[i][0] = y[i][0] - x[i][0];
            z[i] = x[i];
            z[i][1] = 7.0;
            w[i] = norm1(&x, i) + y[i].len() as f64;
        }),
    )?;
    let want_y: Vec<[f64; 3]> = data
        .iter()
        .map(|v| {
            let s = v[0] + v[1] + v[2];
            [s - v[0], v[1] * 2.0, -v[2] + 1.0]
        })
        .collect();
    let want_z: Vec<[f64; 3]> = data.iter().map(|v| [v[0], 7.0, v[2]]).collect();
    let want_w: Vec<f64> = data
        .iter()
        .map(|v| v[0].abs() + v[1].abs() + v[2].abs() + 3.0)
        .collect();
    assert_eq!(download(&y)?, want_y);
    assert_eq!(download(&z)?, want_z);
    assert_eq!(download(&w)?, want_w);
    Ok(())
}

per_space!(views_of_arrays_match_rust, views_of_arrays_match_rust);

/// An array-valued MDRange kernel over a rank-2 View of arrays (a grid of 2-vectors), with the
/// array's length from a const generic: a gradient of a scalar field.
fn gradient<S: Launch, const N: usize>(exec: &S) -> Result<()> {
    let (nx, ny) = (9usize, 7usize);
    let f = SView::<S, f64, 2>::new("f", [nx, ny])?;
    let g = SView::<S, [f64; N], 2>::new("g", [nx, ny])?;
    let (nxi, nyi) = (nx as i64, ny as i64);
    parallel_for(
        "fill",
        MDRangePolicy::new(exec, [0, 0], [nxi, nyi])?,
        kernel!(|(i, j)| {
            f[(i, j)] = (i * i) as f64 + 3.0 * j as f64;
        }),
    )?;
    parallel_for(
        "gradient",
        MDRangePolicy::new(exec, [1, 1], [nxi - 1, nyi - 1])?,
        kernel!(|(i, j)| {
            let mut d = [0.0; N];
            d[0] = 0.5 * (f[(i + 1, j)] - f[(i - 1, j)]);
            d[N - 1] = 0.5 * (f[(i, j + 1)] - f[(i, j - 1)]);
            g[(i, j)] = d;
        }),
    )?;
    let got = download(&g)?;
    for i in 1..nx - 1 {
        for j in 1..ny - 1 {
            let v = got[i * ny + j];
            assert_eq!((v[0], v[N - 1]), (2.0 * i as f64, 3.0), "at ({i}, {j})");
        }
    }
    Ok(())
}

fn arrays_of_generic_length_in_md_views<S: Launch>(exec: &S) -> Result<()> {
    gradient::<S, 2>(exec)?;
    gradient::<S, 4>(exec)
}

per_space!(
    arrays_of_generic_length_in_md_views,
    arrays_of_generic_length_in_md_views
);

/// A View of arrays has the bytes of Kokkos' `View<double*[3]>` (`LayoutRight`): element `i`'s
/// component `k` at `3 * i + k`.
#[test]
fn a_view_of_arrays_is_laid_out_as_kokkos_view_of_double_star_3() -> Result<()> {
    crate::common::runtime();
    let v = View::<[f64; 3], 1>::new("v", [4])?;
    for i in 0..4 {
        v.set(i, [i as f64, 10.0 + i as f64, 20.0 + i as f64])?;
    }
    let guard = v.host()?;
    let flat: Vec<f64> = guard
        .as_slice()
        .expect("contiguous")
        .iter()
        .flatten()
        .copied()
        .collect();
    assert_eq!(flat[3 * 2 + 1], 12.0);
    assert_eq!(flat.len(), 12);
    assert_eq!(std::mem::size_of::<[f64; 3]>(), 24);
    Ok(())
}

/// On the host an array index out of range panics as Rust's indexing does.
#[test]
fn an_array_index_out_of_range_panics_on_the_host() -> Result<()> {
    crate::common::runtime();
    let v = View::<[f64; 3], 1>::new("v", [4])?;
    let k = 3usize;
    let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        parallel_for(
            "oob",
            RangePolicy::new(&Serial::default_instance()?, 0, 4)?,
            kernel!(|i| {
                v[i][k] = 1.0;
            }),
        )
    }));
    let msg = match r {
        Err(p) => p
            .downcast_ref::<String>()
            .cloned()
            .or_else(|| p.downcast_ref::<&str>().map(|s| s.to_string()))
            .unwrap_or_default(),
        Ok(_) => panic!("an index past an array's length must panic"),
    };
    assert!(
        msg.contains("index out of bounds: the len is 3 but the index is 3"),
        "{msg}"
    );
    Ok(())
}

/// The C++: arrays are `fk::Array<T, N>` fields, parameters and results; the unit compiles.
#[test]
fn arrays_are_fk_arrays_in_structs_functions_and_views() -> Result<()> {
    crate::common::runtime();
    let parts = View::<Particle, 1>::new("parts", [2])?;
    let x = View::<[f64; 3], 1>::new("x", [2])?;
    let e = View::<f64, 1>::new("e", [2])?;
    let k = kernel!(|i| {
        let mut q = parts[i];
        q.vel = cross(q.vel, x[i]);
        scale(&mut q.pos, 2.0);
        parts[i] = q;
        parts[i].m[1][0] += 1.0;
        e[i] = dot(q.pos, x[i]) + norm1(&x, i);
    });
    parallel_for(
        "arrays",
        RangePolicy::new(&Serial::default_instance()?, 0, 2)?,
        &k,
    )?;
    let tu = TranslationUnit::for_kernel(&k, Iterate::Right);
    let text = tu.generated();
    for want in [
        "fk::Array<f64, 3> pos;",
        "fk::Array<fk::Array<f32, 2>, 2> m;",
        "static __device__ fk::Array<f64, 3> cross_fn(const fk::Array<f64, 3> a, const fk::Array<f64, 3> b)",
        "fk::Array<f64, 3>& v",
        "fk::View<const fk::Array<f64, 3>, 1, fk::LayoutRight>",
    ] {
        assert!(text.contains(want), "{want} in\n{text}");
    }
    check_device_code(&tu);
    Ok(())
}
