// Elements of a View in device memory cannot be touched by host code.
use ferrokkos::prelude::*;

fn main() -> ferrokkos::Result<()> {
    let v = View::<f64, 1, LayoutRight, CudaSpace>::new("v", [10])?;
    let _ = v.get(3)?;
    Ok(())
}
