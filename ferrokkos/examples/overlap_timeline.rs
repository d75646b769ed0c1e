//! Two partitioned Cuda instances, each alternating a compute kernel and a download of its field
//! into a pinned mirror: while one instance copies, the other computes (the fifth seed problem of
//! DESIGN.md, kokkos#8099). The run writes a trace; `ferrokkos timeline` draws it, and the picture
//! shows each instance's copies overlapping the other's kernels.
//!
//! ```text
//! cargo run --release -p ferrokkos --example overlap_timeline      # writes overlap.json
//! ferrokkos timeline overlap.json -o overlap.png
//! ```
//!
//! `FERROKKOS_TRACE=other.json` chooses another file. Without a GPU it says so and stops.

use ferrokkos::prelude::*;
use ferrokkos::profiling::ScopedRegion;
use ferrokkos::{Cuda, CudaHostPinnedSpace, CudaSpace, create_mirror_view_in, deep_copy_async};

/// A field on the device.
type Field = View<f64, 1, LayoutRight, CudaSpace>;

/// Elements per field: 2^24 doubles (128 MiB), a download of a few milliseconds.
const N: usize = 1 << 24;

/// Work per element, so that a kernel takes about as long as a download.
const ROUNDS: i32 = 400;

/// One compute step on `field`: every element goes through `ROUNDS` rounds of arithmetic.
fn compute(exec: &Cuda, label: &str, field: &Field) -> ferrokkos::Result<()> {
    let rounds = ROUNDS;
    parallel_for(
        label,
        RangePolicy::new(exec, 0, N)?,
        kernel!(|i| {
            let mut v = field[i];
            for _ in 0..rounds {
                v = v * 0.5 + 1.0;
            }
            field[i] = v;
        }),
    )
}

fn main() -> ferrokkos::Result<()> {
    let mut settings = InitSettings::from_env()?;
    if settings.trace_path().is_none() {
        settings = settings.trace("overlap.json");
    }
    let trace = settings.trace_path().map(|p| p.display().to_string());
    let rt = ferrokkos::initialize(settings)?;
    if !Cuda::is_available() {
        eprintln!("overlap_timeline: no CUDA device; this example needs one");
        return Ok(());
    }
    let parts = partition_space(&Cuda::default_instance()?, 2)?;
    let fields = [Field::new("field A", [N])?, Field::new("field B", [N])?];
    let mirrors = [
        create_mirror_view_in(CudaHostPinnedSpace, &fields[0])?,
        create_mirror_view_in(CudaHostPinnedSpace, &fields[1])?,
    ];
    let names = ["A", "B"];
    for step in 0..4 {
        let _region = ScopedRegion::new(&format!("step {step}"));
        for k in 0..2 {
            compute(
                &parts[k],
                &format!("compute {} {step}", names[k]),
                &fields[k],
            )?;
            // Asynchronous: the mirror is pinned, so the call returns at once and the download
            // runs on instance k while the other instance computes.
            deep_copy_async(&parts[k], &mirrors[k], &fields[k])?;
        }
    }
    for part in &parts {
        part.fence("end of the steps")?;
    }
    // After 4 steps of ROUNDS rounds from 0, every element is within 1e-12 of 2.
    for mirror in &mirrors {
        let first = mirror.get(0)?;
        let last = mirror.get(N - 1)?;
        assert!((first - 2.0).abs() < 1e-12 && (last - 2.0).abs() < 1e-12);
    }
    drop((fields, mirrors, parts));
    rt.finalize()?;
    if let Some(trace) = trace {
        println!("overlap_timeline: wrote {trace}; draw it with: ferrokkos timeline {trace}");
    }
    Ok(())
}
