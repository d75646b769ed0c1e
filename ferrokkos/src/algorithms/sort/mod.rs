//! Kokkos' sorts (`Kokkos_Sort.hpp`, `Kokkos_BinSort.hpp`): [`sort`], [`sort_by_key`] and
//! [`sort_by`] over rank-1 Views, and [`BinSort`]. `key.rs` says which keys order how; `api.rs`
//! picks the device's sort (through the `DeviceSort` seam) or the host's (`host.rs`, safe code on
//! the instance's threads); `bin_op.rs`, `bin_sort.rs` and `permute.rs` build `BinSort` from
//! kernels and `sort_by_key`.

mod api;
mod bin_op;
mod bin_sort;
mod host;
mod host_buckets;
mod key;
mod merge;
mod permute;

pub use api::{sort, sort_by, sort_by_key};
pub use bin_op::{BinKey, BinOp, BinOp1D, BinOp3D};
pub use bin_sort::BinSort;
pub use key::{RadixBits, SortKey};
pub use merge::{sort_by_key_with, sort_with};
pub use permute::Permute;
