//! Hierarchical parallelism (Kokkos' `TeamPolicy`): the team member a kernel gets, the nested
//! ranges and `single`, scratch memory, the team kernel traits and the policy's patterns.
//!
//! A backend runs a league of teams through `LaunchTeam` (`dispatch/launch.rs`); the host spaces'
//! driver is `backend/host/team.rs`.

mod functor;
pub(crate) mod kernel;
pub(crate) mod kernel_scratch;
mod member;
pub(crate) mod names;
mod nested;
mod patterns;
mod scratch;

pub use functor::{TeamForFunctor, TeamForKernel, TeamReduceFunctor, TeamReduceKernel};
pub use member::TeamMember;
pub use nested::{
    SingleScope, TeamThreadMDRange, TeamThreadRange, TeamVectorRange, ThreadVectorRange, single,
};
pub use scratch::{ScratchArena, ScratchView};
