//! Captures by field path: a kernel names fields of the structs around it (`c.u[(i, j)]`,
//! `self.v[i]`, nested `s.grid.u`, tuple fields `p.0`), as a Kokkos functor names its members.
//! Each path is one capture: Views by reference, numbers by value.

use crate::common::check_device_code;
use crate::spaces::{SView, download, upload};
use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;
use ferrokkos::{Result, kernel};

/// An application's state, the way a port of a Kokkos functor keeps it.
struct Field<S: Launch> {
    u: SView<S, f64, 2>,
    out: SView<S, f64, 2>,
    k: f64,
}

struct Solver<S: Launch> {
    grid: Field<S>,
    scale: (f64, i32),
}

impl<S: Launch> Solver<S> {
    /// A method's kernel names `self`'s fields.
    fn relax(&self, exec: &S) -> Result<()> {
        let [n, m] = self.grid.u.extents();
        parallel_for(
            "relax",
            MDRangePolicy::new(exec, [0, 0], [n, m])?,
            kernel!(|(i, j): (usize, usize)| {
                self.grid.out[(i, j)] =
                    self.grid.k * self.grid.u[(i, j)] * self.scale.0 + self.scale.1 as f64
            }),
        )
    }
}

/// Field paths, nested paths, tuple fields and `self.` paths are captured, read and written on
/// every space, with the values plain Rust gives.
fn field_paths_are_captures<S: Launch>(exec: &S) -> Result<()> {
    let (n, m) = (4, 5);
    let c = Field::<S> {
        u: SView::<S, f64, 2>::new("u", [n, m])?,
        out: SView::<S, f64, 2>::new("out", [n, m])?,
        k: 0.5,
    };
    parallel_for(
        "init",
        MDRangePolicy::new(exec, [0, 0], [n, m])?,
        kernel!(|(i, j): (usize, usize)| c.u[(i, j)] = (i * 10 + j) as f64),
    )?;
    parallel_for(
        "scale",
        MDRangePolicy::new(exec, [0, 0], [n, m])?,
        kernel!(|(i, j): (usize, usize)| c.out[(i, j)] = c.k * c.u[(i, j)] + c.u.extent(1) as f64),
    )?;
    let want: Vec<f64> = (0..n)
        .flat_map(|i| (0..m).map(move |j| 0.5 * (i * 10 + j) as f64 + m as f64))
        .collect();
    assert_eq!(download(&c.out)?, want);

    let s = Solver {
        grid: c,
        scale: (2.0, -1),
    };
    s.relax(exec)?;
    let want: Vec<f64> = (0..n)
        .flat_map(|i| (0..m).map(move |j| 0.5 * (i * 10 + j) as f64 * 2.0 - 1.0))
        .collect();
    assert_eq!(download(&s.grid.out)?, want);

    // A reduction over a nested path, with a local that shadows nothing and a field of the
    // accumulator's own value left alone.
    let total = parallel_reduce(
        "sum",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i, acc: &mut f64| {
            let row = i;
            *acc += s.grid.u[(row, 0)] * s.scale.0;
        }),
        Sum::<f64>::new(),
    )?;
    assert_eq!(total, 2.0 * (0.0 + 10.0 + 20.0 + 30.0));
    let best = parallel_reduce(
        "best",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i, b: &mut ValLocScalar<f64, usize>| {
            let v = s.grid.u[(i, 1)];
            if v > b.val {
                b.val = v;
                b.loc = i;
            }
        }),
        MaxLoc::<f64, usize>::new(),
    )?;
    assert_eq!((best.val, best.loc), (31.0, 3));
    Ok(())
}

per_space!(field_paths_are_captures, field_paths_are_captures);

/// A local named like a generated capture name does not collide with it, and one path used twice
/// is one capture (one parameter of the generated code).
#[test]
fn field_path_names_do_not_collide_and_repeat_once() -> Result<()> {
    crate::common::runtime();
    struct P {
        x: View<f64, 1>,
        y: View<f64, 1>,
    }
    let p = P {
        x: upload::<Serial, f64>("x", &[1.0, 2.0, 3.0])?,
        y: View::new("y", [3])?,
    };
    let k = kernel!(|i| {
        let p_x = 10.0;
        p.y[i] = p.x[i] + p.x[i] * p_x;
    });
    parallel_for(
        "collide",
        RangePolicy::new(&Serial::default_instance()?, 0, 3)?,
        &k,
    )?;
    assert_eq!(download(&p.y)?, vec![11.0, 22.0, 33.0]);
    let unit = TranslationUnit::for_kernel(&k, Iterate::Right);
    let entry = unit
        .generated()
        .lines()
        .find(|l| l.contains("__global__"))
        .unwrap_or_default()
        .to_string();
    assert_eq!(entry.matches("p_x_").count(), 1, "{entry}");
    assert!(
        entry.contains("fk::View<f64, 1, fk::LayoutRight> p_y"),
        "{entry}"
    );
    check_device_code(&unit);
    Ok(())
}

/// A kernel may capture any number of values: beyond 16 they are nested (and on the GPU, beyond
/// the parameter limit, they travel through device memory). 19 numbers and 3 Views here.
fn many_captures<S: Launch>(exec: &S) -> Result<()> {
    let n = 6;
    let x = upload::<S, f64>("x", &[1.0, 2.0, 3.0, 4.0, 5.0, 6.0])?;
    let w = upload::<S, i32>("w", &[1, -1, 2, -2, 3, -3])?;
    let y = SView::<S, f64, 1>::new("y", [n])?;
    let (a0, a1, a2, a3, a4, a5, a6, a7) = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0);
    let (b0, b1, b2, b3, b4, b5, b6, b7) = (1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0, 8.0);
    let (c0, c1, c2) = (100.0, 1000.0, 7i32);
    parallel_for(
        "many",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7 - (b0 + b1 + b2 + b3 + b4 + b5 + b6 + b7);
            y[i] = s + c0 * x[i] + c1 * (w[i] * c2) as f64 + c2 as f64;
        }),
    )?;
    let want: Vec<f64> = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
        .iter()
        .zip([1, -1, 2, -2, 3, -3])
        .map(|(x, w)| 100.0 * x + 1000.0 * (w * 7) as f64 + 7.0)
        .collect();
    assert_eq!(download(&y)?, want);
    let sum = parallel_reduce(
        "many_sum",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i, acc: &mut f64| {
            *acc += a0
                + a1
                + a2
                + a3
                + a4
                + a5
                + a6
                + a7
                + b0
                + b1
                + b2
                + b3
                + b4
                + b5
                + b6
                + b7
                + c0 * x[i]
                + c1 * w[i] as f64
                + c2 as f64
                + y[i];
        }),
        Sum::<f64>::new(),
    )?;
    let want_sum: f64 = (0..n)
        .map(|k| 72.0 + 100.0 * (k + 1) as f64 + 1000.0 * [1, -1, 2, -2, 3, -3][k] as f64 + 7.0)
        .sum::<f64>()
        + want.iter().sum::<f64>();
    assert_eq!(sum, want_sum);
    Ok(())
}

per_space!(many_captures, many_captures);

/// A kernel of twenty captured Views (more than a launch keeps on the stack): each is checked,
/// borrowed and reached, and the written one gets the sum of the nineteen read ones.
fn twenty_views<S: Launch>(exec: &S) -> Result<()> {
    let n = 5;
    let v: Vec<SView<S, f64, 1>> = (0..19)
        .map(|k| upload::<S, f64>("v", &vec![k as f64; n]))
        .collect::<Result<_>>()?;
    let (v0, v1, v2, v3, v4, v5, v6, v7, v8, v9) = (
        &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9],
    );
    let (w0, w1, w2, w3, w4, w5, w6, w7, w8) = (
        &v[10], &v[11], &v[12], &v[13], &v[14], &v[15], &v[16], &v[17], &v[18],
    );
    let out = SView::<S, f64, 1>::new("out", [n])?;
    parallel_for(
        "twenty_views",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            out[i] = v0[i]
                + v1[i]
                + v2[i]
                + v3[i]
                + v4[i]
                + v5[i]
                + v6[i]
                + v7[i]
                + v8[i]
                + v9[i]
                + w0[i]
                + w1[i]
                + w2[i]
                + w3[i]
                + w4[i]
                + w5[i]
                + w6[i]
                + w7[i]
                + w8[i];
        }),
    )?;
    assert_eq!(download(&out)?, vec![171.0; n]);
    Ok(())
}

per_space!(twenty_views, twenty_views);

/// The generated entry of a kernel with 35 captures lists them all, in order, and compiles.
#[test]
fn thirty_five_captures_are_parameters_in_order() -> Result<()> {
    crate::common::runtime();
    let y = View::<f64, 1>::new("y", [2])?;
    let v = [1.0f64; 34];
    let [
        v0,
        v1,
        v2,
        v3,
        v4,
        v5,
        v6,
        v7,
        v8,
        v9,
        v10,
        v11,
        v12,
        v13,
        v14,
        v15,
        v16,
        v17,
        v18,
        v19,
        v20,
        v21,
        v22,
        v23,
        v24,
        v25,
        v26,
        v27,
        v28,
        v29,
        v30,
        v31,
        v32,
        v33,
    ] = v;
    let k = kernel!(|i| {
        y[i] = v0
            + v1
            + v2
            + v3
            + v4
            + v5
            + v6
            + v7
            + v8
            + v9
            + v10
            + v11
            + v12
            + v13
            + v14
            + v15
            + v16
            + v17
            + v18
            + v19
            + v20
            + v21
            + v22
            + v23
            + v24
            + v25
            + v26
            + v27
            + v28
            + v29
            + v30
            + v31
            + v32
            + v33;
    });
    parallel_for(
        "35",
        RangePolicy::new(&Serial::default_instance()?, 0, 2)?,
        &k,
    )?;
    assert_eq!(download(&y)?, vec![34.0, 34.0]);
    let unit = TranslationUnit::for_kernel(&k, Iterate::Right);
    let entry = unit
        .generated()
        .lines()
        .find(|l| l.contains("__global__"))
        .unwrap_or_default()
        .to_string();
    let order: Vec<usize> = (0..34)
        .map(|n| {
            entry
                .find(&format!("const f64 v{n},"))
                .or_else(|| entry.find(&format!("const f64 v{n})")))
                .expect("every capture is a parameter")
        })
        .collect();
    assert!(order.windows(2).all(|w| w[0] < w[1]), "{entry}");
    assert!(
        entry.find("fk::View<f64, 1, fk::LayoutRight> y").unwrap() < order[0],
        "{entry}"
    );
    check_device_code(&unit);
    Ok(())
}

/// `let w = &c.w;` inside a kernel (Kokkos' `auto w = chunk.w;`) names the capture: reads, writes
/// and `*` of an aliased number are the capture's, on every space; a later `let` of the same name
/// shadows the alias as in Rust.
fn aliases_name_their_captures<S: Launch>(exec: &S) -> Result<()> {
    let n = 64;
    let f = Field::<S> {
        u: SView::<S, f64, 2>::new("u", [n, 2])?,
        out: SView::<S, f64, 2>::new("out", [n, 2])?,
        k: 0.25,
    };
    let s = Solver {
        grid: f,
        scale: (2.0, 3),
    };
    deep_copy(&s.grid.u, 4.0)?;
    let x = upload::<S, f64>("x", &(0..n).map(|k| k as f64).collect::<Vec<_>>())?;
    let offset = 10usize;
    parallel_for(
        "aliases",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let out = &s.grid.out;
            let u = &s.grid.u;
            let k = &s.grid.k;
            let xs = &x;
            let o = &offset;
            let row = out;
            row[(i, 0)] = u[(i, 1)] * *k + xs[i] + (*o + i) as f64;
            {
                let k = 1.5;
                row[(i, 1)] = k * s.scale.0;
            }
        }),
    )?;
    let got = download(&s.grid.out)?;
    for i in 0..n {
        assert_eq!(got[2 * i], 1.0 + i as f64 + (10 + i) as f64, "row {i}");
        assert_eq!(got[2 * i + 1], 3.0, "row {i}");
    }
    Ok(())
}

per_space!(aliases_name_their_captures, aliases_name_their_captures);
