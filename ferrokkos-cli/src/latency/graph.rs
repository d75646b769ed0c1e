//! `ferrokkos latency`'s graph rows: what a graph saves over separate launches, with
//! `kernel!`s on the chosen space (the host spaces too), printed after the launch latency table.
//!
//! - The halo update ([`super::halo`]): one call is its 8 launches (separate), or one submit of
//!   them as a graph built with `create_graph` (a chain of `then_parallel_for`), with
//!   `Graph::capture` of the 8 launches (a chain too), or with `create_graph` as a DAG (the 4
//!   packs at once after the root, `when_all`, then the 4 unpacks in a chain: 5 kernels deep).
//! - Graphs of 1 and of [`CHAIN`] + 1 tiny kernels (1 iteration, `t[0] += 1`) in a chain, one submit
//!   per call: their difference over [`CHAIN`] is what one more kernel costs in a graph, and the
//!   1-kernel graph's (M submits + fence) / M is the cost of a submit.
//!
//! Each is measured with Kokkos' three figures ([`measure`]), [`ROUNDS`] times (alternating with
//! the raw CUDA peer on Cuda), and the results are checked after each round.

use ferrokkos::traits::{GraphPolicy, GraphSpace, Launch};
use ferrokkos::{Graph, RangePolicy, View, create_graph, deep_copy, kernel};

use super::device::ROUNDS;
use super::graph_report::GraphTable;
use super::halo::{Chain, Dag, Halo, Launcher, SpaceView, check_halo};
use super::measure::{Figures, WARM_UP, measure, medians};
use super::report::Report;
use crate::Failure;

/// The longer tiny-kernel graph has `CHAIN + 1` kernels: `CHAIN` more than the short one.
pub const CHAIN: usize = 64;

/// Calls per timed loop of the graph rows when `-m` is not given.
pub const GRAPH_M: usize = 1000;

/// The measured rows, in order.
pub const ROWS: [&str; 6] = [
    "halo: 8 launches",
    "halo: create_graph",
    "halo: Graph::capture",
    "halo: create_graph DAG",
    "graph of 1 kernel",
    "graph of 65 kernels",
];

/// The figures of the [`ROWS`], per call.
pub type Rows = [Figures; 6];

/// A graph of `kernels` tiny kernels in a chain, each adding 1 to `t[0]`.
fn tiny_chain<S: Launch + GraphSpace>(
    exec: &S,
    t: &SpaceView<S, 1>,
    kernels: usize,
) -> ferrokkos::Result<Graph<S>>
where
    RangePolicy<S>: GraphPolicy<S>,
{
    create_graph(exec, |root| {
        let mut node = root;
        for _ in 0..kernels {
            let t = t.clone();
            node = node.then_parallel_for(
                "tiny",
                RangePolicy::new(exec, 0, 1)?,
                kernel!(|i| t[i] += 1.0),
            );
        }
        Ok(())
    })
}

/// ferrokkos' side of the graph rows on one instance: the Views, the launches and the graphs,
/// made (and the graphs instantiated) once, measured at each round.
struct Bench<'e, S: Launch + GraphSpace> {
    exec: &'e S,
    halo: Halo<S>,
    separate: Vec<Box<Launcher<S>>>,
    chained: Graph<S>,
    captured: Graph<S>,
    /// The halo update as a DAG: the packs at once, then the unpacks.
    dag: Graph<S>,
    /// The tiny kernels' Views and graphs: 1 kernel, then `CHAIN + 1`.
    tiny: [(SpaceView<S, 1>, Graph<S>); 2],
    /// Calls so far (warm-up included): of the halo update, of each tiny graph.
    calls: usize,
}

impl<'e, S: Launch + GraphSpace> Bench<'e, S>
where
    RangePolicy<S>: GraphPolicy<S>,
{
    fn new(exec: &'e S) -> Result<Self, Failure> {
        let halo = Halo::<S>::new()?;
        let mut separate = Vec::new();
        halo.kernels(&mut separate)?;
        let chained = create_graph(exec, |root| halo.kernels(&mut Chain(root, exec)))?;
        let mut launches: Vec<Box<Launcher<S>>> = Vec::new();
        halo.kernels(&mut launches)?;
        let captured = Graph::capture(exec, "halo", move |e: &S| {
            launches.iter().try_for_each(|launch| launch(e))
        })?;
        let dag = create_graph(exec, |root| halo.kernels(&mut Dag::new(root, exec)))?;
        let tiny = |kernels: usize| -> Result<_, Failure> {
            let t = SpaceView::<S, 1>::new("tiny", [1])?;
            let graph = tiny_chain(exec, &t, kernels)?;
            Ok((t, graph))
        };
        let tiny = [tiny(1)?, tiny(CHAIN + 1)?];
        for graph in [&chained, &captured, &dag, &tiny[0].1, &tiny[1].1] {
            graph.instantiate()?;
        }
        Ok(Bench {
            exec,
            halo,
            separate,
            chained,
            captured,
            dag,
            tiny,
            calls: 0,
        })
    }

    /// Measures the rows with `m` calls per timed loop, then checks the results.
    fn round(&mut self, m: usize) -> Result<Rows, Failure> {
        let exec = self.exec;
        let fence = || exec.fence("latency_graph");
        let separate = || self.separate.iter().try_for_each(|launch| launch(exec));
        let rows = [
            measure(m, separate, fence)?,
            measure(m, || self.chained.submit(), fence)?,
            measure(m, || self.captured.submit(), fence)?,
            measure(m, || self.dag.submit(), fence)?,
            measure(m, || self.tiny[0].1.submit(), fence)?,
            measure(m, || self.tiny[1].1.submit(), fence)?,
        ];
        self.calls += WARM_UP + 2 * m;
        check_halo(&self.halo.grid()?, 4 * self.calls, "ferrokkos")?;
        for (kernels, (t, _)) in [1, CHAIN + 1].into_iter().zip(&self.tiny) {
            let host = View::<f64, 1>::new("tiny (check)", [1])?;
            deep_copy(&host, t)?;
            let (got, want) = (host.get(0)?, (kernels * self.calls) as f64);
            if got != want {
                return Err(Failure::Run(format!(
                    "latency: ferrokkos graph of {kernels} tiny kernels: t = {got}, expected {want}"
                )));
            }
        }
        Ok(rows)
    }
}

/// The raw CUDA peer's rows, per call: the 8 halo kernels launched one by one, the 8 as one CUDA
/// graph captured from one stream (a chain), the 8 as a CUDA graph captured as a DAG (the packs
/// forked to 4 streams), and graphs of 1 and of `CHAIN + 1` tiny kernels.
pub type PeerRows = [Figures; 5];

/// For each ferrokkos row, the peer row it is compared with.
pub const PEER_ROW: [usize; 6] = [0, 1, 1, 2, 3, 4];

/// The peer of the graph rows: measures its rows with `m` calls per timed loop, or gives `None`
/// where there is none.
pub type Peer<'p> = &'p mut dyn FnMut(usize) -> Result<Option<PeerRows>, Failure>;

/// Measures the graph rows on `exec` ([`ROUNDS`] times, alternating with `peer`), then prints them
/// with `report`'s format (after its table).
pub fn run<S: Launch + GraphSpace>(
    exec: &S,
    m: Option<usize>,
    report: &Report,
    peer: Peer<'_>,
) -> Result<(), Failure>
where
    RangePolicy<S>: GraphPolicy<S>,
{
    let m = m.unwrap_or(GRAPH_M);
    let mut bench = Bench::new(exec)?;
    let (mut ours, mut theirs) = (Vec::new(), Vec::new());
    for _ in 0..ROUNDS {
        ours.push(bench.round(m)?);
        if let Some(raw) = peer(m)? {
            theirs.push(raw);
        }
    }
    let peer = (!theirs.is_empty()).then(|| medians(&theirs));
    GraphTable {
        report,
        m,
        ferrokkos: medians(&ours),
        peer,
    }
    .print();
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::in_child::{test_name, with_runtime};
    use ferrokkos::{ExecutionSpace, Serial, Threads};

    /// A few rounds of a few calls on `exec`: the checks pass and the figures are times; the DAG
    /// has the chain's 8 kernels and one join.
    fn rounds<S: Launch + GraphSpace>(exec: &S)
    where
        RangePolicy<S>: GraphPolicy<S>,
    {
        let mut bench = Bench::new(exec).unwrap();
        assert_eq!(bench.chained.node_count(), 8);
        assert_eq!(bench.dag.node_count(), 9);
        for _ in 0..2 {
            let rows = bench.round(3).unwrap();
            assert!(rows.iter().all(|f| f.latency > 0.0 && f.throughput > 0.0));
        }
        assert_eq!(bench.calls, 2 * (WARM_UP + 6));
    }

    #[test]
    fn the_graph_rows_run_and_check_on_serial_and_threads() {
        let name = test_name(
            module_path!(),
            "the_graph_rows_run_and_check_on_serial_and_threads",
        );
        with_runtime(&name, || {
            rounds(&Serial::default_instance().unwrap());
            rounds(&Threads::default_instance().unwrap());
        });
    }
}
