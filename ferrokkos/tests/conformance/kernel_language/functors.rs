//! Functor structs (`#[functor]` methods): a struct's members are the kernel's captures and a
//! method's body is the kernel, for `parallel_for` (Range and MDRange), `parallel_reduce` (one and
//! several accumulators) and `parallel_scan`, on every space, against plain Rust; a functor is
//! prepared like any kernel.

use crate::spaces::{SView, download, upload};
use ferrokkos::prelude::*;
use ferrokkos::{Result, device, functor};

/// A 5-point Jacobi sweep over a 2D grid with a fixed border: Kokkos' functor, members as data.
struct Jacobi<S: Launch> {
    u: SView<S, f64, 2>,
    next: SView<S, f64, 2>,
    weight: f64,
    values: SView<S, i64, 1>,
    offsets: SView<S, i64, 1>,
}

impl<S: Launch> Jacobi<S> {
    #[functor]
    fn sweep(&self, (i, j): (i64, i64)) {
        let near =
            self.u[(i - 1, j)] + self.u[(i + 1, j)] + self.u[(i, j - 1)] + self.u[(i, j + 1)];
        self.next[(i, j)] = (1.0 - self.weight) * self.u[(i, j)] + self.weight * 0.25 * near;
    }

    /// The same sweep through device functions: one reads the View `u`, one writes the element
    /// `next[(i, j)]` it is given.
    #[functor]
    fn sweep_by_functions(&self, (i, j): (i64, i64)) {
        blend(
            &mut self.next[(i, j)],
            self.u[(i, j)],
            neighbour_sum(&self.u, i, j),
            self.weight,
        );
    }

    #[functor]
    fn change(&self, (i, j): (i64, i64), acc: &mut f64) {
        let d = self.next[(i, j)] - self.u[(i, j)];
        *acc += d * d;
    }

    #[functor]
    fn extremes(&self, i: usize, lo: &mut i64, hi: &mut i64) {
        *lo = (*lo).min(self.values[i]);
        *hi = (*hi).max(self.values[i]);
    }

    #[functor]
    fn offsets(&self, i: usize, partial: &mut i64, last: bool) {
        if last {
            self.offsets[i] = *partial;
        }
        *partial += self.values[i];
    }
}

/// The sum of the four neighbours of `(i, j)`.
#[device]
fn neighbour_sum(u: &View<f64, 2>, i: i64, j: i64) -> f64 {
    u[(i - 1, j)] + u[(i + 1, j)] + u[(i, j - 1)] + u[(i, j + 1)]
}

/// Sets `cell` to the weighted Jacobi update.
#[device]
fn blend(cell: &mut f64, centre: f64, near: f64, weight: f64) {
    *cell = (1.0 - weight) * centre + weight * 0.25 * near;
}

/// The grid's starting values: a smooth bump, zero on the border.
fn grid(n: usize) -> Vec<f64> {
    let mut g = vec![0.0; n * n];
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            g[i * n + j] = ((i * j) % 17) as f64 - 3.0;
        }
    }
    g
}

fn functor_structs_run_their_methods_as_kernels<S: Launch>(exec: &S) -> Result<()> {
    let n = 40usize;
    let start = grid(n);
    let counts: Vec<i64> = (0..1000).map(|i| (i * 37 % 11) as i64 - 5).collect();
    let f = Jacobi::<S> {
        u: crate::spaces::upload_nd::<S, f64, 2, LayoutRight>("u", [n, n], &start)?,
        next: SView::<S, f64, 2>::new("next", [n, n])?,
        weight: 0.8,
        values: upload::<S, i64>("values", &counts)?,
        offsets: SView::<S, i64, 1>::new("offsets", [counts.len()])?,
    };
    let interior = MDRangePolicy::new(exec, [1, 1], [n as i64 - 1, n as i64 - 1])?;
    let range = RangePolicy::new(exec, 0, counts.len())?;

    // Prepared like any kernel (on Cuda: compiled before the launches).
    Prepare::new()
        .parallel_for("sweep", &interior, &f.sweep())?
        .parallel_reduce("change", &interior, &f.change(), Sum::<f64>::new())?
        .compile()?;

    parallel_for("sweep", interior.clone(), f.sweep())?;
    let change = parallel_reduce("change", interior, f.change(), Sum::new())?;
    let (lo, hi) = parallel_reduce(
        "extremes",
        range.clone(),
        f.extremes(),
        (Min::new(), Max::new()),
    )?;
    let total: i64 = parallel_scan("offsets", range, f.offsets())?;

    let mut want = vec![0.0; n * n];
    let mut want_change = 0.0;
    for i in 1..n - 1 {
        for j in 1..n - 1 {
            let u = |a: usize, b: usize| start[a * n + b];
            let near = u(i - 1, j) + u(i + 1, j) + u(i, j - 1) + u(i, j + 1);
            want[i * n + j] = 0.2 * u(i, j) + 0.8 * 0.25 * near;
            want_change += (want[i * n + j] - u(i, j)).powi(2);
        }
    }
    let got = download(&f.next)?;
    for (k, (a, b)) in got.iter().zip(&want).enumerate() {
        assert!(
            (a - b).abs() <= 1e-12 * b.abs().max(1.0),
            "cell {k}: {a} vs {b}"
        );
    }
    deep_copy(&f.next, 0.0)?;
    parallel_for(
        "sweep by functions",
        MDRangePolicy::new(exec, [1, 1], [n as i64 - 1, n as i64 - 1])?,
        f.sweep_by_functions(),
    )?;
    assert_eq!(download(&f.next)?, got);
    assert!(
        (change - want_change).abs() <= 1e-9 * want_change,
        "{change} {want_change}"
    );
    assert_eq!((lo, hi), (-5, 5));
    let mut running = 0;
    let want_offsets: Vec<i64> = counts
        .iter()
        .map(|c| {
            let o = running;
            running += c;
            o
        })
        .collect();
    assert_eq!(total, running);
    assert_eq!(download(&f.offsets)?, want_offsets);
    Ok(())
}
per_space!(
    functor_structs_run_their_methods_as_kernels,
    functor_structs_run_their_methods_as_kernels
);
