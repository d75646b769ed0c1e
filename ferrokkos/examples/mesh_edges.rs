//! Kokkos' containers in a mesh kernel: the distinct edges of a triangulated grid, found by
//! inserting each triangle's three edges into an `UnorderedMap` set (an edge shared by two
//! triangles is inserted twice and stored once), the vertices on some edge marked in a `Bitset`,
//! and each edge's triangle count gathered through `find`; on every execution space (Serial,
//! Threads, and Cuda when a GPU is present), compared against Serial and against the counts a
//! grid has (`3mn + m + n` edges for `m x n` cells, each split in two triangles).
//!
//! ```text
//! cargo run --release -p ferrokkos --example mesh_edges
//! ```
//! With `FERROKKOS_REQUIRE_CUDA=1` a missing GPU is an error instead of a skipped space.

use ferrokkos::prelude::*;
use ferrokkos::{Bitset, Result, UnorderedMap};

/// Cells per side.
const M: usize = 60;
const N: usize = 45;

/// The key of the edge between vertices `a` and `b` (either order).
#[ferrokkos::device]
fn edge(a: usize, b: usize) -> u64 {
    (a.min(b) * 1_000_003 + a.max(b)) as u64
}

/// Vertex `k` (0, 1 or 2) of triangle `t` (two per cell: lower and upper).
#[ferrokkos::device]
fn corner(t: usize, k: usize) -> usize {
    let cell = t / 2;
    let upper = t % 2 == 1;
    // Lower triangle: (0, 0), (1, 0), (1, 1); upper: (0, 0), (1, 1), (0, 1).
    let di = if k == 0 || (upper && k == 2) { 0 } else { 1 };
    let dj = if k == 0 || (!upper && k == 1) { 0 } else { 1 };
    (cell / N + di) * (N + 1) + cell % N + dj
}

/// What one space found: the number of edges, of marked vertices, and of (edge, triangle) pairs
/// counted back through the map, per number of triangles an edge has (1: boundary, 2: interior).
#[derive(Debug, PartialEq)]
struct Edges {
    edges: usize,
    vertices: usize,
    per_edge: [u64; 3],
}

fn edges<S: Launch>(exec: &S) -> Result<Edges> {
    let triangles = 2 * M * N;
    let set = UnorderedMap::<u64, (), S::MemorySpace>::new("edges", 4 * M * N)?;
    let used = Bitset::<S::MemorySpace>::new("vertices", (M + 1) * (N + 1))?;
    parallel_for(
        "insert edges",
        RangePolicy::new(exec, 0, triangles)?,
        kernel!(|t| {
            for k in 0..3 {
                let (a, b) = (corner(t, k), corner(t, (k + 1) % 3));
                if set.insert(edge(a, b)).failed() {
                    ferrokkos::abort("the edge set is full");
                }
                used.set(a);
            }
        }),
    )?;
    // Each triangle adds one to the count of each of its edges, at the edge's slot.
    let counts = View::<u32, 1, LayoutRight, S::MemorySpace>::new("counts", [set.capacity()])?;
    let c = counts.atomic();
    parallel_for(
        "count triangles",
        RangePolicy::new(exec, 0, triangles)?,
        kernel!(|t| {
            for k in 0..3 {
                let at = set.find(edge(corner(t, k), corner(t, (k + 1) % 3)));
                c[at] += 1;
            }
        }),
    )?;
    let mirror = create_mirror_view(&counts)?;
    deep_copy(&mirror, &counts)?;
    let mut per_edge = [0u64; 3];
    for n in mirror.to_vec()? {
        per_edge[(n as usize).min(2)] += 1;
    }
    per_edge[0] = 0;
    Ok(Edges {
        edges: set.size()?,
        vertices: used.count()?,
        per_edge,
    })
}

fn main() -> Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::from_env()?)?;
    let reference = edges(&Serial::default_instance()?)?;
    let boundary = 2 * (M + N) as u64;
    let want = Edges {
        edges: 3 * M * N + M + N,
        vertices: (M + 1) * (N + 1),
        per_edge: [0, boundary, (3 * M * N + M + N) as u64 - boundary],
    };
    assert_eq!(reference, want, "Serial against the grid's counts");
    println!(
        "Serial:  {} edges ({} on the boundary), {} vertices",
        reference.edges, reference.per_edge[1], reference.vertices
    );
    let threads = edges(&Threads::default_instance()?)?;
    assert_eq!(threads, reference, "Threads against Serial");
    println!("Threads: agrees with Serial");
    #[cfg(feature = "cuda")]
    match ferrokkos::Cuda::default_instance() {
        Ok(cuda) => {
            assert_eq!(edges(&cuda)?, reference, "Cuda against Serial");
            println!("Cuda:    agrees with Serial");
        }
        Err(e) if std::env::var_os("FERROKKOS_REQUIRE_CUDA").is_none() => {
            println!("Cuda:    skipped ({e})");
        }
        Err(e) => return Err(e),
    }
    Ok(())
}
