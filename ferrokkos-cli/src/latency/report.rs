//! The output of `ferrokkos latency`: a readable table, or CSV rows.

use super::measure::{Figures, Kinds, PATTERNS, WARM_UP};

/// The results for one loop length and one capture size.
pub struct Block {
    /// The loop length N.
    pub n: usize,
    /// The size in bytes of the array the kernels capture.
    pub capture: usize,
    /// Launches per timed loop.
    pub m: usize,
    /// ferrokkos' figures.
    pub ferrokkos: Kinds,
    /// rayon's figures, with `--compare`.
    pub rayon: Option<Kinds>,
}

/// Prints the results as they come, as a table or as CSV.
pub struct Report {
    /// CSV rows instead of a table.
    csv: bool,
    /// Whether rayon's figures are printed.
    compare: bool,
    /// The execution space's name.
    space: &'static str,
    /// Its thread count.
    threads: usize,
}

/// The width of one figure's column; the figures of one implementation take three, one space apart.
const WIDTH: usize = 10;

impl Report {
    /// A report on `space` with `threads` threads.
    pub fn new(csv: bool, compare: bool, space: &'static str, threads: usize) -> Report {
        Report {
            csv,
            compare,
            space,
            threads,
        }
    }

    /// Prints the title and the column headers.
    pub fn header(&self) {
        if self.csv {
            println!(
                "space,threads,pattern,n,capture_bytes,implementation,m,dispatch_us,throughput_us,latency_us"
            );
            return;
        }
        let plural = if self.threads == 1 { "" } else { "s" };
        println!(
            "ferrokkos latency: {}, {} thread{plural} (microseconds per launch; Kokkos launch_latency figures)",
            self.space, self.threads
        );
        println!(
            "dispatch = (M launches) / M, throughput = (M launches + fence) / M, \
             latency = M x (launch + fence) / M; {WARM_UP} warm-up launches each"
        );
        println!();
        let figures = format!(
            "{:>WIDTH$} {:>WIDTH$} {:>WIDTH$}",
            "dispatch", "throughput", "latency"
        );
        let row = format!(
            "{:<22}{:>8}{:>9}{:>7}  {figures}",
            "pattern", "N", "capture", "M"
        );
        if self.compare {
            let span = 3 * WIDTH + 2;
            let titles = ["ferrokkos", "rayon", "rayon / ferrokkos"]
                .map(|t| format!("{:-^span$}", format!(" {t} ")))
                .join("  ");
            println!("{:46}  {titles}", "");
            println!("{row}  {figures}  {figures}");
        } else {
            println!("{row}");
        }
    }

    /// Prints the rows of one loop length and capture size.
    pub fn block(&self, block: &Block) {
        for (kind, pattern) in PATTERNS.iter().enumerate() {
            let ferrokkos = &block.ferrokkos[kind];
            let rayon = block.rayon.as_ref().map(|r| &r[kind]);
            if self.csv {
                self.csv_row(block, pattern, "ferrokkos", ferrokkos);
                if let Some(rayon) = rayon {
                    self.csv_row(block, pattern, "rayon", rayon);
                }
                continue;
            }
            let mut line = format!(
                "{pattern:<22}{:>8}{:>9}{:>7}  {}",
                block.n,
                capture_label(block.capture),
                block.m,
                columns(ferrokkos)
            );
            if let Some(rayon) = rayon {
                let ratio = Figures {
                    dispatch: rayon.dispatch / ferrokkos.dispatch,
                    throughput: rayon.throughput / ferrokkos.throughput,
                    latency: rayon.latency / ferrokkos.latency,
                };
                line = format!("{line}  {}  {}", columns(rayon), columns(&ratio));
            }
            println!("{line}");
        }
    }

    /// Prints one CSV row.
    fn csv_row(&self, block: &Block, pattern: &str, implementation: &str, f: &Figures) {
        println!(
            "{},{},{pattern},{},{},{implementation},{},{:.4},{:.4},{:.4}",
            self.space,
            self.threads,
            block.n,
            block.capture,
            block.m,
            f.dispatch,
            f.throughput,
            f.latency
        );
    }
}

/// The three figures in table columns.
fn columns(f: &Figures) -> String {
    format!(
        "{:>WIDTH$.2} {:>WIDTH$.2} {:>WIDTH$.2}",
        f.dispatch, f.throughput, f.latency
    )
}

/// A byte count for the table: `8 B`, `1.6 kB`, `24 kB`.
fn capture_label(bytes: usize) -> String {
    let kb = bytes as f64 / 1000.0;
    if bytes < 1000 {
        format!("{bytes} B")
    } else if kb < 10.0 {
        format!("{kb:.1} kB")
    } else {
        format!("{kb:.0} kB")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn capture_labels() {
        let labels = [8, 999, 1600, 24_000].map(capture_label);
        assert_eq!(labels, ["8 B", "999 B", "1.6 kB", "24 kB"]);
    }
}
