//! The PPCG solver (TeaLeaf's `ppcg`): CG iterations until the eigenvalue estimate is good
//! enough, then CG whose residual is smoothed by Chebyshev inner steps each iteration.

use ferrokkos::prelude::*;

use crate::Space;
use crate::chunk::Chunk;
use crate::halo::FieldId;
use crate::profile::Phase;
use crate::settings::{Settings, Solver};
use crate::solvers::{self, SolveReport, cg, switch_from_cg};

impl<S: Space> Chunk<S> {
    /// Starts the inner steps: `sd = r / theta`.
    pub fn ppcg_init(&self) -> crate::Result<()> {
        self.timed("ppcg_init", Phase::Solve, || {
            let (sd, r, theta) = (&self.sd, &self.r, self.theta);
            self.launch.for_each(
                "ppcg_init",
                self.interior()?,
                kernel!(|(j, k)| sd[(j, k)] = r[(j, k)] / theta),
            )?;
            Ok(())
        })
    }

    /// One inner step: `r -= A sd`, `u += sd`, then `sd = alpha sd + beta r`.
    pub fn ppcg_inner_iteration(&self, alpha: f64, beta: f64) -> crate::Result<()> {
        self.timed("ppcg_inner_iteration", Phase::Solve, || {
            let (sd, r, u, kx, ky) = (&self.sd, &self.r, &self.u, &self.kx, &self.ky);
            self.launch.for_each(
                "ppcg_calc_ur",
                self.interior()?,
                kernel!(|(j, k)| {
                    r[(j, k)] -= solvers::smvp(
                        sd[(j, k)],
                        sd[(j, k - 1)],
                        sd[(j, k + 1)],
                        sd[(j - 1, k)],
                        sd[(j + 1, k)],
                        kx[(j, k)],
                        kx[(j, k + 1)],
                        ky[(j, k)],
                        ky[(j + 1, k)],
                    );
                    u[(j, k)] += sd[(j, k)];
                }),
            )?;
            self.launch.for_each(
                "ppcg_calc_sd",
                self.interior()?,
                kernel!(|(j, k)| sd[(j, k)] = alpha * sd[(j, k)] + beta * r[(j, k)]),
            )?;
            Ok(())
        })
    }
}

/// One PPCG iteration (TeaLeaf's `ppcg_main_step_driver`): a CG update of `u` and `r`, the
/// inner steps, then the new direction from the smoothed residual. Returns the error (`r · r`).
fn step<S: Space>(chunk: &Chunk<S>, settings: &Settings, rro: &mut f64) -> crate::Result<f64> {
    let pw = chunk.cg_calc_w()?;
    let alpha = *rro / pw;
    chunk.cg_calc_ur(alpha)?;
    chunk.ppcg_init()?;
    for pp in 0..settings.ppcg_inner_steps {
        chunk.update_halo(&[FieldId::Sd], 1)?;
        chunk.ppcg_inner_iteration(chunk.cheby_alphas[pp], chunk.cheby_betas[pp])?;
    }
    let rrn = chunk.calculate_2norm(&chunk.r)?;
    let beta = rrn / *rro;
    chunk.cg_calc_p(beta)?;
    *rro = rrn;
    Ok(rrn)
}

/// A PPCG solve; converged when `|r · r| < eps`.
pub fn solve<S: Space>(
    chunk: &mut Chunk<S>,
    settings: &Settings,
    rx: f64,
    ry: f64,
) -> crate::Result<SolveReport> {
    let mut exchange = vec![FieldId::U, FieldId::P];
    let mut rro = cg::init(chunk, settings, rx, ry)?;
    let mut error = 1e10;
    let mut ppcg_iterations = 0;
    let mut eigenvalues = None;
    let mut tt = 0;
    while tt < settings.max_iters {
        if !switch_from_cg(settings, ppcg_iterations > 0, tt, error) {
            error = cg::step(chunk, tt, &mut rro)?;
        } else {
            ppcg_iterations += 1;
            if ppcg_iterations == 1 {
                eigenvalues = Some(chunk.estimate_eigenvalues(tt)?);
                chunk.cheby_coefficients(settings.ppcg_inner_steps);
                chunk.calculate_residual()?;
                exchange = vec![FieldId::P];
                chunk.update_halo(&exchange, 1)?;
            }
            error = step(chunk, settings, &mut rro)?;
        }
        chunk.update_halo(&exchange, 1)?;
        tt += 1;
        if error.abs() < settings.eps {
            break;
        }
    }
    Ok(SolveReport {
        solver: Solver::Ppcg,
        iterations: tt,
        cg_iterations: tt - ppcg_iterations,
        switched_iterations: ppcg_iterations,
        estimated: None,
        eigenvalues,
        error,
        exchange,
    })
}
