//! The conformance tests: one binary, one module per behaviour.
//!
//! Generic bodies (`fn body<S: Launch>(exec: &S) -> Result<()>`) are written once and instantiated
//! for every execution space of the list in `spaces.rs` (`for_each_space!`) by `per_space!`
//! (`behaviour::body::serial`, `::threads`, `::cuda`; the last ignored without a GPU) and, for the
//! differential cases of the kernel language, by `differential!` (`differential::...::case::serial`,
//! ...). Views live in `S::MemorySpace` and are read back through `deep_copy` into host mirrors;
//! kernels are `kernel!`s. Results are compared with plain Rust: exactly for integers and exact float
//! operations, within 1e-12 relative (to the sum of the magnitudes of the terms) for f64 sums, whose
//! order differs between spaces.
//!
//! Next to them, plain `#[test]`s check what only the host has or does: host guards and borrow
//! errors, error messages and `Err` variants, host-only APIs (`get` / `set`, `with_slice`, raw
//! pointers, `Custom` reducers, closures as kernels), Threads' scheduling and partitions, the C++ that
//! `kernel!` generates and its compilation with NVRTC.

// The reference computations mirror the kernel bodies.
#![allow(clippy::manual_is_multiple_of)]

#[path = "../common/mod.rs"]
mod common;
#[macro_use]
mod spaces;

mod algorithms;
mod containers;
mod custom_reducers;
mod deep_copy;
mod differential;
mod fills;
mod graphs;
mod host_dispatch;
mod kernel_language;
mod kernel_launch;
mod large_copies;
mod md_range;
mod mirrors;
mod partitions;
mod prepare;
mod proven_bounds;
mod proven_device_calls;
mod range;
mod reduce_targets;
mod reducers;
mod resize;
mod scans;
mod shared_spaces;
mod subviews;
mod team;
mod team_kernels;
mod team_uniform;
mod unmanaged;
mod view_access;
mod views;
