// A transfer borrows its View: it cannot be kept past the View's drop (NCCL would move
// freed memory).
use ferrokkos::prelude::*;
use ferrokkos::{CudaSpace};
use ferrokkos::nccl::{NcclTransfer};

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let kept;
    {
        let v = View::<f64, 1, LayoutRight, CudaSpace>::new("v", [4])?;
        kept = NcclTransfer::send(0, &v);
    }
    println!("{kept:?}");
    Ok(())
}
