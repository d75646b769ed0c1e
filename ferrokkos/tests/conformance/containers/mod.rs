//! Kokkos' containers on every space, against plain Rust.

mod bitset;
mod dual_view;
mod dyn_rank_view;
mod dynamic_view;
mod offset_view;
mod scatter_view;
mod unique_token;
mod unordered_map;
