//! The kernel language of `kernel!`: every supported construct runs on the host with Rust's
//! results, the C++ it generates is what it should be (snapshots of representative kernels,
//! fragments elsewhere), and that C++ compiles with NVRTC (sm_80 and sm_90; skipped without NVRTC
//! unless `FERROKKOS_REQUIRE_NVRTC=1`). The same constructs run on every space, against plain Rust,
//! in `differential/`.

mod arrays;
mod atomic_forms;
mod atomic_views;
mod atomics;
mod builtin_named_methods;
mod captures;
pub(crate) mod casts;
mod closures;
mod complex;
pub(crate) mod control_flow;
mod device_reducers;
mod disjoint;
pub(crate) mod features;
mod functors;
mod generic_values;
mod local_arrays;
mod matching;
pub(crate) mod methods;
pub(crate) mod operators;
mod output;
mod rank0_views;
mod recursion;
pub(crate) mod representative;
mod subview_ranges;
mod subviews;
mod user_types;
