//! y = A x with ferrokkos' hierarchical parallelism, on the host spaces: a `TeamPolicy` whose
//! league ranks own blocks of [`ROWS_PER_TEAM`] rows, a `TeamThreadRange` over the block's rows and
//! a `ThreadVectorRange` reduction over each row's entries.
//!
//! Team kernels are plain closures for now (`kernel!` team kernels, and with them team kernels on
//! Cuda, are not built yet), so the kernel writes y through the explicitly unsafe
//! [`View::parallel_mut`] accessor, and reads the matrix and x as slices of host guards.

use ferrokkos::prelude::*;
use ferrokkos::{HostExecutionSpace, Result};

use super::Implementation;
use super::matrix::Csr;
use super::views::CsrViews;
use crate::Failure;

/// The rows each team (league rank) owns.
pub const ROWS_PER_TEAM: usize = 256;

/// The matrix, x and y as host Views, and the instance the teams run on.
pub struct FerrokkosTeam<S: HostExecutionSpace> {
    /// The instance the teams run on.
    space: S,
    /// The matrix and vectors.
    views: CsrViews<HostSpace>,
}

/// The elements of a host guard as one slice (host Views of rank 1 and `LayoutRight` always are).
fn slice_of<'g, T: ferrokkos::Element>(
    guard: &'g ferrokkos::HostRef<'_, T, 1, LayoutRight, HostSpace>,
) -> Result<&'g [T]> {
    guard
        .as_slice()
        .ok_or_else(|| ferrokkos::Error::InvalidArgument {
            operation: "spmv: reading a View",
            reason: format!("{} is not contiguous", guard.view().label()),
        })
}

impl<S: HostExecutionSpace + Launch + ExecutionSpace<MemorySpace = HostSpace>> FerrokkosTeam<S> {
    /// Host Views filled from `a` and `x` (y with NaN), first touched on `space`.
    pub fn new(space: S, a: &Csr, x: &[f64]) -> Result<Self> {
        let views = CsrViews::new(&space, "spmv::team", a, x)?;
        Ok(FerrokkosTeam { space, views })
    }

    /// One product: league rank r computes rows `r * ROWS_PER_TEAM ..` of its block.
    fn multiply(&self) -> Result<()> {
        let v = &self.views;
        let (row_ptr, col, val, x) = (v.row_ptr.host()?, v.col.host()?, v.val.host()?, v.x.host()?);
        let (row_ptr, col, val, x) = (
            slice_of(&row_ptr)?,
            slice_of(&col)?,
            slice_of(&val)?,
            slice_of(&x)?,
        );
        let rows = v.rows;
        let league = rows.div_ceil(ROWS_PER_TEAM);
        // SAFETY: row `row` of y is written only by the team whose block holds it (league rank
        // `row / ROWS_PER_TEAM`), once, by the one thread of the TeamThreadRange iteration `row`;
        // nothing reads y while the accessor is alive.
        let y = unsafe { v.y.parallel_mut()? };
        parallel_for(
            "spmv::team",
            TeamPolicy::new(&self.space, league, AUTO)?,
            |team: &TeamMember| {
                let first = team.league_rank() * ROWS_PER_TEAM;
                let last = (first + ROWS_PER_TEAM).min(rows);
                TeamThreadRange::new(team, first, last).parallel_for(|row| {
                    let (lo, hi) = (row_ptr[row] as usize, row_ptr[row + 1] as usize);
                    let sum = ThreadVectorRange::new(team, lo, hi).parallel_reduce(
                        |k, s: &mut f64| *s += val[k] * x[col[k] as usize],
                        Sum::new(),
                    );
                    y.set(row, sum);
                });
            },
        )?;
        self.space.fence("spmv::team")
    }
}

impl<S: HostExecutionSpace + Launch + ExecutionSpace<MemorySpace = HostSpace>> Implementation
    for FerrokkosTeam<S>
{
    fn name(&self) -> String {
        let threads = self.space.concurrency();
        format!(
            "ferrokkos {} TeamPolicy, {ROWS_PER_TEAM} rows per team, ThreadVectorRange over each \
             row ({threads} thread{})",
            S::NAME,
            if threads == 1 { "" } else { "s" }
        )
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
        Ok(self.views.y.to_vec()?)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::spmv::in_child::{test_name, with_runtime};

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
            let mut serial =
                FerrokkosTeam::new(Serial::default_instance().unwrap(), &a, &x).unwrap();
            assert!(serial.result().unwrap().iter().all(|v| v.is_nan()));
            serial.run().unwrap();
            assert_eq!(serial.result().unwrap(), want);
            let mut threads =
                FerrokkosTeam::new(Threads::default_instance().unwrap(), &a, &x).unwrap();
            threads.run().unwrap();
            assert_eq!(threads.result().unwrap(), want);
        });
    }
}
