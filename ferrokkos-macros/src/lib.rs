//! Procedural macros of [ferrokkos](https://example.invalid/ferrokkos).
//!
//! This crate will hold the `kernel!` macro (single-source kernels for host and CUDA spaces) and the
//! `#[device]` attribute. Until then it is intentionally empty: the foundation of ferrokkos runs plain
//! Rust closures on the host spaces and needs no macro.
