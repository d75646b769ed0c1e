//! 2D heat conduction with implicit time steps: each step solves `(I - dt·κ·Δ) u_new = u_old` with
//! the conjugate-gradient method, on a grid with one layer of halo cells (periodic in x, a fixed
//! temperature at the walls in y). Twenty-one kernels (initial state, halo updates, the stencil
//! operator, dot products, vector updates, a preconditioner, diagnostics: sums, extremes, counts, a
//! scan) over 2D Views, on every execution space
//! (Serial, Threads, and Cuda when a GPU is present), compared against Serial.
//!
//! Before the first step every kernel is compiled ahead with [`Prepare`] (on Cuda: in batches, one
//! NVRTC program per batch, on all cores), so no step waits for the compiler; the program prints
//! how long that took. Run with `FERROKKOS_CACHE_DIR=off CUDA_CACHE_DISABLE=1` to time a truly cold
//! start (NVRTC keeps its own cache in `~/.nv/ComputeCache`), and with `--no-prepare` to see the
//! first step pay for the compilation instead (`HEAT_CG_THREADS=n` caps the compiling threads).
//!
//! ```text
//! FERROKKOS_CACHE_DIR=off cargo run --release -p ferrokkos --example heat_cg
//! ```
//! With `FERROKKOS_REQUIRE_CUDA=1` a missing GPU is an error instead of a skipped space.

use std::time::Instant;

use ferrokkos::prelude::*;
use ferrokkos::traits::{ParallelFor, ParallelReduce, ReduceTarget};
use ferrokkos::{Prepare, Result, parallel_reduce as reduce};

/// Interior cells in x (periodic) and y (walls).
const NX: usize = 96;
const NY: usize = 64;
/// `dt·κ / h²`: large enough that an explicit step would be unstable.
const R: f64 = 2.0;
const WALL: f64 = 0.0;
const STEPS: usize = 5;
/// CG stops when the residual's norm falls below this fraction of the right-hand side's.
const TOLERANCE: f64 = 1e-10;

/// Either runs each kernel or adds it to a [`Prepare`]: the solver is written once and walked
/// once in preparation, so every kernel it launches is compiled before the first step.
enum Go<'a> {
    Run,
    Prepare(&'a mut Prepare),
}

impl Go<'_> {
    fn for_each<P: ParallelFor<K>, K>(&mut self, label: &str, policy: P, kernel: K) -> Result<()> {
        match self {
            Go::Run => parallel_for(label, policy, kernel),
            Go::Prepare(p) => p.parallel_for(label, &policy, &kernel).map(drop),
        }
    }

    /// A sum (`0.0` while preparing).
    fn sum<P, K>(&mut self, label: &str, policy: P, kernel: K) -> Result<f64>
    where
        P: ParallelReduce<K, Sum<f64>>,
    {
        self.reduce(label, policy, kernel, Sum::new(), 0.0)
    }

    fn reduce<P, K, T>(
        &mut self,
        label: &str,
        policy: P,
        kernel: K,
        target: T,
        dry: T::Output,
    ) -> Result<T::Output>
    where
        T: ReduceTarget,
        P: ParallelReduce<K, T>,
    {
        match self {
            Go::Run => reduce(label, policy, kernel, target),
            Go::Prepare(p) => p
                .parallel_reduce(label, &policy, &kernel, target)
                .map(|_| dry),
        }
    }
}

type Field<S> = View<f64, 2, LayoutRight, <S as ExecutionSpace>::MemorySpace>;

type Line<S> = View<f64, 1, LayoutRight, <S as ExecutionSpace>::MemorySpace>;

/// The solver's state on one space: the temperature `u`, CG's iterate `x`, residual `r`,
/// preconditioned residual `z`, search direction `p` and `ap = A·p`, each with halo cells (extents
/// `NX + 2` by `NY + 2`); the heat per row and its running total.
struct Heat<S: Launch> {
    exec: S,
    u: Field<S>,
    x: Field<S>,
    r: Field<S>,
    z: Field<S>,
    p: Field<S>,
    ap: Field<S>,
    rows: Line<S>,
    below: Line<S>,
}

/// What [`Heat::diagnostics`] measures after a step.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Diagnostics {
    total: f64,
    hottest: f64,
    coldest: f64,
    /// The heat next to the walls (what flows out next).
    at_walls: f64,
    /// The x coordinate of the centre of heat.
    centre: f64,
    /// Cells above 10 degrees.
    warm_cells: u64,
    /// The heat of the rows before the last (a scan of the rows' heat).
    before_last_row: f64,
}

impl<S: Launch> Heat<S> {
    fn new(exec: S) -> Result<Heat<S>> {
        let field = |label: &str| Field::<S>::new(label, [NX + 2, NY + 2]);
        Ok(Heat {
            exec,
            u: field("u")?,
            x: field("x")?,
            r: field("r")?,
            z: field("z")?,
            p: field("p")?,
            ap: field("ap")?,
            rows: Line::<S>::new("row heat", [NX])?,
            below: Line::<S>::new("heat below", [NX])?,
        })
    }

    /// The interior cells.
    fn interior(&self) -> Result<MDRangePolicy<S, 2>> {
        MDRangePolicy::new(&self.exec, [1, 1], [NX as i64 + 1, NY as i64 + 1])
    }

    /// A hot spot off centre and a warm band, on a cold background.
    fn initial_state(&self, go: &mut Go) -> Result<()> {
        let u = &self.u;
        let (nx, ny) = (NX as f64, NY as f64);
        go.for_each(
            "initial state",
            self.interior()?,
            kernel!(|(i, j)| {
                let (dx, dy) = (i as f64 - 0.3 * nx, j as f64 - 0.6 * ny);
                let spot = 100.0 * (-(dx * dx + dy * dy) / 40.0).exp();
                let band = if i as f64 > 0.7 * nx && (i as f64) < 0.8 * nx {
                    20.0
                } else {
                    0.0
                };
                u[(i, j)] = spot + band;
            }),
        )
    }

    /// Fills the halo of `f`: a copy of the opposite interior column in x (periodic), `wall` in y.
    fn halo(&self, go: &mut Go, f: &Field<S>, wall: f64) -> Result<()> {
        let rows = RangePolicy::new(&self.exec, 1, NX + 1)?;
        let (first, last) = (1usize, NY);
        // Each row's iteration writes and reads only its own row.
        go.for_each(
            "halo x",
            rows,
            kernel!(|i| {
                f[(i, 0)] = f[(i, last)];
                f[(i, last + 1)] = f[(i, first)];
            }),
        )?;
        let columns = RangePolicy::new(&self.exec, 0, NY + 2)?;
        go.for_each(
            "halo y",
            columns,
            kernel!(|j| {
                f[(0, j)] = wall;
                f[(NX + 1, j)] = wall;
            }),
        )
    }

    /// `out = A·v` on the interior.
    fn apply(&self, go: &mut Go, v: &Field<S>, out: &Field<S>) -> Result<()> {
        go.for_each(
            "apply A",
            self.interior()?,
            kernel!(|(i, j)| out[(i, j)] = operator(&v, i, j)),
        )
    }

    fn dot(&self, go: &mut Go, a: &Field<S>, b: &Field<S>) -> Result<f64> {
        go.sum(
            "dot",
            self.interior()?,
            kernel!(|(i, j), acc: &mut f64| *acc += a[(i, j)] * b[(i, j)]),
        )
    }

    /// `p = z + beta·p`.
    fn update_direction(&self, go: &mut Go, beta: f64) -> Result<()> {
        let (z, p) = (&self.z, &self.p);
        go.for_each(
            "p = z + beta p",
            self.interior()?,
            kernel!(|(i, j)| p[(i, j)] = z[(i, j)] + beta * p[(i, j)]),
        )
    }

    /// The Jacobi preconditioner: `z = r / diag(A)`.
    fn precondition(&self, go: &mut Go) -> Result<()> {
        let (r, z) = (&self.r, &self.z);
        let diagonal = 1.0 + 4.0 * R;
        go.for_each(
            "z = r / diag",
            self.interior()?,
            kernel!(|(i, j)| z[(i, j)] = r[(i, j)] / diagonal),
        )
    }

    /// One implicit step: preconditioned CG on `A x = u`, from `x = u`. Returns the iterations it
    /// took and the largest residual `|u - A x|` of the solution it keeps.
    fn step(&self, go: &mut Go) -> Result<(usize, f64)> {
        let (u, x, r, z, p, ap) = (&self.u, &self.x, &self.r, &self.z, &self.p, &self.ap);
        let all = MDRangePolicy::new(&self.exec, [0, 0], [NX as i64 + 2, NY as i64 + 2])?;
        go.for_each(
            "x = u",
            all.clone(),
            kernel!(|(i, j)| x[(i, j)] = u[(i, j)]),
        )?;
        self.halo(go, x, WALL)?;
        self.apply(go, x, ap)?;
        go.for_each(
            "r = u - Ax",
            self.interior()?,
            kernel!(|(i, j)| r[(i, j)] = u[(i, j)] - ap[(i, j)]),
        )?;
        self.precondition(go)?;
        go.for_each("p = z", all, kernel!(|(i, j)| p[(i, j)] = z[(i, j)]))?;
        let bb = self.dot(go, u, u)?;
        let mut rz = self.dot(go, r, z)?;
        let mut iterations = 0;
        while iterations < 1000 {
            // The correction's halo: periodic in x, zero at the walls.
            self.halo(go, p, 0.0)?;
            self.apply(go, p, ap)?;
            let alpha = rz / self.dot(go, p, ap)?.max(f64::MIN_POSITIVE);
            go.for_each(
                "x += alpha p",
                self.interior()?,
                kernel!(|(i, j)| {
                    x[(i, j)] += alpha * p[(i, j)];
                    r[(i, j)] -= alpha * ap[(i, j)];
                }),
            )?;
            let rr = self.dot(go, r, r)?;
            iterations += 1;
            if matches!(go, Go::Prepare(_)) || rr <= TOLERANCE * TOLERANCE * bb {
                break;
            }
            self.precondition(go)?;
            let rz_new = self.dot(go, r, z)?;
            self.update_direction(go, rz_new / rz)?;
            rz = rz_new;
        }
        if let Go::Prepare(_) = go {
            // The loop's tail sits after its exit test: prepare it too.
            self.update_direction(go, 0.0)?;
        }
        // The solution's own residual, from scratch.
        self.halo(go, x, WALL)?;
        self.apply(go, x, ap)?;
        let residual = go.reduce(
            "max residual",
            self.interior()?,
            kernel!(|(i, j), m: &mut f64| *m = m.max((u[(i, j)] - ap[(i, j)]).abs())),
            Max::<f64>::new(),
            0.0,
        )?;
        go.for_each(
            "u = x",
            self.interior()?,
            kernel!(|(i, j)| u[(i, j)] = x[(i, j)]),
        )?;
        Ok((iterations, residual))
    }

    /// Sums, extremes and counts of the temperature.
    fn diagnostics(&self, go: &mut Go) -> Result<Diagnostics> {
        let (u, rows, below) = (&self.u, &self.rows, &self.below);
        let mut d = Diagnostics {
            total: go.sum(
                "total heat",
                self.interior()?,
                kernel!(|(i, j), acc: &mut f64| *acc += u[(i, j)]),
            )?,
            ..Diagnostics::default()
        };
        d.hottest = go.reduce(
            "hottest",
            self.interior()?,
            kernel!(|(i, j), m: &mut f64| *m = m.max(u[(i, j)])),
            Max::<f64>::new(),
            0.0,
        )?;
        d.coldest = go.reduce(
            "coldest",
            self.interior()?,
            kernel!(|(i, j), m: &mut f64| *m = m.min(u[(i, j)])),
            Min::<f64>::new(),
            0.0,
        )?;
        let columns = RangePolicy::new(&self.exec, 1, NY + 1)?;
        d.at_walls = go.sum(
            "heat at the walls",
            columns,
            kernel!(|j, acc: &mut f64| *acc += u[(1, j)] + u[(NX, j)]),
        )?;
        let moment = go.sum(
            "moment",
            self.interior()?,
            kernel!(|(i, j), acc: &mut f64| *acc += i as f64 * u[(i, j)]),
        )?;
        d.centre = moment / d.total;
        d.warm_cells = go.reduce(
            "warm cells",
            self.interior()?,
            kernel!(|(i, j), n: &mut u64| *n += (u[(i, j)] > 10.0) as u64),
            Sum::<u64>::new(),
            0,
        )?;
        go.for_each(
            "row heat",
            RangePolicy::new(&self.exec, 0, NX)?,
            kernel!(|i| {
                let mut sum = 0.0;
                for j in 1..NY + 1 {
                    sum += u[(i + 1, j)];
                }
                rows[i] = sum;
            }),
        )?;
        let scan = kernel!(|i, partial: &mut f64, last: bool| {
            if last {
                below[i] = *partial;
            }
            *partial += rows[i];
        });
        let policy = RangePolicy::new(&self.exec, 0, NX)?;
        match go {
            Go::Run => {
                let _total: f64 = parallel_scan("heat below", policy, scan)?;
                let mirror = create_mirror_view(below)?;
                deep_copy(&mirror, below)?;
                d.before_last_row = mirror.get(NX - 1)?;
            }
            Go::Prepare(p) => {
                p.parallel_scan("heat below", &policy, &scan)?;
            }
        }
        Ok(d)
    }

    /// Every kernel, added to `prep` (walks the solver once without running it).
    fn prepare(&self, prep: &mut Prepare) -> Result<()> {
        let mut go = Go::Prepare(prep);
        self.initial_state(&mut go)?;
        self.step(&mut go)?;
        self.diagnostics(&mut go)?;
        Ok(())
    }
}

/// What one space computed: the final temperatures, and per step the CG iterations and the
/// diagnostics.
struct Outcome {
    u: Vec<f64>,
    steps: Vec<(usize, Diagnostics)>,
}

/// The implicit heat operator at `(i, j)`: `(1 + 4R)·v - R·(sum of the four neighbours)` (a device
/// function reading a View: kernels pass `&v`).
#[device]
fn operator(v: &View<f64, 2>, i: i64, j: i64) -> f64 {
    let near = v[(i - 1, j)] + v[(i + 1, j)] + v[(i, j - 1)] + v[(i, j + 1)];
    (1.0 + 4.0 * R) * v[(i, j)] - R * near
}

fn simulate<S: Launch>(exec: S, prepare: bool) -> Result<Outcome> {
    let name = exec.name();
    let heat = Heat::new(exec)?;
    if prepare {
        let mut prep = Prepare::new();
        if let Some(n) = std::env::var("HEAT_CG_THREADS")
            .ok()
            .and_then(|v| v.parse().ok())
        {
            prep.max_threads(n);
        }
        heat.prepare(&mut prep)?;
        let requests = prep.len();
        let report = prep.compile()?;
        if requests > 0 {
            println!(
                "{name:8} prepared {} kernels ({requests} requests) in {:.3} s, {} batches on {} \
                 threads: {} compiled, {} from the disk cache; {:.3} s of work, slowest {:.3} s",
                report.compiled + report.from_disk,
                report.elapsed.as_secs_f64(),
                report.batches,
                report.threads,
                report.compiled,
                report.from_disk,
                report.busy.as_secs_f64(),
                report.slowest.as_secs_f64(),
            );
        }
    }
    let mut go = Go::Run;
    heat.initial_state(&mut go)?;
    let mut steps = Vec::new();
    for n in 0..STEPS {
        let start = Instant::now();
        let (iterations, residual) = heat.step(&mut go)?;
        let d = heat.diagnostics(&mut go)?;
        let took = start.elapsed().as_secs_f64();
        assert!(residual < 1e-6, "{name}: step {n}: residual {residual}");
        if n == 0 || n == STEPS - 1 {
            println!(
                "{name:8} step {n}: {iterations} CG iterations (residual {residual:.1e}), total heat \
                 {:.6}, hottest {:.4}, {took:.4} s",
                d.total, d.hottest
            );
        }
        steps.push((iterations, d));
    }
    let mirror = create_mirror_view(&heat.u)?;
    deep_copy(&mirror, &heat.u)?;
    Ok(Outcome {
        u: mirror.to_vec()?,
        steps,
    })
}

/// Checks `got` against Serial's outcome: the same CG iteration counts, and temperatures within
/// `tol` (sums are reassociated on other spaces).
fn agree(space: &str, got: &Outcome, reference: &Outcome, tol: f64) {
    let close = |a: f64, b: f64| (a - b).abs() <= tol * b.abs().max(1.0);
    for (n, ((ia, a), (ib, b))) in got.steps.iter().zip(&reference.steps).enumerate() {
        assert_eq!(ia, ib, "{space}: step {n}: CG iterations");
        assert_eq!(a.warm_cells, b.warm_cells, "{space}: step {n}: warm cells");
        for (what, x, y) in [
            ("total", a.total, b.total),
            ("hottest", a.hottest, b.hottest),
            ("coldest", a.coldest, b.coldest),
            ("at the walls", a.at_walls, b.at_walls),
            ("centre", a.centre, b.centre),
            ("before the last row", a.before_last_row, b.before_last_row),
        ] {
            assert!(close(x, y), "{space}: step {n}: {what}: {x} vs {y}");
        }
    }
    let scale = reference.u.iter().fold(0.0f64, |m, v| m.max(v.abs()));
    for (k, (a, b)) in got.u.iter().zip(&reference.u).enumerate() {
        assert!(
            (a - b).abs() <= tol * scale,
            "{space}: cell {k}: {a} vs {b}"
        );
    }
    println!("{space:8} agrees with Serial within {tol:e}");
}

fn main() -> Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::from_env()?)?;
    let prepare = !std::env::args().any(|a| a == "--no-prepare");

    let reference = simulate(Serial::default_instance()?, prepare)?;
    // Heat leaves through the walls only: the total falls every step; the rows below the last
    // hold all the heat but the last row's; the hot spot cools and spreads.
    let steps = &reference.steps;
    for pair in steps.windows(2) {
        assert!(
            pair[1].1.total < pair[0].1.total,
            "the total heat must fall: {pair:?}"
        );
        assert!(
            pair[1].1.hottest < pair[0].1.hottest,
            "the hot spot must cool: {pair:?}"
        );
    }
    for (_, d) in steps {
        assert!(
            d.before_last_row < d.total && d.before_last_row > 0.9 * d.total,
            "{d:?}"
        );
        assert!(
            d.coldest >= WALL - 1e-9 && d.centre > 0.0 && d.centre < NX as f64,
            "{d:?}"
        );
    }
    assert!(steps.iter().all(|s| s.0 > 1 && s.0 < 1000));

    agree(
        "Threads:",
        &simulate(Threads::default_instance()?, prepare)?,
        &reference,
        1e-9,
    );

    #[cfg(feature = "cuda")]
    match ferrokkos::Cuda::default_instance() {
        Ok(cuda) => agree("Cuda:", &simulate(cuda, prepare)?, &reference, 1e-9),
        Err(e) if std::env::var_os("FERROKKOS_REQUIRE_CUDA").is_some_and(|v| v == "1") => {
            return Err(e);
        }
        Err(e) => println!("Cuda:    skipped ({e})"),
    }
    Ok(())
}
