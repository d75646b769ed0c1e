//! Kokkos' random numbers (`Kokkos_Random.hpp`): the generators [`XorShift64`] and
//! [`XorShift1024`], their pools ([`RandomPool`]: one state per concurrent thread, taken and given
//! back by kernels) and [`fill_random`].

mod access;
mod draw;
mod fill;
mod generator;
mod pool;
mod shadow;

pub use access::{PoolAccess, RandState, rand_free_state, rand_get_state};
pub use draw::RandomValue;
pub use fill::{FillRank, fill_random};
pub use generator::{Generator, XorShift64, XorShift1024};
pub use pool::{RandomPool, RandomXorShift64Pool, RandomXorShift1024Pool};
pub use shadow::{PoolShadow, StateShadow};
pub use shadow::{
    rand_free_state as rand_free_state_shadow, rand_get_state as rand_get_state_shadow,
};
