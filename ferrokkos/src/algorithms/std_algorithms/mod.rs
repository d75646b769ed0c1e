//! Kokkos' std algorithms (`Kokkos::Experimental::` in `algorithms/src/std_algorithms/`) over rank-1
//! Views of any layout, on an execution space instance: each is one or a few kernels on `exec`,
//! and returns when its result is known. Operations are device closures,
//! `kernel!(|x: f64| -> bool { x > t })`, called for each element in any order and from any
//! number of threads at once.
//!
//! Kokkos' overloads became names: a binary operation in place of `+` is a `_with` form
//! ([`reduce_with`], [`inclusive_scan_with`]), two input Views a `_binary` form
//! ([`transform_binary`]), a comparator or binary predicate a `_by` form ([`min_element_by`],
//! [`equal_by`]); positions are `Option<usize>` (Kokkos returns `last`
//! for "not found"). Segmented reductions and scans by key ([`reduce_by_key`]) go beyond Kokkos.
//! The guide's chapter `docs/guide/std-algorithms.md` lists Kokkos' name, ours and the Rust slice
//! method beside each.

use std::ops::{Add, AddAssign, Sub};

use crate::kernel::DeviceScalar;
use crate::kernel::capture::IntoCapture;
use crate::reducer::ReductionScalar;

mod by_key;
mod check;
mod compacting;
mod comparing;
mod copying;
mod filling;
mod folds;
mod matching;
mod partitioning;
mod reducing;
mod reordering;
mod scans;
mod searching;

pub use by_key::{
    exclusive_scan_by_key, inclusive_scan_by_key, inclusive_scan_by_key_with, reduce_by_key,
    reduce_by_key_with,
};
pub use compacting::{
    copy_if, remove, remove_copy, remove_copy_if, remove_if, unique, unique_copy,
};
pub use comparing::{
    adjacent_find_by, is_sorted_by, is_sorted_until_by, max_element_by, min_element_by,
    minmax_element_by,
};
pub use copying::{
    adjacent_difference, copy, copy_backward, copy_n, replace, replace_copy, replace_copy_if,
    replace_if, transform, transform_binary,
};
pub use filling::{fill, fill_n, for_each, for_each_n, generate, generate_n};
pub use folds::{exclusive_scan_with, inclusive_scan_with, reduce_with, transform_reduce_with};
pub use matching::{
    adjacent_find, find_end, find_first_of, lexicographical_compare, mismatch, search, search_n,
};
pub use partitioning::{is_partitioned, is_sorted_until, partition_copy, partition_point};
pub use reducing::{
    all_of, any_of, count, count_if, equal, equal_by, none_of, reduce, reduce_with_init,
    transform_reduce, transform_reduce_binary,
};
pub use reordering::{
    iter_swap, reverse, reverse_copy, rotate, rotate_copy, shift_left, shift_right, swap_ranges,
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
