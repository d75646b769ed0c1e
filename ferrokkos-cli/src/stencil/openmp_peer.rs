//! The OpenMP peer of `stencil --compare` on the host spaces: the same loop nests in C with OpenMP
//! (`csrc/stencil_omp.c`: `parallel for` over the rows with a static schedule, the columns inside,
//! `reduction(+:sum)` for the dots, which TeaLeaf-shaped CG's kernels fuse with their updates), on
//! arrays the C allocates, with as many threads as the ferrokkos space it is compared with.

use std::ffi::c_int;

use super::Implementation;
use super::cg::{Dot, Update, Vectors};
use super::ping_pong::PingPong;
use super::problem::{C0, C1, C2, Grid};
use super::tea::TeaFields;
use crate::Failure;
use crate::openmp::{CBuffer, c_threads, peer_name};

unsafe extern "C" {
    fn ferrokkos_stencil_sweep_init(u: *mut f64, v: *mut f64, n: usize, threads: c_int);
    fn ferrokkos_stencil_sweep(
        u: *const f64,
        v: *mut f64,
        n: usize,
        c0: f64,
        c1: f64,
        c2: f64,
        threads: c_int,
    );
    fn ferrokkos_stencil_cg_reset(
        x: *mut f64,
        r: *mut f64,
        p: *mut f64,
        ap: *mut f64,
        n: usize,
        threads: c_int,
    );
    fn ferrokkos_stencil_cg_apply(p: *const f64, ap: *mut f64, n: usize, threads: c_int);
    fn ferrokkos_stencil_cg_dot(a: *const f64, b: *const f64, n: usize, threads: c_int) -> f64;
    fn ferrokkos_stencil_cg_axpy(y: *mut f64, x: *const f64, a: f64, n: usize, threads: c_int);
    fn ferrokkos_stencil_cg_direction(
        p: *mut f64,
        r: *const f64,
        beta: f64,
        n: usize,
        threads: c_int,
    );
    fn ferrokkos_stencil_tea_init(kx: *mut f64, ky: *mut f64, n: usize, threads: c_int);
    fn ferrokkos_stencil_tea_reset(
        u: *mut f64,
        r: *mut f64,
        p: *mut f64,
        w: *mut f64,
        n: usize,
        threads: c_int,
    ) -> f64;
    fn ferrokkos_stencil_tea_w(
        kx: *const f64,
        ky: *const f64,
        p: *const f64,
        w: *mut f64,
        n: usize,
        threads: c_int,
    ) -> f64;
    fn ferrokkos_stencil_tea_ur(
        u: *mut f64,
        r: *mut f64,
        p: *const f64,
        w: *const f64,
        alpha: f64,
        n: usize,
        threads: c_int,
    ) -> f64;
    fn ferrokkos_stencil_tea_p(p: *mut f64, r: *const f64, beta: f64, n: usize, threads: c_int);
}

/// The C kernels behind safe wrappers: each first checks that every array holds all the grid's
/// cells (the C reads and writes cells `0..(n + 2)^2` of each, no more).
struct Kernels {
    /// The grid.
    grid: Grid,
    /// The OpenMP threads of every kernel.
    threads: c_int,
}

// Why every `unsafe` block below is sound: `fits` has checked that each pointer comes from a live
// slice of exactly `grid.cells()` elements, all the C touches; the arrays written come from
// `&mut` slices, so nothing else reads or writes them during the call and none aliases another
// argument (only read-only arguments may be the same array, as in `r . r`); the C returns when all
// its threads are done with them (the end of its parallel region).
impl Kernels {
    /// An error unless every array holds the grid's cells.
    fn fits(&self, lens: &[usize]) -> Result<(), Failure> {
        let cells = self.grid.cells();
        if lens.iter().all(|&len| len == cells) {
            return Ok(());
        }
        Err(Failure::Run(format!(
            "stencil: the OpenMP peer's arrays hold {lens:?} values, not the grid's {cells}"
        )))
    }

    /// Both fields = the start values, halo included.
    fn sweep_init(&self, u: &mut [f64], v: &mut [f64]) -> Result<(), Failure> {
        self.fits(&[u.len(), v.len()])?;
        let (u, v) = (u.as_mut_ptr(), v.as_mut_ptr());
        // SAFETY: `fits` passed: the lengths and exclusive borrows hold (see above `impl Kernels`).
        unsafe { ferrokkos_stencil_sweep_init(u, v, self.grid.n, self.threads) };
        Ok(())
    }

    /// One sweep from `u` into `v`.
    fn sweep(&self, u: &[f64], v: &mut [f64]) -> Result<(), Failure> {
        self.fits(&[u.len(), v.len()])?;
        let (u, v, n, t) = (u.as_ptr(), v.as_mut_ptr(), self.grid.n, self.threads);
        // SAFETY: `fits` passed: the lengths and exclusive borrows hold (see above `impl Kernels`).
        unsafe { ferrokkos_stencil_sweep(u, v, n, C0, C1, C2, t) };
        Ok(())
    }

    /// CG's start.
    fn cg_reset(&self, [x, r, p, ap]: [&mut [f64]; 4]) -> Result<(), Failure> {
        self.fits(&[x.len(), r.len(), p.len(), ap.len()])?;
        let (x, r, p, ap) = (
            x.as_mut_ptr(),
            r.as_mut_ptr(),
            p.as_mut_ptr(),
            ap.as_mut_ptr(),
        );
        // SAFETY: `fits` passed: the lengths and exclusive borrows hold (see above `impl Kernels`).
        unsafe { ferrokkos_stencil_cg_reset(x, r, p, ap, self.grid.n, self.threads) };
        Ok(())
    }

    /// `ap = A p`.
    fn cg_apply(&self, p: &[f64], ap: &mut [f64]) -> Result<(), Failure> {
        self.fits(&[p.len(), ap.len()])?;
        let (p, ap) = (p.as_ptr(), ap.as_mut_ptr());
        // SAFETY: `fits` passed: the lengths and exclusive borrows hold (see above `impl Kernels`).
        unsafe { ferrokkos_stencil_cg_apply(p, ap, self.grid.n, self.threads) };
        Ok(())
    }

    /// `a . b` over the interior.
    fn cg_dot(&self, a: &[f64], b: &[f64]) -> Result<f64, Failure> {
        self.fits(&[a.len(), b.len()])?;
        let (a, b) = (a.as_ptr(), b.as_ptr());
        // SAFETY: `fits` passed: the lengths and exclusive borrows hold (see above `impl Kernels`).
        Ok(unsafe { ferrokkos_stencil_cg_dot(a, b, self.grid.n, self.threads) })
    }

    /// `y += a x` on the interior.
    fn cg_axpy(&self, y: &mut [f64], x: &[f64], a: f64) -> Result<(), Failure> {
        self.fits(&[y.len(), x.len()])?;
        let (y, x) = (y.as_mut_ptr(), x.as_ptr());
        // SAFETY: `fits` passed: the lengths and exclusive borrows hold (see above `impl Kernels`).
        unsafe { ferrokkos_stencil_cg_axpy(y, x, a, self.grid.n, self.threads) };
        Ok(())
    }

    /// `p = r + beta p` on the interior.
    fn cg_direction(&self, p: &mut [f64], r: &[f64], beta: f64) -> Result<(), Failure> {
        self.fits(&[p.len(), r.len()])?;
        let (p, r) = (p.as_mut_ptr(), r.as_ptr());
        // SAFETY: `fits` passed: the lengths and exclusive borrows hold (see above `impl Kernels`).
        unsafe { ferrokkos_stencil_cg_direction(p, r, beta, self.grid.n, self.threads) };
        Ok(())
    }

    /// TeaLeaf-shaped CG's face coefficients, halo included.
    fn tea_init(&self, kx: &mut [f64], ky: &mut [f64]) -> Result<(), Failure> {
        self.fits(&[kx.len(), ky.len()])?;
        let (kx, ky) = (kx.as_mut_ptr(), ky.as_mut_ptr());
        // SAFETY: `fits` passed: the lengths and exclusive borrows hold (see above `impl Kernels`).
        unsafe { ferrokkos_stencil_tea_init(kx, ky, self.grid.n, self.threads) };
        Ok(())
    }

    /// TeaLeaf-shaped CG's start; returns `r . r`.
    fn tea_reset(&self, [u, r, p, w]: [&mut [f64]; 4]) -> Result<f64, Failure> {
        self.fits(&[u.len(), r.len(), p.len(), w.len()])?;
        let (u, r, p, w) = (
            u.as_mut_ptr(),
            r.as_mut_ptr(),
            p.as_mut_ptr(),
            w.as_mut_ptr(),
        );
        // SAFETY: `fits` passed: the lengths and exclusive borrows hold (see above `impl Kernels`).
        Ok(unsafe { ferrokkos_stencil_tea_reset(u, r, p, w, self.grid.n, self.threads) })
    }

    /// `w = A p` (TeaLeaf's operator); returns `p . w`.
    fn tea_w(&self, kx: &[f64], ky: &[f64], p: &[f64], w: &mut [f64]) -> Result<f64, Failure> {
        self.fits(&[kx.len(), ky.len(), p.len(), w.len()])?;
        let (kx, ky, p, w) = (kx.as_ptr(), ky.as_ptr(), p.as_ptr(), w.as_mut_ptr());
        // SAFETY: `fits` passed: the lengths and exclusive borrows hold (see above `impl Kernels`).
        Ok(unsafe { ferrokkos_stencil_tea_w(kx, ky, p, w, self.grid.n, self.threads) })
    }

    /// `u += alpha p` and `r -= alpha w` on the interior; returns the new `r . r`.
    fn tea_ur(
        &self,
        [u, r]: [&mut [f64]; 2],
        p: &[f64],
        w: &[f64],
        alpha: f64,
    ) -> Result<f64, Failure> {
        self.fits(&[u.len(), r.len(), p.len(), w.len()])?;
        let (u, r, p, w) = (u.as_mut_ptr(), r.as_mut_ptr(), p.as_ptr(), w.as_ptr());
        let (n, t) = (self.grid.n, self.threads);
        // SAFETY: `fits` passed: the lengths and exclusive borrows hold (see above `impl Kernels`).
        Ok(unsafe { ferrokkos_stencil_tea_ur(u, r, p, w, alpha, n, t) })
    }

    /// `p = r + beta p` on the interior.
    fn tea_p(&self, p: &mut [f64], r: &[f64], beta: f64) -> Result<(), Failure> {
        self.fits(&[p.len(), r.len()])?;
        let (p, r) = (p.as_mut_ptr(), r.as_ptr());
        // SAFETY: `fits` passed: the lengths and exclusive borrows hold (see above `impl Kernels`).
        unsafe { ferrokkos_stencil_tea_p(p, r, beta, self.grid.n, self.threads) };
        Ok(())
    }
}

/// The peer: the fields and vectors allocated by C, and the kernels.
pub struct OpenMpStencil {
    /// The C kernels, with the grid and the thread count.
    kernels: Kernels,
    /// The sweep's fields.
    fields: PingPong<CBuffer<f64>>,
    /// CG's vectors.
    cg: Vectors<CBuffer<f64>>,
    /// TeaLeaf-shaped CG's fields.
    tea: TeaFields<CBuffer<f64>>,
}

impl OpenMpStencil {
    /// The arrays of `grid`, initialized in parallel by `threads` OpenMP threads.
    pub fn new(grid: Grid, threads: usize) -> Result<Self, Failure> {
        let threads = c_threads(threads).map_err(|e| Failure::Run(format!("stencil: {e}")))?;
        let alloc = |what: &str| {
            CBuffer::zeroed(what, grid.cells(), threads)
                .map_err(|e| Failure::Run(format!("stencil: {e}")))
        };
        let mut peer = OpenMpStencil {
            kernels: Kernels { grid, threads },
            fields: PingPong::new(alloc("u")?, alloc("v")?),
            cg: Vectors {
                x: alloc("x")?,
                r: alloc("r")?,
                p: alloc("p")?,
                ap: alloc("ap")?,
            },
            tea: TeaFields {
                kx: alloc("kx")?,
                ky: alloc("ky")?,
                u: alloc("u")?,
                r: alloc("r")?,
                p: alloc("p")?,
                w: alloc("w")?,
            },
        };
        let (u, v) = peer.fields.both_mut();
        peer.kernels
            .sweep_init(u.as_mut_slice(), v.as_mut_slice())?;
        peer.cg_reset()?;
        let TeaFields { kx, ky, .. } = &mut peer.tea;
        peer.kernels
            .tea_init(kx.as_mut_slice(), ky.as_mut_slice())?;
        peer.tea_reset()?;
        Ok(peer)
    }
}

impl Implementation for OpenMpStencil {
    fn name(&self) -> String {
        peer_name(self.kernels.threads)
    }

    fn short_name(&self) -> &'static str {
        "OpenMP"
    }

    fn sweep(&mut self, steps: usize) -> Result<(), Failure> {
        for _ in 0..steps {
            let k = &self.kernels;
            self.fields
                .step(|u, v| k.sweep(u.as_slice(), v.as_mut_slice()))?;
        }
        Ok(())
    }

    fn field(&self) -> Result<Vec<f64>, Failure> {
        Ok(self.fields.current().as_slice().to_vec())
    }

    fn cg_reset(&mut self) -> Result<(), Failure> {
        let Vectors { x, r, p, ap } = &mut self.cg;
        self.kernels.cg_reset([
            x.as_mut_slice(),
            r.as_mut_slice(),
            p.as_mut_slice(),
            ap.as_mut_slice(),
        ])
    }

    fn cg_apply(&mut self) -> Result<(), Failure> {
        let Vectors { p, ap, .. } = &mut self.cg;
        self.kernels.cg_apply(p.as_slice(), ap.as_mut_slice())
    }

    fn cg_dot(&mut self, dot: Dot) -> Result<f64, Failure> {
        let (a, b) = self.cg.dot_operands(dot);
        self.kernels.cg_dot(a.as_slice(), b.as_slice())
    }

    fn cg_update(&mut self, update: Update, a: f64) -> Result<(), Failure> {
        let (y, x) = self.cg.update_operands(update);
        let (y, x) = (y.as_mut_slice(), x.as_slice());
        match update {
            Update::X | Update::R => self.kernels.cg_axpy(y, x, a),
            Update::P => self.kernels.cg_direction(y, x, a),
        }
    }

    fn cg_solution(&self) -> Result<Vec<f64>, Failure> {
        Ok(self.cg.x.as_slice().to_vec())
    }

    fn tea_reset(&mut self) -> Result<f64, Failure> {
        let TeaFields { u, r, p, w, .. } = &mut self.tea;
        self.kernels.tea_reset([
            u.as_mut_slice(),
            r.as_mut_slice(),
            p.as_mut_slice(),
            w.as_mut_slice(),
        ])
    }

    fn tea_w(&mut self) -> Result<f64, Failure> {
        let TeaFields { kx, ky, p, w, .. } = &mut self.tea;
        self.kernels
            .tea_w(kx.as_slice(), ky.as_slice(), p.as_slice(), w.as_mut_slice())
    }

    fn tea_ur(&mut self, alpha: f64) -> Result<f64, Failure> {
        let TeaFields { u, r, p, w, .. } = &mut self.tea;
        self.kernels.tea_ur(
            [u.as_mut_slice(), r.as_mut_slice()],
            p.as_slice(),
            w.as_slice(),
            alpha,
        )
    }

    fn tea_p(&mut self, beta: f64) -> Result<(), Failure> {
        let TeaFields { r, p, .. } = &mut self.tea;
        self.kernels.tea_p(p.as_mut_slice(), r.as_slice(), beta)
    }

    fn tea_solution(&self) -> Result<Vec<f64>, Failure> {
        Ok(self.tea.u.as_slice().to_vec())
    }
}

#[cfg(test)]
mod tests {
    use super::super::cg::iterate;
    use super::super::problem::{tea_kx, tea_ky};
    use super::super::rust_peer::{InOrder, RustPeer};
    use super::super::tea;
    use super::*;

    /// The C peer's sweeps match the Rust loops' bit for bit, its CGs within rounding.
    #[test]
    fn the_openmp_peer_matches_the_rust_loops() {
        let grid = Grid { n: 45 };
        let mut omp = OpenMpStencil::new(grid, 3).unwrap();
        let mut rust = RustPeer::new(InOrder, grid).unwrap();
        assert_eq!(omp.field().unwrap(), rust.field().unwrap());
        omp.sweep(5).unwrap();
        rust.sweep(5).unwrap();
        let (a, b) = (omp.field().unwrap(), rust.field().unwrap());
        assert!(a.iter().zip(&b).all(|(a, b)| a.to_bits() == b.to_bits()));
        let rr = rust.cg_dot(Dot::RR).unwrap();
        let rr_omp = omp.cg_dot(Dot::RR).unwrap();
        assert!((rr - rr_omp).abs() <= 1e-14 * rr);
        let (a, b) = (
            iterate(&mut omp, rr, 6).unwrap(),
            iterate(&mut rust, rr, 6).unwrap(),
        );
        for (a, b) in a.iter().zip(&b) {
            assert!((a - b).abs() <= 1e-12 * b, "{a} vs {b}");
        }
        // The C's face coefficients are problem.rs' bit for bit, on every cell.
        let (kx, ky) = (omp.tea.kx.as_slice(), omp.tea.ky.as_slice());
        for (k, (kx, ky)) in kx.iter().zip(ky).enumerate() {
            let (i, j) = ((k / grid.width()) as i64, (k % grid.width()) as i64);
            assert_eq!(kx.to_bits(), tea_kx(i, j).to_bits(), "kx at ({i}, {j})");
            assert_eq!(ky.to_bits(), tea_ky(i, j).to_bits(), "ky at ({i}, {j})");
        }
        let (rr, rr_omp) = (rust.tea_reset().unwrap(), omp.tea_reset().unwrap());
        assert!((rr - rr_omp).abs() <= 1e-14 * rr, "{rr} vs {rr_omp}");
        let (a, b) = (
            tea::iterate(&mut omp, rr_omp, 8).unwrap(),
            tea::iterate(&mut rust, rr, 8).unwrap(),
        );
        for (a, b) in a.iter().zip(&b) {
            assert!((a - b).abs() <= 1e-12 * b, "{a} vs {b}");
        }
        let (a, b) = (omp.tea_solution().unwrap(), rust.tea_solution().unwrap());
        let scale = b.iter().fold(0.0f64, |m, v| m.max(v.abs()));
        assert!(scale > 0.0);
        for (a, b) in a.iter().zip(&b) {
            assert!((a - b).abs() <= 1e-12 * scale, "{a} vs {b}");
        }
        // A second start is the first one again.
        assert_eq!(omp.tea_reset().unwrap(), rr_omp);
        assert!(omp.tea_solution().unwrap().iter().all(|&v| v == 0.0));
        assert!(omp.name().ends_with("; 3 threads)"), "{}", omp.name());
    }

    #[test]
    fn arrays_of_the_wrong_size_are_errors() {
        let k = Kernels {
            grid: Grid { n: 2 },
            threads: 1,
        };
        let (short, mut full) = (vec![0.0; 15], vec![0.0; 16]);
        assert!(k.sweep(&short, &mut full).is_err());
        assert!(k.cg_dot(&full, &full).is_ok());
        assert!(k.cg_axpy(&mut full, &short, 1.0).is_err());
        let (mut u, mut r) = (vec![0.0; 16], vec![0.0; 16]);
        assert!(k.tea_w(&full, &full, &short, &mut u).is_err());
        assert!(k.tea_ur([&mut u, &mut r], &full, &short, 1.0).is_err());
        assert!(k.tea_p(&mut u, &full, 1.0).is_ok());
    }
}
