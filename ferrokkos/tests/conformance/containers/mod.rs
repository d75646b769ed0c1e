//! Kokkos' containers on every space, against plain Rust.

mod scatter_view;
