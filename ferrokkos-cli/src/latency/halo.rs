//! The halo update of the graph rows, a stand-in for that of a CG mini-app: a G x G grid with one
//! ghost layer ((G + 2) squared, row-major), whose edges (rows 1 and G, columns 1 and G) four
//! kernels pack into four buffers of G, and four kernels add the buffers to the opposite ghost rows
//! and columns (periodic). 8 `kernel!`s of G iterations: the 4 packs only read the grid and each
//! writes its own buffer, so they may run at once ([`Dag`]), but all come before the unpacks, which
//! all write the grid (kept in order: a graph's race check works per allocation). The ghost layer
//! grows by the opposite edge at each update, so every update shows in the result.

use ferrokkos::traits::{GraphPolicy, GraphSpace, Launch, ParallelFor};
use ferrokkos::{
    ExecutionSpace, GraphNode, LayoutRight, RangePolicy, View, deep_copy, kernel, parallel_for,
    when_all,
};

use crate::Failure;

/// The grid's interior is G x G; its ghost layer makes it G + 2 square, and each halo kernel runs
/// G iterations.
pub const G: usize = 512;

/// A View of `f64` in the memory of `S`.
pub type SpaceView<S, const R: usize> =
    View<f64, R, LayoutRight, <S as ExecutionSpace>::MemorySpace>;

/// The first `PACKS` of the 8 kernels that [`Halo::kernels`] hands out are the packs.
pub const PACKS: usize = 4;

/// One launch of a kernel on the instance it is given.
pub type Launcher<S> = dyn Fn(&S) -> ferrokkos::Result<()> + Send + Sync;

/// The grid's initial value at row `r`, column `c` (interior: small integers; ghosts: 0).
pub fn initial(r: usize, c: usize) -> f64 {
    match (r, c) {
        (1..=G, 1..=G) => ((7 * r + 3 * c) % 13) as f64,
        _ => 0.0,
    }
}

/// Checks the grid `u` (row-major, (G + 2)^2 values) after `calls` halo updates: the interior is
/// unchanged, each ghost row and column holds `calls` times the opposite edge, the corners 0.
pub fn check_halo(u: &[f64], calls: usize, who: &str) -> Result<(), Failure> {
    let w = G + 2;
    if u.len() != w * w {
        return Err(Failure::Run(format!(
            "latency: {who}: the grid has {} values",
            u.len()
        )));
    }
    let c = calls as f64;
    for (k, &got) in u.iter().enumerate() {
        let (r, col) = (k / w, k % w);
        let want = match (r, col) {
            (0, 1..=G) => c * initial(G, col),
            (_, 1..=G) if r == G + 1 => c * initial(1, col),
            (1..=G, 0) => c * initial(r, G),
            (1..=G, _) if col == G + 1 => c * initial(r, 1),
            _ => initial(r, col),
        };
        if got != want {
            return Err(Failure::Run(format!(
                "latency: {who} halo update computed a wrong result after {calls} calls: \
                 u({r}, {col}) = {got}, expected {want}"
            )));
        }
    }
    Ok(())
}

/// The halo update's Views on a space: the grid and the edge buffers.
pub struct Halo<S: ExecutionSpace> {
    /// The grid, G + 2 square.
    pub u: SpaceView<S, 2>,
    /// Row 1, row G, column 1, column G.
    north: SpaceView<S, 1>,
    south: SpaceView<S, 1>,
    west: SpaceView<S, 1>,
    east: SpaceView<S, 1>,
}

/// Where [`Halo::kernels`] puts each kernel: a list of launches, or a graph node to chain after.
pub trait Sink<S: Launch> {
    /// Takes the kernel `kernel` of G iterations, labelled `label`.
    fn add<K>(&mut self, label: &'static str, kernel: K) -> ferrokkos::Result<()>
    where
        K: Send + Sync + 'static,
        RangePolicy<S>: for<'k> ParallelFor<&'k K>;
}

impl<S: Launch> Sink<S> for Vec<Box<Launcher<S>>> {
    fn add<K>(&mut self, label: &'static str, kernel: K) -> ferrokkos::Result<()>
    where
        K: Send + Sync + 'static,
        RangePolicy<S>: for<'k> ParallelFor<&'k K>,
    {
        self.push(Box::new(move |e: &S| {
            parallel_for(label, RangePolicy::new(e, 0, G)?, &kernel)
        }));
        Ok(())
    }
}

/// A chain of graph nodes on the instance `.1`, continued after `.0`.
pub struct Chain<'g, 'e, S>(pub GraphNode<'g, S>, pub &'e S);

impl<S: Launch + GraphSpace> Sink<S> for Chain<'_, '_, S>
where
    RangePolicy<S>: GraphPolicy<S>,
{
    fn add<K>(&mut self, label: &'static str, kernel: K) -> ferrokkos::Result<()>
    where
        K: Send + Sync + 'static,
        RangePolicy<S>: for<'k> ParallelFor<&'k K>,
    {
        self.0 = self
            .0
            .then_parallel_for(label, RangePolicy::new(self.1, 0, G)?, kernel);
        Ok(())
    }
}

/// The halo update as a DAG of graph nodes on the instance `exec`: the [`PACKS`] packs each after
/// `root` (no order among them), then, after all of them ([`when_all`]), the unpacks in a chain.
/// Its critical path is 5 kernels instead of 8.
pub struct Dag<'g, 'e, S> {
    /// The node the packs come after.
    pub root: GraphNode<'g, S>,
    /// The instance of the kernels' policies.
    pub exec: &'e S,
    /// The pack nodes added so far.
    packs: Vec<GraphNode<'g, S>>,
    /// The last unpack node added (none yet: the packs' join comes first).
    last: Option<GraphNode<'g, S>>,
}

impl<'g, 'e, S> Dag<'g, 'e, S> {
    /// A DAG to build after `root`, with policies on `exec`.
    pub fn new(root: GraphNode<'g, S>, exec: &'e S) -> Self {
        Dag {
            root,
            exec,
            packs: Vec::with_capacity(PACKS),
            last: None,
        }
    }
}

impl<S: Launch + GraphSpace> Sink<S> for Dag<'_, '_, S>
where
    RangePolicy<S>: GraphPolicy<S>,
{
    fn add<K>(&mut self, label: &'static str, kernel: K) -> ferrokkos::Result<()>
    where
        K: Send + Sync + 'static,
        RangePolicy<S>: for<'k> ParallelFor<&'k K>,
    {
        let policy = RangePolicy::new(self.exec, 0, G)?;
        if self.packs.len() < PACKS {
            let pack = self.root.then_parallel_for(label, policy, kernel);
            self.packs.push(pack);
            return Ok(());
        }
        let after = match self.last.take() {
            Some(node) => node,
            None => when_all(&self.packs)?,
        };
        self.last = Some(after.then_parallel_for(label, policy, kernel));
        Ok(())
    }
}

impl<S: Launch> Halo<S> {
    /// The Views in the memory of `S`, the grid filled with [`initial`], the buffers zero.
    pub fn new() -> Result<Self, Failure> {
        let halo = Halo {
            u: SpaceView::<S, 2>::new("halo_u", [G + 2, G + 2])?,
            north: SpaceView::<S, 1>::new("halo_north", [G])?,
            south: SpaceView::<S, 1>::new("halo_south", [G])?,
            west: SpaceView::<S, 1>::new("halo_west", [G])?,
            east: SpaceView::<S, 1>::new("halo_east", [G])?,
        };
        let host = View::<f64, 2>::new("halo_u (host)", [G + 2, G + 2])?;
        {
            let mut g = host.host_mut()?;
            for r in 0..G + 2 {
                for c in 0..G + 2 {
                    g[(r, c)] = initial(r, c);
                }
            }
        }
        deep_copy(&halo.u, &host)?;
        Ok(halo)
    }

    /// Hands the 8 kernels of one update to `sink`, in order: the [`PACKS`] packs, then the unpacks.
    pub fn kernels(&self, sink: &mut impl Sink<S>) -> ferrokkos::Result<()> {
        let h = self;
        sink.add("halo_pack_north", kernel!(|i| h.north[i] = h.u[(1, i + 1)]))?;
        sink.add("halo_pack_south", kernel!(|i| h.south[i] = h.u[(G, i + 1)]))?;
        sink.add("halo_pack_west", kernel!(|i| h.west[i] = h.u[(i + 1, 1)]))?;
        sink.add("halo_pack_east", kernel!(|i| h.east[i] = h.u[(i + 1, G)]))?;
        sink.add(
            "halo_unpack_north",
            kernel!(|i| h.u[(0, i + 1)] += h.south[i]),
        )?;
        sink.add(
            "halo_unpack_south",
            kernel!(|i| h.u[(G + 1, i + 1)] += h.north[i]),
        )?;
        sink.add(
            "halo_unpack_west",
            kernel!(|i| h.u[(i + 1, 0)] += h.east[i]),
        )?;
        sink.add(
            "halo_unpack_east",
            kernel!(|i| h.u[(i + 1, G + 1)] += h.west[i]),
        )
    }

    /// The grid, row-major, on the host.
    pub fn grid(&self) -> Result<Vec<f64>, Failure> {
        let host = View::<f64, 2>::new("halo_u (check)", [G + 2, G + 2])?;
        deep_copy(&host, &self.u)?;
        Ok(host.to_vec()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The 8 steps of [`Halo::kernels`] on a plain grid, in plain Rust.
    fn update(u: &mut [f64]) {
        let w = G + 2;
        let edge = |u: &[f64], at: &dyn Fn(usize) -> usize| (0..G).map(|i| u[at(i)]).collect();
        let north: Vec<f64> = edge(u, &|i| w + i + 1);
        let south: Vec<f64> = edge(u, &|i| G * w + i + 1);
        let west: Vec<f64> = edge(u, &|i| (i + 1) * w + 1);
        let east: Vec<f64> = edge(u, &|i| (i + 1) * w + G);
        for i in 0..G {
            u[i + 1] += south[i];
            u[(G + 1) * w + i + 1] += north[i];
            u[(i + 1) * w] += east[i];
            u[(i + 1) * w + G + 1] += west[i];
        }
    }

    #[test]
    fn check_halo_accepts_updates_and_rejects_a_missed_one() {
        let w = G + 2;
        let mut u: Vec<f64> = (0..w * w).map(|k| initial(k / w, k % w)).collect();
        assert!(check_halo(&u, 0, "test").is_ok());
        for _ in 0..3 {
            update(&mut u);
        }
        assert!(check_halo(&u, 3, "test").is_ok());
        assert!(check_halo(&u, 2, "test").is_err());
        assert!(check_halo(&u[1..], 3, "test").is_err());
        u[w + 1] += 1.0;
        assert!(check_halo(&u, 3, "test").is_err());
    }
}
