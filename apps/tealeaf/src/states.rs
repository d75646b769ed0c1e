//! The initial states of the mesh (TeaLeaf's `set_chunk_state`): state 1 fills the chunk, and
//! each later state overwrites the energy and density of the cells its shape touches.

use ferrokkos::prelude::*;

use crate::Space;
use crate::chunk::Chunk;
use crate::profile::Phase;

/// The region a state covers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Shape {
    /// The whole chunk (state 1).
    Background,
    /// Cells that overlap the box (`geometry=rectangle xmin xmax ymin ymax`).
    Rectangle {
        /// Low x.
        x_min: f64,
        /// Low y.
        y_min: f64,
        /// High x.
        x_max: f64,
        /// High y.
        y_max: f64,
    },
    /// Cells whose centre is within `radius` of the centre (`geometry=circular xmin ymin
    /// radius`).
    Circle {
        /// Centre x.
        x: f64,
        /// Centre y.
        y: f64,
        /// Radius.
        radius: f64,
    },
    /// The cell that contains the point (`geometry=point xmin ymin`).
    Point {
        /// x.
        x: f64,
        /// y.
        y: f64,
    },
}

impl Shape {
    /// The shape as TeaLeaf applies it: its bounds (and a circle's centre or a point) moved a
    /// hundredth of a cell (`dx`, `dy`), lower bounds up and upper bounds down, so that a bound
    /// on a cell face falls inside the intended cell whatever the round-off.
    pub fn nudged(self, dx: f64, dy: f64) -> Shape {
        let (ex, ey) = (dx / 100.0, dy / 100.0);
        match self {
            Shape::Background => Shape::Background,
            Shape::Rectangle {
                x_min,
                y_min,
                x_max,
                y_max,
            } => Shape::Rectangle {
                x_min: x_min + ex,
                y_min: y_min + ey,
                x_max: x_max - ex,
                y_max: y_max - ey,
            },
            Shape::Circle { x, y, radius } => Shape::Circle {
                x: x + ex,
                y: y + ey,
                radius,
            },
            Shape::Point { x, y } => Shape::Point {
                x: x + ex,
                y: y + ey,
            },
        }
    }
}

/// A material state: density and energy over a region.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct State {
    /// Density.
    pub density: f64,
    /// Specific energy.
    pub energy: f64,
    /// Where it applies.
    pub shape: Shape,
}

impl<S: Space> Chunk<S> {
    /// Fills `energy0` and `density` from the states (state 1 first, then each later one over
    /// it), and `u = energy0 · density` on every cell but the outermost ring. `dx`, `dy`: the
    /// cell size (for [`Shape::nudged`]).
    ///
    /// A point state takes the cell whose vertices bracket the nudged point; TeaLeaf compares
    /// the cell's low vertex with the nudged point for equality, which the nudge makes fail.
    pub fn set_chunk_state(&self, states: &[State], dx: f64, dy: f64) -> crate::Result<()> {
        self.timed("set_chunk_state", Phase::StartUp, || {
            let (energy0, density) = (&self.energy0, &self.density);
            let (vx, vy, cx, cy) = (&self.vertex_x, &self.vertex_y, &self.cell_x, &self.cell_y);
            let Some((background, others)) = states.split_first() else {
                return Ok(());
            };
            let (e, d) = (background.energy, background.density);
            self.launch.for_each(
                "set_chunk_initial_state",
                self.all_cells()?,
                kernel!(|(j, k)| {
                    energy0[(j, k)] = e;
                    density[(j, k)] = d;
                }),
            )?;
            for state in others {
                let (e, d) = (state.energy, state.density);
                match state.shape.nudged(dx, dy) {
                    Shape::Background => {}
                    Shape::Rectangle {
                        x_min,
                        y_min,
                        x_max,
                        y_max,
                    } => self.launch.for_each(
                        "set_chunk_state_rectangle",
                        self.all_cells()?,
                        kernel!(|(j, k)| {
                            if vx[k + 1] >= x_min
                                && vx[k] < x_max
                                && vy[j + 1] >= y_min
                                && vy[j] < y_max
                            {
                                energy0[(j, k)] = e;
                                density[(j, k)] = d;
                            }
                        }),
                    )?,
                    Shape::Circle { x, y, radius } => self.launch.for_each(
                        "set_chunk_state_circle",
                        self.all_cells()?,
                        kernel!(|(j, k)| {
                            let r = ((cx[k] - x) * (cx[k] - x) + (cy[j] - y) * (cy[j] - y)).sqrt();
                            if r <= radius {
                                energy0[(j, k)] = e;
                                density[(j, k)] = d;
                            }
                        }),
                    )?,
                    Shape::Point { x, y } => self.launch.for_each(
                        "set_chunk_state_point",
                        self.all_cells()?,
                        kernel!(|(j, k)| {
                            if vx[k] <= x && x < vx[k + 1] && vy[j] <= y && y < vy[j + 1] {
                                energy0[(j, k)] = e;
                                density[(j, k)] = d;
                            }
                        }),
                    )?,
                }
            }
            if !others.is_empty() {
                let u = &self.u;
                self.launch.for_each(
                    "set_chunk_state_u",
                    self.inner_cells()?,
                    kernel!(|(j, k)| u[(j, k)] = energy0[(j, k)] * density[(j, k)]),
                )?;
            }
            Ok(())
        })
    }
}
