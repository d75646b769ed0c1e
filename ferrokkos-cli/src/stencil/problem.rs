//! The problem every implementation solves, written once here (the C peer mirrors it in
//! `csrc/stencil_omp.c`): the grid, the sweep's weights and start values, CG's right-hand side, and
//! the two benchmarked kernels with the bytes they move at the least.
//!
//! The arithmetic of each kernel is written in the same order in every implementation (ferrokkos,
//! the Rust peer, the C peer), and nothing fuses multiply-adds (rustc never does; the C is built
//! with `-ffp-contract=off`), so the sweep's fields agree bit for bit:
//!
//! ```text
//! sweep:  v[i][j] = C0 * u[i][j]
//!                 + C1 * (u[i-1][j] + u[i+1][j] + u[i][j-1] + u[i][j+1])
//!                 + C2 * (u[i-1][j-1] + u[i-1][j+1] + u[i+1][j-1] + u[i+1][j+1])
//! apply:  ap[i][j] = 4 * p[i][j] - (p[i-1][j] + p[i+1][j] + p[i][j-1] + p[i][j+1])
//! ```

use ferrokkos::prelude::*;

/// The sweep's weight of the centre cell.
pub const C0: f64 = 0.5;
/// The sweep's weight of each of the four edge neighbours.
pub const C1: f64 = 0.1;
/// The sweep's weight of each of the four corner neighbours (the weights sum to 1: the sweep
/// smooths the field towards its fixed halo).
pub const C2: f64 = 0.025;

/// The grid: `n` x `n` interior cells and one layer of halo cells around them, stored row-major
/// as `(n + 2)` x `(n + 2)` cells (cell `(i, j)` at `i * (n + 2) + j`; the interior is
/// `1..=n` in both directions).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Grid {
    /// Interior cells per direction.
    pub n: usize,
}

impl Grid {
    /// Cells per row, halo included.
    pub fn width(self) -> usize {
        self.n + 2
    }

    /// All cells, halo included.
    pub fn cells(self) -> usize {
        self.width() * self.width()
    }

    /// The interior cells.
    pub fn interior(self) -> usize {
        self.n * self.n
    }
}

/// The sweep's start value of cell `(i, j)`, halo included (the halo keeps it: Dirichlet):
/// `((7 i + 13 j) mod 32) / 32`, exact in binary, the same wherever it is computed.
#[device]
pub fn sweep_start(i: i64, j: i64) -> f64 {
    ((i * 7 + j * 13) % 32) as f64 / 32.0
}

/// CG's right-hand side at interior cell `(i, j)`: `((5 i + 3 j) mod 17) / 16 - 1/2`.
#[device]
pub fn cg_rhs(i: i64, j: i64) -> f64 {
    ((i * 5 + j * 3) % 17) as f64 / 16.0 - 0.5
}

/// The benchmarked kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// `--steps` sweeps of the 9-point stencil, the two fields taking turns.
    Sweep,
    /// `--iters` iterations of CG from its start.
    Cg,
}

/// Both kernels, in the order they run.
pub const KERNELS: [Kernel; 2] = [Kernel::Sweep, Kernel::Cg];

impl Kernel {
    /// Its name in the tables.
    pub fn label(self) -> &'static str {
        match self {
            Kernel::Sweep => "sweep",
            Kernel::Cg => "cg",
        }
    }

    /// The bytes one unit moves per interior cell at the least, each array read or written once
    /// per kernel: a sweep reads u and writes v (16); a CG iteration applies the operator (p in, ap
    /// out: 16), takes p.ap (16) and r.r (8), and updates x, r and p (24 each).
    pub fn bytes_per_cell(self) -> usize {
        match self {
            Kernel::Sweep => 16,
            Kernel::Cg => 16 + 16 + 8 + 3 * 24,
        }
    }

    /// How the bytes are counted, as printed.
    pub fn bytes_formula(self) -> &'static str {
        match self {
            Kernel::Sweep => "16 B per interior cell (u read, v written)",
            Kernel::Cg => "112 B per interior cell (apply 16, dots 16 + 8, three updates 24 each)",
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_grid_has_one_halo_layer() {
        let g = Grid { n: 3 };
        assert_eq!((g.width(), g.cells(), g.interior()), (5, 25, 9));
    }

    #[test]
    fn start_values_and_the_right_hand_side() {
        assert_eq!(sweep_start(0, 0), 0.0);
        assert_eq!(sweep_start(1, 2), 1.0 / 32.0);
        assert_eq!(sweep_start(3, 1), 2.0 / 32.0);
        assert_eq!(cg_rhs(1, 1), 8.0 / 16.0 - 0.5);
        assert_eq!(cg_rhs(2, 3), 2.0 / 16.0 - 0.5);
        assert!((C0 + 4.0 * C1 + 4.0 * C2 - 1.0).abs() < 1e-15);
    }

    #[test]
    fn bytes_follow_the_formula() {
        assert_eq!(Kernel::Sweep.bytes_per_cell(), 16);
        assert_eq!(Kernel::Cg.bytes_per_cell(), 112);
        assert!(Kernel::Cg.bytes_formula().starts_with("112 B"));
    }
}
