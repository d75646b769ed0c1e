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
    /// The peer's figures, when it was measured: rayon with `--compare` on the host spaces; raw
    /// CUDA on Cuda (`None` there when the raw kernel's parameters exceed the device's limit).
    pub peer: Option<Kinds>,
}

/// The peer ferrokkos is compared with, and how.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Peer {
    /// rayon on the host: the ratio rayon / ferrokkos (higher: ferrokkos faster).
    Rayon,
    /// Raw `cuLaunchKernel`s of hand-written kernels on Cuda: the difference ferrokkos - raw in
    /// microseconds (the overhead ferrokkos adds per launch).
    RawCuda,
}

impl Peer {
    /// The peer's name in the table titles.
    fn name(self) -> &'static str {
        match self {
            Peer::Rayon => "rayon",
            Peer::RawCuda => "raw CUDA",
        }
    }

    /// The peer's name in the CSV rows.
    fn csv_name(self) -> &'static str {
        match self {
            Peer::Rayon => "rayon",
            Peer::RawCuda => "raw_cuda",
        }
    }
}

/// Prints the results as they come, as a table or as CSV.
pub struct Report {
    /// CSV rows instead of a table.
    csv: bool,
    /// The peer whose figures are printed, if any.
    peer: Option<Peer>,
    /// The execution space's name.
    space: String,
    /// Its thread count (the device's resident threads on Cuda).
    threads: usize,
    /// The device, on Cuda: its name, for the title.
    device: Option<String>,
}

/// The width of one figure's column; the figures of one implementation take three, one space apart.
pub(super) const WIDTH: usize = 10;

impl Report {
    /// A report on the host space `space` with `threads` threads; `compare`: with rayon.
    pub fn new(csv: bool, compare: bool, space: String, threads: usize) -> Report {
        Report {
            csv,
            peer: compare.then_some(Peer::Rayon),
            space,
            threads,
            device: None,
        }
    }

    /// A report on the device space `space` (running on `device`, with `threads` resident threads),
    /// with the raw CUDA peer when `raw` is true.
    pub fn device(csv: bool, raw: bool, space: &str, threads: usize, device: String) -> Report {
        Report {
            csv,
            peer: raw.then_some(Peer::RawCuda),
            space: space.to_string(),
            threads,
            device: Some(device),
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
        println!(
            "ferrokkos latency: {} (microseconds per launch; Kokkos launch_latency figures)",
            self.on()
        );
        println!(
            "dispatch = (M launches) / M, throughput = (M launches + fence) / M, \
             latency = M x (launch + fence) / M; {WARM_UP} warm-up launches each"
        );
        if self.peer == Some(Peer::RawCuda) {
            println!(
                "raw CUDA: cuLaunchKernel of a hand-written kernel taking a struct of the captured array, \
                 the array's pointer and N by value\n  (parallel_for); a single-pass reduce kernel, \
                 a copy of the result into pinned memory and a synchronization (parallel_reduce);\n  \
                 the reduce kernel alone (parallel_reduce(view)). n/a: the struct exceeds the \
                 device's kernel parameter limit"
            );
        }
        println!();
        let figures = format!(
            "{:>WIDTH$} {:>WIDTH$} {:>WIDTH$}",
            "dispatch", "throughput", "latency"
        );
        let row = format!(
            "{:<22}{:>8}{:>9}{:>7}  {figures}",
            "pattern", "N", "capture", "M"
        );
        match self.peer {
            Some(peer) => {
                let span = 3 * WIDTH + 2;
                let third = match peer {
                    Peer::Rayon => "rayon / ferrokkos",
                    Peer::RawCuda => "ferrokkos - raw CUDA",
                };
                let titles = ["ferrokkos", peer.name(), third]
                    .map(|t| format!("{:-^span$}", format!(" {t} ")))
                    .join("  ");
                println!("{:46}  {titles}", "");
                println!("{row}  {figures}  {figures}");
            }
            None => println!("{row}"),
        }
    }

    /// Where it runs, for titles: `Threads, 16 threads`, or `Cuda on <the device>`.
    pub fn on(&self) -> String {
        let plural = if self.threads == 1 { "" } else { "s" };
        match &self.device {
            None => format!("{}, {} thread{plural}", self.space, self.threads),
            Some(device) => format!("{} on {device}", self.space),
        }
    }

    /// Whether it prints CSV rows.
    pub fn csv(&self) -> bool {
        self.csv
    }

    /// Prints one CSV row: `pattern` of loop length `n` with a capture of `capture` bytes (empty
    /// where there is none to speak of), by `implementation`, `m` per timed loop.
    pub fn csv_line(
        &self,
        pattern: &str,
        n: usize,
        capture: &str,
        implementation: &str,
        m: usize,
        f: &Figures,
    ) {
        println!(
            "{},{},{pattern},{n},{capture},{implementation},{m},{:.4},{:.4},{:.4}",
            self.space, self.threads, f.dispatch, f.throughput, f.latency
        );
    }

    /// Prints the rows of one loop length and capture size.
    pub fn block(&self, block: &Block) {
        for (kind, pattern) in PATTERNS.iter().enumerate() {
            let ferrokkos = &block.ferrokkos[kind];
            let peer = block.peer.as_ref().map(|r| &r[kind]);
            if self.csv {
                self.csv_row(block, pattern, "ferrokkos", ferrokkos);
                if let (Some(name), Some(peer)) = (self.peer, peer) {
                    self.csv_row(block, pattern, name.csv_name(), peer);
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
            match (self.peer, peer) {
                (Some(Peer::Rayon), Some(rayon)) => {
                    let ratio = Figures {
                        dispatch: rayon.dispatch / ferrokkos.dispatch,
                        throughput: rayon.throughput / ferrokkos.throughput,
                        latency: rayon.latency / ferrokkos.latency,
                    };
                    line = format!("{line}  {}  {}", columns(rayon), columns(&ratio));
                }
                (Some(Peer::RawCuda), Some(raw)) => {
                    let difference = Figures {
                        dispatch: ferrokkos.dispatch - raw.dispatch,
                        throughput: ferrokkos.throughput - raw.throughput,
                        latency: ferrokkos.latency - raw.latency,
                    };
                    line = format!("{line}  {}  {}", columns(raw), differences(&difference));
                }
                (Some(_), None) => {
                    let na = format!("{:>WIDTH$} {:>WIDTH$} {:>WIDTH$}", "n/a", "n/a", "n/a");
                    line = format!("{line}  {na}  {na}");
                }
                (None, _) => {}
            }
            println!("{line}");
        }
    }

    /// Prints one CSV row of `block`.
    fn csv_row(&self, block: &Block, pattern: &str, implementation: &str, f: &Figures) {
        let capture = block.capture.to_string();
        self.csv_line(pattern, block.n, &capture, implementation, block.m, f);
    }
}

/// The three figures in table columns.
pub(super) fn columns(f: &Figures) -> String {
    format!(
        "{:>WIDTH$.2} {:>WIDTH$.2} {:>WIDTH$.2}",
        f.dispatch, f.throughput, f.latency
    )
}

/// Differences of figures in table columns, signed.
fn differences(f: &Figures) -> String {
    format!(
        "{:>+WIDTH$.2} {:>+WIDTH$.2} {:>+WIDTH$.2}",
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
    fn differences_are_signed() {
        let f = Figures {
            dispatch: 0.25,
            throughput: -1.5,
            latency: 0.0,
        };
        assert_eq!(differences(&f), "     +0.25      -1.50      +0.00");
    }

    #[test]
    fn capture_labels() {
        let labels = [8, 999, 1600, 24_000].map(capture_label);
        assert_eq!(labels, ["8 B", "999 B", "1.6 kB", "24 kB"]);
    }
}
