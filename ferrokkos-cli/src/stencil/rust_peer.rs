//! The hand-written Rust peer of `stencil --compare`: the same loop nests over row-major `Vec`s,
//! the rows walked one after the other on Serial ([`InOrder`]: plain nested loops over slices), or
//! by rayon's `par_chunks_mut` over the rows on Threads ([`Rayon`], a pool of as many threads as
//! the space). The kernels are written once over a [`Rows`] walk. TeaLeaf-shaped CG's fused
//! kernels (`w = A p` with `p . w`, `r -= alpha w` with `r . r`) return their sums from the same
//! pass over the rows ([`Rows::for_rows_sum`]), as the OpenMP peer's do.

use std::ops::Range;

use super::Implementation;
use super::cg::{Dot, Update, Vectors};
use super::ping_pong::PingPong;
use super::problem::{C0, C1, C2, Grid, cg_rhs, sweep_start, tea_kx, tea_ky};
use super::tea::TeaFields;
use crate::Failure;

/// How the peer walks the rows of a grid.
pub trait Rows {
    /// Its name, for the implementation's name.
    fn describe(&self) -> String;
    /// Its short name, for the tables.
    fn short_name(&self) -> &'static str;
    /// `len` values `f(k)`, `k` the index, each written by the thread that later works on it.
    fn collect(
        &self,
        len: usize,
        f: impl Fn(usize) -> f64 + Sync + Send,
    ) -> Result<Vec<f64>, String>;
    /// `f(i, row)` for each row `i` in `rows` of `out`, whose rows hold `width` values.
    fn for_rows(
        &self,
        out: &mut [f64],
        width: usize,
        rows: Range<usize>,
        f: impl Fn(usize, &mut [f64]) + Sync + Send,
    );
    /// The sum of `f(i)` over the rows `i` in `rows`.
    fn sum_rows(&self, rows: Range<usize>, f: impl Fn(usize) -> f64 + Sync + Send) -> f64;
    /// `f(i, row)` for each row `i` in `rows` of `out` as [`Rows::for_rows`], and the sum of what
    /// the calls return.
    fn for_rows_sum(
        &self,
        out: &mut [f64],
        width: usize,
        rows: Range<usize>,
        f: impl Fn(usize, &mut [f64]) -> f64 + Sync + Send,
    ) -> f64;
}

/// The rows one after the other on the calling thread: plain nested loops.
pub struct InOrder;

impl Rows for InOrder {
    fn describe(&self) -> String {
        "Rust, plain nested loops over slices (1 thread)".into()
    }

    fn short_name(&self) -> &'static str {
        "rust loops"
    }

    fn collect(
        &self,
        len: usize,
        f: impl Fn(usize) -> f64 + Sync + Send,
    ) -> Result<Vec<f64>, String> {
        let mut v = reserve(len)?;
        v.extend((0..len).map(f));
        Ok(v)
    }

    fn for_rows(
        &self,
        out: &mut [f64],
        width: usize,
        rows: Range<usize>,
        f: impl Fn(usize, &mut [f64]) + Sync + Send,
    ) {
        let first = rows.start;
        for (k, row) in out[first * width..rows.end * width]
            .chunks_mut(width)
            .enumerate()
        {
            f(first + k, row);
        }
    }

    fn sum_rows(&self, rows: Range<usize>, f: impl Fn(usize) -> f64 + Sync + Send) -> f64 {
        rows.map(f).sum()
    }

    fn for_rows_sum(
        &self,
        out: &mut [f64],
        width: usize,
        rows: Range<usize>,
        f: impl Fn(usize, &mut [f64]) -> f64 + Sync + Send,
    ) -> f64 {
        let first = rows.start;
        out[first * width..rows.end * width]
            .chunks_mut(width)
            .enumerate()
            .map(|(k, row)| f(first + k, row))
            .sum()
    }
}

/// The rows dealt out by rayon (`par_chunks_mut` of rows), on a pool of its own.
#[cfg(feature = "peers")]
pub struct Rayon {
    /// The pool every kernel runs on.
    pool: rayon::ThreadPool,
}

#[cfg(feature = "peers")]
impl Rayon {
    /// A pool of `threads` threads.
    pub fn new(threads: usize) -> Result<Self, String> {
        let pool = rayon::ThreadPoolBuilder::new()
            .num_threads(threads)
            .build()
            .map_err(|e| format!("could not start the rayon pool: {e}"))?;
        Ok(Rayon { pool })
    }
}

#[cfg(feature = "peers")]
impl Rows for Rayon {
    fn describe(&self) -> String {
        format!(
            "Rust, rayon par_chunks_mut over the rows ({} threads)",
            self.pool.current_num_threads()
        )
    }

    fn short_name(&self) -> &'static str {
        "rayon"
    }

    fn collect(
        &self,
        len: usize,
        f: impl Fn(usize) -> f64 + Sync + Send,
    ) -> Result<Vec<f64>, String> {
        use rayon::prelude::*;
        let mut v = reserve(len)?;
        self.pool
            .install(|| (0..len).into_par_iter().map(f).collect_into_vec(&mut v));
        Ok(v)
    }

    fn for_rows(
        &self,
        out: &mut [f64],
        width: usize,
        rows: Range<usize>,
        f: impl Fn(usize, &mut [f64]) + Sync + Send,
    ) {
        use rayon::prelude::*;
        let first = rows.start;
        let out = &mut out[first * width..rows.end * width];
        self.pool.install(|| {
            out.par_chunks_mut(width)
                .enumerate()
                .for_each(|(k, row)| f(first + k, row));
        });
    }

    fn sum_rows(&self, rows: Range<usize>, f: impl Fn(usize) -> f64 + Sync + Send) -> f64 {
        use rayon::prelude::*;
        self.pool.install(|| rows.into_par_iter().map(f).sum())
    }

    fn for_rows_sum(
        &self,
        out: &mut [f64],
        width: usize,
        rows: Range<usize>,
        f: impl Fn(usize, &mut [f64]) -> f64 + Sync + Send,
    ) -> f64 {
        use rayon::prelude::*;
        let first = rows.start;
        let out = &mut out[first * width..rows.end * width];
        self.pool.install(|| {
            out.par_chunks_mut(width)
                .enumerate()
                .map(|(k, row)| f(first + k, row))
                .sum()
        })
    }
}

/// An empty vector with room for `len` values, or an error when the memory cannot be had.
fn reserve(len: usize) -> Result<Vec<f64>, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(len)
        .map_err(|e| format!("cannot allocate {len} values for the Rust peer: {e}"))?;
    Ok(v)
}

/// Rows `i - 1`, `i` and `i + 1` of a grid of rows of `width` values, given rows `i - 1..=i + 1`.
fn three_rows(rows: &[f64], width: usize) -> (&[f64], &[f64], &[f64]) {
    let (up, rest) = rows.split_at(width);
    let (mid, down) = rest.split_at(width);
    (up, mid, &down[..width])
}

/// One row of a sweep: `out[j]` from the rows above, at and below, for the interior columns.
fn sweep_row(rows: &[f64], out: &mut [f64], width: usize) {
    let (up, mid, down) = three_rows(rows, width);
    let out = &mut out[..width];
    for j in 1..width - 1 {
        out[j] = C0 * mid[j]
            + C1 * (up[j] + down[j] + mid[j - 1] + mid[j + 1])
            + C2 * (up[j - 1] + up[j + 1] + down[j - 1] + down[j + 1]);
    }
}

/// One row of `ap = A p` for the interior columns.
fn apply_row(rows: &[f64], out: &mut [f64], width: usize) {
    let (up, mid, down) = three_rows(rows, width);
    let out = &mut out[..width];
    for j in 1..width - 1 {
        out[j] = 4.0 * mid[j] - (up[j] + down[j] + mid[j - 1] + mid[j + 1]);
    }
}

/// One row `i` of TeaLeaf's `w = A p` for the interior columns, given rows `i - 1..=i + 1` of `p`,
/// rows `i..=i + 1` of `kx` and row `i` of `ky`; returns the row's `p . w`.
fn tea_w_row(p: &[f64], kx: &[f64], ky: &[f64], out: &mut [f64], width: usize) -> f64 {
    let (up, mid, down) = three_rows(p, width);
    let (kx_mid, kx_down) = kx.split_at(width);
    let (kx_down, ky) = (&kx_down[..width], &ky[..width]);
    let out = &mut out[..width];
    let mut sum = 0.0;
    for j in 1..width - 1 {
        let w = (1.0 + (kx_down[j] + kx_mid[j]) + (ky[j + 1] + ky[j])) * mid[j]
            - (kx_down[j] * down[j] + kx_mid[j] * up[j])
            - (ky[j + 1] * mid[j + 1] + ky[j] * mid[j - 1]);
        out[j] = w;
        sum += mid[j] * w;
    }
    sum
}

/// The peer: the fields and vectors as `Vec`s, and how it walks their rows.
pub struct RustPeer<R: Rows> {
    /// The walk over the rows.
    rows: R,
    /// The grid.
    grid: Grid,
    /// The sweep's fields.
    fields: PingPong<Vec<f64>>,
    /// CG's vectors.
    cg: Vectors<Vec<f64>>,
    /// TeaLeaf-shaped CG's fields.
    tea: TeaFields<Vec<f64>>,
}

impl<R: Rows> RustPeer<R> {
    /// The fields at their start values and both CGs at their start (TeaLeaf-shaped CG's face
    /// coefficients on every cell), written through `rows`.
    pub fn new(rows: R, grid: Grid) -> Result<Self, Failure> {
        let w = grid.width();
        let start = |k: usize| sweep_start((k / w) as i64, (k % w) as i64);
        let kx = |k: usize| tea_kx((k / w) as i64, (k % w) as i64);
        let ky = |k: usize| tea_ky((k / w) as i64, (k % w) as i64);
        let collect = |f: &(dyn Fn(usize) -> f64 + Sync + Send)| {
            rows.collect(grid.cells(), f)
                .map_err(|e| Failure::Run(format!("stencil: {e}")))
        };
        let zero = |_| 0.0;
        let mut peer = RustPeer {
            fields: PingPong::new(collect(&start)?, collect(&start)?),
            cg: Vectors {
                x: collect(&zero)?,
                r: collect(&zero)?,
                p: collect(&zero)?,
                ap: collect(&zero)?,
            },
            tea: TeaFields {
                kx: collect(&kx)?,
                ky: collect(&ky)?,
                u: collect(&zero)?,
                r: collect(&zero)?,
                p: collect(&zero)?,
                w: collect(&zero)?,
            },
            rows,
            grid,
        };
        peer.cg_reset()?;
        peer.tea_reset()?;
        Ok(peer)
    }
}

impl<R: Rows> Implementation for RustPeer<R> {
    fn name(&self) -> String {
        self.rows.describe()
    }

    fn short_name(&self) -> &'static str {
        self.rows.short_name()
    }

    fn sweep(&mut self, steps: usize) -> Result<(), Failure> {
        let (w, n) = (self.grid.width(), self.grid.n);
        for _ in 0..steps {
            self.fields.step(|u, v| -> Result<(), Failure> {
                self.rows.for_rows(v, w, 1..n + 1, |i, out| {
                    sweep_row(&u[(i - 1) * w..(i + 2) * w], out, w);
                });
                Ok(())
            })?;
        }
        Ok(())
    }

    fn field(&self) -> Result<Vec<f64>, Failure> {
        Ok(self.fields.current().clone())
    }

    fn cg_reset(&mut self) -> Result<(), Failure> {
        let (w, n) = (self.grid.width(), self.grid.n);
        let rhs = |i: usize, row: &mut [f64]| {
            for (j, b) in row.iter_mut().enumerate() {
                let inside = (1..=n).contains(&i) && (1..=n).contains(&j);
                *b = if inside {
                    cg_rhs(i as i64, j as i64)
                } else {
                    0.0
                };
            }
        };
        let zero = |_: usize, row: &mut [f64]| row.fill(0.0);
        let Vectors { x, r, p, ap } = &mut self.cg;
        self.rows.for_rows(x, w, 0..w, zero);
        self.rows.for_rows(r, w, 0..w, rhs);
        self.rows.for_rows(p, w, 0..w, rhs);
        self.rows.for_rows(ap, w, 0..w, zero);
        Ok(())
    }

    fn cg_apply(&mut self) -> Result<(), Failure> {
        let (w, n) = (self.grid.width(), self.grid.n);
        let Vectors { p, ap, .. } = &mut self.cg;
        self.rows.for_rows(ap, w, 1..n + 1, |i, out| {
            apply_row(&p[(i - 1) * w..(i + 2) * w], out, w);
        });
        Ok(())
    }

    fn cg_dot(&mut self, dot: Dot) -> Result<f64, Failure> {
        let (w, n) = (self.grid.width(), self.grid.n);
        let (a, b) = self.cg.dot_operands(dot);
        Ok(self.rows.sum_rows(1..n + 1, |i| {
            let interior = i * w + 1..(i + 1) * w - 1;
            let mut sum = 0.0;
            for (a, b) in a[interior.clone()].iter().zip(&b[interior]) {
                sum += a * b;
            }
            sum
        }))
    }

    fn cg_update(&mut self, update: Update, a: f64) -> Result<(), Failure> {
        let (w, n) = (self.grid.width(), self.grid.n);
        let (y, x) = self.cg.update_operands(update);
        self.rows.for_rows(y, w, 1..n + 1, |i, row| {
            let xs = &x[i * w + 1..(i + 1) * w - 1];
            let ys = &mut row[1..w - 1];
            if update == Update::P {
                // p = r + a p
                for (y, x) in ys.iter_mut().zip(xs) {
                    *y = x + a * *y;
                }
            } else {
                // x += a p, r += a ap
                for (y, x) in ys.iter_mut().zip(xs) {
                    *y += a * x;
                }
            }
        });
        Ok(())
    }

    fn cg_solution(&self) -> Result<Vec<f64>, Failure> {
        Ok(self.cg.x.clone())
    }

    fn tea_reset(&mut self) -> Result<f64, Failure> {
        let (width, n) = (self.grid.width(), self.grid.n);
        // The right-hand side into the row (0 on the halo); returns the row's b . b.
        let rhs = |i: usize, row: &mut [f64]| {
            let mut sum = 0.0;
            for (j, b) in row.iter_mut().enumerate() {
                let inside = (1..=n).contains(&i) && (1..=n).contains(&j);
                *b = if inside {
                    cg_rhs(i as i64, j as i64)
                } else {
                    0.0
                };
                sum += *b * *b;
            }
            sum
        };
        let zero = |_: usize, row: &mut [f64]| row.fill(0.0);
        let TeaFields { u, r, p, w, .. } = &mut self.tea;
        self.rows.for_rows(u, width, 0..width, zero);
        let rr = self.rows.for_rows_sum(r, width, 0..width, rhs);
        self.rows.for_rows(p, width, 0..width, |i, row| {
            rhs(i, row);
        });
        self.rows.for_rows(w, width, 0..width, zero);
        Ok(rr)
    }

    fn tea_w(&mut self) -> Result<f64, Failure> {
        let (width, n) = (self.grid.width(), self.grid.n);
        let TeaFields { kx, ky, p, w, .. } = &mut self.tea;
        Ok(self.rows.for_rows_sum(w, width, 1..n + 1, |i, out| {
            tea_w_row(
                &p[(i - 1) * width..(i + 2) * width],
                &kx[i * width..(i + 2) * width],
                &ky[i * width..(i + 1) * width],
                out,
                width,
            )
        }))
    }

    fn tea_ur(&mut self, alpha: f64) -> Result<f64, Failure> {
        let (width, n) = (self.grid.width(), self.grid.n);
        let TeaFields { u, r, p, w, .. } = &mut self.tea;
        let interior = |i: usize| i * width + 1..(i + 1) * width - 1;
        // u += alpha p
        self.rows.for_rows(u, width, 1..n + 1, |i, row| {
            for (u, p) in row[1..width - 1].iter_mut().zip(&p[interior(i)]) {
                *u += alpha * p;
            }
        });
        // r -= alpha w, and the new r . r
        Ok(self.rows.for_rows_sum(r, width, 1..n + 1, |i, row| {
            let mut sum = 0.0;
            for (r, w) in row[1..width - 1].iter_mut().zip(&w[interior(i)]) {
                *r -= alpha * w;
                sum += *r * *r;
            }
            sum
        }))
    }

    fn tea_p(&mut self, beta: f64) -> Result<(), Failure> {
        let (width, n) = (self.grid.width(), self.grid.n);
        let TeaFields { r, p, .. } = &mut self.tea;
        // p = r + beta p
        self.rows.for_rows(p, width, 1..n + 1, |i, row| {
            let rs = &r[i * width + 1..(i + 1) * width - 1];
            for (p, r) in row[1..width - 1].iter_mut().zip(rs) {
                *p = r + beta * *p;
            }
        });
        Ok(())
    }

    fn tea_solution(&self) -> Result<Vec<f64>, Failure> {
        Ok(self.tea.u.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_sweep_of_a_3x3_grid_by_hand() {
        let grid = Grid { n: 3 };
        let mut peer = RustPeer::new(InOrder, grid).unwrap();
        let before = peer.field().unwrap();
        peer.sweep(1).unwrap();
        let after = peer.field().unwrap();
        let at = |f: &[f64], i: usize, j: usize| f[i * 5 + j];
        let (i, j) = (2, 1);
        let u = |di: isize, dj: isize| {
            at(
                &before,
                (i as isize + di) as usize,
                (j as isize + dj) as usize,
            )
        };
        let want = C0 * u(0, 0)
            + C1 * (u(-1, 0) + u(1, 0) + u(0, -1) + u(0, 1))
            + C2 * (u(-1, -1) + u(-1, 1) + u(1, -1) + u(1, 1));
        assert_eq!(at(&after, i, j), want);
        // The halo stays.
        for k in 0..5 {
            assert_eq!(at(&after, 0, k), sweep_start(0, k as i64));
            assert_eq!(at(&after, k, 4), sweep_start(k as i64, 4));
        }
    }

    #[test]
    fn cg_solves_four_unknowns_in_four_iterations() {
        let mut peer = RustPeer::new(InOrder, Grid { n: 2 }).unwrap();
        let rr = peer.cg_dot(Dot::RR).unwrap();
        let b: Vec<f64> = [(1, 1), (1, 2), (2, 1), (2, 2)]
            .iter()
            .map(|&(i, j)| cg_rhs(i, j))
            .collect();
        assert_eq!(rr, b.iter().map(|v| v * v).sum::<f64>());
        let norms = super::super::cg::iterate(&mut peer, rr, 4).unwrap();
        // CG solves a 4-unknown SPD system in at most 4 iterations.
        assert!(norms[3] <= 1e-14 * rr.sqrt(), "{norms:?}");
        // x solves A x = b: 4 x_ij - (neighbours) = b_ij.
        let x = peer.cg_solution().unwrap();
        let x = |i: usize, j: usize| x[i * 4 + j];
        let residual = 4.0 * x(1, 1) - (x(0, 1) + x(2, 1) + x(1, 0) + x(1, 2)) - b[0];
        assert!(residual.abs() < 1e-12, "{residual}");
    }

    #[test]
    fn tea_solves_four_unknowns_in_four_iterations() {
        let mut peer = RustPeer::new(InOrder, Grid { n: 2 }).unwrap();
        let rr = peer.tea_reset().unwrap();
        let cells = [(1, 1), (1, 2), (2, 1), (2, 2)];
        let b: Vec<f64> = cells.iter().map(|&(i, j)| cg_rhs(i, j)).collect();
        assert_eq!(rr, b.iter().map(|v| v * v).sum::<f64>());
        let norms = super::super::tea::iterate(&mut peer, rr, 4).unwrap();
        // CG solves a 4-unknown SPD system in at most 4 iterations.
        assert!(norms[3] <= 1e-14 * rr.sqrt(), "{norms:?}");
        // u solves A u = b with TeaLeaf's operator (the halo stays 0).
        let u = peer.tea_solution().unwrap();
        let u = |i: i64, j: i64| u[(i * 4 + j) as usize];
        for (&(i, j), b) in cells.iter().zip(&b) {
            let (kx0, kx1) = (tea_kx(i, j), tea_kx(i + 1, j));
            let (ky0, ky1) = (tea_ky(i, j), tea_ky(i, j + 1));
            let au = (1.0 + kx0 + kx1 + ky0 + ky1) * u(i, j)
                - (kx1 * u(i + 1, j) + kx0 * u(i - 1, j))
                - (ky1 * u(i, j + 1) + ky0 * u(i, j - 1));
            assert!((au - b).abs() < 1e-12, "({i}, {j}): {au} vs {b}");
        }
        for k in 0..4 {
            assert_eq!((u(0, k), u(3, k), u(k, 0), u(k, 3)), (0.0, 0.0, 0.0, 0.0));
        }
        // A second start is the first one again.
        assert_eq!(peer.tea_reset().unwrap(), rr);
        assert!(peer.tea_solution().unwrap().iter().all(|&v| v == 0.0));
    }

    #[test]
    fn tea_reduces_the_residual() {
        let mut peer = RustPeer::new(InOrder, Grid { n: 37 }).unwrap();
        let rr = peer.tea_reset().unwrap();
        let norms = super::super::tea::iterate(&mut peer, rr, 20).unwrap();
        assert!(norms.iter().all(|v| v.is_finite()), "{norms:?}");
        // The operator is diagonally dominant (condition number below 5): CG converges fast.
        assert!(norms[19] < 1e-6 * rr.sqrt(), "{norms:?}");
    }

    #[cfg(feature = "peers")]
    #[test]
    fn rayon_gives_the_loops_fields_and_cgs() {
        let grid = Grid { n: 37 };
        let mut plain = RustPeer::new(InOrder, grid).unwrap();
        let mut pool = RustPeer::new(Rayon::new(3).unwrap(), grid).unwrap();
        plain.sweep(3).unwrap();
        pool.sweep(3).unwrap();
        assert_eq!(plain.field().unwrap(), pool.field().unwrap());
        let rr = plain.cg_dot(Dot::RR).unwrap();
        let a = super::super::cg::iterate(&mut plain, rr, 5).unwrap();
        let b = super::super::cg::iterate(&mut pool, rr, 5).unwrap();
        for (a, b) in a.iter().zip(&b) {
            assert!((a - b).abs() <= 1e-12 * a, "{a} vs {b}");
        }
        let rr = plain.tea_reset().unwrap();
        let rr_pool = pool.tea_reset().unwrap();
        assert!((rr - rr_pool).abs() <= 1e-14 * rr, "{rr} vs {rr_pool}");
        let a = super::super::tea::iterate(&mut plain, rr, 8).unwrap();
        let b = super::super::tea::iterate(&mut pool, rr_pool, 8).unwrap();
        for (a, b) in a.iter().zip(&b) {
            assert!((a - b).abs() <= 1e-12 * a, "{a} vs {b}");
        }
        let (a, b) = (plain.tea_solution().unwrap(), pool.tea_solution().unwrap());
        let scale = a.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(scale > 0.0);
        for (a, b) in a.iter().zip(&b) {
            assert!((a - b).abs() <= 1e-12 * scale, "{a} vs {b}");
        }
        assert_eq!(pool.short_name(), "rayon");
    }
}
