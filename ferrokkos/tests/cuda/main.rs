//! The Cuda backend's own tests: one binary, one module per behaviour. What every space does is
//! checked by the generic bodies of the conformance binary (whose `::cuda` tests run there); these
//! check what only the Cuda backend has: device memory spaces and copies, instances on streams,
//! out-of-bounds and faults on the device, hand-launched translation units, every entry variant,
//! and Kokkos Tools and the trace with GPU work.
//!
//! Every test that needs a GPU is ignored elsewhere (`#[ignore = "needs a CUDA GPU"]`);
//! `unit_variants` needs only NVRTC and runs everywhere. Tests that must be alone in a process
//! (faults, their own initialize) run as a child process of this binary (`common::child`).
//! `cuda_finalize.rs` stays a binary of its own: it compares the device's free memory before
//! initialize and after finalize, which the other tests of a shared binary would change.

#[path = "../common/mod.rs"]
mod common;

mod bounds;
mod fault;
mod instances;
mod memory;
mod patterns;
mod soundness;
mod tools;
mod unit_variants;
mod units;

use ferrokkos::{Cuda, CudaSpace, ExecutionSpace, LayoutRight, View};

/// A rank-1 View in device memory.
type Dev1<T> = View<T, 1, LayoutRight, CudaSpace>;

/// The default Cuda instance of the test runtime (panics without a GPU).
fn cuda() -> Cuda {
    common::runtime();
    Cuda::default_instance().expect("a CUDA GPU")
}
