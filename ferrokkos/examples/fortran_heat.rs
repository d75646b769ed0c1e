//! A heat-equation solver as ported from Fortran, keeping the Fortran code's index ranges with
//! `OffsetView`s: the temperature is `t(0:nx+1, 0:ny+1)` (a ghost layer around the `1:nx` x
//! `1:ny` interior, Fortran's column-major order: LayoutLeft), and each step is the Fortran loop
//! nest
//!
//! ```text
//! do j = 1, ny; do i = 1, nx
//!   tn(i, j) = t(i, j) + r * (t(i-1, j) + t(i+1, j) + t(i, j-1) + t(i, j+1) - 4 * t(i, j))
//! end do; end do
//! ```
//!
//! written as one `kernel!` over an `MDRangePolicy` with the same bounds. The ghost layer holds a
//! fixed boundary temperature. On every execution space (Serial, Threads, and Cuda when a GPU is
//! present), compared against a plain Rust loop over the same indices and against Serial.
//!
//! ```text
//! cargo run --release -p ferrokkos --example fortran_heat
//! ```
//! With `FERROKKOS_REQUIRE_CUDA=1` a missing GPU is an error instead of a skipped space.

use ferrokkos::prelude::*;
use ferrokkos::{OffsetView, Result};

/// Interior cells per direction, and time steps.
const NX: i64 = 40;
const NY: i64 = 30;
const STEPS: usize = 50;
/// The diffusion number `alpha * dt / h^2` (stable below 1/4).
const R: f64 = 0.2;

/// The temperature at the start: hot in a square, cold elsewhere, 1 on the ghost layer.
#[ferrokkos::device]
#[allow(clippy::manual_range_contains)] // as the Fortran code compares (and kernels have no ranges)
fn initial(i: i64, j: i64) -> f64 {
    if i == 0 || j == 0 || i == NX + 1 || j == NY + 1 {
        1.0
    } else if i >= 10 && i < 20 && j >= 5 && j < 15 {
        100.0
    } else {
        0.0
    }
}

/// `STEPS` steps on `exec`: the temperature `t(0:nx+1, 0:ny+1)` at the end, in Fortran order.
fn solve<S: Launch>(exec: &S) -> Result<Vec<f64>> {
    type Field<S> = OffsetView<f64, 2, LayoutLeft, <S as ExecutionSpace>::MemorySpace>;
    // real(8) :: t(0:nx+1, 0:ny+1), tn(0:nx+1, 0:ny+1)
    let mut t = Field::<S>::new("t", [0..=NX + 1, 0..=NY + 1])?;
    let mut tn = Field::<S>::new("tn", [0..=NX + 1, 0..=NY + 1])?;
    let whole = [t.end(0), t.end(1)];
    for field in [&t, &tn] {
        parallel_for(
            "initial",
            MDRangePolicy::new(exec, [0i64, 0], whole)?,
            kernel!(|(i, j)| field[(i, j)] = initial(i, j)),
        )?;
    }
    let interior = MDRangePolicy::new(exec, [1i64, 1], [NX + 1, NY + 1])?;
    for _ in 0..STEPS {
        parallel_for(
            "step",
            interior.clone(),
            kernel!(|(i, j)| {
                tn[(i, j)] = t[(i, j)]
                    + R * (t[(i - 1, j)] + t[(i + 1, j)] + t[(i, j - 1)] + t[(i, j + 1)]
                        - 4.0 * t[(i, j)]);
            }),
        )?;
        std::mem::swap(&mut t, &mut tn);
    }
    let host = t.create_mirror_view()?;
    host.deep_copy_from(&t)?;
    let mut out = Vec::new();
    for j in 0..=NY + 1 {
        for i in 0..=NX + 1 {
            out.push(host.get([i, j])?);
        }
    }
    Ok(out)
}

/// The same steps in plain Rust, on arrays indexed as the Fortran code indexes them.
fn reference() -> Vec<f64> {
    let (w, h) = ((NX + 2) as usize, (NY + 2) as usize);
    let at = |i: i64, j: i64| i as usize + w * j as usize;
    let mut t: Vec<f64> = (0..w * h)
        .map(|k| initial((k % w) as i64, (k / w) as i64))
        .collect();
    let mut tn = t.clone();
    for _ in 0..STEPS {
        for j in 1..=NY {
            for i in 1..=NX {
                tn[at(i, j)] = t[at(i, j)]
                    + R * (t[at(i - 1, j)] + t[at(i + 1, j)] + t[at(i, j - 1)] + t[at(i, j + 1)]
                        - 4.0 * t[at(i, j)]);
            }
        }
        std::mem::swap(&mut t, &mut tn);
    }
    t
}

fn main() -> Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::from_env()?)?;
    let want = reference();
    let serial = solve(&Serial::default_instance()?)?;
    assert_eq!(serial, want, "Serial against the plain Rust loop");
    let centre = serial[(NX / 2 + (NX + 2) * (NY / 2)) as usize];
    println!(
        "Serial:  {STEPS} steps on t(0:{}, 0:{}); t({}, {}) = {centre:.6}, as the plain loop",
        NX + 1,
        NY + 1,
        NX / 2,
        NY / 2
    );
    assert_eq!(solve(&Threads::default_instance()?)?, serial, "Threads");
    println!("Threads: agrees with Serial");
    #[cfg(feature = "cuda")]
    match ferrokkos::Cuda::default_instance() {
        Ok(cuda) => {
            // The GPU code contracts no multiply-add (`--fmad=false`): the same bits.
            assert_eq!(solve(&cuda)?, serial, "Cuda against Serial");
            println!("Cuda:    agrees with Serial");
        }
        Err(e) if std::env::var_os("FERROKKOS_REQUIRE_CUDA").is_none() => {
            println!("Cuda:    skipped ({e})");
        }
        Err(e) => return Err(e),
    }
    Ok(())
}
