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
//! tea:    w[i][j] = (1 + (kx[i+1][j] + kx[i][j]) + (ky[i][j+1] + ky[i][j])) * p[i][j]
//!                 - (kx[i+1][j] * p[i+1][j] + kx[i][j] * p[i-1][j])
//!                 - (ky[i][j+1] * p[i][j+1] + ky[i][j] * p[i][j-1])
//! ```
//!
//! The last is TeaLeaf's operator (its `SMVP`, in its order of operations) with face coefficients
//! `kx` (between cells `(i - 1, j)` and `(i, j)`) and `ky` (between `(i, j - 1)` and `(i, j)`).

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

/// TeaLeaf-shaped CG's face coefficient `kx` at cell `(i, j)`, halo included:
/// `1/4 + ((3 i + 5 j) mod 16) / 64`, exact in binary.
#[device]
pub fn tea_kx(i: i64, j: i64) -> f64 {
    0.25 + ((i * 3 + j * 5) % 16) as f64 / 64.0
}

/// TeaLeaf-shaped CG's face coefficient `ky` at cell `(i, j)`, halo included:
/// `1/4 + ((7 i + 3 j) mod 16) / 64`.
#[device]
pub fn tea_ky(i: i64, j: i64) -> f64 {
    0.25 + ((i * 7 + j * 3) % 16) as f64 / 64.0
}

/// The benchmarked kernels.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kernel {
    /// `--steps` sweeps of the 9-point stencil, the two fields taking turns.
    Sweep,
    /// `--iters` iterations of CG from its start.
    Cg,
    /// `--iters` iterations of TeaLeaf-shaped CG from its start.
    Tea,
}

/// The kernels, in the order they run.
pub const KERNELS: [Kernel; 3] = [Kernel::Sweep, Kernel::Cg, Kernel::Tea];

impl Kernel {
    /// Its name in the tables.
    pub fn label(self) -> &'static str {
        match self {
            Kernel::Sweep => "sweep",
            Kernel::Cg => "cg",
            Kernel::Tea => "tea",
        }
    }

    /// The bytes one unit moves per interior cell at the least, each array read or written once
    /// per kernel: a sweep reads u and writes v (16); a CG iteration applies the operator (p in, ap
    /// out: 16), takes p.ap (16) and r.r (8), and updates x, r and p (24 each); a TeaLeaf-shaped
    /// iteration applies the operator with p.w (kx, ky, p in, w out: 32), updates u and r with r.r
    /// (u, p, r, w in, u and r out: 48), and updates p (24).
    pub fn bytes_per_cell(self) -> usize {
        match self {
            Kernel::Sweep => 16,
            Kernel::Cg => 16 + 16 + 8 + 3 * 24,
            Kernel::Tea => 32 + 48 + 24,
        }
    }

    /// How the bytes are counted, as printed.
    pub fn bytes_formula(self) -> &'static str {
        match self {
            Kernel::Sweep => "16 B per interior cell (u read, v written)",
            Kernel::Cg => "112 B per interior cell (apply 16, dots 16 + 8, three updates 24 each)",
            Kernel::Tea => {
                "104 B per interior cell (operator with p.w 32, u and r with r.r 48, p 24)"
            }
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
        assert_eq!((tea_kx(0, 0), tea_kx(1, 3)), (0.25, 0.25 + 2.0 / 64.0));
        assert_eq!((tea_ky(0, 0), tea_ky(1, 3)), (0.25, 0.25 + 0.0 / 64.0));
        assert!((C0 + 4.0 * C1 + 4.0 * C2 - 1.0).abs() < 1e-15);
    }

    #[test]
    fn bytes_follow_the_formula() {
        assert_eq!(Kernel::Sweep.bytes_per_cell(), 16);
        assert_eq!(Kernel::Cg.bytes_per_cell(), 112);
        assert_eq!(Kernel::Tea.bytes_per_cell(), 104);
        assert!(Kernel::Cg.bytes_formula().starts_with("112 B"));
    }
}
