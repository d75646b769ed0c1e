//! Kokkos' algorithms (`algorithms/src/`): random pools and sorts, re-exported at the crate root.

pub(crate) mod random;
pub(crate) mod sort;
pub mod std_algorithms;

pub use random::{
    FillRank, Generator, RandomPool, RandomValue, RandomXorShift64Pool, RandomXorShift1024Pool,
    XorShift64, XorShift1024, fill_random,
};
pub use sort::{
    BinKey, BinOp, BinOp1D, BinOp3D, BinSort, Permute, RadixBits, SortKey, sort, sort_by,
    sort_by_key, sort_by_key_with, sort_with,
};
