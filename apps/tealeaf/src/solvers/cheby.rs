//! The Chebyshev solver (TeaLeaf's `cheby`): CG iterations until the eigenvalue estimate is
//! good enough, then Chebyshev iterations with coefficients from that estimate.

use ferrokkos::prelude::*;

use crate::Space;
use crate::chunk::Chunk;
use crate::halo::FieldId;
use crate::profile::Phase;
use crate::settings::{Settings, Solver};
use crate::solvers::{self, SolveReport, cg, eigen, switch_from_cg};

impl<S: Space> Chunk<S> {
    /// Starts the iteration: `w = A u`, `r = u0 - w`, `p = r / theta`.
    pub fn cheby_init(&self) -> crate::Result<()> {
        self.timed("cheby_init", Phase::Solve, || {
            let (p, r, u, u0, w) = (&self.p, &self.r, &self.u, &self.u0, &self.w);
            let (kx, ky, theta) = (&self.kx, &self.ky, self.theta);
            self.launch.for_each(
                "cheby_init",
                self.interior()?,
                kernel!(|(j, k)| {
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
                    r[(j, k)] = u0[(j, k)] - w[(j, k)];
                    p[(j, k)] = r[(j, k)] / theta;
                }),
            )?;
            Ok(())
        })
    }

    /// One iteration: `w = A u`, `r = u0 - w`, `p = alpha p + beta r`, then `u += p`.
    pub fn cheby_iterate(&self, alpha: f64, beta: f64) -> crate::Result<()> {
        self.timed("cheby_iterate", Phase::Solve, || {
            let (p, r, u, u0, w) = (&self.p, &self.r, &self.u, &self.u0, &self.w);
            let (kx, ky) = (&self.kx, &self.ky);
            self.launch.for_each(
                "cheby_iterate",
                self.interior()?,
                kernel!(|(j, k)| {
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
                    r[(j, k)] = u0[(j, k)] - w[(j, k)];
                    p[(j, k)] = alpha * p[(j, k)] + beta * r[(j, k)];
                }),
            )?;
            self.launch.for_each(
                "cheby_calc_u",
                self.interior()?,
                kernel!(|(j, k)| u[(j, k)] += p[(j, k)]),
            )?;
            Ok(())
        })
    }

    /// Estimates the eigenvalues from the first `cg_iterations` CG iterations of this solve and
    /// sets `eigmin`, `eigmax` and `theta`.
    pub fn estimate_eigenvalues(&mut self, cg_iterations: usize) -> crate::Result<(f64, f64)> {
        let (min, max) = eigen::estimate(
            &self.cg_alphas[..cg_iterations],
            &self.cg_betas[..cg_iterations],
        )?;
        (self.eigmin, self.eigmax) = (min, max);
        self.theta = (max + min) / 2.0;
        Ok((min, max))
    }

    /// The first `count` Chebyshev coefficients from the eigenvalue estimate (TeaLeaf's
    /// `cheby_coef_driver`).
    pub fn cheby_coefficients(&mut self, count: usize) {
        self.theta = (self.eigmax + self.eigmin) / 2.0;
        let delta = (self.eigmax - self.eigmin) / 2.0;
        let sigma = self.theta / delta;
        let mut rho_old = 1.0 / sigma;
        let count = count.min(self.cheby_alphas.len());
        for i in 0..count {
            let rho_new = 1.0 / (2.0 * sigma - rho_old);
            self.cheby_alphas[i] = rho_new * rho_old;
            self.cheby_betas[i] = 2.0 * rho_new / delta;
            rho_old = rho_new;
        }
    }
}

/// Chebyshev's estimate of the iterations it needs to reduce the error from `error` to
/// round-off relative to `bb = u0 · u0`.
fn estimate_iterations(eigmin: f64, eigmax: f64, error: f64, bb: f64) -> usize {
    let condition = eigmax / eigmin;
    let it_alpha = f64::EPSILON * bb / (4.0 * error);
    let gamma = (condition.sqrt() - 1.0) / (condition.sqrt() + 1.0);
    let estimate = (it_alpha.ln() / (2.0 * gamma.ln())).round();
    if estimate.is_finite() && estimate > 0.0 {
        estimate as usize
    } else {
        0
    }
}

/// A Chebyshev solve; converged when `|error| < eps` (the error being the residual's squared
/// norm, computed at the first Chebyshev iteration and then every 10th outer iteration once
/// the estimate is reached).
pub fn solve<S: Space>(
    chunk: &mut Chunk<S>,
    settings: &Settings,
    rx: f64,
    ry: f64,
) -> crate::Result<SolveReport> {
    let mut exchange = vec![FieldId::U, FieldId::P];
    let mut rro = cg::init(chunk, settings, rx, ry)?;
    let mut error = 1e10;
    let (mut cheby_iterations, mut estimated) = (0, 0);
    let mut eigenvalues = None;
    let mut tt = 0;
    while tt < settings.max_iters {
        if !switch_from_cg(settings, cheby_iterations > 0, tt, error) {
            error = cg::step(chunk, tt, &mut rro)?;
        } else {
            cheby_iterations += 1;
            let n = cheby_iterations;
            if n == 1 {
                eigenvalues = Some(chunk.estimate_eigenvalues(tt)?);
                // One more coefficient than TeaLeaf computes: its last iteration (at
                // max_iters) reads one past those.
                chunk.cheby_coefficients(settings.max_iters - tt + 1);
                let bb = chunk.calculate_2norm(&chunk.u0)?;
                chunk.cheby_init()?;
                exchange = vec![FieldId::U];
                chunk.update_halo(&exchange, 1)?;
                chunk.cheby_iterate(chunk.cheby_alphas[n], chunk.cheby_betas[n])?;
                error = chunk.calculate_2norm(&chunk.r)?;
                estimated = estimate_iterations(chunk.eigmin, chunk.eigmax, error, bb);
            } else {
                chunk.cheby_iterate(chunk.cheby_alphas[n], chunk.cheby_betas[n])?;
                if n >= estimated && (tt + 1) % 10 == 0 {
                    error = chunk.calculate_2norm(&chunk.r)?;
                }
            }
        }
        chunk.update_halo(&exchange, 1)?;
        tt += 1;
        if error.abs() < settings.eps {
            break;
        }
    }
    Ok(SolveReport {
        solver: Solver::Chebyshev,
        iterations: tt,
        cg_iterations: tt - cheby_iterations,
        switched_iterations: cheby_iterations,
        estimated: Some(estimated),
        eigenvalues,
        error,
        exchange,
    })
}
