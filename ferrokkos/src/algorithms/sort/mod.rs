//! Kokkos' sorts (`Kokkos_Sort.hpp`): [`sort`], [`sort_by_key`] and [`sort_by`] over rank-1
//! Views. `key.rs` says which keys order how; `sort.rs` picks the device's sort (through the
//! `DeviceSort` seam) or the host's (`host.rs`, safe code on the instance's threads).

mod host;
mod key;
mod sort;

pub use key::{RadixBits, SortKey};
pub use sort::{sort, sort_by, sort_by_key};
