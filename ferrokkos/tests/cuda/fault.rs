//! A kernel that faults on the GPU: the error surfaces at the next fence as an `Err` carrying the
//! driver's error name and the label of the work, and finalize still completes. The test runs alone
//! in a child process of its own: it initializes and finalizes the runtime itself, and a device
//! fault leaves the process's context unusable.

use ferrokkos::prelude::*;
use ferrokkos::{BackendError, Cuda, Error};

use crate::common::child::in_own_process;

#[test]
#[ignore = "needs a CUDA GPU"]
fn a_device_fault_is_an_error_naming_the_driver_error_and_the_kernel() {
    if !in_own_process(
        module_path!(),
        "a_device_fault_is_an_error_naming_the_driver_error_and_the_kernel",
    ) {
        return;
    }
    let rt = ferrokkos::initialize(InitSettings::new()).unwrap();
    let exec = Cuda::default_instance().unwrap();
    let backing = View::<f64, 1, LayoutRight, CudaSpace>::new("backing", [16]).unwrap();
    let far = 1usize << 40;
    // Safe code cannot make the GPU fault (device indexing is bounds-checked): this unmanaged View
    // claims 2^40 elements over 16, a promise of the `unsafe` constructor broken here on purpose.
    // SAFETY: not sound, deliberately: the kernel below writes far past the 16 elements.
    let y = unsafe {
        View::<f64, 1, LayoutRight, CudaSpace>::from_raw_parts("y", backing.as_mut_ptr(), [far])
    }
    .unwrap();
    parallel_for(
        "out of bounds",
        RangePolicy::new(&exec, far - 1, far).unwrap(),
        kernel!(|i| y[i] = 1.0),
    )
    .unwrap();
    let e = exec.fence("after the fault").unwrap_err();
    let text = e.to_string();
    println!("{text}");
    assert!(
        matches!(e, Error::Backend(BackendError::Cuda { .. })),
        "{e:?}"
    );
    assert!(text.contains("CUDA_ERROR_ILLEGAL_ADDRESS"), "{text}");
    assert!(text.contains("parallel_for \"out of bounds\""), "{text}");
    // Later work reports the sticky error too, and finalize completes (reporting it).
    assert!(deep_copy(&y, 0.0).is_err());
    drop((y, backing, exec));
    let _ = rt.finalize();
}
