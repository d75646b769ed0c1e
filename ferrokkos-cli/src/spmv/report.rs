//! The times of each implementation, their summary (best and median time per product, effective
//! bandwidth, error against the reference) and the comparison of the ferrokkos lines with the
//! peers.

use super::matrix::BYTES_FORMULA;
use super::validate::{ERROR_FORMULA, TOLERANCE, passes};
pub use crate::timing::Times;

/// One implementation's results, ready to print.
pub struct Line {
    /// The full name.
    pub name: String,
    /// The short name, for the table and the comparison.
    pub short: &'static str,
    /// Whether it is one of ferrokkos' implementations (the others are peers).
    pub ferrokkos: bool,
    /// The timed products.
    pub times: Times,
    /// Its y's relative error against the reference.
    pub error: f64,
}

/// What the tables need to know about the problem.
pub struct Problem {
    /// Grid size n.
    pub n: usize,
    /// Rows (n^3).
    pub rows: usize,
    /// Nonzeros.
    pub nnz: usize,
    /// Bytes one product moves.
    pub bytes: usize,
    /// Timed products per implementation.
    pub runs: usize,
}

impl Problem {
    /// The effective bandwidth, in GB/s (10^9 bytes), of a product taking `seconds`.
    pub fn rate(&self, seconds: f64) -> f64 {
        self.bytes as f64 / seconds / 1e9
    }

    /// The header: the matrix, the bytes per product and how it is timed.
    pub fn print_header(&self, space: &str) {
        println!("ferrokkos spmv {}", env!("CARGO_PKG_VERSION"));
        println!(
            "Matrix: 3D 7-point Laplacian on a {n} x {n} x {n} grid (Dirichlet boundaries): {} \
             rows, {} nonzeros; CSR with u32 row offsets, u32 column indices, f64 values",
            self.rows,
            self.nnz,
            n = self.n
        );
        println!(
            "Bytes per product: {:.1} MB = {BYTES_FORMULA}",
            self.bytes as f64 / 1e6
        );
        println!(
            "Space: {space}; {} timed products per implementation after one warm-up, the \
             implementations taking turns",
            self.runs
        );
        println!();
    }

    /// The names, the table of times, bandwidths and errors, what did not run and why, and the
    /// validation outcome.
    pub fn print_table(&self, lines: &[Line], not_run: &[(String, String)]) {
        let width = lines
            .iter()
            .map(|l| l.short.len())
            .max()
            .unwrap_or(0)
            .max(14);
        println!("Implementations:");
        for l in lines {
            println!("  {:<width$}  {}", l.short, l.name);
        }
        for (name, why) in not_run {
            println!("  not run: {name}: {why}");
        }
        println!();
        println!(
            "{:<width$}{:>12}{:>12}{:>13}{:>13}{:>12}",
            "", "best (ms)", "median (ms)", "GB/s (best)", "GB/s (med.)", "rel. error"
        );
        for l in lines {
            let (best, median) = (l.times.best(), l.times.median());
            println!(
                "{:<width$}{:>12.3}{:>12.3}{:>13.2}{:>13.2}{:>12.1e}",
                l.short,
                best * 1e3,
                median * 1e3,
                self.rate(best),
                self.rate(median),
                l.error
            );
        }
        println!();
        let failed: Vec<&Line> = lines.iter().filter(|l| !passes(l.error)).collect();
        if failed.is_empty() {
            println!(
                "Validation: passed (every y within {TOLERANCE:e} of the serial reference, \
                 relative error = {ERROR_FORMULA})"
            );
        } else {
            for l in failed {
                println!(
                    "Validation FAILED: {}: relative error {:.2e} > {TOLERANCE:e} \
                     ({ERROR_FORMULA})",
                    l.name, l.error
                );
            }
        }
        println!();
    }

    /// For each ferrokkos line and each peer, peer time / ferrokkos time of the fastest and of the
    /// median products (above 1: ferrokkos is faster). Nothing without peers.
    pub fn print_comparison(&self, lines: &[Line]) {
        let ours: Vec<&Line> = lines.iter().filter(|l| l.ferrokkos).collect();
        let peers: Vec<&Line> = lines.iter().filter(|l| !l.ferrokkos).collect();
        if ours.is_empty() || peers.is_empty() {
            return;
        }
        println!(
            "Comparison: peer time / ferrokkos time of the fastest (best) and of the median \
             product (above 1: ferrokkos is faster)"
        );
        let column = |p: &Line| (p.short.len() + 10).max(16);
        print!("{:<16}", "");
        for p in &peers {
            print!(
                "{:>w$}{:>9}",
                format!("vs {} best", p.short),
                "median",
                w = column(p)
            );
        }
        println!();
        for o in &ours {
            print!("{:<16}", o.short);
            for p in &peers {
                print!(
                    "{:>w$.3}x{:>8.3}x",
                    p.times.best() / o.times.best(),
                    p.times.median() / o.times.median(),
                    w = column(p) - 1
                );
            }
            println!();
        }
        println!();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn rates_are_bytes_per_second_in_gb() {
        let p = Problem {
            n: 1,
            rows: 1,
            nnz: 1,
            bytes: 2_000_000_000,
            runs: 1,
        };
        assert_eq!(p.rate(0.5), 4.0);
    }
}
