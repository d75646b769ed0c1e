//! Kokkos' containers (`Kokkos_ScatterView.hpp`, `Kokkos_DualView.hpp`, ...): data structures built
//! on Views, one file per container, re-exported at the crate root.
