//! Kokkos' algorithms (`algorithms/src/`): random pools, re-exported at the crate root.

pub(crate) mod random;

pub use random::{
    FillRank, Generator, RandomPool, RandomValue, RandomXorShift64Pool, RandomXorShift1024Pool,
    XorShift64, XorShift1024, fill_random,
};
