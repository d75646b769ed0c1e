// Soundness (launch plumbing): the host body of a `kernel!` writes its Views through accessors that
// are sound only when each index is applied once per launch, by the crate's drivers. Safe code cannot
// obtain the body and run it itself (here on index 0 from four threads: a data race).
#![forbid(unsafe_code)]
use ferrokkos::kernel;
use ferrokkos::prelude::*;
use ferrokkos::traits::{ForFunctor, ForKernel};

fn main() -> ferrokkos::Result<()> {
    let y = View::<u64, 1>::new("y", [1])?;
    let k = kernel!(|i| y[i] = y[i] + 1);
    ForFunctor::<usize>::with_body(&k, &|| String::new(), |body| {
        std::thread::scope(|s| {
            for _ in 0..4 {
                s.spawn(|| body.apply(0));
            }
        })
    })?;
    Ok(())
}
