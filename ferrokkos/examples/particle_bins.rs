//! Kokkos' containers in one particle code: positions live in a `DualView` (filled on the host,
//! synced to the space's memory), a kernel counts particles per cell of a grid whose shape is read
//! at run time (a `DynRankView`) through a `ScatterView`, another gives each thread its own row
//! of a speed histogram through a `UniqueToken` id, and the host collects the particles outside
//! the grid in a `DynamicView` that grows as it finds them. On every execution space (Serial,
//! Threads, and Cuda when a GPU is present), compared against Serial and against plain Rust.
//!
//! ```text
//! cargo run --release -p ferrokkos --example particle_bins
//! ```
//! With `FERROKKOS_REQUIRE_CUDA=1` a missing GPU is an error instead of a skipped space.

use ferrokkos::prelude::*;
use ferrokkos::{DualView, DynRankView, DynamicView, Result, ScatterView, UniqueToken};

/// Particles, and speed bins.
const N: usize = 200_000;
const BINS: usize = 16;

/// Particle `p`'s position `(x, y)` and speed: a deterministic scatter over `[-1, 25) x [-1, 17)`
/// (some outside the `24 x 16` grid) and `[0, 1)`.
fn particle(p: usize) -> (f64, f64, f64) {
    let h = |salt: u64| {
        let mut z = (p as u64)
            .wrapping_add(salt)
            .wrapping_mul(0x9e37_79b9_7f4a_7c15);
        z ^= z >> 29;
        z = z.wrapping_mul(0xbf58_476d_1ce4_e5b9);
        (z >> 11) as f64 / (1u64 << 53) as f64
    };
    (26.0 * h(1) - 1.0, 18.0 * h(2) - 1.0, h(3))
}

/// What one space found: particles per cell (row-major), the speed histogram, and the indices of
/// the particles outside the grid.
#[derive(Debug, PartialEq)]
struct Found {
    cells: Vec<u32>,
    speeds: Vec<u32>,
    outside: Vec<u32>,
}

fn bin_particles<S: Launch>(exec: &S) -> Result<Found> {
    // The grid's shape, as an input file would give it.
    let shape: Vec<usize> = "24 16".split(' ').map(|t| t.parse().unwrap()).collect();
    let grid = DynRankView::<u32, LayoutRight, S::MemorySpace>::new("cells", &shape)?;
    let cells = grid.view::<2>()?;
    let (nx, ny) = (shape[0], shape[1]);

    // Positions and speeds: written on the host, then synced to the space's memory.
    let mut parts = DualView::<f64, 2, LayoutRight, S::MemorySpace>::new("particles", [N, 3])?;
    {
        let host = parts.modify_host()?;
        let mut g = host.host_mut()?;
        let flat = g.as_mut_slice().expect("contiguous");
        for p in 0..N {
            let (x, y, s) = particle(p);
            flat[3 * p..3 * p + 3].copy_from_slice(&[x, y, s]);
        }
    }
    parts.sync_device()?;
    let pos = parts.view_device()?.clone();

    // Particles per cell: many iterations add to one cell, through a ScatterView.
    let count = ScatterView::new(&cells)?;
    parallel_for(
        "cells",
        RangePolicy::new(exec, 0, N)?,
        kernel!(|p| {
            let (x, y) = (pos[(p, 0)], pos[(p, 1)]);
            if x >= 0.0 && y >= 0.0 && x < nx as f64 && y < ny as f64 {
                count[(x as usize, y as usize)] += 1;
            }
        }),
    )?;
    count.contribute()?;

    // Speeds: one histogram row per UniqueToken id, then summed per bin.
    let token = UniqueToken::new(exec)?;
    let rows = View::<u32, 2, LayoutRight, S::MemorySpace>::new("rows", [token.size(), BINS])?;
    parallel_for(
        "speeds",
        RangePolicy::new(exec, 0, N)?,
        kernel!(|p| {
            let id = token.acquire();
            let bin = (pos[(p, 2)] * BINS as f64) as usize;
            rows[(id, bin)] += 1;
            token.release(id);
        }),
    )?;
    let speeds = View::<u32, 1, LayoutRight, S::MemorySpace>::new("speeds", [BINS])?;
    let ids = token.size();
    parallel_for(
        "sum rows",
        RangePolicy::new(exec, 0, BINS)?,
        kernel!(|b| {
            let mut s = 0u32;
            for r in 0..ids {
                s += rows[(r, b)];
            }
            speeds[b] = s;
        }),
    )?;

    // The particles outside the grid, collected on the host into a list that grows.
    parts.sync_host()?;
    let host = parts.view_host()?;
    let mut outside = DynamicView::<u32>::new("outside", 1024, N)?;
    for p in 0..N {
        let (x, y) = (host.get((p, 0))?, host.get((p, 1))?);
        if x < 0.0 || y < 0.0 || x >= nx as f64 || y >= ny as f64 {
            let k = outside.size();
            outside.resize_serial(k + 1)?;
            outside.view().set(k, p as u32)?;
        }
    }

    let read = |v: &View<u32, 1, LayoutRight, S::MemorySpace>| -> Result<Vec<u32>> {
        let m = ferrokkos::create_mirror_view(v)?;
        ferrokkos::deep_copy(&m, v)?;
        m.to_vec()
    };
    let flat = grid.view::<2>()?;
    let m = ferrokkos::create_mirror_view(&flat)?;
    ferrokkos::deep_copy(&m, &flat)?;
    Ok(Found {
        cells: m.to_vec()?,
        speeds: read(&speeds)?,
        outside: outside.view().to_vec()?,
    })
}

/// The same counts in plain Rust.
fn reference() -> Found {
    let (nx, ny) = (24usize, 16usize);
    let mut found = Found {
        cells: vec![0; nx * ny],
        speeds: vec![0; BINS],
        outside: Vec::new(),
    };
    for p in 0..N {
        let (x, y, s) = particle(p);
        if x >= 0.0 && y >= 0.0 && x < nx as f64 && y < ny as f64 {
            found.cells[x as usize * ny + y as usize] += 1;
        } else {
            found.outside.push(p as u32);
        }
        found.speeds[(s * BINS as f64) as usize] += 1;
    }
    found
}

fn main() -> Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::from_env()?)?;
    let serial = bin_particles(&Serial::default_instance()?)?;
    assert_eq!(serial, reference(), "Serial against plain Rust");
    println!(
        "Serial:  {} particles in {} cells, {} outside the grid, {} speed bins, as plain Rust",
        N - serial.outside.len(),
        serial.cells.len(),
        serial.outside.len(),
        BINS
    );
    assert_eq!(
        bin_particles(&Threads::default_instance()?)?,
        serial,
        "Threads"
    );
    println!("Threads: agrees with Serial");
    #[cfg(feature = "cuda")]
    match ferrokkos::Cuda::default_instance() {
        Ok(cuda) => {
            assert_eq!(bin_particles(&cuda)?, serial, "Cuda against Serial");
            println!("Cuda:    agrees with Serial");
        }
        Err(e) if std::env::var_os("FERROKKOS_REQUIRE_CUDA").is_none() => {
            println!("Cuda:    skipped ({e})");
        }
        Err(e) => return Err(e),
    }
    Ok(())
}
