//! Kokkos' containers (`Kokkos_ScatterView.hpp`, `Kokkos_DualView.hpp`, ...): data structures built
//! on Views, one file per container, re-exported at the crate root.

mod scatter_access;
mod scatter_op;
mod scatter_view;

pub use scatter_access::ScatterAccess;
pub use scatter_op::{ScatterMax, ScatterMin, ScatterOp, ScatterProd, ScatterSum, ScatterValue};
pub use scatter_view::ScatterCapture;
pub use scatter_view::{ScatterMode, ScatterView};
