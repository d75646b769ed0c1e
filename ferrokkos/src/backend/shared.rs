//! The crate-level `SharedSpace` and `SharedHostPinnedSpace`: Kokkos' names for the memory the host
//! shares with the build's default device backend, or with the host alone when the build has none.

/// Kokkos' `SharedSpace`: memory that host code and the build's default device backend both reach.
/// With the `cuda` feature it is [`CudaUVMSpace`](crate::CudaUVMSpace) (managed memory); without a
/// device backend it is [`HostSpace`](crate::HostSpace), as in Kokkos.
///
/// Execution spaces are chosen at run time here, and a build with `cuda` may run where no GPU is:
/// code generic over the execution space names `S::SharedSpace`
/// ([`ExecutionSpace::SharedSpace`](crate::ExecutionSpace::SharedSpace)), the shared memory of the
/// space it runs on (`HostSpace` on Serial and Threads). Every execution space has one, so Kokkos'
/// `has_shared_space` needs no counterpart.
#[cfg(feature = "cuda")]
pub type SharedSpace = super::cuda::CudaUVMSpace;

/// Kokkos' `SharedSpace`: memory that host code and the build's default device backend both reach.
/// With the `cuda` feature it is `CudaUVMSpace` (managed memory); this build has no device
/// backend, so it is [`HostSpace`](crate::HostSpace), as in Kokkos.
///
/// Code generic over the execution space names `S::SharedSpace`
/// ([`ExecutionSpace::SharedSpace`](crate::ExecutionSpace::SharedSpace)), the shared memory of the
/// space it runs on.
#[cfg(not(feature = "cuda"))]
pub type SharedSpace = crate::space::host_space::HostSpace;

/// Kokkos' `SharedHostPinnedSpace`: host memory that the build's default device backend reaches
/// too. With the `cuda` feature it is [`CudaHostPinnedSpace`](crate::CudaHostPinnedSpace) (pinned
/// memory, which copies to and from the GPU reach at full speed); without a device backend it is
/// [`HostSpace`](crate::HostSpace), as in Kokkos.
///
/// Code generic over the execution space names `S::SharedHostPinnedSpace`
/// ([`ExecutionSpace::SharedHostPinnedSpace`](crate::ExecutionSpace::SharedHostPinnedSpace)); to
/// stage a View's data through host memory, `M::HostStaging`
/// ([`MemorySpace::HostStaging`](crate::MemorySpace::HostStaging)) follows the View's space.
#[cfg(feature = "cuda")]
pub type SharedHostPinnedSpace = super::cuda::CudaHostPinnedSpace;

/// Kokkos' `SharedHostPinnedSpace`: host memory that the build's default device backend reaches
/// too. With the `cuda` feature it is `CudaHostPinnedSpace`; this build has no device backend, so
/// it is [`HostSpace`](crate::HostSpace), as in Kokkos.
///
/// Code generic over the execution space names `S::SharedHostPinnedSpace`
/// ([`ExecutionSpace::SharedHostPinnedSpace`](crate::ExecutionSpace::SharedHostPinnedSpace)).
#[cfg(not(feature = "cuda"))]
pub type SharedHostPinnedSpace = crate::space::host_space::HostSpace;
