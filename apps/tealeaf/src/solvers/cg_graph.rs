//! CG's iterations as a graph, on a chunk without neighbours (one rank).
//!
//! On one rank nothing in a CG iteration needs the host: `alpha = rro / pw` and
//! `beta = rrn / rro` can be computed on the device from sums reduced into device Views. So an
//! iteration is a fixed sequence of kernels, built once as a [`Graph`] of several iterations
//! (`ITERATIONS_PER_GRAPH`) and submitted once for them: on Cuda one `cuGraphLaunch` instead
//! of five launches per iteration, two of which waited for their sums.
//!
//! The kernels of iteration `i`:
//! - `cg_calc_pw`: the new direction `p_i = beta p_{i-1} + r` (TeaLeaf's `calc_p`, at the end of
//!   the previous iteration there; `beta` is 0 in the first, where `p_0 = r`) and `w = A p_i`
//!   with `p_i · w` in one pass. It reads `p_{i-1}` and `r` and writes `p_i` to the other
//!   buffer of a pair (a cell's neighbours still read the old value), so the iterations
//!   alternate between `p` and a second buffer (a graph's even number of iterations ends
//!   where it started). The operator reads the neighbours' new values computed on the fly, and
//!   a neighbour in the halo is the cell itself: TeaLeaf's reflective halo at depth 1, so no
//!   halo kernel runs. On a chunk with neighbours it also forms `p_i` in the halo layer next to
//!   each of them (see [`Chunk::cg_iterate_on_device`]).
//! - `cg_calc_ur`: `u += alpha p_i`, `r -= alpha w` with `r · r`.
//! - `cg_next` (one thread): `beta = rrn / rro`, `rro = rrn`, the error, the iteration count,
//!   and whether to stop. After a graph's iterations, a copy of that state to host memory.
//!
//! The host tests a submission's state while the next one is already queued: it submits
//! graph `s`, then reads the state graph `s - 1` copied. Iterations may therefore run after
//! convergence; every kernel of them then skips its cells (the state's `done` flag), so `u`,
//! `r` and the state end as the host loop leaves them. The even and odd submissions copy to
//! host Views of their own, so that reading submission `s - 1`'s copy waits for that submission
//! alone and not for submission `s` (ferrokkos orders host access after exactly the work that
//! uses an allocation).
//!
//! Every value is computed by the host loop's operations in its order, so iteration counts and
//! temperatures are bit-identical to it. Only `p` differs after the solve (the loop computes one
//! more direction that nothing reads); the solve's callers read `u`.

use std::cell::RefCell;

use ferrokkos::nccl::NcclOp;
use ferrokkos::prelude::*;
use ferrokkos::{Graph, MemorySpace, create_graph, create_mirror_view_in, deep_copy_async};

use crate::Space;
use crate::chunk::{Chunk, Face, Field, Line};
use crate::exchange::Staging;
use crate::launch::{GraphChain, Kernels};
use crate::profile::Phase;
use crate::settings::{Graphs, Settings};
use crate::solvers;

/// The iterations one graph runs, K (even, so that each graph starts from `p` and ends in it).
/// Each submission costs the device a graph's start and a copy of the state (about 7 µs on an
/// H100); K iterations per graph share them, and the host tests the state as it was at most
/// 2 K - 1 iterations ago, while the kernels of the iterations past convergence skip their
/// cells (so a solve runs at most 2 K - 1 iterations of skipped cells). Measured on an H100
/// (`tea_bm_5`, 42306 iterations): K = 2, 4, 8 took 28.79, 28.68, 28.60 s, and 2 ranks on 2
/// H100s 16.2, 16.1-16.2, 15.98-16.05 s; `tea.in` on one 0.237, 0.226, 0.199 s.
const ITERATIONS_PER_GRAPH: usize = 8;

/// The state's slots (the one-thread kernel, over the range `0..1`, writes them at its index
/// plus these).
const RRO: usize = 0;
const ERROR: usize = 1;
const ITERATIONS: usize = 2;
const DONE: usize = 3;
const BETA: usize = 4;

/// How CG iterates on a chunk.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CgMode {
    /// One launch at a time, the scalars on the host (`cg.rs`).
    Host,
    /// The scalars on the device, each iteration one graph (one rank).
    Graphs,
    /// The scalars on the device, one launch at a time, the sums over the ranks queued between
    /// the kernels (NCCL), or taken through the host (`--graphs on` without NCCL).
    Device,
}

/// How CG iterates on a chunk of space `S` with `neighbours`, whose ranks talk through NCCL or
/// not: graphs as `settings.graphs` says (see [`Graphs`]) where the chunk has no neighbour;
/// with neighbours, the device scalars where NCCL is used (by default) or graphs are asked
/// for; else the host loop.
pub fn cg_mode<S: Space>(
    settings: &Settings,
    neighbours: &[Option<usize>; 4],
    nccl: bool,
) -> CgMode {
    let on_device = !<S::MemorySpace as MemorySpace>::HOST_ACCESSIBLE;
    let alone = neighbours.iter().all(Option::is_none);
    match (settings.graphs, alone) {
        (Graphs::Off, _) => CgMode::Host,
        (Graphs::Auto, true) if on_device => CgMode::Graphs,
        (Graphs::On, true) => CgMode::Graphs,
        (Graphs::On, false) => CgMode::Device,
        (Graphs::Auto, false) if nccl => CgMode::Device,
        _ => CgMode::Host,
    }
}

/// CG's scalars on the device and the two graphs that iterate on them.
pub struct CgGraphs<S: Space> {
    /// `[rro, error, iterations, done, beta]` (`done` is 0 or 1).
    state: Line<S>,
    /// The second buffer of the search direction (`p` is the first); a field on a chunk that
    /// iterates in graphs, one cell otherwise.
    q: Field<S>,
    /// `p · w` of the current iteration.
    pw: Line<S>,
    /// `r · r` of the current iteration.
    rrn: Line<S>,
    /// The state as iterations of even and odd number left it, on the host.
    host: [View<f64, 1, LayoutRight, Staging<S>>; 2],
    /// The graphs of even and odd iterations, built on first use.
    graphs: RefCell<Option<[Graph<S>; 2]>>,
}

impl<S: Space> CgGraphs<S> {
    /// The scalars, and the second direction buffer of `cells` (`[y, x]`, halo included)
    /// where the graphs will run (they are built by [`Chunk::cg_build_graphs`]).
    pub fn new(cells: [usize; 2], used: bool) -> ferrokkos::Result<Self> {
        let host = |label: &str| View::<f64, 1, LayoutRight, Staging<S>>::new(label, [5]);
        Ok(CgGraphs {
            state: Line::<S>::new("cg_state", [5])?,
            q: Field::<S>::new("cg_q", if used { cells } else { [1, 1] })?,
            pw: Line::<S>::new("cg_pw", [1])?,
            rrn: Line::<S>::new("cg_rrn", [1])?,
            host: [host("cg_state_even")?, host("cg_state_odd")?],
            graphs: RefCell::new(None),
        })
    }
}

impl<S: Space> Chunk<S> {
    /// How CG iterates on this chunk (see [`cg_mode`]).
    pub fn cg_mode(&self, settings: &Settings) -> CgMode {
        cg_mode::<S>(settings, &self.neighbours, self.nccl.is_some())
    }

    /// One CG iteration with its scalars on the device, its direction read from `from` and
    /// written to `to`, written to `kernels` (see the module documentation); `eps` and
    /// `max_iters` decide convergence as the host loop does.
    pub fn cg_iteration_kernels(
        &self,
        kernels: &impl Kernels<S>,
        pair: (&Field<S>, &Field<S>),
        eps: f64,
        max_iters: usize,
    ) -> crate::Result<()> {
        self.cg_pw_ur_kernels(kernels, pair)?;
        self.cg_sum_on_device(&self.cg_graphs.rrn)?;
        self.cg_next_kernel(kernels, eps, max_iters)
    }

    /// The first part of a CG iteration, written to `kernels`: `cg_calc_pw`, the sum of
    /// `p · w` over the ranks, and `cg_calc_ur` (see the module documentation).
    pub fn cg_pw_ur_kernels(
        &self,
        kernels: &impl Kernels<S>,
        (from, to): (&Field<S>, &Field<S>),
    ) -> crate::Result<()> {
        let g = &self.cg_graphs;
        let (r, u, w, kx, ky) = (&self.r, &self.u, &self.w, &self.kx, &self.ky);
        let (state, pw_sum, rrn_sum) = (&g.state, &g.pw, &g.rrn);
        let hd = self.halo_depth as i64;
        // The interior's first and last rows and columns: past them is the reflective halo on
        // the domain's boundary, or a neighbour's cells (exchanged before) inside it. Where a
        // face has a neighbour, its index is moved out of reach so that no cell reflects there.
        let inner = |face: Face, edge: i64| if self.is_external(face) { edge } else { -2 };
        let (j0, k0) = (inner(Face::Bottom, hd), inner(Face::Left, hd));
        let (j1, k1) = (
            inner(Face::Top, self.y as i64 - hd - 1),
            inner(Face::Right, self.x as i64 - hd - 1),
        );
        // Where a face has a neighbour (and the halo is deep enough for the stencil's reads one
        // cell further), the launch also covers the halo layer next to it and forms the new
        // direction there from the old one and r, whose halos it has: the next iteration then
        // needs no exchange of p, and the sum of p · w travels alone.
        let (cells, p_halo_here) = self.pw_cells()?;
        let (iy0, ix0, iy1, ix1) = (hd, hd, self.y as i64 - hd - 1, self.x as i64 - hd - 1);
        kernels.reduce_into(
            "cg_calc_pw",
            cells,
            kernel!(|(j, k), pw: &mut f64| {
                if state[DONE] == 0.0 {
                    let beta = state[BETA];
                    let pc = beta * from[(j, k)] + r[(j, k)];
                    let left = if k == k0 {
                        pc
                    } else {
                        beta * from[(j, k - 1)] + r[(j, k - 1)]
                    };
                    let right = if k == k1 {
                        pc
                    } else {
                        beta * from[(j, k + 1)] + r[(j, k + 1)]
                    };
                    let down = if j == j0 {
                        pc
                    } else {
                        beta * from[(j - 1, k)] + r[(j - 1, k)]
                    };
                    let up = if j == j1 {
                        pc
                    } else {
                        beta * from[(j + 1, k)] + r[(j + 1, k)]
                    };
                    let (kxc, kxn, kyc, kyn) =
                        (kx[(j, k)], kx[(j, k + 1)], ky[(j, k)], ky[(j + 1, k)]);
                    let wjk = solvers::smvp(pc, left, right, down, up, kxc, kxn, kyc, kyn);
                    to[(j, k)] = pc;
                    if !p_halo_here || (j >= iy0 && j <= iy1 && k >= ix0 && k <= ix1) {
                        w[(j, k)] = wjk;
                        *pw += wjk * pc;
                    }
                }
            }),
            subview(pw_sum, (0,))?,
        )?;
        // With neighbours and a halo too shallow for the above, the new direction's halo goes
        // with the sum of p · w (the next `cg_calc_pw` reads it), so that the exchange after
        // `cg_calc_ur` carries only r's.
        let alone = self.neighbours.iter().all(Option::is_none);
        if alone
            || p_halo_here
            || self.launch.is_preparing()
            || !self.exchange_fields_summing(&[to], 1, pw_sum)?
        {
            self.cg_sum_on_device(pw_sum)?;
        }
        kernels.reduce_into(
            "cg_calc_ur",
            self.interior()?,
            kernel!(|(j, k), rrn: &mut f64| {
                if state[DONE] == 0.0 {
                    let alpha = state[RRO] / pw_sum[0];
                    // Every read before the writes (one round trip to memory, not two), the
                    // arithmetic of `u += alpha p; r -= alpha w`.
                    let (uc, pc, rc, wc) = (u[(j, k)], to[(j, k)], r[(j, k)], w[(j, k)]);
                    let rn = rc - alpha * wc;
                    u[(j, k)] = uc + alpha * pc;
                    r[(j, k)] = rn;
                    *rrn += rn * rn;
                }
            }),
            subview(rrn_sum, (0,))?,
        )?;
        Ok(())
    }

    /// The cells `cg_calc_pw` runs over, and whether they include the halo layer next to each
    /// face with a neighbour: they do where the halo is at least 2 deep (that layer's stencil
    /// reads one layer further out, and its results other than the direction are dropped).
    fn pw_cells(&self) -> ferrokkos::Result<(MDRangePolicy<S, 2>, bool)> {
        let hd = self.halo_depth;
        if hd < 2 || self.neighbours.iter().all(Option::is_none) {
            return Ok((self.interior()?, false));
        }
        let out = |face: Face| usize::from(!self.is_external(face));
        let (y0, x0) = (hd - out(Face::Bottom), hd - out(Face::Left));
        let (y1, x1) = (self.y - hd + out(Face::Top), self.x - hd + out(Face::Right));
        Ok((self.cells((y0, x0), (y1, x1))?, true))
    }

    /// The end of a CG iteration (after the sum of `r · r` over the ranks), written to
    /// `kernels`: `beta`, `rro`, the error, the count, and whether to stop.
    pub fn cg_next_kernel(
        &self,
        kernels: &impl Kernels<S>,
        eps: f64,
        max_iters: usize,
    ) -> crate::Result<()> {
        let g = &self.cg_graphs;
        let (state, rrn_sum) = (&g.state, &g.rrn);
        let limit = max_iters as f64;
        kernels.for_each(
            "cg_next",
            RangePolicy::new(&self.exec, 0, 1)?,
            kernel!(|i| {
                if state[i + DONE] == 0.0 {
                    let rrn = rrn_sum[i];
                    state[i + BETA] = rrn / state[i + RRO];
                    state[i + RRO] = rrn;
                    state[i + ERROR] = rrn;
                    state[i + ITERATIONS] += 1.0;
                    if rrn.abs().sqrt() < eps || state[i + ITERATIONS] >= limit {
                        state[i + DONE] = 1.0;
                    }
                }
            }),
        )?;
        Ok(())
    }

    /// Sums `line` (one value) over the ranks: on the device, queued after the kernel that
    /// reduced into it, where the ranks talk through NCCL, else through the host (nothing on
    /// one rank, hence in a graph, and while preparing).
    fn cg_sum_on_device(&self, line: &Line<S>) -> crate::Result<()> {
        if self.comms.ranks() == 1 || self.launch.is_preparing() {
            return Ok(());
        }
        self.timed("sum_over_ranks", Phase::Comms, || match &self.nccl {
            Some(nccl) => Ok(nccl.all_reduce(&self.exec, line, NcclOp::Sum)?),
            None => {
                // Through the host: the sum waits for the kernel, as in the host loop.
                let host = create_mirror_view_in(Staging::<S>::default(), line)?;
                deep_copy(&host, line)?;
                let mut value = [host.get(0)?];
                self.comms.sum(&mut value)?;
                deep_copy(line, value[0])?;
                Ok(())
            }
        })
    }

    /// CG's iterations from `rro` with the scalars on the device, one launch at a time, on a
    /// chunk with neighbours (see [`CgMode::Device`]): each iteration runs the graphs'
    /// kernels with the sums reduced over the ranks on the device. `r`'s halo goes in the same
    /// NCCL group as the sum of `r · r`; `cg_calc_pw` forms the new direction in the halo layer
    /// next to each neighbour itself (from the old direction and `r` there), so the sum of
    /// `p · w` travels alone (on 2 H100s, `tea_bm_5` 15.79-15.80 s against 15.92-15.95 s with
    /// the direction's halo exchanged with that sum; the kernel's guard for that layer costs
    /// one H100 0.3%). Every `ITERATIONS_PER_GRAPH` iterations it copies the state to the host,
    /// which tests the copy before while the next iterations run, as with the graphs. The profile times the
    /// iterations as a whole (as with the graphs).
    pub fn cg_iterate_on_device(
        &self,
        settings: &Settings,
        rro: f64,
    ) -> crate::Result<(usize, f64)> {
        if settings.max_iters == 0 {
            return Ok((0, 1e10));
        }
        let g = &self.cg_graphs;
        self.cg_start_state(rro)?;
        // Timed as a whole: a fence after each exchange and sum would take away what queuing
        // them on the device gains.
        let (eps, max_iters) = (settings.eps, settings.max_iters);
        self.timed("cg_iterations", Phase::Solve, || {
            self.untimed(|| {
                // The first direction is formed from p (= r) and r, whose halos the iterations
                // exchange from then on, with the sum of r · r.
                self.exchange_fields(&[&self.p, &self.r], 1, None)?;
                // As with the graphs: ITERATIONS_PER_GRAPH iterations, then a copy of the
                // state.
                self.cg_submit_until_done(max_iters, |s| {
                    for i in 0..ITERATIONS_PER_GRAPH {
                        self.cg_pw_ur_kernels(&self.launch, self.cg_directions(i))?;
                        if !self.exchange_fields_summing(&[&self.r], 1, &g.rrn)? {
                            self.cg_sum_on_device(&g.rrn)?;
                        }
                        self.cg_next_kernel(&self.launch, eps, max_iters)?;
                    }
                    deep_copy_async(&self.exec, &g.host[s % 2], &g.state)?;
                    Ok(())
                })
            })
        })
    }

    /// Writes the state the first iteration starts from to the device.
    fn cg_start_state(&self, rro: f64) -> crate::Result<()> {
        let g = &self.cg_graphs;
        {
            let mut start = g.host[0].host_mut()?;
            start[RRO] = rro;
            start[ERROR] = 1e10;
            start[ITERATIONS] = 0.0;
            start[DONE] = 0.0;
            // The first direction is r itself (the set-up made p = r).
            start[BETA] = 0.0;
        }
        deep_copy(&g.state, &g.host[0])?;
        Ok(())
    }

    /// The direction buffers an iteration of `parity` (0: even) reads and writes.
    pub fn cg_directions(&self, parity: usize) -> (&Field<S>, &Field<S>) {
        let buffers = [&self.p, &self.cg_graphs.q];
        (buffers[parity % 2], buffers[1 - parity % 2])
    }

    /// Builds and instantiates the two graphs of CG's iterations, the even one from `p` to the
    /// second buffer and the odd one back (once; on Cuda this records the kernels, which
    /// [`Chunk::cg_iteration_kernels`] let the preparation compile).
    pub fn cg_build_graphs(&self, settings: &Settings) -> crate::Result<()> {
        let g = &self.cg_graphs;
        if g.graphs.borrow().is_some() {
            return Ok(());
        }
        let build = |parity: usize| -> crate::Result<Graph<S>> {
            let host = &g.host[parity];
            let mut built = Ok(());
            let graph = create_graph(&self.exec, |root| {
                let chain = GraphChain::after(root);
                built = (0..ITERATIONS_PER_GRAPH).try_for_each(|i| {
                    let pair = self.cg_directions(i);
                    self.cg_iteration_kernels(&chain, pair, settings.eps, settings.max_iters)
                });
                chain.last().then_deep_copy(host.clone(), g.state.clone());
                Ok(())
            })?;
            built?;
            graph.instantiate()?;
            Ok(graph)
        };
        let graphs = [build(0)?, build(1)?];
        *g.graphs.borrow_mut() = Some(graphs);
        Ok(())
    }

    /// CG's iterations from `rro` through the graphs, until `sqrt(|r · r|) < eps` or
    /// `max_iters`. Returns the iterations and the last error, as the host loop would.
    pub fn cg_iterate_in_graphs(
        &self,
        settings: &Settings,
        rro: f64,
    ) -> crate::Result<(usize, f64)> {
        if settings.max_iters == 0 {
            return Ok((0, 1e10));
        }
        self.cg_build_graphs(settings)?;
        let g = &self.cg_graphs;
        self.cg_start_state(rro)?;
        let graphs = g.graphs.borrow();
        let graphs = graphs.as_ref().ok_or_else(|| ferrokkos::Error::Internal {
            what: "CG's iterations".into(),
            reason: "the graphs were not built".into(),
        })?;
        self.timed("cg_iterations", Phase::Solve, || {
            self.cg_submit_until_done(settings.max_iters, |s| Ok(graphs[s % 2].submit()?))
        })
    }

    /// Calls `submit(s)` for submissions `s = 0, 1, ...` of `ITERATIONS_PER_GRAPH` (K)
    /// iterations each, each ending in a copy of the state to `host[s % 2]`, until the copy of
    /// submission `s - 1` says the solve is done (read while submission `s` runs); returns the
    /// iterations and the error of the final state.
    fn cg_submit_until_done(
        &self,
        max_iters: usize,
        mut submit: impl FnMut(usize) -> crate::Result<()>,
    ) -> crate::Result<(usize, f64)> {
        let host = &self.cg_graphs.host;
        let mut last = 0;
        // The state is done by iteration max_iters - 1 at the latest, which submission
        // ceil(max_iters / K) - 1 runs, and the one after lets the host see it.
        for s in 0..=max_iters.div_ceil(ITERATIONS_PER_GRAPH) {
            submit(s)?;
            last = s;
            // Waits for submission s - 1 only; submission s runs meanwhile.
            if s > 0 && host[(s - 1) % 2].host()?[DONE] != 0.0 {
                break;
            }
        }
        // The last submission ran after convergence (or the limit) and changed nothing: its
        // copy is the final state.
        let end = host[last % 2].host()?;
        Ok((end[ITERATIONS] as usize, end[ERROR]))
    }
}
