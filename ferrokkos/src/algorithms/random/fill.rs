//! [`fill_random`]: Kokkos' `fill_random(exec, view, pool, begin, end)`, a View filled with
//! uniform draws, one state held per 128 rows (of the first dimension).

use std::ops::Range;

use super::draw::RandomValue;
use super::generator::Generator;
use super::pool::RandomPool;
use crate::dispatch::{Launch, parallel_for};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::policy::RangePolicy;
use crate::space::MemorySpace;
use crate::view::View;

/// The rows of the first dimension that one iteration fills with one held state (Kokkos' 128).
const ROWS: usize = 128;

/// Fills `view` with uniform draws in `range` from `pool`'s states, on `exec` (Kokkos'
/// `fill_random(exec, view, pool, begin, end)`; `begin..end` is half-open for integers, `[begin,
/// end]` for floats, as Kokkos' `urand(start, end)` and `drand(start, end)` are). Each iteration
/// holds one state for 128 rows of the first dimension and draws their elements in index order
/// (the last index fastest), as Kokkos does; on the host an iteration's rows are consecutive
/// (Kokkos' order: on Serial the values are Kokkos' Serial values), on a GPU they are 128 rows
/// apart, so that a warp's writes are together. Views of rank 1 to 8, any layout, in a memory
/// space `exec` reaches; elements `u32`, `u64`, `usize`, `i32`, `i64`, `isize`, `f32`, `f64`.
///
/// `Err(Error::InvalidArgument)` for an empty or reversed range (`5..5`, `3..1`, a NaN bound).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::{RandomXorShift64Pool, fill_random};
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let pool = RandomXorShift64Pool::new(&exec, 2024)?;
/// let x = View::<f64, 2>::new("x", [1000, 3])?;
/// fill_random(&exec, &x, &pool, -1.0..1.0)?;
/// let v = x.to_vec()?;
/// assert!(v.iter().all(|&e| (-1.0..=1.0).contains(&e)));
/// let mean = v.iter().sum::<f64>() / v.len() as f64;
/// assert!(mean.abs() < 0.05);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn fill_random<T, const R: usize, L, M, G, S>(
    exec: &S,
    view: &View<T, R, L, M>,
    pool: &RandomPool<G, S>,
    range: Range<T>,
) -> Result<()>
where
    T: RandomValue,
    L: Layout,
    M: MemorySpace,
    G: Generator,
    S: Launch,
    View<T, R, L, M>: FillRank<T>,
{
    let (begin, end) = (range.start, range.end);
    let ordered = if T::INTEGER {
        begin < end
    } else {
        begin <= end
    };
    if !ordered {
        return Err(Error::InvalidArgument {
            operation: "fill_random",
            reason: format!(
                "View \"{}\": the range {begin:?}..{end:?} is empty",
                view.label()
            ),
        });
    }
    if view.size() == 0 {
        return Ok(());
    }
    // One iteration per 128 rows: consecutive rows on the host, rows `chunks` apart on a GPU.
    let chunks = view.extent(0).div_ceil(ROWS);
    let (step_c, step_j) = if S::DEVICE_TYPE.is_gpu() {
        (1, chunks)
    } else {
        (ROWS, 1)
    };
    view.fill_rows(exec, pool, begin, end, [chunks, step_c, step_j])
}

/// A View that [`fill_random`] fills: ranks 1 to 8 (sealed).
#[diagnostic::on_unimplemented(
    message = "fill_random fills Views of rank 1 to 8 of u32, u64, usize, i32, i64, isize, f32 or f64",
    label = "not such a View"
)]
pub trait FillRank<T: RandomValue>: crate::seal::Sealed {
    /// Launches the fill: `plan` is the iterations, and the steps from an iteration and from a row
    /// of it to the row's index.
    #[doc(hidden)]
    fn fill_rows<G: Generator, S: Launch>(
        &self,
        exec: &S,
        pool: &RandomPool<G, S>,
        begin: T,
        end: T,
        plan: [usize; 3],
    ) -> Result<()>;
}

impl<T: RandomValue, L: Layout, M: MemorySpace> FillRank<T> for View<T, 1, L, M> {
    fn fill_rows<G: Generator, S: Launch>(
        &self,
        exec: &S,
        pool: &RandomPool<G, S>,
        begin: T,
        end: T,
        [chunks, step_c, step_j]: [usize; 3],
    ) -> Result<()> {
        let a = self;
        let n0 = a.extent(0);
        let bounds = [begin, end];
        parallel_for(
            "Kokkos::fill_random",
            RangePolicy::new(exec, 0, chunks)?,
            crate::kernel!(|c| {
                let mut rng = pool.get_state();
                for j in 0..ROWS {
                    let idx = c * step_c + j * step_j;
                    if idx < n0 {
                        // SAFETY (race rules): iteration `c` alone writes rows `c * step_c + j *
                        // step_j` for `j < 128`: consecutive blocks of 128 (host) or the rows
                        // congruent to `c` modulo `chunks` (GPU); each index is still checked.
                        unsafe {
                            a[idx] = rng.draw(bounds[0], bounds[1]);
                        }
                    }
                }
                pool.free_state(rng);
            }),
        )
    }
}

/// The fill of a View of rank 2 to 8: the trailing indices of a row in index order, each
/// coordinate `(t / below) % extent`.
macro_rules! fill_rank {
    ($r:literal; $($k:ident, $n:ident, $below:ident, $d:literal);*) => {
        impl<T: RandomValue, L: Layout, M: MemorySpace> FillRank<T> for View<T, $r, L, M> {
            fn fill_rows<G: Generator, S: Launch>(
                &self,
                exec: &S,
                pool: &RandomPool<G, S>,
                begin: T,
                end: T,
                [chunks, step_c, step_j]: [usize; 3],
            ) -> Result<()> {
                let a = self;
                let n0 = a.extent(0);
                let row = a.size() / n0;
                let bounds = [begin, end];
                $(
                    let $n = a.extent($d);
                    let $below: usize = (($d + 1)..$r).map(|e| a.extent(e)).product();
                )*
                parallel_for(
                    "Kokkos::fill_random",
                    RangePolicy::new(exec, 0, chunks)?,
                    crate::kernel!(|c| {
                        let mut rng = pool.get_state();
                        for j in 0..ROWS {
                            let idx = c * step_c + j * step_j;
                            if idx < n0 {
                                for t in 0..row {
                                    $(let $k = (t / $below) % $n;)*
                                    // SAFETY (race rules): as for rank 1, row by row.
                                    unsafe {
                                        a[(idx, $($k),*)] = rng.draw(bounds[0], bounds[1]);
                                    }
                                }
                            }
                        }
                        pool.free_state(rng);
                    }),
                )
            }
        }
    };
}

fill_rank!(2; k1, n1, b1, 1);
fill_rank!(3; k1, n1, b1, 1; k2, n2, b2, 2);
fill_rank!(4; k1, n1, b1, 1; k2, n2, b2, 2; k3, n3, b3, 3);
fill_rank!(5; k1, n1, b1, 1; k2, n2, b2, 2; k3, n3, b3, 3; k4, n4, b4, 4);
fill_rank!(6; k1, n1, b1, 1; k2, n2, b2, 2; k3, n3, b3, 3; k4, n4, b4, 4; k5, n5, b5, 5);
fill_rank!(7; k1, n1, b1, 1; k2, n2, b2, 2; k3, n3, b3, 3; k4, n4, b4, 4; k5, n5, b5, 5;
    k6, n6, b6, 6);
fill_rank!(8; k1, n1, b1, 1; k2, n2, b2, 2; k3, n3, b3, 3; k4, n4, b4, 4; k5, n5, b5, 5;
    k6, n6, b6, 6; k7, n7, b7, 7);
