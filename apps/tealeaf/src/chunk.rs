//! The chunk: one rectangle of the mesh with its halo, the fields on it, and the mesh data
//! (TeaLeaf's `Chunk` and `set_chunk_data`).
//!
//! # Index order
//!
//! TeaLeaf stores each field as a flat array indexed `kk + jj * x`, x fastest. Here a field is a
//! rank-2 [`View`] in `LayoutRight` indexed `[(jj, kk)]`: row `jj` (y) first, column `kk` (x)
//! last and fastest, so the memory order is TeaLeaf's. Rows and columns count from the outer
//! halo cell: the interior is `halo_depth..y - halo_depth` by `halo_depth..x - halo_depth`.
//! Kernels run over rank-2 `MDRangePolicy`s of `(jj, kk)`.

use std::cell::RefCell;
use std::rc::Rc;

use ferrokkos::prelude::*;

use crate::Space;
use crate::comms::Comms;
use crate::decompose::Tile;
use crate::exchange::{Buffers, Staging};
use crate::launch::Launcher;
use crate::profile::{Phase, Profile, Timer};
use crate::settings::Settings;
use crate::solvers::cg_graph::{CgGraphs, CgMode, cg_mode};
use ferrokkos::nccl::NcclComm;

/// A field of the chunk: `(y, x)` cells, halo included, in the execution space's memory.
pub type Field<S> = View<f64, 2, LayoutRight, <S as ExecutionSpace>::MemorySpace>;

/// A line of the mesh (vertex or cell coordinates) in the execution space's memory.
pub type Line<S> = View<f64, 1, LayoutRight, <S as ExecutionSpace>::MemorySpace>;

/// The faces of a chunk, in TeaLeaf's order.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Face {
    /// Low x.
    Left = 0,
    /// High x.
    Right = 1,
    /// Low y.
    Bottom = 2,
    /// High y.
    Top = 3,
}

/// One chunk of the mesh on execution space `S`.
pub struct Chunk<S: Space> {
    /// The instance every kernel of the chunk runs on.
    pub exec: S,
    /// Launches (or prepares) the chunk's kernels.
    pub launch: Launcher,
    /// Wallclock per kernel function, when profiling.
    pub profile: RefCell<Profile>,
    /// Columns, halo included (TeaLeaf's `chunk->x`).
    pub x: usize,
    /// Rows, halo included (TeaLeaf's `chunk->y`).
    pub y: usize,
    /// Halo cells on each side.
    pub halo_depth: usize,
    /// The first interior column's index in the global mesh.
    pub left: usize,
    /// The first interior row's index in the global mesh.
    pub bottom: usize,
    /// The neighbouring chunk (its rank) of each face ([`Face`] order); `None`: the domain's
    /// boundary (one chunk: all four).
    pub neighbours: [Option<usize>; 4],
    /// The other ranks: global sums and halo messages.
    pub comms: Rc<dyn Comms>,
    /// The buffers of the halo exchange with the neighbours, made on first use.
    pub buffers: Buffers<S>,
    /// `p · w` of the parts of the interior that CG computes apart when it overlaps the
    /// exchange of `p`'s halo (see `cg_calc_w_exchanging`).
    pub pw_parts: Line<S>,
    /// [`Chunk::pw_parts`] staged for the host.
    pub pw_host: View<f64, 1, LayoutRight, Staging<S>>,
    /// CG's scalars on the device and the graphs of its iterations (one rank).
    pub cg_graphs: CgGraphs<S>,
    /// This rank's NCCL communicator, where the ranks run on GPUs and talk through NCCL
    /// (`comms/nccl.rs`): halo messages then go device to device and CG sums on the device.
    pub nccl: Option<NcclComm>,
    /// The time step TeaLeaf starts each step from.
    pub dt_init: f64,
    /// Cell density.
    pub density: Field<S>,
    /// The initial energy (the field summary's internal energy uses it).
    pub energy0: Field<S>,
    /// The energy the solves update.
    pub energy: Field<S>,
    /// The temperature the solvers iterate on.
    pub u: Field<S>,
    /// The right-hand side of the implicit step.
    pub u0: Field<S>,
    /// Search direction (CG, PPCG), update (Chebyshev).
    pub p: Field<S>,
    /// Residual (Jacobi: the previous iterate).
    pub r: Field<S>,
    /// Conduction coefficient, then the operator applied to `p` or `u`.
    pub w: Field<S>,
    /// Face coefficients in x (`rx` times the mean conduction of the face).
    pub kx: Field<S>,
    /// Face coefficients in y.
    pub ky: Field<S>,
    /// PPCG's inner update.
    pub sd: Field<S>,
    /// Cell volume.
    pub volume: Field<S>,
    /// Face areas normal to x, `(y, x + 1)`.
    pub x_area: Field<S>,
    /// Face areas normal to y, `(y + 1, x)`.
    pub y_area: Field<S>,
    /// Vertex x coordinates (`x + 1`).
    pub vertex_x: Line<S>,
    /// Vertex y coordinates (`y + 1`).
    pub vertex_y: Line<S>,
    /// Cell-centre x coordinates (`x`).
    pub cell_x: Line<S>,
    /// Cell-centre y coordinates (`y`).
    pub cell_y: Line<S>,
    /// Chebyshev's centre of the spectrum, `(eigmax + eigmin) / 2`.
    pub theta: f64,
    /// The smallest eigenvalue estimate (with TeaLeaf's 5% margin).
    pub eigmin: f64,
    /// The largest eigenvalue estimate (with TeaLeaf's 5% margin).
    pub eigmax: f64,
    /// CG's step lengths, one per iteration of the current solve.
    pub cg_alphas: Vec<f64>,
    /// CG's direction weights, one per iteration of the current solve.
    pub cg_betas: Vec<f64>,
    /// Chebyshev (and PPCG inner) coefficients multiplying the previous update.
    pub cheby_alphas: Vec<f64>,
    /// Chebyshev (and PPCG inner) coefficients multiplying the residual.
    pub cheby_betas: Vec<f64>,
}

impl<S: Space> Chunk<S> {
    /// The single chunk of the whole mesh, its fields allocated (and zeroed).
    pub fn new(exec: S, settings: &Settings) -> crate::Result<Chunk<S>> {
        let tile = Tile::whole(settings.x_cells, settings.y_cells);
        Chunk::of_tile(exec, settings, &tile, Rc::new(crate::comms::Solo))
    }

    /// The chunk `tile` of the mesh, whose neighbours `comms` reaches, its fields allocated
    /// (and zeroed).
    pub fn of_tile(
        exec: S,
        settings: &Settings,
        tile: &Tile,
        comms: Rc<dyn Comms>,
    ) -> crate::Result<Chunk<S>> {
        let hd = settings.halo_depth;
        let (x, y) = (tile.x_cells + 2 * hd, tile.y_cells + 2 * hd);
        let field = |label: &str| Field::<S>::new(label, [y, x]);
        let line = |label: &str, n: usize| Line::<S>::new(label, [n]);
        // Chebyshev reads its coefficients from 1 to max_iters, PPCG from 0 to its inner steps.
        let coefficients = settings.max_iters.max(settings.ppcg_inner_steps) + 1;
        let pw_parts = line("pw_parts", 5)?;
        let nccl = crate::comms::nccl::connect(&exec, settings, &*comms)?;
        let device_cg = cg_mode::<S>(settings, &tile.neighbours, nccl.is_some()) != CgMode::Host;
        Ok(Chunk {
            nccl,
            pw_host: ferrokkos::create_mirror_view_in(Staging::<S>::default(), &pw_parts)?,
            pw_parts,
            cg_graphs: CgGraphs::new([y, x], device_cg)?,
            exec,
            launch: Launcher::new(),
            profile: RefCell::new(Profile::new(settings.profiler_on)),
            x,
            y,
            halo_depth: hd,
            left: tile.left,
            bottom: tile.bottom,
            neighbours: tile.neighbours,
            comms,
            buffers: Buffers::default(),
            dt_init: settings.dt_init,
            density: field("density")?,
            energy0: field("energy0")?,
            energy: field("energy")?,
            u: field("u")?,
            u0: field("u0")?,
            p: field("p")?,
            r: field("r")?,
            w: field("w")?,
            kx: field("kx")?,
            ky: field("ky")?,
            sd: field("sd")?,
            volume: field("volume")?,
            x_area: Field::<S>::new("x_area", [y, x + 1])?,
            y_area: Field::<S>::new("y_area", [y + 1, x])?,
            vertex_x: line("vertex_x", x + 1)?,
            vertex_y: line("vertex_y", y + 1)?,
            cell_x: line("cell_x", x)?,
            cell_y: line("cell_y", y)?,
            theta: 0.0,
            eigmin: 0.0,
            eigmax: 0.0,
            cg_alphas: vec![0.0; settings.max_iters],
            cg_betas: vec![0.0; settings.max_iters],
            cheby_alphas: vec![0.0; coefficients],
            cheby_betas: vec![0.0; coefficients],
        })
    }

    /// Whether `face` is on the domain's boundary (its halo is reflective).
    pub fn is_external(&self, face: Face) -> bool {
        self.neighbours[face as usize].is_none()
    }

    /// Replaces each of `values` by its sum over all ranks (nothing while preparing, and
    /// nothing to do on one rank).
    pub fn sum_over_ranks<const N: usize>(&self, mut values: [f64; N]) -> crate::Result<[f64; N]> {
        if self.comms.ranks() == 1 || self.launch.is_preparing() {
            return Ok(values);
        }
        self.timed("sum_over_ranks", Phase::Comms, || {
            self.comms.sum(&mut values)?;
            Ok(values)
        })
    }

    /// The rows `y0..y1` by columns `x0..x1`.
    pub fn cells(
        &self,
        (y0, x0): (usize, usize),
        (y1, x1): (usize, usize),
    ) -> ferrokkos::Result<MDRangePolicy<S, 2>> {
        MDRangePolicy::new(&self.exec, [y0 as i64, x0 as i64], [y1 as i64, x1 as i64])
    }

    /// Every cell, halo included.
    pub fn all_cells(&self) -> ferrokkos::Result<MDRangePolicy<S, 2>> {
        self.cells((0, 0), (self.y, self.x))
    }

    /// The interior cells.
    pub fn interior(&self) -> ferrokkos::Result<MDRangePolicy<S, 2>> {
        let hd = self.halo_depth;
        self.cells((hd, hd), (self.y - hd, self.x - hd))
    }

    /// Every cell but the outermost ring (TeaLeaf's `0 < kk < x - 1`, `0 < jj < y - 1`).
    pub fn inner_cells(&self) -> ferrokkos::Result<MDRangePolicy<S, 2>> {
        self.cells((1, 1), (self.y - 1, self.x - 1))
    }

    /// The cells that own a face coefficient: from the first interior cell to one before the
    /// outermost ring (TeaLeaf's `halo_depth <= kk < x - 1`).
    pub fn face_cells(&self) -> ferrokkos::Result<MDRangePolicy<S, 2>> {
        let hd = self.halo_depth;
        self.cells((hd, hd), (self.y - 1, self.x - 1))
    }

    /// Runs `f` as the kernel function `name` of `phase`: while profiling, timed up to a fence
    /// of the chunk's instance.
    pub fn timed<T>(
        &self,
        name: &'static str,
        phase: Phase,
        f: impl FnOnce() -> crate::Result<T>,
    ) -> crate::Result<T> {
        if !self.profile.borrow().enabled || self.launch.is_preparing() {
            return f();
        }
        let timer = Timer::start();
        let out = f()?;
        self.exec.fence(name)?;
        self.profile
            .borrow_mut()
            .record(name, phase, timer.seconds());
        Ok(out)
    }

    /// Runs `f` with the profile's timing off: the kernel functions it calls are neither
    /// fenced nor recorded (work queued without waits, timed as a whole by the caller).
    pub fn untimed<T>(&self, f: impl FnOnce() -> crate::Result<T>) -> crate::Result<T> {
        let was = std::mem::replace(&mut self.profile.borrow_mut().enabled, false);
        let out = f();
        self.profile.borrow_mut().enabled = was;
        out
    }

    /// Vertex and cell coordinates, volumes and face areas (TeaLeaf's `set_chunk_data`).
    pub fn set_chunk_data(&self, settings: &Settings) -> crate::Result<()> {
        self.timed("set_chunk_data", Phase::StartUp, || {
            let (dx, dy) = (settings.dx(), settings.dy());
            let x_min = settings.x_min + dx * self.left as f64;
            let y_min = settings.y_min + dy * self.bottom as f64;
            let hd = self.halo_depth as i64;
            let (vx, vy) = (&self.vertex_x, &self.vertex_y);
            let exec = &self.exec;
            self.launch.for_each(
                "set_chunk_data_vertex_x",
                RangePolicy::new(exec, 0, self.x + 1)?,
                kernel!(|i| vx[i] = x_min + dx * (i as i64 - hd) as f64),
            )?;
            self.launch.for_each(
                "set_chunk_data_vertex_y",
                RangePolicy::new(exec, 0, self.y + 1)?,
                kernel!(|i| vy[i] = y_min + dy * (i as i64 - hd) as f64),
            )?;
            let (cx, cy) = (&self.cell_x, &self.cell_y);
            self.launch.for_each(
                "set_chunk_data_cell_x",
                RangePolicy::new(exec, 0, self.x)?,
                kernel!(|i| cx[i] = 0.5 * (vx[i] + vx[i + 1])),
            )?;
            self.launch.for_each(
                "set_chunk_data_cell_y",
                RangePolicy::new(exec, 0, self.y)?,
                kernel!(|i| cy[i] = 0.5 * (vy[i] + vy[i + 1])),
            )?;
            let volume = &self.volume;
            self.launch.for_each(
                "set_chunk_data_volume",
                self.all_cells()?,
                kernel!(|(j, k)| volume[(j, k)] = dx * dy),
            )?;
            let (xa, ya) = (&self.x_area, &self.y_area);
            self.launch.for_each(
                "set_chunk_data_x_area",
                self.cells((0, 0), (self.y, self.x + 1))?,
                kernel!(|(j, k)| xa[(j, k)] = dy),
            )?;
            self.launch.for_each(
                "set_chunk_data_y_area",
                self.cells((0, 0), (self.y + 1, self.x))?,
                kernel!(|(j, k)| ya[(j, k)] = dx),
            )?;
            Ok(())
        })
    }
}
