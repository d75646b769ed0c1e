//! Particles as a View of structs, pushed by a kernel and deposited onto a grid with atomics, on
//! every execution space (Serial, Threads, and Cuda when a GPU is present), with the results
//! compared against Serial.
//!
//! The particle is a `#[repr(C)]` struct deriving `DeviceValue`, its species a fieldless enum; the
//! push reads and writes whole elements and fields, `match`es on the species and wraps positions;
//! the deposition adds each particle's charge to its cell with `atomic_add`, counts particles per
//! species with `atomic_fetch_add`, and bins their speeds through an atomic View
//! (`speeds.atomic()`, where `per_speed[bin] += 1` is an atomic add). The arithmetic is exact-rounding only (no transcendental
//! functions; GPU code is compiled without FMA contraction) and the charges are multiples of 1/2,
//! so every space must give the same bits.
//!
//! ```text
//! cargo run --release -p ferrokkos --example particles
//! ```
//! With `FERROKKOS_REQUIRE_CUDA=1` a missing GPU is an error instead of a skipped space.

use ferrokkos::prelude::*;
use ferrokkos::{DeviceValue, Result};

const LENGTH: f64 = 64.0;
const CELLS: usize = 64;
/// Bins of a quarter speed unit (the last one holds every faster particle).
const SPEED_BINS: usize = 16;

#[repr(u32)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, DeviceValue)]
enum Species {
    Electron = 0,
    Ion = 1,
}

#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
struct Particle {
    x: f64,
    v: f64,
    charge: f64,
    species: Species,
    cell: u32,
}

/// The field's parameters, captured by the push kernel as one value.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, DeviceValue)]
struct Field {
    strength: f64,
    center: f64,
}

/// What one space computed: the particles, the charge per cell and the count per species.
#[derive(Debug, PartialEq)]
struct Outcome {
    particles: Vec<Particle>,
    rho: Vec<f64>,
    counts: Vec<u64>,
    /// Particles per speed bin (through an atomic View).
    speeds: Vec<u32>,
}

fn initial(n: usize) -> Vec<Particle> {
    (0..n)
        .map(|k| {
            let ion = k % 3 == 0;
            Particle {
                x: (k * 37 % 1000) as f64 * LENGTH / 1000.0,
                v: ((k * 13 % 17) as f64 - 8.0) * 0.125,
                charge: if ion { 1.0 } else { -0.5 },
                species: if ion { Species::Ion } else { Species::Electron },
                cell: 0,
            }
        })
        .collect()
}

fn simulate<S: Launch>(exec: &S, start: &[Particle], steps: usize) -> Result<Outcome> {
    let n = start.len();
    let host = View::<Particle, 1>::new("particles (host)", [n])?;
    {
        let mut g = host.host_mut()?;
        for (k, p) in start.iter().enumerate() {
            g[k] = *p;
        }
    }
    let parts = View::<Particle, 1, LayoutRight, S::MemorySpace>::new("particles", [n])?;
    deep_copy(&parts, &host)?;
    let rho = View::<f64, 1, LayoutRight, S::MemorySpace>::new("rho", [CELLS])?;
    let counts = View::<u64, 1, LayoutRight, S::MemorySpace>::new("counts", [2])?;
    let speeds = View::<u32, 1, LayoutRight, S::MemorySpace>::new("speeds", [SPEED_BINS])?;
    // Every access through `per_speed` is atomic (Kokkos' `MemoryTraits<Atomic>`).
    let per_speed = speeds.atomic();
    let field = Field {
        strength: 0.03125,
        center: LENGTH / 2.0,
    };
    let dt = 0.25;

    let push = kernel!(|i| {
        let mut p = parts[i];
        let q_over_m = match p.species {
            Species::Electron => -1.0,
            Species::Ion => 0.0625,
        };
        let e = -field.strength * (p.x - field.center);
        p.v += q_over_m * e * dt;
        p.x += p.v * dt;
        while p.x < 0.0 {
            p.x += LENGTH;
        }
        while p.x >= LENGTH {
            p.x -= LENGTH;
        }
        p.cell = ((p.x / LENGTH * CELLS as f64) as u32).min(CELLS as u32 - 1);
        parts[i] = p;
    });
    for _ in 0..steps {
        parallel_for("push", RangePolicy::new(exec, 0, n)?, &push)?;
    }
    parallel_for(
        "deposit",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| {
            let p = parts[i];
            rho.atomic_add(p.cell, p.charge);
            let s = match p.species {
                Species::Electron => 0,
                Species::Ion => 1,
            };
            let _ticket = counts.atomic_fetch_add(s, 1);
            let bin = ((p.v.abs() * 4.0) as usize).min(SPEED_BINS - 1);
            per_speed[bin] += 1;
        }),
    )?;
    exec.fence("particles: done")?;

    Ok(Outcome {
        particles: download(&parts)?,
        rho: download(&rho)?,
        counts: download(&counts)?,
        speeds: download(&speeds)?,
    })
}

/// The elements of `v` (any memory space), through a host mirror.
fn download<T: ferrokkos::traits::Element, M: MemorySpace>(
    v: &View<T, 1, LayoutRight, M>,
) -> Result<Vec<T>> {
    let mirror = create_mirror_view(v)?;
    deep_copy(&mirror, v)?;
    mirror.to_vec()
}

fn main() -> Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::from_env()?)?;
    let start = initial(20_000);
    let steps = 40;

    let reference = simulate(&Serial::default_instance()?, &start, steps)?;
    let total: f64 = reference.rho.iter().sum();
    let want_total: f64 = start.iter().map(|p| p.charge).sum();
    assert_eq!(
        total, want_total,
        "the deposited charge is the particles' charge"
    );
    assert_eq!(reference.counts.iter().sum::<u64>(), start.len() as u64);
    assert_eq!(
        reference.speeds.iter().map(|c| *c as usize).sum::<usize>(),
        start.len()
    );
    println!(
        "Serial:  {} particles, {} steps, charge {total}, electrons {}, ions {}",
        start.len(),
        steps,
        reference.counts[0],
        reference.counts[1]
    );

    let threads = simulate(&Threads::default_instance()?, &start, steps)?;
    assert_eq!(threads, reference, "Threads differs from Serial");
    println!("Threads: identical to Serial");

    #[cfg(feature = "cuda")]
    match ferrokkos::Cuda::default_instance() {
        Ok(cuda) => {
            let got = simulate(&cuda, &start, steps)?;
            assert_eq!(got, reference, "Cuda differs from Serial");
            println!("Cuda:    identical to Serial");
        }
        Err(e) if std::env::var_os("FERROKKOS_REQUIRE_CUDA").is_none() => {
            println!("Cuda:    skipped ({e})");
        }
        Err(e) => return Err(e),
    }
    Ok(())
}
