//! Kokkos' algorithms on every space, against plain Rust and Kokkos' formulas.

mod random;
mod sort;
mod sort_with;
mod std_algorithms;
mod std_algorithms_more;
mod std_comparators;
