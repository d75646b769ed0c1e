//! Kokkos' algorithms on every space, against plain Rust and Kokkos' formulas.

mod random;
mod sort;
mod std_algorithms;
mod std_algorithms_more;
