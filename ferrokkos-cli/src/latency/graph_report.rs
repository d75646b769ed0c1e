//! The output of the graph rows: a small table after the launch latency table, or CSV rows in the
//! same columns as its rows.

use super::device::ROUNDS;
use super::graph::{CHAIN, PEER_ROW, PeerRows, ROWS, Rows};
use super::halo::G;
use super::measure::Figures;
use super::report::{Report, WIDTH, columns};

/// The graph rows as measured, to print.
pub struct GraphTable<'r> {
    /// The launch latency table's report: its format, space and threads.
    pub report: &'r Report,
    /// Calls per timed loop.
    pub m: usize,
    /// ferrokkos' rows.
    pub ferrokkos: Rows,
    /// The raw CUDA peer's rows, where it was measured.
    pub peer: Option<PeerRows>,
}

/// The rows' names in CSV, then the derived per-kernel row's.
const PATTERNS: [&str; 7] = [
    "graph_halo_separate",
    "graph_halo_create_graph",
    "graph_halo_capture",
    "graph_halo_create_graph_dag",
    "graph_1_kernel",
    "graph_65_kernels",
    "graph_per_kernel",
];

/// The derived row's name in the table.
const PER_KERNEL: &str = "per kernel (65 - 1)/64";

/// Kernels per call of each row, then of the derived row.
const KERNELS: [usize; 7] = [8, 8, 8, 8, 1, CHAIN + 1, 1];

/// Iterations per kernel of row `row`: G for the halo, 1 for the tiny kernels.
fn iterations(row: usize) -> usize {
    if row < 4 { G } else { 1 }
}

/// What one more kernel costs in a graph: (`long` - `short`) / [`CHAIN`], figure by figure.
fn per_kernel(long: &Figures, short: &Figures) -> Figures {
    let d = |a: f64, b: f64| (a - b) / CHAIN as f64;
    Figures {
        dispatch: d(long.dispatch, short.dispatch),
        throughput: d(long.throughput, short.throughput),
        latency: d(long.latency, short.latency),
    }
}

/// `peer / ours`, figure by figure (higher: ferrokkos faster).
fn ratio(peer: &Figures, ours: &Figures) -> Figures {
    Figures {
        dispatch: peer.dispatch / ours.dispatch,
        throughput: peer.throughput / ours.throughput,
        latency: peer.latency / ours.latency,
    }
}

impl GraphTable<'_> {
    /// The rows with the derived per-kernel row: ferrokkos', and the peer's matched to them.
    fn all(&self) -> ([Figures; 7], Option<[Figures; 7]>) {
        let f = &self.ferrokkos;
        let ours = [f[0], f[1], f[2], f[3], f[4], f[5], per_kernel(&f[5], &f[4])];
        let peer = self.peer.map(|p| {
            let m = PEER_ROW.map(|k| p[k]);
            [m[0], m[1], m[2], m[3], m[4], m[5], per_kernel(&p[4], &p[3])]
        });
        (ours, peer)
    }

    /// Prints the rows.
    pub fn print(&self) {
        let (ours, peer) = self.all();
        let report = self.report;
        if report.csv() {
            for (k, pattern) in PATTERNS.iter().enumerate() {
                let n = iterations(k);
                report.csv_line(pattern, n, "", "ferrokkos", self.m, &ours[k]);
                if let Some(peer) = &peer {
                    report.csv_line(pattern, n, "", "raw_cuda", self.m, &peer[k]);
                }
            }
            return;
        }
        self.header();
        let names = ROWS.iter().copied().chain([PER_KERNEL]);
        for (k, name) in names.enumerate() {
            let mut line = format!(
                "{name:<24}{:>8}{:>6}  {}",
                KERNELS[k],
                self.m,
                columns(&ours[k])
            );
            if let Some(peer) = &peer {
                let r = ratio(&peer[k], &ours[k]);
                line = format!("{line}  {}  {}", columns(&peer[k]), columns(&r));
            }
            println!("{line}");
        }
        self.summary(&ours);
    }

    /// Prints the title, what the rows are, and the column headers.
    fn header(&self) {
        println!();
        println!(
            "graphs of kernel!s: {} (microseconds per call; medians of {ROUNDS} rounds)",
            self.report.on()
        );
        println!(
            "halo: a halo update of a {G} x {G} grid with one ghost layer, 8 kernels of {G} \
             iterations in a\n  chain (4 pack its edges into buffers, 4 add them to the opposite \
             ghost rows and columns); a call\n  is the 8 launches, or one submit of them as a graph \
             built by create_graph (a chain of\n  then_parallel_for) or by Graph::capture of the 8 \
             launches; DAG: create_graph with the 4 packs\n  after the root at once, when_all, \
             then the 4 unpacks in a chain (5 kernels deep)"
        );
        println!(
            "graph of k kernels: a chain of k kernels of 1 iteration, one submit per call; \
             per kernel:\n  (65 - 1 kernels) / {CHAIN}"
        );
        println!(
            "dispatch = (M calls) / M, throughput = (M calls + fence) / M, \
             latency = M x (call + fence) / M"
        );
        if self.peer.is_some() {
            println!(
                "raw CUDA: the same kernels by hand (NVRTC): 8 cuLaunchKernel (cuStreamSynchronize \
                 as the fence);\n  the 8 captured from a stream as one CUDA graph and replayed by \
                 cuGraphLaunch (both chain\n  rows); DAG: the packs captured on 4 streams forked \
                 from and joined to the first by\n  events; the tiny kernels' graphs captured from \
                 a stream"
            );
        }
        println!();
        let figures = format!(
            "{:>WIDTH$} {:>WIDTH$} {:>WIDTH$}",
            "dispatch", "throughput", "latency"
        );
        let row = format!("{:<24}{:>8}{:>6}  {figures}", "row", "kernels", "M");
        match self.peer {
            Some(_) => {
                let span = 3 * WIDTH + 2;
                let titles = ["ferrokkos", "raw CUDA", "raw CUDA / ferrokkos"]
                    .map(|t| format!("{:-^span$}", format!(" {t} ")))
                    .join("  ");
                println!("{:38}  {titles}", "");
                println!("{row}  {figures}  {figures}");
            }
            None => println!("{row}"),
        }
    }

    /// Prints the comparisons the issue asks for, from the latency figures.
    fn summary(&self, ours: &[Figures; 7]) {
        let l = |k: usize| ours[k].latency;
        println!();
        println!(
            "halo, 8 launches / graph (latency): create_graph {:.2}x, Graph::capture {:.2}x, \
             create_graph DAG {:.2}x\n  (higher: the graph is faster)",
            l(0) / l(1),
            l(0) / l(2),
            l(0) / l(3)
        );
        println!(
            "targets: a halo update as a graph <= 15 us (latency): create_graph {:.2}, \
             Graph::capture {:.2},\n  create_graph DAG {:.2}; per kernel in a graph <= 1.5 us \
             (latency): {:.2}; graph launch,\n  (M submits + fence) / M of 1 kernel: {:.2} us",
            l(1),
            l(2),
            l(3),
            l(6),
            ours[4].throughput
        );
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_kernel_is_the_difference_over_the_extra_kernels() {
        let f = |x: f64| Figures {
            dispatch: x,
            throughput: 2.0 * x,
            latency: 3.0 * x,
        };
        let d = per_kernel(&f(1.0 + CHAIN as f64), &f(1.0));
        assert_eq!((d.dispatch, d.throughput, d.latency), (1.0, 2.0, 3.0));
        let r = ratio(&f(4.0), &f(2.0));
        assert_eq!((r.dispatch, r.throughput, r.latency), (2.0, 2.0, 2.0));
    }
}
