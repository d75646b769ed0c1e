//! The ferrokkos device header: what every generated translation unit starts with.

/// The device header (`device.cuh`): Rust-named typedefs, the `fk::View` descriptor per layout, Rust
/// semantics for casts, shifts and math, atomics, reducers and block-level reduction and scan.
pub const DEVICE_HEADER: &str = include_str!("device.cuh");
