//! Execution policies: what iterations a kernel runs and where (Kokkos' `RangePolicy`,
//! `MDRangePolicy`, `TeamPolicy`).

mod index;
mod md_range;
mod range;
mod team;

pub use index::IndexType;
pub(crate) use md_range::TileGrid;
pub use md_range::{IndexTuple, Iterate, MDRangePolicy};
pub use range::{RangePolicy, Schedule};
pub use team::{
    AUTO, Auto, MAX_VECTOR_LENGTH, PerTeam, PerThread, ScratchRequest, TeamPolicy, TeamSize,
};
