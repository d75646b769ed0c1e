//! Kokkos' containers (`Kokkos_ScatterView.hpp`, `Kokkos_DualView.hpp`, `Kokkos_UniqueToken.hpp`, `Kokkos_DynamicView.hpp`, `Kokkos_Bitset.hpp`, ...): data structures built
//! on Views, one file per container, re-exported at the crate root.

mod bitset;
mod bitset_access;
mod dual_view;
mod dynamic_view;
mod scatter_access;
mod scatter_op;
mod scatter_view;
mod token_access;
mod unique_token;

pub use bitset::Bitset;
pub use bitset_access::BitsetAccess;
pub use dual_view::DualView;
pub use dynamic_view::DynamicView;
pub use scatter_access::ScatterAccess;
pub use scatter_op::{ScatterMax, ScatterMin, ScatterOp, ScatterProd, ScatterSum, ScatterValue};
pub use scatter_view::{ScatterMode, ScatterView};
pub use token_access::{
    TokenAccess, TokenId, token_acquire, token_held, token_release, token_size, token_value,
};
pub use unique_token::{UniqueToken, UniqueTokenScope};
