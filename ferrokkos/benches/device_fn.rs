//! A 5-point stencil written inline in a `kernel!` and through a `#[device]` function, on Serial
//! and Threads, in one run: prints each form's best and median sweep time and the ratio
//! `inline / device fn` (1.0: the call costs nothing).
//!
//! `cargo bench -p ferrokkos --bench device_fn [-- N SWEEPS RUNS]` (default 2048 x 2048 interior
//! cells, 10 sweeps per run, 15 runs per form, the forms taking turns run by run).

use std::time::{Duration, Instant};

use ferrokkos::prelude::*;
use ferrokkos::{device, kernel};

/// A field with its halo, on the host.
type Field = View<f64, 2, LayoutRight, HostSpace>;

/// The 5-point Laplacian of `u` at `(i, j)`.
#[device]
fn lap(u: &View<f64, 2>, i: i64, j: i64) -> f64 {
    u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)] - 4.0 * u[(i, j)]
}

/// The two forms of one sweep `v = lap(u)` over the interior.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Form {
    Inline,
    DeviceFn,
}

/// Runs `sweeps` sweeps of `form` from `u` into `v` over `policy`; returns the time taken.
fn sweeps<S: Launch>(
    form: Form,
    policy: &MDRangePolicy<S, 2>,
    u: &Field,
    v: &Field,
    sweeps: usize,
) -> ferrokkos::Result<Duration> {
    let start = Instant::now();
    for _ in 0..sweeps {
        match form {
            Form::Inline => parallel_for(
                "bench::inline",
                policy.clone(),
                kernel!(|(i, j)| {
                    v[(i, j)] = u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)]
                        - 4.0 * u[(i, j)];
                }),
            )?,
            Form::DeviceFn => parallel_for(
                "bench::device_fn",
                policy.clone(),
                kernel!(|(i, j)| v[(i, j)] = lap(&u, i, j)),
            )?,
        }
    }
    policy.space().fence("bench::fence")?;
    Ok(start.elapsed())
}

/// The best and the median of `times`.
fn best_median(times: &mut [Duration]) -> (Duration, Duration) {
    times.sort();
    (times[0], times[times.len() / 2])
}

/// Times both forms on `space` (taking turns), checks they agree bit for bit, prints a line.
fn bench<S: Launch>(
    space: &S,
    name: &str,
    n: usize,
    steps: usize,
    runs: usize,
) -> ferrokkos::Result<()> {
    let w = n + 2;
    let u = Field::new("u", [w, w])?;
    // Both forms write the same View (so that neither gains from where its output lies); each
    // writes its own once more at the end for the check.
    let v = Field::new("v", [w, w])?;
    let all = MDRangePolicy::new(space, [0, 0], [w as i64, w as i64])?;
    parallel_for(
        "bench::init",
        all,
        kernel!(|(i, j)| u[(i, j)] = ((i * 31 + j * 17) % 101) as f64 * 0.01),
    )?;
    let end = n as i64 + 1;
    let interior = MDRangePolicy::new(space, [1, 1], [end, end])?;
    let (mut inline, mut device) = (Vec::new(), Vec::new());
    for run in 0..=runs {
        let order = if run % 2 == 0 {
            [Form::Inline, Form::DeviceFn]
        } else {
            [Form::DeviceFn, Form::Inline]
        };
        for form in order {
            let times = match form {
                Form::Inline => &mut inline,
                Form::DeviceFn => &mut device,
            };
            let t = sweeps(form, &interior, &u, &v, steps)?;
            // The first run of each form warms up.
            if run > 0 {
                times.push(t);
            }
        }
    }
    let v_inline = Field::new("v_inline", [w, w])?;
    let v_device = Field::new("v_device", [w, w])?;
    sweeps(Form::Inline, &interior, &u, &v_inline, 1)?;
    sweeps(Form::DeviceFn, &interior, &u, &v_device, 1)?;
    assert_eq!(
        v_inline
            .to_vec()?
            .iter()
            .map(|x| x.to_bits())
            .collect::<Vec<_>>(),
        v_device
            .to_vec()?
            .iter()
            .map(|x| x.to_bits())
            .collect::<Vec<_>>(),
        "the two forms differ"
    );
    let ((ib, im), (db, dm)) = (best_median(&mut inline), best_median(&mut device));
    let per_sweep = |d: Duration| d.as_secs_f64() * 1e3 / steps as f64;
    println!(
        "{name:<8} inline {:7.3} ms (median {:7.3})  device fn {:7.3} ms (median {:7.3})  \
         ratio inline/device fn: best {:.3}, median {:.3}",
        per_sweep(ib),
        per_sweep(im),
        per_sweep(db),
        per_sweep(dm),
        ib.as_secs_f64() / db.as_secs_f64(),
        im.as_secs_f64() / dm.as_secs_f64(),
    );
    Ok(())
}

fn main() -> ferrokkos::Result<()> {
    // `cargo bench` passes `--bench`; the numbers are the positional arguments.
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter_map(|a| a.parse().ok())
        .collect();
    let arg = |k: usize, default: usize| args.get(k).copied().unwrap_or(default);
    let (n, steps, runs) = (arg(0, 2048), arg(1, 10), arg(2, 15).max(1));
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    println!(
        "5-point stencil, {n} x {n} interior cells, {steps} sweeps per run, {runs} runs per form, \
         host vector instructions: {}",
        ferrokkos::host_vector_instructions()
    );
    bench(&Serial::default_instance()?, "Serial", n, steps, runs)?;
    bench(&Threads::default_instance()?, "Threads", n, steps, runs)?;
    Ok(())
}
