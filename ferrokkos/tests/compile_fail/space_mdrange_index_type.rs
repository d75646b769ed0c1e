// An unannotated multidimensional kernel index is `(i64, i64)`; a `usize` MDRangePolicy needs the
// kernel's index annotated.
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let exec = Serial::default_instance()?;
    let m = View::<f64, 2>::new("m", [2, 3])?;
    let policy = MDRangePolicy::<Serial, 2, usize>::new(&exec, [0, 0], [2, 3])?;
    parallel_for("fill", policy, kernel!(|(i, j)| m[(i, j)] = 1.0))?;
    Ok(())
}
