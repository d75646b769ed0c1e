//! Timings per kernel, validation against the analytic results, and BabelStream's tables.

use super::float::StreamFloat;
use super::kernel::{Gold, Kernel};
use crate::timing::{csv_rate, csv_seconds};

/// The times of one kernel over all repetitions of one implementation.
#[derive(Debug, Clone, Default)]
pub struct Times(pub Vec<f64>);

impl Times {
    /// Whether the kernel ran at all (the memcpy peer runs Copy only).
    pub fn ran(&self) -> bool {
        !self.0.is_empty()
    }

    /// Min, max and average seconds, the first repetition excluded (BabelStream's rule).
    pub fn stats(&self) -> (f64, f64, f64) {
        let kept = &self.0[1.min(self.0.len())..];
        let min = kept.iter().copied().fold(f64::INFINITY, f64::min);
        let max = kept.iter().copied().fold(0.0, f64::max);
        let avg = kept.iter().sum::<f64>() / kept.len().max(1) as f64;
        (min, max, avg)
    }

    /// The median seconds, the first repetition excluded: a typical repetition, robust to the
    /// outliers of a shared machine.
    pub fn median(&self) -> f64 {
        let mut kept = self.0[1.min(self.0.len())..].to_vec();
        kept.sort_by(f64::total_cmp);
        match kept.len() {
            0 => f64::NAN,
            n if n % 2 == 1 => kept[n / 2],
            n => (kept[n / 2 - 1] + kept[n / 2]) / 2.0,
        }
    }
}

/// Bytes per "MByte" in the tables: 10^6, or 2^20 with `--mibibytes`.
#[derive(Debug, Clone, Copy)]
pub struct Unit {
    /// Whether MiB (2^20) are used.
    pub mibibytes: bool,
}

impl Unit {
    /// The unit's name in the table header.
    pub fn rate_name(self) -> &'static str {
        if self.mibibytes {
            "MiBytes/sec"
        } else {
            "MBytes/sec"
        }
    }

    /// Bytes to the table's unit.
    pub fn scale(self) -> f64 {
        if self.mibibytes {
            1.0 / (1u64 << 20) as f64
        } else {
            1e-6
        }
    }

    /// The bandwidth of moving `bytes` in `seconds`.
    pub fn rate(self, bytes: usize, seconds: f64) -> f64 {
        bytes as f64 * self.scale() / seconds
    }
}

/// Checks the final arrays and dot result against the gold values with BabelStream's tolerances: every
/// element within 100 epsilons (relative), the dot product within 10^7 epsilons. Returns the failures
/// (empty: valid).
pub fn validate<T: StreamFloat>(
    gold: &Gold<T>,
    kernels: &[Kernel],
    arrays: [&[T]; 3],
    dot: Option<T>,
) -> Vec<String> {
    let max_rel = T::EPSILON.to_f64() * 100.0;
    let max_rel_dot = T::EPSILON.to_f64() * 1e7;
    let close = |is: f64, should: f64, rel: f64| {
        !is.is_nan() && (is - should).abs() <= is.abs().max(should.abs()) * rel
    };
    let mut failures = Vec::new();
    if kernels.contains(&Kernel::Dot) {
        match dot {
            Some(sum) if close(sum.to_f64(), gold.sum.to_f64(), max_rel_dot) => {}
            Some(sum) => failures.push(format!(
                "sum: {sum} (is) != {} (should), relative tolerance {max_rel_dot:e}",
                gold.sum
            )),
            None => failures.push("sum: the dot kernel never ran".into()),
        }
    }
    let should = [gold.a, gold.b, gold.c];
    for ((name, values), should) in ["a", "b", "c"].iter().zip(arrays).zip(should) {
        let bad = values
            .iter()
            .position(|v| !close(v.to_f64(), should.to_f64(), max_rel));
        if let Some(i) = bad {
            failures.push(format!(
                "{name}[{i}]: {} (is) != {should} (should), relative tolerance {max_rel:e}",
                values[i]
            ));
        }
    }
    failures
}

/// One implementation's results, ready to print.
pub struct Report {
    /// The implementation's full name.
    pub name: String,
    /// Its short name for the comparison table and CSV.
    pub short: &'static str,
    /// Times per selected kernel.
    pub times: Vec<Times>,
    /// Validation failures.
    pub failures: Vec<String>,
}

/// What the tables need to know about the run.
pub struct Shape {
    /// The selected kernels.
    pub kernels: Vec<Kernel>,
    /// Repetitions.
    pub reps: usize,
    /// Elements per array.
    pub n: usize,
    /// `sizeof(T)`.
    pub size_of: usize,
    /// The rate unit.
    pub unit: Unit,
}

impl Shape {
    /// The bytes kernel `k` moves.
    fn bytes(&self, k: Kernel) -> usize {
        k.weight() * self.size_of * self.n
    }

    /// BabelStream's table for one implementation, and its validation outcome.
    pub fn print_table(&self, r: &Report) {
        println!("Implementation: {}", r.name);
        println!(
            "{:<12}{:<12}{:<12}{:<12}{:<12}",
            "Function",
            self.unit.rate_name(),
            "Min (sec)",
            "Max",
            "Average"
        );
        for (k, t) in self.kernels.iter().zip(&r.times).filter(|(_, t)| t.ran()) {
            let (min, max, avg) = t.stats();
            println!(
                "{:<12}{:<12.3}{:<12.5}{:<12.5}{:<12.5}",
                k.label(),
                self.unit.rate(self.bytes(*k), min),
                min,
                max,
                avg
            );
        }
        if r.failures.is_empty() {
            println!("Validation: passed (arrays and dot result match the analytic values)");
        } else {
            for f in &r.failures {
                println!("Validation FAILED: {f}");
            }
        }
        println!();
    }

    /// BabelStream's CSV rows (with a leading implementation column when several are compared).
    pub fn print_csv(&self, reports: &[Report]) {
        let several = reports.len() > 1;
        let rate = if self.unit.mibibytes {
            "max_mibytes_per_sec"
        } else {
            "max_mbytes_per_sec"
        };
        if several {
            print!("implementation,");
        }
        println!("function,num_times,n_elements,sizeof,{rate},min_runtime,max_runtime,avg_runtime");
        for r in reports {
            for (k, t) in self.kernels.iter().zip(&r.times).filter(|(_, t)| t.ran()) {
                let (min, max, avg) = t.stats();
                if several {
                    print!("{},", r.short);
                }
                println!(
                    "{},{},{},{},{},{},{},{}",
                    k.label(),
                    self.reps,
                    self.n,
                    self.size_of,
                    csv_rate(self.unit.rate(self.bytes(*k), min)),
                    csv_seconds(min),
                    csv_seconds(max),
                    csv_seconds(avg)
                );
            }
        }
    }

    /// The comparison of the first report (ferrokkos) with the others: the rate of the fastest
    /// repetition of each (BabelStream's figure), and the ratios ferrokkos / peer of the fastest and of
    /// the median repetitions (above 1: ferrokkos is faster). A kernel a peer does not run shows `-`.
    pub fn print_comparison(&self, reports: &[Report]) {
        let Some((ours, peers)) = reports.split_first() else {
            return;
        };
        println!(
            "Comparison: {} of the fastest repetition; ratios ferrokkos / peer of the fastest \
             (best) and of the median repetition",
            self.unit.rate_name()
        );
        // Columns widen for long peer names (the host peers keep the original widths).
        let rate_width = |p: &Report| (p.short.len() + 1).max(13);
        let ratio_width = |p: &Report| (p.short.len() + 9).max(21);
        print!("{:<10}{:>12}", "Function", ours.short);
        for p in peers {
            print!("{:>w$}", p.short, w = rate_width(p));
        }
        for p in peers {
            let name = format!("vs {} best", p.short);
            print!("{name:>w$}{:>9}", "median", w = ratio_width(p));
        }
        println!();
        for (i, k) in self.kernels.iter().enumerate() {
            let ran = |r: &Report| r.times.get(i).is_some_and(Times::ran);
            let best = |r: &Report| self.unit.rate(self.bytes(*k), r.times[i].stats().0);
            let median = |r: &Report| self.unit.rate(self.bytes(*k), r.times[i].median());
            print!("{:<10}{:>12.1}", k.label(), best(ours));
            for p in peers {
                let w = rate_width(p);
                if ran(p) {
                    print!("{:>w$.1}", best(p));
                } else {
                    print!("{:>w$}", "-");
                }
            }
            for p in peers {
                let w = ratio_width(p) - 1;
                if ran(p) {
                    print!(
                        "{:>w$.3}x{:>8.3}x",
                        best(ours) / best(p),
                        median(ours) / median(p)
                    );
                } else {
                    print!("{:>w$} {:>8}", "-", "-");
                }
            }
            println!();
        }
        println!();
    }
}
