//! Kokkos' `SharedSpace` and `SharedHostPinnedSpace`, per execution space (`S::SharedSpace`,
//! `S::SharedHostPinnedSpace`): memory that host code writes and reads directly and that kernels on
//! `S` use, with no mirror and no copy.

use ferrokkos::prelude::*;
use ferrokkos::traits::HostAccessible;
use ferrokkos::{Result, SharedHostPinnedSpace, SharedSpace};

/// Host writes, a kernel on `exec` over the same View, host reads, in memory space `M`.
fn host_kernel_host<S: Launch, M: HostAccessible>(exec: &S) -> Result<()> {
    let n = 513;
    let v = View::<f64, 1, LayoutRight, M>::new("shared", [n])?;
    {
        let mut g = v.host_mut()?;
        for i in 0..n {
            g[i] = i as f64;
        }
    }
    parallel_for(
        "update",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i| v[i] = v[i] * 3.0 + 1.0),
    )?;
    let sum = parallel_reduce(
        "sum",
        RangePolicy::new(exec, 0, n)?,
        kernel!(|i, acc: &mut f64| *acc += v[i]),
        Sum::new(),
    )?;
    let g = v.host()?;
    for i in 0..n {
        assert_eq!(
            g[i],
            i as f64 * 3.0 + 1.0,
            "{} in {}: {i}",
            S::NAME,
            M::NAME
        );
    }
    // Integers below 2^53: every order of the sum is exact.
    assert_eq!(sum, (0..n).map(|i| i as f64 * 3.0 + 1.0).sum::<f64>());
    Ok(())
}

/// `S::SharedSpace` is HostSpace on the host spaces and managed memory on Cuda; host code and
/// kernels on `S` share a View in it.
fn shared_space_is_shared_by_host_and_space<S: Launch>(exec: &S) -> Result<()> {
    let want = match S::NAME {
        "Cuda" => "CudaUVMSpace",
        _ => "HostSpace",
    };
    assert_eq!(<S::SharedSpace as MemorySpace>::NAME, want);
    host_kernel_host::<S, S::SharedSpace>(exec)
}
per_space!(
    shared_space_is_shared_by_host_and_space,
    shared_space_is_shared_by_host_and_space
);

/// `S::SharedHostPinnedSpace` is HostSpace on the host spaces and pinned host memory on Cuda;
/// host code and kernels on `S` share a View in it.
fn shared_host_pinned_space_is_shared_by_host_and_space<S: Launch>(exec: &S) -> Result<()> {
    let want = match S::NAME {
        "Cuda" => "CudaHostPinnedSpace",
        _ => "HostSpace",
    };
    assert_eq!(<S::SharedHostPinnedSpace as MemorySpace>::NAME, want);
    host_kernel_host::<S, S::SharedHostPinnedSpace>(exec)
}
per_space!(
    shared_host_pinned_space_is_shared_by_host_and_space,
    shared_host_pinned_space_is_shared_by_host_and_space
);

/// The crate-level names are the build's: the CUDA spaces with the `cuda` feature, HostSpace
/// without a device backend; the host spaces' own are HostSpace.
#[test]
fn the_crate_level_shared_spaces_follow_the_build() {
    let (shared, pinned) = if cfg!(feature = "cuda") {
        ("CudaUVMSpace", "CudaHostPinnedSpace")
    } else {
        ("HostSpace", "HostSpace")
    };
    assert_eq!(
        (SharedSpace::NAME, SharedHostPinnedSpace::NAME),
        (shared, pinned)
    );
    assert_eq!(
        <<Serial as ExecutionSpace>::SharedSpace as MemorySpace>::NAME,
        "HostSpace"
    );
    assert_eq!(
        <<Threads as ExecutionSpace>::SharedHostPinnedSpace as MemorySpace>::NAME,
        "HostSpace"
    );
}
