//! The linear solvers of the implicit step and the kernels they share (TeaLeaf's
//! `solver_methods`): the operator, the residual, norms, and the step's finalisation.
//!
//! Each step solves `A u = u0` with `A u = u + Σ_faces k (u - u_neighbour)`, the face
//! coefficients `kx`, `ky` being `rx = dt / dx²` (`ry = dt / dy²`) times the harmonic-type mean
//! of the two cells' conduction coefficients.

pub mod cg;
pub mod cg_graph;
pub mod cheby;
pub mod eigen;
pub mod jacobi;
pub mod ppcg;

use ferrokkos::prelude::*;

use crate::Space;
use crate::chunk::{Chunk, Field};
use crate::format::sci;
use crate::halo::FieldId;
use crate::profile::Phase;
use crate::settings::{Settings, Solver};

/// The operator at a cell (TeaLeaf's `SMVP`, in its order of operations), from the operand at
/// the cell (`a`) and its neighbours in -x, +x, -y, +y, and the face coefficients of the cell's
/// own faces (`kx`, `ky`: -x and -y) and of the next cell's (`kx_next`, `ky_next`: +x, +y).
/// Kernels read the Views themselves, so that each launch proves the reads in bounds.
#[device]
#[allow(clippy::too_many_arguments)]
pub fn smvp(
    a: f64,
    left: f64,
    right: f64,
    down: f64,
    up: f64,
    kx: f64,
    kx_next: f64,
    ky: f64,
    ky_next: f64,
) -> f64 {
    (1.0 + (kx_next + kx) + (ky_next + ky)) * a
        - (kx_next * right + kx * left)
        - (ky_next * up + ky * down)
}

/// The error below which CG and PPCG may hand over to Chebyshev or PPCG without `errswitch`
/// (TeaLeaf's `ERROR_SWITCH_MAX`).
pub const ERROR_SWITCH_MAX: f64 = 1.0;

/// With `errswitch`, the CG iterations needed before the switch (TeaLeaf's
/// `CG_ITERS_FOR_EIGENVALUES`).
pub const CG_ITERS_FOR_EIGENVALUES: usize = 20;

/// What one solve did.
#[derive(Clone, Debug, PartialEq)]
pub struct SolveReport {
    /// The solver.
    pub solver: Solver,
    /// Outer iterations in all.
    pub iterations: usize,
    /// Of those, CG iterations (CG itself, and those before Chebyshev or PPCG took over).
    pub cg_iterations: usize,
    /// Chebyshev or PPCG iterations.
    pub switched_iterations: usize,
    /// Chebyshev's estimate of its iterations.
    pub estimated: Option<usize>,
    /// The eigenvalue estimates (min, max) when Chebyshev or PPCG started.
    pub eigenvalues: Option<(f64, f64)>,
    /// The last error the convergence test saw.
    pub error: f64,
    /// The fields the solver's halo updates covered at its end (the step's finalisation adds
    /// the energy to them, as TeaLeaf does).
    pub exchange: Vec<FieldId>,
}

impl SolveReport {
    /// The lines TeaLeaf prints after a solve.
    pub fn lines(&self, settings: &Settings) -> Vec<String> {
        let mut lines = Vec::new();
        if let Some((min, max)) = self.eigenvalues {
            lines.push(format!("Min. eigenvalue: \t{}", sci(min, 12)));
            lines.push(format!("Max. eigenvalue: \t{}", sci(max, 12)));
        }
        match self.solver {
            Solver::Cg => lines.push(format!(" CG: \t\t\t{} iterations", self.cg_iterations)),
            Solver::Jacobi => lines.push(format!("Jacobi: \t\t{} iterations", self.iterations)),
            Solver::Chebyshev => {
                lines.push(format!("CG: \t\t\t{} iterations", self.cg_iterations));
                lines.push(format!(
                    "Cheby: \t\t\t{} iterations ({} estimated)",
                    self.switched_iterations,
                    self.estimated.unwrap_or(0)
                ));
            }
            Solver::Ppcg => {
                lines.push(format!(" CG: \t\t\t{} iterations", self.cg_iterations));
                lines.push(format!(
                    " PPCG: \t\t\t{} iterations ({} inner iterations per)",
                    self.switched_iterations, settings.ppcg_inner_steps
                ));
            }
        }
        lines
    }
}

/// Whether Chebyshev or PPCG takes over from CG at iteration `tt` with the current `error`
/// (TeaLeaf's rule: once started they go on).
pub fn switch_from_cg(settings: &Settings, started: bool, tt: usize, error: f64) -> bool {
    started
        || if settings.error_switch {
            error < settings.eps_lim && tt > CG_ITERS_FOR_EIGENVALUES
        } else {
            tt > settings.presteps && error < ERROR_SWITCH_MAX
        }
}

/// Runs the solver the settings choose; `rx = dt / dx²`, `ry = dt / dy²`.
pub fn solve<S: Space>(
    chunk: &mut Chunk<S>,
    settings: &Settings,
    rx: f64,
    ry: f64,
) -> crate::Result<SolveReport> {
    match settings.solver {
        Solver::Cg => cg::solve(chunk, settings, rx, ry),
        Solver::Jacobi => jacobi::solve(chunk, settings, rx, ry),
        Solver::Chebyshev => cheby::solve(chunk, settings, rx, ry),
        Solver::Ppcg => ppcg::solve(chunk, settings, rx, ry),
    }
}

impl<S: Space> Chunk<S> {
    /// `u0 = u` on the interior.
    pub fn copy_u(&self) -> crate::Result<()> {
        self.timed("copy_u", Phase::Solve, || {
            let (u, u0) = (&self.u, &self.u0);
            self.launch.for_each(
                "copy_u",
                self.interior()?,
                kernel!(|(j, k)| u0[(j, k)] = u[(j, k)]),
            )?;
            Ok(())
        })
    }

    /// `r = u0 - A u` on the interior.
    pub fn calculate_residual(&self) -> crate::Result<()> {
        self.timed("calculate_residual", Phase::Solve, || {
            let (u, u0, r, kx, ky) = (&self.u, &self.u0, &self.r, &self.kx, &self.ky);
            self.launch.for_each(
                "calculate_residual",
                self.interior()?,
                kernel!(|(j, k)| r[(j, k)] = u0[(j, k)]
                    - smvp(
                        u[(j, k)],
                        u[(j, k - 1)],
                        u[(j, k + 1)],
                        u[(j - 1, k)],
                        u[(j + 1, k)],
                        kx[(j, k)],
                        kx[(j, k + 1)],
                        ky[(j, k)],
                        ky[(j + 1, k)],
                    )),
            )?;
            Ok(())
        })
    }

    /// The squared 2-norm of `f` over the interior.
    pub fn calculate_2norm(&self, f: &Field<S>) -> crate::Result<f64> {
        let local = self.timed("calculate_2norm", Phase::Solve, || {
            Ok(self.launch.sum(
                "calculate_2norm",
                self.interior()?,
                kernel!(|(j, k), norm: &mut f64| *norm += f[(j, k)] * f[(j, k)]),
            )?)
        })?;
        let [total] = self.sum_over_ranks([local])?;
        Ok(total)
    }

    /// `energy = u / density` on the interior.
    pub fn finalise(&self) -> crate::Result<()> {
        self.timed("finalise", Phase::Solve, || {
            let (u, density, energy) = (&self.u, &self.density, &self.energy);
            self.launch.for_each(
                "finalise",
                self.interior()?,
                kernel!(|(j, k)| energy[(j, k)] = u[(j, k)] / density[(j, k)]),
            )?;
            Ok(())
        })
    }

    /// `energy = energy0` everywhere.
    pub fn store_energy(&self) -> crate::Result<()> {
        self.timed("store_energy", Phase::StartUp, || {
            if !self.launch.is_preparing() {
                deep_copy(&self.energy, &self.energy0)?;
            }
            Ok(())
        })
    }
}
