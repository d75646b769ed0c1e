//! Differential tests: the kernels of the `kernel!` suites (`kernel_language/`) on deterministic
//! pseudo-random inputs (plus the edge values of those suites), run on every space of
//! `for_each_space!`.
//!
//! Each case is a module with `inputs(seed)`, `run::<S>(exec, &inputs)` (the kernels on `S`, with
//! Views in `S::MemorySpace`, results read back through host mirrors) and `reference(&inputs)`
//! (plain Rust), and [`differential!`] gives it one test per space, `case::serial`,
//! `case::threads` (against the reference; they run everywhere) and `case::cuda` (Cuda against
//! Serial; ignored without a GPU), each over every seed of [`SEEDS`]. The comparison
//! ([`Outputs::check`]) is exact for integers, booleans and floats from exact operations (bit for
//! bit, any NaN matching any NaN); the columns that may differ say how:
//! - f64 (and f32) reductions, scans and atomic sums: within 1e-12 relative to the sum of the
//!   magnitudes of the terms (Threads and Cuda join partial results in other orders);
//! - transcendental functions: CUDA's math library against Rust's (glibc's), within the ulp bound
//!   CUDA documents for the function plus one for glibc's own rounding (see [`ulps_f64`] and
//!   [`ulps_f32`]); exact on the host spaces;
//! - `min` / `max`: the sign of a zero result may differ (CUDA's `fmin(0.0, -0.0)` is `-0.0`, Rust
//!   leaves it unspecified);
//! - the iterated kernel of `representative::loops_branches_math`: few-ulp differences of `sin` /
//!   `cos` / `ln` grow over the iterations (measured: at most 2e-13 relative over 600 000 samples
//!   with 2-ulp perturbations), so within 1e-10 relative.

mod compare;

pub use compare::*;

use crate::common::{self, Rng};
use crate::spaces::{SView, download, upload, upload_nd};
use ferrokkos::prelude::*;
use ferrokkos::{Result, device, kernel, parallel_scan_with};

/// The seeds every differential test runs with.
pub const SEEDS: [u64; 3] = [1, 42, 0x5eed];

/// Generates one test per space of `for_each_space!` in the current module, from its functions
/// `inputs`, `run` and `reference`. See the module documentation.
macro_rules! differential {
    ($inputs:ident, $run:ident, $reference:ident) => {
        for_each_space!(differential_test!($inputs, $run, $reference));
    };
}

/// One test of [`differential!`]: the case on one space, against the plain Rust reference or
/// against Serial, as the space's line of `for_each_space!` says.
macro_rules! differential_test {
    (
        $test:ident,
        $space:ty,
        [$(#[$attr:meta])*],
        reference($mode:ident),
        $inputs:ident,
        $run:ident,
        $reference:ident
    ) => {
        #[test]
        $(#[$attr])*
        fn $test() -> ::ferrokkos::Result<()> {
            $crate::common::runtime();
            let exec = <$space as ::ferrokkos::ExecutionSpace>::default_instance()?;
            let name = <$space as ::ferrokkos::ExecutionSpace>::NAME;
            for seed in $crate::differential::SEEDS {
                let input = $inputs(seed);
                let got = $run(&exec, &input)?;
                let want = $reference(&input);
                let what = format!("{name}, seed {seed}");
                got.check(&want, $crate::differential::Mode::$mode, &what);
            }
            Ok(())
        }
    };
    (
        $test:ident,
        $space:ty,
        [$(#[$attr:meta])*],
        serial($mode:ident),
        $inputs:ident,
        $run:ident,
        $reference:ident
    ) => {
        #[test]
        $(#[$attr])*
        fn $test() -> ::ferrokkos::Result<()> {
            $crate::common::runtime();
            let serial = <::ferrokkos::Serial as ::ferrokkos::ExecutionSpace>::default_instance()?;
            let exec = <$space as ::ferrokkos::ExecutionSpace>::default_instance()?;
            let name = <$space as ::ferrokkos::ExecutionSpace>::NAME;
            for seed in $crate::differential::SEEDS {
                let input = $inputs(seed);
                let want = $run(&serial, &input)?;
                let got = $run(&exec, &input)?;
                let what = format!("{name} vs Serial, seed {seed}");
                got.check(&want, $crate::differential::Mode::$mode, &what);
            }
            Ok(())
        }
    };
}

mod casts;
mod control_flow;
mod kernel_idioms;
mod methods;
mod operators;
mod patterns;
mod representative;
mod views;

/// A finite `f64` of random sign and magnitude between about 2^-60 and 2^70.
fn wide_f64(rng: &mut Rng) -> f64 {
    let e = (rng.next_u64() % 131) as i32 - 60;
    let sign = if rng.next_u64() % 2 == 0 { 1.0 } else { -1.0 };
    sign * rng.f64_in(1.0, 2.0) * 2f64.powi(e)
}

/// A finite `f32` of random sign and magnitude from the subnormals to about 2^100.
fn wide_f32(rng: &mut Rng) -> f32 {
    let e = (rng.next_u64() % 250) as i32 - 149;
    let sign = if rng.next_u64() % 2 == 0 { 1.0 } else { -1.0 };
    (sign * rng.f64_in(1.0, 2.0) * 2f64.powi(e)) as f32
}

/// `n` uniform values in `[lo, hi)`.
fn uniform(rng: &mut Rng, n: usize, lo: f64, hi: f64) -> Vec<f64> {
    (0..n).map(|_| rng.f64_in(lo, hi)).collect()
}

/// The sum of the magnitudes of `terms` (the scale of the rounding error of a sum in any order).
fn magnitude(terms: impl IntoIterator<Item = f64>) -> f64 {
    terms.into_iter().map(f64::abs).sum()
}
