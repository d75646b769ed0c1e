//! The Jacobi solver (TeaLeaf's `jacobi`).

use ferrokkos::prelude::*;

use crate::Space;
use crate::chunk::Chunk;
use crate::halo::FieldId;
use crate::profile::Phase;
use crate::settings::{Coefficient, Settings, Solver};
use crate::solvers::SolveReport;

/// Every this many iterations the error is the residual's squared norm instead of the last
/// update's size.
const RESIDUAL_EVERY: usize = 50;

impl<S: Space> Chunk<S> {
    /// Sets up a solve: `u0 = u = energy · density` on all but the outer ring, and the face
    /// coefficients from the density.
    pub fn jacobi_init(&self, coefficient: Coefficient, rx: f64, ry: f64) -> crate::Result<()> {
        self.timed("jacobi_init", Phase::Solve, || {
            let (u, u0, density, energy) = (&self.u, &self.u0, &self.density, &self.energy);
            let (kx, ky) = (&self.kx, &self.ky);
            self.launch.for_each(
                "jacobi_init_u",
                self.inner_cells()?,
                kernel!(|(j, k)| {
                    u0[(j, k)] = energy[(j, k)] * density[(j, k)];
                    u[(j, k)] = u0[(j, k)];
                }),
            )?;
            let conductivity = coefficient == Coefficient::Conductivity;
            self.launch.for_each(
                "jacobi_init_k",
                self.face_cells()?,
                kernel!(|(j, k)| {
                    let mut centre = density[(j, k)];
                    let mut left = density[(j, k - 1)];
                    let mut down = density[(j - 1, k)];
                    if !conductivity {
                        centre = 1.0 / centre;
                        left = 1.0 / left;
                        down = 1.0 / down;
                    }
                    kx[(j, k)] = rx * (left + centre) / (2.0 * left * centre);
                    ky[(j, k)] = ry * (down + centre) / (2.0 * down * centre);
                }),
            )?;
            Ok(())
        })
    }

    /// One Jacobi sweep: `r = u` everywhere, then `u` from `r`'s neighbours on the interior.
    /// Returns `Σ |u - r|`.
    pub fn jacobi_iterate(&self) -> crate::Result<f64> {
        let local = self.timed("jacobi_iterate", Phase::Solve, || {
            let (u, u0, r, kx, ky) = (&self.u, &self.u0, &self.r, &self.kx, &self.ky);
            if !self.launch.is_preparing() {
                deep_copy(r, u)?;
            }
            Ok(self.launch.sum(
                "jacobi_iterate",
                self.interior()?,
                kernel!(|(j, k), error: &mut f64| {
                    u[(j, k)] = (u0[(j, k)]
                        + (kx[(j, k + 1)] * r[(j, k + 1)] + kx[(j, k)] * r[(j, k - 1)])
                        + (ky[(j + 1, k)] * r[(j + 1, k)] + ky[(j, k)] * r[(j - 1, k)]))
                        / (1.0 + (kx[(j, k)] + kx[(j, k + 1)]) + (ky[(j, k)] + ky[(j + 1, k)]));
                    *error += (u[(j, k)] - r[(j, k)]).abs();
                }),
            )?)
        })?;
        let [total] = self.sum_over_ranks([local])?;
        Ok(total)
    }
}

/// A Jacobi solve: sweeps until the error is below `eps` or `max_iters`. The error is the last
/// sweep's `Σ |Δu|`, except every 50th sweep (from the first), where it is the residual's
/// squared norm (TeaLeaf's Kokkos version: the norm replaces the sweep's sum).
pub fn solve<S: Space>(
    chunk: &mut Chunk<S>,
    settings: &Settings,
    rx: f64,
    ry: f64,
) -> crate::Result<SolveReport> {
    let exchange = [FieldId::U];
    chunk.jacobi_init(settings.coefficient, rx, ry)?;
    chunk.copy_u()?;
    let mut error = 1e10;
    let mut iterations = 0;
    while iterations < settings.max_iters {
        error = chunk.jacobi_iterate()?;
        if iterations % RESIDUAL_EVERY == 0 {
            chunk.update_halo(&exchange, 1)?;
            chunk.calculate_residual()?;
            error = chunk.calculate_2norm(&chunk.r)?;
        }
        chunk.update_halo(&exchange, 1)?;
        iterations += 1;
        if error.abs() < settings.eps {
            break;
        }
    }
    Ok(SolveReport {
        solver: Solver::Jacobi,
        iterations,
        cg_iterations: 0,
        switched_iterations: 0,
        estimated: None,
        eigenvalues: None,
        error,
        exchange: exchange.to_vec(),
    })
}
