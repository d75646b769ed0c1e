//! Kokkos' containers (`Kokkos_ScatterView.hpp`, `Kokkos_DualView.hpp`, `Kokkos_UniqueToken.hpp`, `Kokkos_DynamicView.hpp`, `Kokkos_DynRankView.hpp`, `Kokkos_OffsetView.hpp`, `Kokkos_Bitset.hpp`, `Kokkos_UnorderedMap.hpp`, ...): data structures built
//! on Views, one file per container, re-exported at the crate root.

mod bitset;
mod bitset_access;
mod dual_view;
mod dyn_rank_view;
mod dynamic_view;
mod map_access;
mod map_shadow;
mod map_types;
mod offset_capture;
mod offset_view;
mod scatter_access;
mod scatter_op;
mod scatter_view;
mod token_access;
mod unique_token;
mod unordered_map;

pub use bitset::Bitset;
pub use bitset_access::BitsetAccess;
pub use dual_view::DualView;
pub use dyn_rank_view::DynRankView;
pub use dynamic_view::DynamicView;
pub use map_access::MapAccess;
pub use map_types::{InsertResult, MapKey, MapValue};
pub use offset_view::{IndexRange, OffsetView};
pub use scatter_access::ScatterAccess;
pub use scatter_op::{ScatterMax, ScatterMin, ScatterOp, ScatterProd, ScatterSum, ScatterValue};
pub use scatter_view::{ScatterMode, ScatterView};
pub use token_access::{
    TokenAccess, TokenId, token_acquire, token_held, token_release, token_size, token_value,
};
pub use unique_token::{UniqueToken, UniqueTokenScope};
pub use unordered_map::UnorderedMap;
