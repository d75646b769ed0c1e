//! Graphs (Kokkos' `Graph`): nodes run after the nodes they depend on, a graph replays its work at
//! every submit, `when_all` joins branches, a captured launch sequence replays, reductions in a
//! graph write their rank-0 View, and a graph keeps its Views alive. Written once, run on every
//! space (on Cuda through a CUDA graph).

use crate::spaces::{SView, download, upload};
use ferrokkos::prelude::*;
use ferrokkos::traits::GraphSpace;
use ferrokkos::{Error, Result, kernel};

const N: usize = 1000;

/// fill x = 1 -> y[i] = x[i] + i -> total = sum(y); z[i] += 1 on its own branch; each submit
/// replays all of it.
fn chain_replays_every_submit<S: Launch + GraphSpace>(exec: &S) -> Result<()> {
    let x = SView::<S, f64, 1>::new("x", [N])?;
    let y = SView::<S, f64, 1>::new("y", [N])?;
    let z = SView::<S, i64, 1>::new("z", [N])?;
    let total = SView::<S, f64, 0>::new("total", [])?;
    let graph = {
        let (x, y, z, total) = (x.clone(), y.clone(), z.clone(), total.clone());
        create_graph(exec, |root| {
            let filled = root.then_fill(x.clone(), 1.0);
            let summed = filled
                .then_parallel_for(
                    "y",
                    RangePolicy::new(exec, 0, N)?,
                    kernel!(|i| y[i] = x[i] + i as f64),
                )
                .then_parallel_reduce(
                    "total",
                    RangePolicy::new(exec, 0, N)?,
                    kernel!(|i, acc: &mut f64| *acc += y[i]),
                    total.clone(),
                );
            let counted =
                root.then_parallel_for("z", RangePolicy::new(exec, 0, N)?, kernel!(|i| z[i] += 1));
            when_all(&[summed, counted])?;
            Ok(())
        })?
    };
    assert_eq!(graph.node_count(), 5);
    // Nothing ran yet.
    assert_eq!(download(&z)?, vec![0; N]);
    graph.instantiate()?;
    for _ in 0..3 {
        graph.submit()?;
    }
    // The graph's own handles are the last ones: the graph keeps the memory alive.
    drop((x, y));
    assert_eq!(download(&z)?, vec![3; N]);
    let expected: f64 = (0..N).map(|i| 1.0 + i as f64).sum();
    let got = download(&total)?[0];
    assert_eq!(got, expected);
    Ok(())
}
per_space!(
    a_graph_chain_replays_its_work_at_every_submit,
    chain_replays_every_submit
);

/// Two branches write a and b; the join's successor reads both.
fn branches_join<S: Launch + GraphSpace>(exec: &S) -> Result<()> {
    let a = SView::<S, f64, 1>::new("a", [N])?;
    let b = SView::<S, f64, 1>::new("b", [N])?;
    let c = SView::<S, f64, 1>::new("c", [N])?;
    let src = upload::<S, f64>("src", &(0..N).map(|i| i as f64).collect::<Vec<_>>())?;
    let graph = create_graph(exec, |root| {
        let left = root.then_parallel_for(
            "a",
            RangePolicy::new(exec, 0, N)?,
            kernel!(|i| a[i] = 2.0 * i as f64),
        );
        let right = root.then_deep_copy(b.clone(), src.clone());
        when_all(&[left, right])?.then_parallel_for(
            "c",
            RangePolicy::new(exec, 0, N)?,
            kernel!(|i| c[i] = a[i] + b[i]),
        );
        Ok(())
    })?;
    graph.submit()?;
    let want: Vec<f64> = (0..N).map(|i| 3.0 * i as f64).collect();
    assert_eq!(download(&c)?, want);
    Ok(())
}
per_space!(
    when_all_joins_branches_before_their_successor,
    branches_join
);

/// A captured launch sequence (an 8-step halo-like update of one View) replays at every submit.
fn capture_replays<S: Launch + GraphSpace>(exec: &S) -> Result<()> {
    let u = SView::<S, i64, 1>::new("u", [64])?;
    let graph = {
        let u = u.clone();
        Graph::capture(exec, "steps", move |e: &S| {
            for step in 0..8i64 {
                let u = u.clone();
                parallel_for(
                    "step",
                    RangePolicy::new(e, 0, 64)?,
                    kernel!(|i| u[i] = 2 * u[i] + step),
                )?;
            }
            Ok(())
        })?
    };
    // One pass maps v to 256 v + sum_k 2^(7-k) k = 256 v + 247.
    let pass = |v: i64| 256 * v + 247;
    graph.submit()?;
    assert_eq!(download(&u)?, vec![pass(0); 64]);
    graph.submit()?;
    assert_eq!(download(&u)?, vec![pass(pass(0)); 64]);
    Ok(())
}
per_space!(
    a_captured_launch_sequence_replays_at_every_submit,
    capture_replays
);

/// A node's error surfaces from `instantiate` (Cuda, which records the nodes) or `submit` (the
/// host spaces, which run them): here an inverted range inside a captured sequence.
fn launch_errors_surface<S: Launch + GraphSpace>(exec: &S) -> Result<()> {
    let u = SView::<S, i64, 1>::new("u", [8])?;
    let graph = Graph::capture(exec, "bad", move |e: &S| {
        let u = u.clone();
        parallel_for(
            "inverted",
            RangePolicy::new(e, 5, 3)?,
            kernel!(|i| u[i] = 1),
        )
    })?;
    let err = graph
        .instantiate()
        .and_then(|()| graph.submit())
        .unwrap_err();
    assert!(matches!(err, Error::Policy { .. }), "{err:?}");
    Ok(())
}
per_space!(a_node_error_is_returned, launch_errors_surface);

#[test]
fn when_all_of_no_nodes_is_an_error() -> Result<()> {
    crate::common::runtime();
    let exec = Serial::default_instance()?;
    let err = create_graph(&exec, |_root| when_all::<Serial>(&[]).map(drop)).unwrap_err();
    assert_eq!(err.to_string(), "when_all: no nodes to join");
    Ok(())
}
