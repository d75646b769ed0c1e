//! A functor-struct stencil, written the Kokkos way: a struct holds the Views and parameters, and
//! its `#[functor]` methods are the kernels (explicit diffusion on a periodic 2D grid with one layer
//! of halo cells). The halo update writes halo cells and reads interior cells of the same View
//! without `unsafe`: each launch proves the two apart from its bounds. Runs on every execution space
//! (Serial, Threads, and Cuda when a GPU is present) and compares against Serial.
//!
//! ```text
//! cargo run --release -p ferrokkos --example stencil
//! ```
//! With `FERROKKOS_REQUIRE_CUDA=1` a missing GPU is an error instead of a skipped space.

use ferrokkos::prelude::*;
use ferrokkos::{Result, functor};

const NX: usize = 128;
const NY: usize = 96;
const STEPS: usize = 50;

type Field<S> = View<f64, 2, LayoutRight, <S as ExecutionSpace>::MemorySpace>;

/// The diffusion functor: the field, its next state, and the diffusion number `alpha`.
struct Diffusion<S: Launch> {
    u: Field<S>,
    next: Field<S>,
    alpha: f64,
    /// The last interior row and column (the halo is row and column 0 and `last + 1`).
    last_row: usize,
    last_col: usize,
}

impl<S: Launch> Diffusion<S> {
    /// A warm square and a hot spot.
    #[functor]
    fn init(&self, (i, j): (i64, i64)) {
        let square = i > 20 && i < 50 && j > 30 && j < 70;
        let spot = (i - 90) * (i - 90) + (j - 40) * (j - 40) < 64;
        self.u[(i, j)] = if spot {
            100.0
        } else if square {
            25.0
        } else {
            0.0
        };
    }

    /// Periodic halo columns: row `i` copies its last interior cell into its left halo cell and its
    /// first into its right one.
    #[functor]
    fn halo_columns(&self, i: usize) {
        self.u[(i, 0)] = self.u[(i, self.last_col)];
        self.u[(i, self.last_col + 1)] = self.u[(i, 1)];
    }

    /// Periodic halo rows (the corners come along, since the columns are done first).
    #[functor]
    fn halo_rows(&self, j: usize) {
        self.u[(0, j)] = self.u[(self.last_row, j)];
        self.u[(self.last_row + 1, j)] = self.u[(1, j)];
    }

    /// One explicit step of the 5-point stencil into `next`.
    #[functor]
    fn step(&self, (i, j): (i64, i64)) {
        let near =
            self.u[(i - 1, j)] + self.u[(i + 1, j)] + self.u[(i, j - 1)] + self.u[(i, j + 1)];
        self.next[(i, j)] = self.u[(i, j)] + self.alpha * (near - 4.0 * self.u[(i, j)]);
    }

    /// `u = next` on the interior.
    #[functor]
    fn accept(&self, (i, j): (i64, i64)) {
        self.u[(i, j)] = self.next[(i, j)];
    }

    /// The total heat of the interior (conserved on a periodic grid).
    #[functor]
    fn heat(&self, (i, j): (i64, i64), acc: &mut f64) {
        *acc += self.u[(i, j)];
    }
}

/// The final field and the heat after each step.
struct Outcome {
    u: Vec<f64>,
    heat: Vec<f64>,
}

fn run<S: Launch>(exec: &S) -> Result<Outcome> {
    let f = Diffusion::<S> {
        u: Field::<S>::new("u", [NX + 2, NY + 2])?,
        next: Field::<S>::new("next", [NX + 2, NY + 2])?,
        alpha: 0.2,
        last_row: NX,
        last_col: NY,
    };
    let interior = MDRangePolicy::new(exec, [1, 1], [NX as i64 + 1, NY as i64 + 1])?;
    let rows = RangePolicy::new(exec, 1, NX + 1)?;
    let columns = RangePolicy::new(exec, 0, NY + 2)?;
    Prepare::new()
        .parallel_for("init", &interior, &f.init())?
        .parallel_for("halo columns", &rows, &f.halo_columns())?
        .parallel_for("halo rows", &columns, &f.halo_rows())?
        .parallel_for("step", &interior, &f.step())?
        .parallel_for("accept", &interior, &f.accept())?
        .parallel_reduce("heat", &interior, &f.heat(), Sum::<f64>::new())?
        .compile()?;
    parallel_for("init", interior.clone(), f.init())?;
    let mut heat = Vec::new();
    for _ in 0..STEPS {
        parallel_for("halo columns", rows.clone(), f.halo_columns())?;
        parallel_for("halo rows", columns.clone(), f.halo_rows())?;
        parallel_for("step", interior.clone(), f.step())?;
        parallel_for("accept", interior.clone(), f.accept())?;
        heat.push(parallel_reduce(
            "heat",
            interior.clone(),
            f.heat(),
            Sum::new(),
        )?);
    }
    let mirror = create_mirror_view(&f.u)?;
    deep_copy(&mirror, &f.u)?;
    Ok(Outcome {
        u: mirror.to_vec()?,
        heat,
    })
}

fn agree(space: &str, got: &Outcome, reference: &Outcome) {
    // The stencil's arithmetic is the same on every space (no contraction on the GPU); only the
    // heat sums are reassociated.
    assert_eq!(got.u, reference.u, "{space}: the fields differ");
    for (n, (a, b)) in got.heat.iter().zip(&reference.heat).enumerate() {
        assert!(
            (a - b).abs() <= 1e-9 * b.abs(),
            "{space}: step {n}: {a} vs {b}"
        );
    }
    println!("{space:8} identical field, heat within 1e-9 of Serial");
}

fn main() -> Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::from_env()?)?;
    let reference = run(&Serial::default_instance()?)?;
    let (first, last) = (reference.heat[0], reference.heat[STEPS - 1]);
    // A periodic grid loses no heat, and diffusion flattens the peak.
    assert!(
        (first - last).abs() <= 1e-9 * first,
        "heat {first} -> {last}"
    );
    let peak = reference.u.iter().fold(0.0f64, |m, v| m.max(*v));
    assert!(peak < 100.0 && peak > 1.0, "peak {peak}");
    println!("Serial:  {STEPS} steps on {NX}x{NY}, heat {last:.6} (conserved), peak {peak:.3}");

    agree("Threads:", &run(&Threads::default_instance()?)?, &reference);

    #[cfg(feature = "cuda")]
    match ferrokkos::Cuda::default_instance() {
        Ok(cuda) => agree("Cuda:", &run(&cuda)?, &reference),
        Err(e) if std::env::var_os("FERROKKOS_REQUIRE_CUDA").is_some_and(|v| v == "1") => {
            return Err(e);
        }
        Err(e) => println!("Cuda:    skipped ({e})"),
    }
    Ok(())
}
