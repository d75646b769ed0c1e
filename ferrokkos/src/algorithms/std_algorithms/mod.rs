//! Kokkos' std algorithms (`Kokkos::Experimental::` in `algorithms/src/std_algorithms/`) over rank-1
//! Views of any layout, on an execution space instance: each is one or a few kernels on `exec`,
//! and returns when its result is known. Operations are device closures,
//! `kernel!(|x: f64| -> bool { x > t })`, called for each element in any order and from any
//! number of threads at once.
//!
//! The families are in this module's files: folds ([`reducing`]), searches ([`searching`]),
//! element-wise changes ([`modifying`]), scans ([`scans`]), compactions ([`compacting`]) and the
//! segmented (by key) reductions and scans ([`by_key`]). The guide's chapter on them
//! (`docs/guide/std-algorithms.md`) lists Kokkos' name, ours and the Rust slice method beside each.

use std::ops::{Add, AddAssign, Sub};

use crate::kernel::DeviceScalar;
use crate::kernel::capture::IntoCapture;
use crate::reducer::ReductionScalar;

mod by_key;
mod check;
mod compacting;
mod modifying;
mod reducing;
mod scans;
mod searching;

pub use by_key::{exclusive_scan_by_key, inclusive_scan_by_key, reduce_by_key};
pub use compacting::{copy_if, remove_copy_if, unique_copy};
pub use modifying::{
    adjacent_difference, copy, fill, replace, replace_if, reverse, swap_ranges, transform,
    transform_binary,
};
pub use reducing::{
    all_of, any_of, count, count_if, equal, equal_by, none_of, reduce, reduce_with_init,
    transform_reduce, transform_reduce_binary,
};
pub use scans::{
    exclusive_scan, inclusive_scan, transform_exclusive_scan, transform_inclusive_scan,
};
pub use searching::{
    find, find_if, find_if_not, is_sorted, max_element, min_element, minmax_element,
};

/// The element types the std algorithms compare and add: the number types (`i8` ... `u64`,
/// `isize`, `usize`, `f32`, `f64`).
pub trait Number:
    DeviceScalar
    + ReductionScalar
    + IntoCapture<Value = Self>
    + PartialEq
    + Add<Output = Self>
    + AddAssign
    + Sub<Output = Self>
{
}

impl<T> Number for T where
    T: DeviceScalar
        + ReductionScalar
        + IntoCapture<Value = T>
        + PartialEq
        + Add<Output = T>
        + AddAssign
        + Sub<Output = T>
{
}
