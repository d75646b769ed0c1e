//! After finalize, the device is as before initialize: the device memory in use is back to its
//! value before initialize, and no stream, event, module or context of ferrokkos is left (DESIGN.md
//! decision 8). One test: initialize may run once per process.

use ferrokkos::prelude::*;
use ferrokkos::{Cuda, CudaHandles, deep_copy_async};

#[test]
#[ignore = "needs a CUDA GPU"]
fn finalize_gives_back_device_memory_and_every_driver_object() {
    // SAFETY: only tries to load the driver library.
    assert!(
        unsafe { cudarc::driver::sys::is_culib_present() },
        "no libcuda"
    );
    // The free memory with a fresh primary context of the test's own, before initialize and after
    // finalize: once ferrokkos has released everything (its retain of the primary context included),
    // the two states are the same.
    let free_memory = || {
        let ctx = cudarc::driver::CudaContext::new(0).unwrap();
        ctx.mem_get_info().unwrap().0
    };
    let free_before = free_memory();
    assert_eq!(Cuda::live_handles(), CudaHandles::default());

    let rt = ferrokkos::initialize(InitSettings::new()).unwrap();
    let exec = Cuda::default_instance().unwrap();
    {
        let n = 1 << 24;
        let x = View::<f64, 1, LayoutRight, CudaSpace>::new("x", [n]).unwrap();
        let pinned = View::<f64, 1, LayoutRight, CudaHostPinnedSpace>::new("p", [n]).unwrap();
        let managed = View::<f64, 1, LayoutRight, CudaUVMSpace>::new("m", [n]).unwrap();
        let parts = partition_space(&exec, 3).unwrap();
        for (k, p) in parts.iter().enumerate() {
            let c = k as f64;
            parallel_for(
                "fill",
                RangePolicy::new(p, 0, n).unwrap(),
                kernel!(|i| x[i] = c + i as f64 * 0.0),
            )
            .unwrap();
        }
        let big = [1.0f64; 5000];
        parallel_for(
            "big captures",
            RangePolicy::new(&exec, 0, 10).unwrap(),
            kernel!(|i| managed[i] = big[i] + x[i]),
        )
        .unwrap();
        let s: f64 = parallel_reduce(
            "sum",
            RangePolicy::new(&exec, 0, n).unwrap(),
            kernel!(|i, acc: &mut f64| *acc += x[i]),
            Sum::new(),
        )
        .unwrap();
        assert_eq!(s, 2.0 * n as f64);
        let t: f64 = parallel_scan(
            "scan",
            RangePolicy::new(&exec, 0, 1000).unwrap(),
            kernel!(|i, part: &mut f64, last: bool| {
                if last {
                    managed[i] = *part;
                }
                *part += x[i];
            }),
        )
        .unwrap();
        assert_eq!(t, 2000.0);
        deep_copy_async(&parts[0], &pinned, &x).unwrap();
        let strided = View::<f64, 2, LayoutLeft, CudaSpace>::new("s", [100, 100]).unwrap();
        let right = View::<f64, 2, LayoutRight, CudaSpace>::new("r", [100, 100]).unwrap();
        deep_copy(&strided, 3.5).unwrap();
        deep_copy(&right, &strided).unwrap();
        assert_eq!(pinned.get(n - 1).unwrap(), 2.0);
        let during = Cuda::live_handles();
        println!("during: {during:?}");
        assert!(during.streams >= 4 && during.modules >= 4 && during.contexts >= 1);
    }
    drop(exec);
    rt.finalize().unwrap();
    let after = Cuda::live_handles();
    let free_after = free_memory();
    println!(
        "free device memory: {free_before} bytes before initialize, {free_after} after finalize; \
         driver objects left: {after:?}"
    );
    assert_eq!(after, CudaHandles::default());
    assert_eq!(free_after, free_before);
}
