//! [`BinSort`]: Kokkos' `BinSort`, which sorts keys into bins ([`BinOp1D`], [`BinOp3D`]) and
//! applies the permutation to other Views (their rows, along the first dimension).
//!
//! The bins of the keys are computed by a kernel, checked (a key outside the bins is an error),
//! and sorted with their indices by the stable radix sort, so that within a bin the keys keep
//! their order (Kokkos leaves it to the order of atomic updates, which differs run to run); with
//! `sort_within_bins` (1D) the keys are sorted first, so that each bin holds them in order.

use std::ops::Range;

use super::api::sort_by_key;
use super::bin_op::{BinKey, BinOp, BinOp1D, NO_BIN};
use super::permute::Permute;
use crate::dispatch::{Launch, parallel_for, parallel_reduce, parallel_scan};
use crate::error::{Error, Result};
use crate::layout::{Layout, LayoutRight};
use crate::policy::RangePolicy;
use crate::reducer::Min;
use crate::space::MemorySpace;
use crate::view::{View, deep_copy_async, view_alloc};

/// Kokkos' `BinSort`: the permutation that sorts the keys `keys[range]` by bin, the count of keys
/// in each bin and each bin's offset in the sorted order; [`BinSort::sort`] applies the
/// permutation to the rows of other Views.
///
/// Keys are a rank-1 View for [`BinOp1D`], an `n x 3` View of points for [`super::BinOp3D`].
/// Within a bin, keys keep their order (by index); with `sort_within_bins` and [`BinOp1D`], they are
/// sorted (ascending). Every key must fall in a bin: one outside is `Err(InvalidArgument)` naming
/// its index.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::{BinOp1D, BinSort};
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let x = View::<f64, 1>::new("x", [4])?;
/// x.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[0.9, 0.1, 0.5, 0.15]);
/// let id = View::<u32, 1>::new("id", [4])?;
/// id.host_mut()?.as_mut_slice().unwrap().copy_from_slice(&[0, 1, 2, 3]);
/// // Kokkos::BinSort bs(exec, x, BinOp1D(4, 0.0, 1.0)); bs.create_permute_vector(exec);
/// let bs = BinSort::new(&exec, &x, BinOp1D::new(4, 0.0, 1.0)?, false)?;
/// bs.sort(&exec, &id)?;
/// assert_eq!(id.to_vec()?, [1, 3, 2, 0]);
/// assert_eq!(bs.bin_count().to_vec()?, [2, 0, 1, 1, 0]);
/// assert_eq!(bs.bin_offsets().to_vec()?, [0, 2, 2, 3, 4]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct BinSort<K: BinKey, const R: usize, L: Layout, M: MemorySpace, Op: BinOp<K, R>> {
    keys: View<K, R, L, M>,
    op: Op,
    range: Range<usize>,
    sort_within_bins: bool,
    bin_count: View<u32, 1, LayoutRight, M>,
    bin_offsets: View<usize, 1, LayoutRight, M>,
    permute: View<usize, 1, LayoutRight, M>,
}

impl<K, const R: usize, L, M, Op> BinSort<K, R, L, M, Op>
where
    K: BinKey,
    L: Layout,
    M: MemorySpace,
    Op: BinOp<K, R>,
{
    /// Bins all of `keys` with `op` on `exec` and makes the permutation (Kokkos' constructor
    /// followed by `create_permute_vector(exec)`).
    pub fn new<S: Launch>(
        exec: &S,
        keys: &View<K, R, L, M>,
        op: Op,
        sort_within_bins: bool,
    ) -> Result<Self> {
        Self::with_range(exec, keys, 0..keys.extent(0), op, sort_within_bins)
    }

    /// Bins the keys `keys[range]` (Kokkos' `range_begin`, `range_end`); the permutation then
    /// holds indices of `keys` in `range`. `Err(InvalidArgument)` for a range past the keys.
    pub fn with_range<S: Launch>(
        exec: &S,
        keys: &View<K, R, L, M>,
        range: Range<usize>,
        op: Op,
        sort_within_bins: bool,
    ) -> Result<Self> {
        if range.start > range.end || range.end > keys.extent(0) {
            return Err(Error::InvalidArgument {
                operation: "BinSort",
                reason: format!(
                    "the range {range:?} is not within View \"{}\" of {} keys",
                    keys.label(),
                    keys.extent(0)
                ),
            });
        }
        let n = range.len();
        let mut bs = BinSort {
            keys: keys.clone(),
            op,
            range,
            sort_within_bins,
            bin_count: View::new("Kokkos::BinSort::bin_count", [op.bin_count()])?,
            bin_offsets: View::new("Kokkos::BinSort::bin_offsets", [op.bin_count()])?,
            permute: View::new("Kokkos::BinSort::sort_order", [n])?,
        };
        bs.create_permute_vector(exec)?;
        Ok(bs)
    }

    /// Recomputes the bins, counts, offsets and permutation from the keys as they are now.
    pub fn create_permute_vector<S: Launch>(&mut self, exec: &S) -> Result<()> {
        let n = self.range.len();
        let first = self.range.start;
        let bins = View::<u32, 1, LayoutRight, M>::new(
            view_alloc("Kokkos::BinSort::bins").without_initializing(),
            [n],
        )?;
        let perm = &self.permute;
        parallel_for(
            "Kokkos::BinSort::iota",
            RangePolicy::new(exec, 0, n)?,
            crate::kernel!(|i| perm[i] = first + i),
        )?;
        if self.sort_within_bins {
            self.op
                .sort_within(exec, &self.keys, self.range.clone(), perm, &bins)?;
        } else {
            self.op
                .bins_of(exec, &self.keys, self.range.clone(), &bins)?;
        }
        self.check_bins(exec, &bins)?;
        if !self.sort_within_bins {
            sort_by_key(exec, &bins, perm)?;
        }
        self.count(exec, &bins)
    }

    /// An error naming the first key outside the bins, if there is one.
    fn check_bins<S: Launch>(&self, exec: &S, bins: &View<u32, 1, LayoutRight, M>) -> Result<()> {
        let n = bins.extent(0);
        let (perm, none) = (&self.permute, NO_BIN);
        let first_bad = parallel_reduce(
            "Kokkos::BinSort::check",
            RangePolicy::new(exec, 0, n)?,
            crate::kernel!(|i, bad: &mut usize| {
                if bins[i] == none && perm[i] < *bad {
                    *bad = perm[i];
                }
            }),
            Min::<usize>::new(),
        )?;
        if first_bad != usize::MAX {
            return Err(Error::InvalidArgument {
                operation: "BinSort",
                reason: format!(
                    "the key at index {first_bad} of View \"{}\" is outside the bins of {:?}",
                    self.keys.label(),
                    self.op
                ),
            });
        }
        Ok(())
    }

    /// Counts the keys of each bin (from the sorted bins) and scans the counts into offsets.
    fn count<S: Launch>(&self, exec: &S, bins: &View<u32, 1, LayoutRight, M>) -> Result<()> {
        deep_copy_async(exec, &self.bin_count, 0u32)?;
        let count = self.bin_count.atomic();
        parallel_for(
            "Kokkos::BinSort::bin_count",
            RangePolicy::new(exec, 0, bins.extent(0))?,
            crate::kernel!(|i| count[bins[i] as usize] += 1),
        )?;
        let (counts, offsets) = (&self.bin_count, &self.bin_offsets);
        parallel_scan(
            "Kokkos::BinSort::bin_offsets",
            RangePolicy::new(exec, 0, counts.extent(0))?,
            crate::kernel!(|b, partial: &mut usize, is_final: bool| {
                if is_final {
                    offsets[b] = *partial;
                }
                *partial += counts[b] as usize;
            }),
        )?;
        Ok(())
    }

    /// Reorders the rows of `values` (along the first dimension) at the keys' positions
    /// (`values[range]`, the range the keys were binned over) into the bins' order (Kokkos'
    /// `sort(exec, values)`). Ranks 1 to 3; `Err(InvalidArgument)` when `values` has fewer rows
    /// than the range needs.
    pub fn sort<T, const V: usize, LV, S>(&self, exec: &S, values: &View<T, V, LV, M>) -> Result<()>
    where
        View<T, V, LV, M>: Permute<M>,
        T: crate::view::Element,
        LV: Layout,
        S: Launch,
    {
        self.sort_range(exec, values, self.range.start..self.range.end)
    }

    /// Writes the rows of `values` in the bins' order into `values[range]` (Kokkos' `sort(exec,
    /// values, values_range_begin, values_range_end)`): row `range.start + i` of the result is the
    /// row of `values` at the position of the `i`-th key in bin order, shifted by `range.start -
    /// key_range.start`. `range` has as many rows as the keys' range.
    pub fn sort_range<T, const V: usize, LV, S>(
        &self,
        exec: &S,
        values: &View<T, V, LV, M>,
        range: Range<usize>,
    ) -> Result<()>
    where
        View<T, V, LV, M>: Permute<M>,
        T: crate::view::Element,
        LV: Layout,
        S: Launch,
    {
        if range.len() != self.range.len()
            || range.start > range.end
            || range.end > values.extent(0)
        {
            return Err(Error::InvalidArgument {
                operation: "BinSort::sort",
                reason: format!(
                    "View \"{}\" of {} rows cannot take the {} binned rows at {range:?}",
                    values.label(),
                    values.extent(0),
                    self.range.len()
                ),
            });
        }
        values.permute_in_place(exec, &self.permute, range.start, self.range.start)
    }

    /// The permutation: position `i` of the bin order holds the key at index `permute[i]` of the
    /// keys View (Kokkos' `get_permute_vector`).
    pub fn permute_vector(&self) -> &View<usize, 1, LayoutRight, M> {
        &self.permute
    }

    /// The number of keys in each bin (Kokkos' `get_bin_count`).
    pub fn bin_count(&self) -> &View<u32, 1, LayoutRight, M> {
        &self.bin_count
    }

    /// Where each bin starts in the bin order (Kokkos' `get_bin_offsets`).
    pub fn bin_offsets(&self) -> &View<usize, 1, LayoutRight, M> {
        &self.bin_offsets
    }

    /// Whether the keys are sorted within their bins (Kokkos' `get_sort_within_bins`).
    pub fn sort_within_bins(&self) -> bool {
        self.sort_within_bins
    }
}

impl<K, L, M> BinSort<K, 1, L, M, BinOp1D>
where
    K: BinKey,
    L: Layout,
    M: MemorySpace,
{
    /// The bin operation.
    pub fn bin_op(&self) -> BinOp1D {
        self.op
    }
}
