//! Execution policies: what iterations a kernel runs and where (Kokkos' `RangePolicy`,
//! `MDRangePolicy`).

mod index;
mod md_range;
mod range;

pub use index::IndexType;
pub(crate) use md_range::TileGrid;
pub use md_range::{IndexTuple, Iterate, MDRangePolicy};
pub use range::{RangePolicy, Schedule};
