//! The run's settings, with TeaLeaf's defaults, and the choices a deck makes (solver, coefficient).

use std::fmt;
use std::str::FromStr;

use crate::error::TeaError;

/// The linear solver of each implicit step.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Solver {
    /// Jacobi iteration.
    Jacobi,
    /// Conjugate gradients (TeaLeaf's default).
    Cg,
    /// Chebyshev iteration, started after CG iterations that estimate the eigenvalues.
    Chebyshev,
    /// CG preconditioned with polynomial (Chebyshev) inner steps, started like Chebyshev.
    Ppcg,
}

impl Solver {
    /// The name TeaLeaf prints.
    pub fn name(self) -> &'static str {
        match self {
            Solver::Jacobi => "Jacobi",
            Solver::Cg => "CG",
            Solver::Chebyshev => "Chebyshev",
            Solver::Ppcg => "PPCG",
        }
    }
}

impl fmt::Display for Solver {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

impl FromStr for Solver {
    type Err = TeaError;

    /// TeaLeaf's command-line names: `cg`, `cheby`, `ppcg`, `jacobi` (also `chebyshev`).
    fn from_str(s: &str) -> Result<Solver, TeaError> {
        match s {
            "cg" => Ok(Solver::Cg),
            "cheby" | "chebyshev" => Ok(Solver::Chebyshev),
            "ppcg" => Ok(Solver::Ppcg),
            "jacobi" => Ok(Solver::Jacobi),
            _ => Err(TeaError::Usage(format!(
                "unknown solver {s:?}; expected cg, cheby, ppcg or jacobi"
            ))),
        }
    }
}

/// Whether CG iterates through graphs (`solvers/cg_graph.rs`; `--graphs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Graphs {
    /// Where the chunk has no neighbours and the space's memory is not the host's (a GPU):
    /// there a graph saves launches, while on the host spaces a graph runs its kernels one
    /// after the other, and the launch loop, whose kernels take their scalars from the host,
    /// is faster.
    #[default]
    Auto,
    /// Wherever the chunk has no neighbours.
    On,
    /// Never: one launch at a time.
    Off,
}

impl FromStr for Graphs {
    type Err = TeaError;

    /// `auto`, `on` or `off`.
    fn from_str(s: &str) -> Result<Graphs, TeaError> {
        match s {
            "auto" => Ok(Graphs::Auto),
            "on" => Ok(Graphs::On),
            "off" => Ok(Graphs::Off),
            _ => Err(TeaError::Usage(format!(
                "unknown graph mode {s:?}; expected auto, on or off"
            ))),
        }
    }
}

/// Whether the ranks of a GPU run exchange halos and sum through NCCL on the device
/// (`--nccl`), rather than through the host and MPI.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Nccl {
    /// Where every rank runs on a GPU and NCCL can be loaded: halo messages go from device
    /// buffer to device buffer and CG's sums stay on the device, queued between the kernels,
    /// so CG's iterations need the host only to test convergence, one iteration behind.
    #[default]
    Auto,
    /// As `Auto`, and an error where NCCL cannot be used.
    On,
    /// Never: halos are staged through host memory and sums taken by the host.
    Off,
}

impl FromStr for Nccl {
    type Err = TeaError;

    /// `auto`, `on` or `off`.
    fn from_str(s: &str) -> Result<Nccl, TeaError> {
        match s {
            "auto" => Ok(Nccl::Auto),
            "on" => Ok(Nccl::On),
            "off" => Ok(Nccl::Off),
            _ => Err(TeaError::Usage(format!(
                "unknown NCCL mode {s:?}; expected auto, on or off"
            ))),
        }
    }
}

/// How the conduction coefficient of a cell follows from its density.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Coefficient {
    /// The coefficient is the density (`coefficient_density`, the default).
    Conductivity,
    /// The coefficient is the reciprocal of the density (`coefficient_inverse_density`).
    ReciprocalConductivity,
}

/// The settings of a run: TeaLeaf's defaults, overridden by the deck and the command line.
#[derive(Clone, Debug, PartialEq)]
pub struct Settings {
    /// The time step (`initial_timestep`; constant through the run).
    pub dt_init: f64,
    /// The simulated time at which the run stops (`end_time`).
    pub end_time: f64,
    /// The number of steps after which the run stops (`end_step`).
    pub end_step: usize,
    /// The domain's lower x bound (`xmin`).
    pub x_min: f64,
    /// The domain's lower y bound (`ymin`).
    pub y_min: f64,
    /// The domain's upper x bound (`xmax`).
    pub x_max: f64,
    /// The domain's upper y bound (`ymax`).
    pub y_max: f64,
    /// Cells in x (`x_cells`).
    pub x_cells: usize,
    /// Cells in y (`y_cells`).
    pub y_cells: usize,
    /// A field summary every this many steps (`summary_frequency`).
    pub summary_frequency: usize,
    /// CG iterations before Chebyshev or PPCG may start, without `errswitch` (`presteps`).
    pub presteps: usize,
    /// Inner (polynomial) steps per PPCG iteration (`ppcg_inner_steps`).
    pub ppcg_inner_steps: usize,
    /// With `errswitch`: the CG error below which Chebyshev or PPCG starts (`epslim`).
    pub eps_lim: f64,
    /// The most iterations of one solve (`max_iters`).
    pub max_iters: usize,
    /// The convergence threshold of the solvers (`eps`).
    pub eps: f64,
    /// Chunks per rank (`num_chunks_per_rank`; this port runs one).
    pub num_chunks_per_rank: usize,
    /// Halo cells around each chunk (`halo_depth`).
    pub halo_depth: usize,
    /// Whether the final temperature is checked against the problems table (`check_result`).
    pub check_result: bool,
    /// Switch from CG to Chebyshev or PPCG on the error rather than after `presteps` (`errswitch`).
    pub error_switch: bool,
    /// `preconditioner_on` (parsed as TeaLeaf does; no solver here uses a preconditioner).
    pub preconditioner: bool,
    /// The solver (`use_cg`, `use_jacobi`, `use_chebyshev`, `use_ppcg`).
    pub solver: Solver,
    /// The conduction coefficient (`coefficient_density`, `coefficient_inverse_density`).
    pub coefficient: Coefficient,
    /// Print the per-kernel and per-phase profile at the end (`profiler_on`).
    pub profiler_on: bool,
    /// The deck's `test_problem` number (informational).
    pub test_problem: Option<usize>,
    /// Whether CG iterates through graphs (`--graphs`).
    pub graphs: Graphs,
    /// Whether GPU ranks talk through NCCL (`--nccl`).
    pub nccl: Nccl,
}

impl Default for Settings {
    /// TeaLeaf's defaults.
    fn default() -> Settings {
        Settings {
            dt_init: 0.1,
            end_time: 10.0,
            end_step: i32::MAX as usize,
            x_min: 0.0,
            y_min: 0.0,
            x_max: 100.0,
            y_max: 100.0,
            x_cells: 10,
            y_cells: 10,
            summary_frequency: 10,
            presteps: 30,
            ppcg_inner_steps: 10,
            eps_lim: 1e-5,
            max_iters: 10_000,
            eps: 1e-15,
            num_chunks_per_rank: 1,
            halo_depth: 2,
            check_result: true,
            error_switch: false,
            preconditioner: false,
            solver: Solver::Cg,
            coefficient: Coefficient::Conductivity,
            profiler_on: false,
            test_problem: None,
            graphs: Graphs::Auto,
            nccl: Nccl::Auto,
        }
    }
}

impl Settings {
    /// The cell width in x.
    pub fn dx(&self) -> f64 {
        (self.x_max - self.x_min) / self.x_cells as f64
    }

    /// The cell width in y.
    pub fn dy(&self) -> f64 {
        (self.y_max - self.y_min) / self.y_cells as f64
    }

    /// Checks the values a run depends on (numbers are finite: the deck parser refuses others);
    /// the message names the setting.
    pub fn validate(&self) -> Result<(), String> {
        let positive = [
            ("x_cells", self.x_cells),
            ("y_cells", self.y_cells),
            ("end_step", self.end_step),
            ("summary_frequency", self.summary_frequency),
            ("max_iters", self.max_iters),
            ("halo_depth", self.halo_depth),
        ];
        if let Some((name, _)) = positive.iter().find(|(_, v)| *v == 0) {
            return Err(format!("{name} must be at least 1"));
        }
        if self.x_max <= self.x_min || self.y_max <= self.y_min {
            return Err(format!(
                "the domain [{}, {}] x [{}, {}] is empty",
                self.x_min, self.x_max, self.y_min, self.y_max
            ));
        }
        if self.dt_init <= 0.0 {
            return Err(format!(
                "initial_timestep must be positive, got {}",
                self.dt_init
            ));
        }
        if self.num_chunks_per_rank != 1 {
            return Err(format!(
                "num_chunks_per_rank = {}: this port runs one chunk per rank",
                self.num_chunks_per_rank
            ));
        }
        Ok(())
    }
}
