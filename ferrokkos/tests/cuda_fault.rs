//! A kernel that faults on the GPU: the error surfaces at the next fence as an `Err` carrying the
//! driver's error name and the label of the work, and finalize still completes. One test in its own
//! process: a device fault leaves the context unusable.

use ferrokkos::prelude::*;
use ferrokkos::{Cuda, Error};

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_device_fault_is_an_error_naming_the_driver_error_and_the_kernel() {
    let rt = ferrokkos::initialize(InitSettings::new()).unwrap();
    let exec = Cuda::default_instance().unwrap();
    let y = View::<f64, 1, LayoutRight, CudaSpace>::new("y", [16]).unwrap();
    let far = 1usize << 40;
    // The write is far outside the View (the device does not check bounds); `unsafe` is the
    // author's promise, broken here on purpose.
    parallel_for(
        "out of bounds",
        RangePolicy::new(&exec, 0, 1).unwrap(),
        kernel!(|i| unsafe {
            y[i + far] = 1.0;
        }),
    )
    .unwrap();
    let e = exec.fence("after the fault").unwrap_err();
    let text = e.to_string();
    println!("{text}");
    assert!(matches!(e, Error::Cuda { .. }), "{e:?}");
    assert!(text.contains("CUDA_ERROR_ILLEGAL_ADDRESS"), "{text}");
    assert!(text.contains("parallel_for \"out of bounds\""), "{text}");
    // Later work reports the sticky error too, and finalize completes (reporting it).
    assert!(deep_copy(&y, 0.0).is_err());
    drop((y, exec));
    let _ = rt.finalize();
}
