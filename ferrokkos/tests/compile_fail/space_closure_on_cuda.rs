// A plain closure has no device translation: launching one on Cuda does not compile.
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let cuda = Cuda::default_instance()?;
    parallel_for("host only", RangePolicy::new(&cuda, 0, 10)?, |_i: usize| {})?;
    Ok(())
}
