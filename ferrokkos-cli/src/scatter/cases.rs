//! The two scatter workloads, as ferrokkos runs them: into a `ScatterView` (its default mode on
//! the space) or into an atomic View (every update an atomic), and the keys both use.

use ferrokkos::prelude::*;
use ferrokkos::traits::Launch;
use ferrokkos::{ScatterView, UniqueToken, kernel};

use crate::Failure;

/// The bin of key `i` among `bins`: a multiplicative hash, so that neighbouring iterations hit
/// scattered bins (as a histogram of data does).
#[ferrokkos::device]
pub fn bin(i: usize, bins: usize) -> usize {
    (i.wrapping_mul(2_654_435_761) >> 7) % bins
}

/// Particle `p`'s coordinate on an axis of `m` cells (`salt` picks the axis), in `[0, m - 1)`.
#[ferrokkos::device]
pub fn coordinate(p: usize, m: usize, salt: usize) -> f64 {
    (p.wrapping_mul(salt) % 65_536) as f64 / 65_536.0 * (m - 1) as f64
}

/// The salts of the two axes.
pub const SALT_X: usize = 40_503;
pub const SALT_Y: usize = 52_711;

/// Which way ferrokkos takes the contributions.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Way {
    /// A `ScatterView` in its default mode (duplicated on the host, atomic on the GPU).
    Scatter,
    /// An atomic View.
    Atomic,
    /// Per-thread copies by hand: a row per `UniqueToken` id, written at the id the iteration
    /// holds, then summed over the rows (host spaces: a GPU has an id per resident thread).
    Token,
}

impl Way {
    pub fn name(self) -> &'static str {
        match self {
            Way::Scatter => "ScatterView",
            Way::Atomic => "atomics",
            Way::Token => "UniqueToken rows",
        }
    }
}

/// `n` keys counted into `counts` (zeroed first), finished when it returns.
pub fn histogram<S: Launch>(
    exec: &S,
    way: Way,
    counts: &View<u32, 1, LayoutRight, S::MemorySpace>,
    n: usize,
) -> Result<(), Failure> {
    let bins = counts.extent(0);
    deep_copy(counts, 0u32)?;
    let policy = RangePolicy::new(exec, 0, n)?;
    match way {
        Way::Scatter => {
            let s = ScatterView::new(counts)?;
            parallel_for("histogram", policy, kernel!(|i| s[bin(i, bins)] += 1))?;
            s.contribute()?;
        }
        Way::Atomic => {
            let h = counts.atomic();
            parallel_for("histogram", policy, kernel!(|i| h[bin(i, bins)] += 1))?;
        }
        Way::Token => {
            let token = UniqueToken::new(exec)?;
            let rows = token.size();
            let partial = View::<u32, 2, LayoutRight, S::MemorySpace>::new("rows", [rows, bins])?;
            parallel_for(
                "histogram",
                policy,
                kernel!(|i| {
                    let id = token.acquire();
                    partial[(id, bin(i, bins))] += 1;
                }),
            )?;
            parallel_for(
                "histogram rows",
                RangePolicy::new(exec, 0, bins)?,
                kernel!(|b| {
                    let mut s = 0u32;
                    for r in 0..rows {
                        s += partial[(r, b)];
                    }
                    counts[b] = s;
                }),
            )?;
        }
    }
    exec.fence("histogram")?;
    Ok(())
}

/// `n` particles' unit charges deposited on `grid` (zeroed first; each on the four cells around
/// it, bilinear weights), finished when it returns.
pub fn deposit<S: Launch>(
    exec: &S,
    way: Way,
    grid: &View<f64, 2, LayoutRight, S::MemorySpace>,
    n: usize,
) -> Result<(), Failure> {
    let m = grid.extent(0);
    deep_copy(grid, 0.0)?;
    let policy = RangePolicy::new(exec, 0, n)?;
    match way {
        Way::Scatter => {
            let rho = ScatterView::new(grid)?;
            parallel_for(
                "deposit",
                policy,
                kernel!(|p| {
                    let (x, y) = (coordinate(p, m, SALT_X), coordinate(p, m, SALT_Y));
                    let (i, j) = (x as usize, y as usize);
                    let (fx, fy) = (x - i as f64, y - j as f64);
                    rho[(i, j)] += (1.0 - fx) * (1.0 - fy);
                    rho[(i + 1, j)] += fx * (1.0 - fy);
                    rho[(i, j + 1)] += (1.0 - fx) * fy;
                    rho[(i + 1, j + 1)] += fx * fy;
                }),
            )?;
            rho.contribute()?;
        }
        Way::Atomic => {
            let rho = grid.atomic();
            parallel_for(
                "deposit",
                policy,
                kernel!(|p| {
                    let (x, y) = (coordinate(p, m, SALT_X), coordinate(p, m, SALT_Y));
                    let (i, j) = (x as usize, y as usize);
                    let (fx, fy) = (x - i as f64, y - j as f64);
                    rho[(i, j)] += (1.0 - fx) * (1.0 - fy);
                    rho[(i + 1, j)] += fx * (1.0 - fy);
                    rho[(i, j + 1)] += (1.0 - fx) * fy;
                    rho[(i + 1, j + 1)] += fx * fy;
                }),
            )?;
        }
        Way::Token => {
            let token = UniqueToken::new(exec)?;
            let rows = token.size();
            let part = View::<f64, 3, LayoutRight, S::MemorySpace>::new("rows", [rows, m, m])?;
            parallel_for(
                "deposit",
                policy,
                kernel!(|p| {
                    let (x, y) = (coordinate(p, m, SALT_X), coordinate(p, m, SALT_Y));
                    let (i, j) = (x as usize, y as usize);
                    let (fx, fy) = (x - i as f64, y - j as f64);
                    let id = token.acquire();
                    part[(id, i, j)] += (1.0 - fx) * (1.0 - fy);
                    part[(id, i + 1, j)] += fx * (1.0 - fy);
                    part[(id, i, j + 1)] += (1.0 - fx) * fy;
                    part[(id, i + 1, j + 1)] += fx * fy;
                }),
            )?;
            parallel_for(
                "deposit rows",
                MDRangePolicy::new(exec, [0, 0], [m as i64, m as i64])?,
                kernel!(|(i, j)| {
                    let mut s = 0.0;
                    for r in 0..rows {
                        s += part[(r, i as usize, j as usize)];
                    }
                    grid[(i, j)] = s;
                }),
            )?;
        }
    }
    exec.fence("deposit")?;
    Ok(())
}
