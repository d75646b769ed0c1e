//! The header, the table of times per step and per iteration with their effective bandwidths, the
//! validation outcome, the comparison of ferrokkos with the peers, and the CSV form.

use super::problem::{C0, C1, C2, Grid, KERNELS, Kernel};
use super::validate::CG_TOLERANCE;
use crate::timing::{Times, csv_rate, csv_seconds};

/// One implementation's results, ready to print.
pub struct Line {
    /// The full name.
    pub name: String,
    /// The short name, for the tables.
    pub short: &'static str,
    /// Whether it is ferrokkos (the others are peers).
    pub ferrokkos: bool,
    /// Seconds per unit (sweep step, CG iteration) of each timed run, per kernel of [`KERNELS`].
    pub times: [Times; 3],
    /// What failed validation (empty: passed).
    pub failures: Vec<String>,
}

/// What the tables need to know about the run.
pub struct Setup {
    /// The grid.
    pub grid: Grid,
    /// Sweep steps per run.
    pub steps: usize,
    /// CG iterations per run.
    pub iters: usize,
    /// Timed runs per implementation.
    pub runs: usize,
}

impl Setup {
    /// The effective bandwidth, in GB/s (10^9 bytes), of a unit of `kernel` taking `seconds`.
    pub fn rate(&self, kernel: Kernel, seconds: f64) -> f64 {
        (kernel.bytes_per_cell() * self.grid.interior()) as f64 / seconds / 1e9
    }

    /// The header: the grid, the kernels and how they are timed.
    pub fn print_header(&self, space: &str) {
        let (n, w) = (self.grid.n, self.grid.width());
        println!("ferrokkos stencil {}", env!("CARGO_PKG_VERSION"));
        println!(
            "Grid: {n} x {n} interior cells and one halo layer: {w} x {w} f64, row-major \
             ({:.1} MB a field)",
            (self.grid.cells() * 8) as f64 / 1e6
        );
        println!(
            "sweep: v = {C0} u + {C1} (4 edge neighbours) + {C2} (4 corners) on the interior, \
             halo fixed (Dirichlet), two fields taking turns; {} steps a run",
            self.steps
        );
        println!(
            "cg: conjugate gradients on the 5-point Laplacian of the interior (zero halo), from \
             x = 0; {} iterations a run, each one operator apply, two dot products and three \
             updates, no convergence test",
            self.iters
        );
        println!(
            "tea: TeaLeaf-shaped CG: TeaLeaf's operator (variable face coefficients) from u = 0; {} \
             iterations a run, each three kernels: the operator with p.w, u and r with r.r, p",
            self.iters
        );
        println!(
            "Bytes: sweep {}; cg {}; tea {}",
            Kernel::Sweep.bytes_formula(),
            Kernel::Cg.bytes_formula(),
            Kernel::Tea.bytes_formula()
        );
        println!(
            "Space: {space}; {} timed runs per implementation after one warm-up, the \
             implementations taking turns",
            self.runs
        );
        println!();
    }

    /// The names, the table of times and bandwidths, notes, and the validation outcome.
    pub fn print_table(&self, lines: &[Line], notes: &[String]) {
        let width = lines
            .iter()
            .map(|l| l.short.len())
            .max()
            .unwrap_or(0)
            .max(10);
        println!("Implementations:");
        for l in lines {
            println!("  {:<width$}  {}", l.short, l.name);
        }
        for note in notes {
            println!("  {note}");
        }
        println!();
        println!(
            "{:<7}{:<width$}{:>13}{:>13}{:>13}{:>13}",
            "kernel", "", "best (ms)", "median (ms)", "GB/s (best)", "GB/s (med.)"
        );
        for (k, &kernel) in KERNELS.iter().enumerate() {
            for l in lines {
                let (best, median) = (l.times[k].best(), l.times[k].median());
                let (best, median) = (csv_seconds(best), csv_seconds(median));
                println!(
                    "{:<7}{:<width$}{:>13.4}{:>13.4}{:>13.2}{:>13.2}",
                    kernel.label(),
                    l.short,
                    best * 1e3,
                    median * 1e3,
                    self.rate(kernel, best),
                    self.rate(kernel, median)
                );
            }
        }
        println!("(times per sweep step and per CG iteration)");
        println!();
        let failed: Vec<&Line> = lines.iter().filter(|l| !l.failures.is_empty()).collect();
        if lines.len() < 2 {
            println!("Validation: nothing to compare with (no peers)");
        } else if failed.is_empty() {
            println!(
                "Validation: passed (every sweep's field equals ferrokkos' bit for bit; both CGs' \
                 residual norms and solutions within {CG_TOLERANCE:e} relative of ferrokkos')"
            );
        } else {
            for l in failed {
                for f in &l.failures {
                    println!("Validation FAILED: {}: {f}", l.short);
                }
            }
        }
        println!();
    }

    /// Peer time / ferrokkos time of the fastest and of the median runs of each kernel (above 1:
    /// ferrokkos is faster). Nothing without peers.
    pub fn print_comparison(&self, lines: &[Line]) {
        let Some(ours) = lines.iter().find(|l| l.ferrokkos) else {
            return;
        };
        let peers: Vec<&Line> = lines.iter().filter(|l| !l.ferrokkos).collect();
        if peers.is_empty() {
            return;
        }
        println!(
            "Comparison: peer time / ferrokkos time of the fastest (best) and of the median run \
             (above 1: ferrokkos is faster)"
        );
        let column = |p: &Line| (p.short.len() + 10).max(16);
        print!("{:<7}", "kernel");
        for p in &peers {
            let name = format!("vs {} best", p.short);
            print!("{name:>w$}{:>9}", "median", w = column(p));
        }
        println!();
        for (k, kernel) in KERNELS.iter().enumerate() {
            print!("{:<7}", kernel.label());
            for p in &peers {
                print!(
                    "{:>w$.3}x{:>8.3}x",
                    p.times[k].best() / ours.times[k].best(),
                    p.times[k].median() / ours.times[k].median(),
                    w = column(p) - 1
                );
            }
            println!();
        }
        println!();
    }

    /// One CSV row per implementation and kernel.
    pub fn print_csv(&self, lines: &[Line]) {
        println!(
            "implementation,kernel,n,per_run,runs,best_seconds,median_seconds,best_gb_per_sec,\
             validation"
        );
        for (k, &kernel) in KERNELS.iter().enumerate() {
            let per_run = match kernel {
                Kernel::Sweep => self.steps,
                Kernel::Cg | Kernel::Tea => self.iters,
            };
            for l in lines {
                let (best, median) = (l.times[k].best(), l.times[k].median());
                let (best, median) = (csv_seconds(best), csv_seconds(median));
                println!(
                    "{},{},{},{per_run},{},{best},{median},{},{}",
                    l.short,
                    kernel.label(),
                    self.grid.n,
                    self.runs,
                    csv_rate(self.rate(kernel, best)),
                    if l.failures.is_empty() {
                        "passed"
                    } else {
                        "FAILED"
                    }
                );
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_count_the_interior_cells() {
        let s = Setup {
            grid: Grid { n: 1000 },
            steps: 1,
            iters: 1,
            runs: 1,
        };
        // 16 B x 10^6 cells in 1 ms: 16 GB/s.
        assert_eq!(s.rate(Kernel::Sweep, 1e-3), 16.0);
        assert_eq!(s.rate(Kernel::Cg, 1e-3), 112.0);
    }
}
