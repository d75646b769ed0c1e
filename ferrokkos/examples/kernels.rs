//! Single-source kernels with `kernel!`: a 2D heat-equation step over an MDRange, a residual norm
//! (a reduction), prefix offsets (a scan) and a device function, run on the host, then the CUDA C++
//! that the same kernel becomes for the GPU.
//!
//! ```text
//! cargo run --release -p ferrokkos --example kernels
//! ```

use ferrokkos::codegen::TranslationUnit;
use ferrokkos::prelude::*;

/// The explicit heat-equation update of one point (a device function: callable from kernels).
#[device]
fn heat(center: f64, north: f64, south: f64, west: f64, east: f64, alpha: f64) -> f64 {
    center + alpha * (north + south + west + east - 4.0 * center)
}

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::from_env()?)?;
    let exec = Threads::default_instance()?;
    let (n, m) = (200, 300);
    let u = View::<f64, 2>::new("u", [n, m])?;
    let next = View::<f64, 2>::new("next", [n, m])?;
    let alpha = 0.2;

    // A hot square in the middle. The index of an MDRange kernel is a tuple (i64 unless annotated).
    parallel_for(
        "init",
        MDRangePolicy::new(&exec, [0, 0], [n as i64, m as i64])?,
        kernel!(|(i, j)| {
            let hot = (i - 100).abs() < 20 && (j - 150).abs() < 20;
            u[(i, j)] = if hot { 100.0 } else { 0.0 };
        }),
    )?;

    // One time step: each point writes only its own element of `next` (checked by the macro) and
    // reads its neighbours in `u`, which the kernel does not write.
    let step = kernel!(|(i, j)| {
        let (last_i, last_j) = (u.extent(0) as i64 - 1, u.extent(1) as i64 - 1);
        if i == 0 || j == 0 || i == last_i || j == last_j {
            next[(i, j)] = 0.0;
        } else {
            next[(i, j)] = heat(
                u[(i, j)],
                u[(i - 1, j)],
                u[(i + 1, j)],
                u[(i, j - 1)],
                u[(i, j + 1)],
                alpha,
            );
        }
    });
    let copy_back = kernel!(|(i, j)| u[(i, j)] = next[(i, j)]);
    let interior = MDRangePolicy::new(&exec, [0, 0], [n as i64, m as i64])?;
    for _ in 0..50 {
        parallel_for("step", interior.clone(), &step)?;
        parallel_for("copy back", interior.clone(), &copy_back)?;
    }

    // Reductions: the total heat and the hottest point (a reducer tuple, one accumulator each).
    let (total, hottest) = parallel_reduce(
        "stats",
        interior.clone(),
        kernel!(|(i, j), sum, max| {
            *sum += u[(i, j)];
            if u[(i, j)] > *max {
                *max = u[(i, j)];
            }
        }),
        (Sum::new(), Max::new()),
    )?;
    println!("after 50 steps: total heat {total:.3}, hottest point {hottest:.3}");

    // A scan: the offsets of the rows' warm points (exclusive prefix sums).
    let warm = View::<u32, 1>::new("warm per row", [n])?;
    parallel_for(
        "count",
        RangePolicy::new(&exec, 0, n)?,
        kernel!(|i| {
            let mut count = 0u32;
            for j in 0..u.extent(1) {
                if u[(i, j)] > 1.0 {
                    count += 1;
                }
            }
            warm[i] = count;
        }),
    )?;
    let offsets = View::<u32, 1>::new("offsets", [n])?;
    let total_warm = parallel_scan(
        "offsets",
        RangePolicy::new(&exec, 0, n)?,
        kernel!(|i, partial, is_final| {
            if is_final {
                offsets[i] = *partial;
            }
            *partial += warm[i];
        }),
    )?;
    println!(
        "{total_warm} warm points; the row of the hot square's centre starts at {}",
        offsets.get(100)?
    );

    // The same step kernel for the GPU: a CUDA C++ translation unit (checked with NVRTC when the
    // library is installed).
    let unit = TranslationUnit::for_kernel(&step, Iterate::Right);
    println!("\n{}", unit.generated());
    if ferrokkos::nvrtc::is_available() {
        let cubin = unit.compile_cubin(90)?;
        println!(
            "NVRTC: {} bytes of sm_90 code in {:?}",
            cubin.image.len(),
            cubin.compile_time
        );
    }
    Ok(())
}
