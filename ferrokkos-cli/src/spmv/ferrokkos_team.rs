//! y = A x with ferrokkos' hierarchical parallelism, written once for every space: a `TeamPolicy`
//! whose league ranks own blocks of rows (`rows per team = team size × rows per thread`), a
//! `TeamThreadRange` over the block's rows and a `ThreadVectorRange` reduction over each row's
//! entries (Kokkos Kernels' SpMV shape). On the host spaces a team is one thread and the vector
//! loop a plain loop. On Cuda the shape is `--vector-length` and `--rows-per-thread`; the defaults
//! are the fastest measured on an H100 for this matrix, whose rows have at most 7 entries: one lane
//! per row and one row per team thread (256 rows per team; 1.25x cuSPARSE), ahead of 2 lanes
//! (1.13x), 4 (0.9x) and 8 (0.65x), where a warp has fewer rows in flight.

use ferrokkos::Result;
use ferrokkos::prelude::*;
use ferrokkos::traits::LaunchTeam;

use super::Implementation;
use super::ferrokkos_range::on_device;
use super::matrix::Csr;
use super::views::CsrViews;
use crate::Failure;
use crate::spaces::count;

/// The vector length on Cuda (see the module documentation).
pub const CUDA_VECTOR_LENGTH: usize = 1;
/// The rows each team thread handles on Cuda.
pub const CUDA_ROWS_PER_THREAD: usize = 1;
/// The rows each team (one thread) handles on the host spaces.
pub const HOST_ROWS_PER_TEAM: usize = 256;

/// The team line's shape as asked on the command line (`None`: the space's default).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TeamShape {
    /// The vector length.
    pub vector_length: Option<usize>,
    /// The rows per team thread.
    pub rows_per_thread: Option<usize>,
    /// How the league is dealt to the host threads (`None`: dynamic, see [`FerrokkosTeam::new`]).
    pub schedule: Option<ferrokkos::Schedule>,
}

/// The matrix, x and y as Views in the space's memory, the instance, and the team shape.
pub struct FerrokkosTeam<S: Launch + LaunchTeam> {
    /// The instance the teams run on.
    space: S,
    /// The matrix and vectors.
    views: CsrViews<S::MemorySpace>,
    /// The vector length the policy asks for.
    vector_length: usize,
    /// The rows a team owns.
    per_team: usize,
    /// The team size `AUTO` gives on this space.
    team_size: usize,
    /// The league's schedule on the host spaces.
    schedule: ferrokkos::Schedule,
}

impl<S: Launch + LaunchTeam> FerrokkosTeam<S> {
    /// The Views in `S::MemorySpace`, filled from `a` and `x` (y with NaN), and the team shape of
    /// the space.
    pub fn new(space: S, a: &Csr, x: &[f64], shape: TeamShape) -> Result<Self> {
        let views = CsrViews::new(&space, "spmv::team", a, x)?;
        let device = on_device::<S>();
        let vector_length =
            shape
                .vector_length
                .unwrap_or(if device { CUDA_VECTOR_LENGTH } else { 1 });
        let team_size = TeamPolicy::new(&space, 1, AUTO)?
            .vector_length(vector_length)?
            .team_size_recommended()?;
        let per_thread = shape.rows_per_thread.unwrap_or(if device {
            CUDA_ROWS_PER_THREAD
        } else {
            HOST_ROWS_PER_TEAM
        });
        let per_team = team_size * per_thread;
        Ok(FerrokkosTeam {
            space,
            views,
            vector_length,
            per_team,
            team_size,
            // Teams taken from a shared counter as threads finish: on 16 cores of a shared machine
            // the median product was 1.05-1.09x rayon's against 0.97-1.00x with static blocks.
            schedule: shape.schedule.unwrap_or(ferrokkos::Schedule::Dynamic),
        })
    }

    /// One product: league rank l computes rows `per_team * l ..` of its block.
    fn multiply(&self) -> Result<()> {
        let v = &self.views;
        let (row_ptr, col, val, x, y) = (&v.row_ptr, &v.col, &v.val, &v.x, &v.y);
        let (rows, per_team) = (v.rows, self.per_team);
        parallel_for(
            "spmv::team",
            TeamPolicy::new(&self.space, rows.div_ceil(per_team), AUTO)?
                .vector_length(self.vector_length)?
                .schedule(self.schedule),
            kernel!(|team: &TeamMember| {
                TeamThreadRange::new(team, 0, per_team).parallel_for(|r| {
                    let row = per_team * team.league_rank() + r;
                    if row < rows {
                        let lo = row_ptr[row] as usize;
                        let hi = row_ptr[row + 1] as usize;
                        let sum = ThreadVectorRange::new(team, lo, hi).parallel_reduce(
                            |k, s: &mut f64| *s += val[k] * x[col[k] as usize],
                            Sum::new(),
                        );
                        single(PerThread(team), || y[row] = sum);
                    }
                });
            }),
        )?;
        self.space.fence("spmv::team")
    }
}

impl<S: Launch + LaunchTeam> Implementation for FerrokkosTeam<S> {
    fn name(&self) -> String {
        let shape = format!(
            "TeamPolicy, {} rows per team of {} x {}, ThreadVectorRange over each row",
            self.per_team,
            count(self.team_size, "thread"),
            count(self.vector_length, "lane"),
        );
        if on_device::<S>() {
            return format!("ferrokkos {} {shape}", S::NAME);
        }
        let shape = format!("{shape}, {:?} schedule", self.schedule);
        crate::spaces::ferrokkos_line(&self.space, &shape)
    }

    fn short_name(&self) -> &'static str {
        "ferrokkos team"
    }

    fn is_ferrokkos(&self) -> bool {
        true
    }

    fn run(&mut self) -> std::result::Result<(), Failure> {
        Ok(self.multiply()?)
    }

    fn result(&self) -> std::result::Result<Vec<f64>, Failure> {
        Ok(self.views.y_on_host()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::in_child::{test_name, with_runtime};

    #[test]
    fn teams_match_the_reference_on_both_host_spaces() {
        let name = test_name(
            module_path!(),
            "teams_match_the_reference_on_both_host_spaces",
        );
        with_runtime(&name, || {
            // 7^3 = 343 rows: a full block of 256 and a partial one.
            let a = Csr::laplacian_3d(7).unwrap();
            let x = a.input().unwrap();
            let want = a.reference(&x).unwrap();
            let mut serial = FerrokkosTeam::new(
                Serial::default_instance().unwrap(),
                &a,
                &x,
                TeamShape::default(),
            )
            .unwrap();
            assert!(serial.result().unwrap().iter().all(|v| v.is_nan()));
            serial.run().unwrap();
            assert_eq!(serial.result().unwrap(), want);
            let mut threads = FerrokkosTeam::new(
                Threads::default_instance().unwrap(),
                &a,
                &x,
                TeamShape::default(),
            )
            .unwrap();
            threads.run().unwrap();
            assert_eq!(threads.result().unwrap(), want);
        });
    }
}
