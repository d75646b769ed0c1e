//! The conjugate-gradient solver (TeaLeaf's `cg`), whose iterations also start Chebyshev and
//! PPCG and record the step lengths their eigenvalue estimate needs.

use ferrokkos::prelude::*;
use ferrokkos::traits::ReduceTarget;

use crate::Space;
use crate::chunk::Chunk;
use crate::halo::FieldId;
use crate::profile::Phase;
use crate::settings::{Coefficient, Settings, Solver};
use crate::solvers::cg_graph::CgMode;
use crate::solvers::{self, SolveReport};

impl<S: Space> Chunk<S> {
    /// Sets up a solve: `u = energy · density` everywhere, the conduction coefficient `w` on all
    /// but the outer ring, the face coefficients, then `w = A u`, `r = u - w`, `p = r`. Returns
    /// `rro = r · p`.
    pub fn cg_init(&self, coefficient: Coefficient, rx: f64, ry: f64) -> crate::Result<f64> {
        let local = self.timed("cg_init", Phase::Solve, || {
            let (p, r, u, w) = (&self.p, &self.r, &self.u, &self.w);
            let (density, energy, kx, ky) = (&self.density, &self.energy, &self.kx, &self.ky);
            self.launch.for_each(
                "cg_init_u",
                self.all_cells()?,
                kernel!(|(j, k)| {
                    p[(j, k)] = 0.0;
                    r[(j, k)] = 0.0;
                    u[(j, k)] = energy[(j, k)] * density[(j, k)];
                }),
            )?;
            let conductivity = coefficient == Coefficient::Conductivity;
            self.launch.for_each(
                "cg_init_w",
                self.inner_cells()?,
                kernel!(|(j, k)| {
                    let d = density[(j, k)];
                    w[(j, k)] = if conductivity { d } else { 1.0 / d };
                }),
            )?;
            self.launch.for_each(
                "cg_init_k",
                self.face_cells()?,
                kernel!(|(j, k)| {
                    kx[(j, k)] =
                        rx * (w[(j, k - 1)] + w[(j, k)]) / (2.0 * w[(j, k - 1)] * w[(j, k)]);
                    ky[(j, k)] =
                        ry * (w[(j - 1, k)] + w[(j, k)]) / (2.0 * w[(j - 1, k)] * w[(j, k)]);
                }),
            )?;
            Ok(self.launch.sum(
                "cg_init_others",
                self.interior()?,
                kernel!(|(j, k), rro: &mut f64| {
                    w[(j, k)] = solvers::smvp(
                        u[(j, k)],
                        u[(j, k - 1)],
                        u[(j, k + 1)],
                        u[(j - 1, k)],
                        u[(j + 1, k)],
                        kx[(j, k)],
                        kx[(j, k + 1)],
                        ky[(j, k)],
                        ky[(j + 1, k)],
                    );
                    r[(j, k)] = u[(j, k)] - w[(j, k)];
                    p[(j, k)] = r[(j, k)];
                    *rro += r[(j, k)] * p[(j, k)];
                }),
            )?)
        })?;
        let [total] = self.sum_over_ranks([local])?;
        Ok(total)
    }

    /// `w = A p`; returns `p · w` (summed over the ranks).
    pub fn cg_calc_w(&self) -> crate::Result<f64> {
        let local = self.timed("cg_calc_w", Phase::Solve, || {
            Ok(self.calc_w_into(self.interior()?, Sum::new(), 0.0)?)
        })?;
        let [total] = self.sum_over_ranks([local])?;
        Ok(total)
    }

    /// `w = A p` over `cells`, `p · w` reduced into `target`.
    fn calc_w_into<T>(
        &self,
        cells: MDRangePolicy<S, 2>,
        target: T,
        dry: T::Output,
    ) -> ferrokkos::Result<T::Output>
    where
        T: ReduceTarget<Reducer = Sum<f64>>,
    {
        let (p, w, kx, ky) = (&self.p, &self.w, &self.kx, &self.ky);
        self.launch.reduce(
            "cg_calc_w",
            cells,
            kernel!(|(j, k), pw: &mut f64| {
                // Every read before the write: w may not alias p as far as the compiler knows.
                let pc = p[(j, k)];
                let wjk = solvers::smvp(
                    pc,
                    p[(j, k - 1)],
                    p[(j, k + 1)],
                    p[(j - 1, k)],
                    p[(j + 1, k)],
                    kx[(j, k)],
                    kx[(j, k + 1)],
                    ky[(j, k)],
                    ky[(j + 1, k)],
                );
                w[(j, k)] = wjk;
                *pw += wjk * pc;
            }),
            target,
            dry,
        )
    }

    /// Updates `p`'s halo, then `w = A p`; returns `p · w` (summed over the ranks). A chunk with
    /// neighbours computes the interior cells that read no halo cell (all but the interior's
    /// outer ring) while the halo messages travel, then the ring's four sides: five partial
    /// sums, added in a fixed order. Without neighbours, or with an interior too thin for a
    /// ring, it is the halo update and [`Chunk::cg_calc_w`].
    pub fn cg_calc_w_exchanging(&self) -> crate::Result<f64> {
        let hd = self.halo_depth;
        let (y0, x0, y1, x1) = (hd, hd, self.y - hd, self.x - hd);
        let remote = self.neighbours.iter().any(Option::is_some);
        if !remote || y1 - y0 < 3 || x1 - x0 < 3 {
            self.update_halo(&[FieldId::P], 1)?;
            return self.cg_calc_w();
        }
        let parts = [
            ((y0 + 1, x0 + 1), (y1 - 1, x1 - 1)),
            ((y0, x0), (y0 + 1, x1)),
            ((y1 - 1, x0), (y1, x1)),
            ((y0 + 1, x0), (y1 - 1, x0 + 1)),
            ((y0 + 1, x1 - 1), (y1 - 1, x1)),
        ];
        let part = |i: usize| -> crate::Result<()> {
            let (from, to) = parts[i];
            let target = subview(&self.pw_parts, (i,))?;
            Ok(self.calc_w_into(self.cells(from, to)?, &target, ())?)
        };
        self.update_halo_during(&[FieldId::P], 1, Some(Box::new(|| part(0))))?;
        let local = self.timed("cg_calc_w", Phase::Solve, || {
            (1..parts.len()).try_for_each(part)?;
            if self.launch.is_preparing() {
                return Ok(0.0);
            }
            deep_copy(&self.pw_host, &self.pw_parts)?;
            Ok(self.pw_host.to_vec()?.iter().sum())
        })?;
        let [total] = self.sum_over_ranks([local])?;
        Ok(total)
    }

    /// `u += alpha p`, `r -= alpha w`; returns `r · r`.
    pub fn cg_calc_ur(&self, alpha: f64) -> crate::Result<f64> {
        let local = self.timed("cg_calc_ur", Phase::Solve, || {
            let (u, r, p, w) = (&self.u, &self.r, &self.p, &self.w);
            Ok(self.launch.sum(
                "cg_calc_ur",
                self.interior()?,
                kernel!(|(j, k), rrn: &mut f64| {
                    // Every read before the writes (one round trip to memory, not two), the
                    // arithmetic of `u += alpha p; r -= alpha w`.
                    let (uc, pc, rc, wc) = (u[(j, k)], p[(j, k)], r[(j, k)], w[(j, k)]);
                    let rn = rc - alpha * wc;
                    u[(j, k)] = uc + alpha * pc;
                    r[(j, k)] = rn;
                    *rrn += rn * rn;
                }),
            )?)
        })?;
        let [total] = self.sum_over_ranks([local])?;
        Ok(total)
    }

    /// `p = beta p + r`.
    pub fn cg_calc_p(&self, beta: f64) -> crate::Result<()> {
        self.timed("cg_calc_p", Phase::Solve, || {
            let (p, r) = (&self.p, &self.r);
            self.launch.for_each(
                "cg_calc_p",
                self.interior()?,
                kernel!(|(j, k)| p[(j, k)] = beta * p[(j, k)] + r[(j, k)]),
            )?;
            Ok(())
        })
    }
}

/// CG's set-up (TeaLeaf's `cg_init_driver`): the kernels, the halos of `u` and `p`, `u0 = u`.
/// Returns `rro`.
pub fn init<S: Space>(
    chunk: &Chunk<S>,
    settings: &Settings,
    rx: f64,
    ry: f64,
) -> crate::Result<f64> {
    let rro = chunk.cg_init(settings.coefficient, rx, ry)?;
    chunk.update_halo(&[FieldId::U, FieldId::P], 1)?;
    chunk.copy_u()?;
    Ok(rro)
}

/// One CG iteration (TeaLeaf's `cg_main_step_driver`), the `tt`-th of the solve: records its
/// alpha and beta, updates `rro`, and returns the error (`r · r`).
pub fn step<S: Space>(chunk: &mut Chunk<S>, tt: usize, rro: &mut f64) -> crate::Result<f64> {
    let pw = chunk.cg_calc_w()?;
    finish_step(chunk, tt, rro, pw)
}

/// The rest of a CG iteration once `pw = p · w` is known: `u`, `r`, `p` and the step's alpha
/// and beta. Returns the error (`r · r`).
fn finish_step<S: Space>(
    chunk: &mut Chunk<S>,
    tt: usize,
    rro: &mut f64,
    pw: f64,
) -> crate::Result<f64> {
    let alpha = *rro / pw;
    chunk.cg_alphas[tt] = alpha;
    let rrn = chunk.cg_calc_ur(alpha)?;
    let beta = rrn / *rro;
    chunk.cg_betas[tt] = beta;
    chunk.cg_calc_p(beta)?;
    *rro = rrn;
    Ok(rrn)
}

/// A CG solve: iterations until `sqrt(|r · r|) < eps` or `max_iters`.
///
/// TeaLeaf updates the halos of `u` and `p` after every iteration. Only `p`'s are read by the
/// next iteration (`cg_calc_w`); `u`'s are read only after the solve (the residual check, the
/// finalisation's halo update). So each iteration starts with an update of `p`'s halo alone,
/// overlapped with the interior of `w = A p` where the chunk has neighbours, and the solve ends
/// with one update of `u`'s: the same values wherever they are read, for half the halo work
/// (and half the messages between ranks) per iteration. The first iteration finds `p`'s halo
/// already updated by the set-up.
///
/// Where [`Chunk::cg_mode`] says (by default on a GPU: on a chunk without neighbours, or
/// whose ranks talk through NCCL), the iterations run with the scalars on the device, as
/// graphs or one launch at a time (`cg_graph.rs`): the same kernels and sums. The step lengths are then not recorded (only Chebyshev's and PPCG's CG iterations
/// need them, and those take [`step`]).
pub fn solve<S: Space>(
    chunk: &mut Chunk<S>,
    settings: &Settings,
    rx: f64,
    ry: f64,
) -> crate::Result<SolveReport> {
    let exchange = [FieldId::U, FieldId::P];
    let mut rro = init(chunk, settings, rx, ry)?;
    let mode = chunk.cg_mode(settings);
    let (iterations, error) = if mode == CgMode::Graphs {
        chunk.cg_iterate_in_graphs(settings, rro)?
    } else if mode == CgMode::Device {
        chunk.cg_iterate_on_device(settings, rro)?
    } else {
        let mut error = 1e10;
        let mut iterations = 0;
        while iterations < settings.max_iters {
            let pw = if iterations == 0 {
                chunk.cg_calc_w()?
            } else {
                chunk.cg_calc_w_exchanging()?
            };
            error = finish_step(chunk, iterations, &mut rro, pw)?;
            iterations += 1;
            if error.abs().sqrt() < settings.eps {
                break;
            }
        }
        (iterations, error)
    };
    chunk.update_halo(&[FieldId::U], 1)?;
    Ok(SolveReport {
        solver: Solver::Cg,
        iterations,
        cg_iterations: iterations,
        switched_iterations: 0,
        estimated: None,
        eigenvalues: None,
        error,
        exchange: exchange.to_vec(),
    })
}
