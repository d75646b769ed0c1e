//! A complex-valued kernel: the discrete Fourier transform of a two-tone signal, each output
//! frequency one iteration that sums `x[j] * e^(-2πi jk/n)` with `Complex<f64>` arithmetic,
//! followed by a squared-magnitude spectrum and a total-power reduction, on every execution space
//! (Serial, Threads, and Cuda when a GPU is present), compared against Serial and against the
//! tones put into the signal.
//!
//! ```text
//! cargo run --release -p ferrokkos --example spectrum
//! ```
//! With `FERROKKOS_REQUIRE_CUDA=1` a missing GPU is an error instead of a skipped space.

use ferrokkos::prelude::*;
use ferrokkos::{Complex, Result};

const N: usize = 512;
/// The two tones: (frequency bin, amplitude).
const TONES: [(usize, f64); 2] = [(37, 1.0), (101, 0.25)];

/// The spectrum one space computed: the transform, the power per bin and the total power.
struct Spectrum {
    transform: Vec<Complex<f64>>,
    power: Vec<f64>,
    total: f64,
}

fn signal() -> Vec<Complex<f64>> {
    (0..N)
        .map(|j| {
            let mut v = Complex::new(0.0, 0.0);
            for (bin, amplitude) in TONES {
                let phase = 2.0 * std::f64::consts::PI * (bin * j) as f64 / N as f64;
                v += Complex::from_polar(amplitude, phase);
            }
            v
        })
        .collect()
}

fn transform<S: Launch>(exec: &S, input: &[Complex<f64>]) -> Result<Spectrum> {
    let host = View::<Complex<f64>, 1>::new("signal (host)", [N])?;
    {
        let mut g = host.host_mut()?;
        for (k, v) in input.iter().enumerate() {
            g[k] = *v;
        }
    }
    let x = View::<Complex<f64>, 1, LayoutRight, S::MemorySpace>::new("signal", [N])?;
    deep_copy(&x, &host)?;
    let spectrum = View::<Complex<f64>, 1, LayoutRight, S::MemorySpace>::new("spectrum", [N])?;
    let power = View::<f64, 1, LayoutRight, S::MemorySpace>::new("power", [N])?;
    let n = N;

    parallel_for(
        "dft",
        RangePolicy::new(exec, 0, N)?,
        kernel!(|k| {
            let mut sum = Complex::new(0.0, 0.0);
            for j in 0..n {
                // The phase of j*k reduced mod n, so the angle stays small and accurate.
                let m = (j * k) % n;
                let angle = -2.0 * std::f64::consts::PI * m as f64 / n as f64;
                sum += x[j] * Complex::from_polar(1.0, angle);
            }
            spectrum[k] = sum.unscale(n as f64);
            power[k] = sum.norm_sqr() / (n * n) as f64;
        }),
    )?;
    let total = parallel_reduce(
        "total power",
        RangePolicy::new(exec, 0, N)?,
        kernel!(|k, acc: &mut f64| *acc += power[k]),
        Sum::<f64>::new(),
    )?;
    Ok(Spectrum {
        transform: download(&spectrum)?,
        power: download(&power)?,
        total,
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

/// Checks `got` against the reference within `tol` (relative to the largest value).
fn agree(space: &str, got: &Spectrum, reference: &Spectrum, tol: f64) {
    for (k, (a, b)) in got.transform.iter().zip(&reference.transform).enumerate() {
        assert!((a - b).norm() <= tol, "{space}: bin {k}: {a} vs {b}");
    }
    for (k, (a, b)) in got.power.iter().zip(&reference.power).enumerate() {
        assert!((a - b).abs() <= tol, "{space}: power {k}: {a} vs {b}");
    }
    assert!(
        (got.total - reference.total).abs() <= tol,
        "{space}: total power"
    );
    println!("{space:8} agrees with Serial within {tol:e}");
}

fn main() -> Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::from_env()?)?;
    let input = signal();

    let reference = transform(&Serial::default_instance()?, &input)?;
    // The tones are where they were put, with their amplitudes; the rest is (numerically) zero.
    for (bin, amplitude) in TONES {
        let got = reference.transform[bin];
        assert!((got.norm() - amplitude).abs() < 1e-9, "bin {bin}: {got}");
    }
    let tones: f64 = TONES.iter().map(|(_, a)| a * a).sum();
    assert!(
        (reference.total - tones).abs() < 1e-9,
        "Parseval: {}",
        reference.total
    );
    let loudest = (0..N)
        .max_by(|&a, &b| reference.power[a].total_cmp(&reference.power[b]))
        .unwrap_or(0);
    println!(
        "Serial:  {N}-point DFT, loudest bin {loudest}, total power {:.6}",
        reference.total
    );

    agree(
        "Threads:",
        &transform(&Threads::default_instance()?, &input)?,
        &reference,
        1e-12,
    );

    #[cfg(feature = "cuda")]
    match ferrokkos::Cuda::default_instance() {
        // The GPU's sin and cos are within 2 ulp of the host's, so sums of 512 terms agree to a
        // few ulps of their magnitude.
        Ok(cuda) => agree("Cuda:", &transform(&cuda, &input)?, &reference, 1e-12),
        Err(e) if std::env::var_os("FERROKKOS_REQUIRE_CUDA").is_none() => {
            println!("Cuda:    skipped ({e})");
        }
        Err(e) => return Err(e),
    }
    Ok(())
}
