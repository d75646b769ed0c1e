//! [`BinOp1D`] and [`BinOp3D`]: Kokkos' bin operations of `BinSort`, which map a key (a row of
//! three coordinates for 3D) to a bin. [`BinKey`] holds the kernels that compute the bins of a
//! range of keys, one per key type; a key outside the bins' range gets [`NO_BIN`].

use std::ops::Range;

use super::api::sort_by_key;
use super::key::SortKey;
use crate::dispatch::{Launch, parallel_for};
use crate::error::{Error, Result};
use crate::kernel::value::DeviceValue;
use crate::layout::{Layout, LayoutRight};
use crate::policy::RangePolicy;
use crate::seal::Sealed;
use crate::space::MemorySpace;
use crate::view::{View, view_alloc};

/// The bin of a key outside the bins' range (or NaN).
pub(crate) const NO_BIN: u32 = u32::MAX;

/// Kokkos' `BinOp1D`: `max_bins + 1` bins of equal width over `[min, max]`; key `k` falls in bin
/// `trunc(max_bins * (k - min) / (max - min))`, so `max` has the last bin to itself. For integer
/// keys whose range is at most `max_bins` wide every value has its own bin (`k - min`), as in
/// Kokkos. A key of bin index below 0 or past the last is an error of `BinSort`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BinOp1D {
    bins: usize,
    mul: f64,
    min: f64,
}

impl BinOp1D {
    /// The bins of keys in `[min, max]` (Kokkos' `BinOp1D(max_bins, min, max)`).
    /// `Err(InvalidArgument)` when `max` is below `min`, for float keys when they are equal, or
    /// when the bins do not fit a `u32`.
    pub fn new<K: BinKey>(max_bins: usize, min: K, max: K) -> Result<BinOp1D> {
        let (lo, hi) = (min.to_f64(), max.to_f64());
        let wide = hi - lo;
        let empty = wide.is_nan() || wide < 0.0 || (wide == 0.0 && !K::INTEGER);
        if empty {
            return Err(invalid(format!(
                "the key range {min:?}..={max:?} of BinOp1D is empty"
            )));
        }
        let bins = bins_fit(max_bins.checked_add(1))?;
        let mul = if K::INTEGER && wide <= max_bins as f64 {
            1.0
        } else {
            max_bins as f64 / wide
        };
        Ok(BinOp1D { bins, mul, min: lo })
    }

    /// The number of bins (`max_bins + 1`).
    pub fn max_bins(&self) -> usize {
        self.bins
    }
}

/// Kokkos' `BinOp3D`: `max_bins[0] * max_bins[1] * max_bins[2]` bins over the box `[min, max]` of
/// 3-D points (keys are the rows of an `n x 3` View); the bin of point `(x, y, z)` is
/// `(bx * max_bins[1] + by) * max_bins[2] + bz` with `bx = trunc(max_bins[0] * (x - min[0]) /
/// (max[0] - min[0]))`. A coordinate equal to its `max` falls in the last bin of its dimension
/// (Kokkos would compute a bin past it); one outside the box is an error of `BinSort`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BinOp3D {
    bins: [usize; 3],
    mul: [f64; 3],
    min: [f64; 3],
}

impl BinOp3D {
    /// The bins of points in the box `[min, max]` (Kokkos' `BinOp3D(max_bins, min, max)`).
    /// `Err(InvalidArgument)` for a dimension with no bins, an empty range, or more bins than a
    /// `u32` counts.
    pub fn new<K: BinKey>(max_bins: [usize; 3], min: [K; 3], max: [K; 3]) -> Result<BinOp3D> {
        let mut mul = [0.0; 3];
        for d in 0..3 {
            let wide = max[d].to_f64() - min[d].to_f64();
            if max_bins[d] == 0 || wide.is_nan() || wide <= 0.0 {
                return Err(invalid(format!(
                    "dimension {d} of BinOp3D: {} bins over {:?}..={:?}",
                    max_bins[d], min[d], max[d]
                )));
            }
            mul[d] = max_bins[d] as f64 / wide;
        }
        let total = max_bins[0]
            .checked_mul(max_bins[1])
            .and_then(|b| b.checked_mul(max_bins[2]));
        bins_fit(total)?;
        Ok(BinOp3D {
            bins: max_bins,
            mul,
            min: [min[0].to_f64(), min[1].to_f64(), min[2].to_f64()],
        })
    }

    /// The number of bins.
    pub fn max_bins(&self) -> usize {
        self.bins.iter().product()
    }
}

fn invalid(reason: String) -> Error {
    Error::InvalidArgument {
        operation: "BinSort",
        reason,
    }
}

/// `bins`, if it is below [`NO_BIN`].
fn bins_fit(bins: Option<usize>) -> Result<usize> {
    match bins {
        Some(b) if b < NO_BIN as usize => Ok(b),
        _ => Err(invalid(format!("more than {} bins", NO_BIN - 1))),
    }
}

/// A bin operation over keys of type `K` in Views of rank `R`: [`BinOp1D`] (rank 1) and
/// [`BinOp3D`] (rank 2, three columns). Sealed.
pub trait BinOp<K: BinKey, const R: usize>: Sealed + Copy + std::fmt::Debug {
    /// The number of bins.
    fn bin_count(&self) -> usize;

    /// Writes the bin of key `range.start + i` into `out[i]` ([`NO_BIN`] outside the bins), on
    /// `exec`.
    #[doc(hidden)]
    fn bins_of<L: Layout, M: MemorySpace, S: Launch>(
        &self,
        exec: &S,
        keys: &View<K, R, L, M>,
        range: Range<usize>,
        out: &View<u32, 1, LayoutRight, M>,
    ) -> Result<()>;

    /// Sorts the keys `keys[range]` with the permutation `perm` (which holds their indices) and
    /// writes the bins of the sorted keys into `out` (`sort_within_bins`).
    #[doc(hidden)]
    fn sort_within<L: Layout, M: MemorySpace, S: Launch>(
        &self,
        exec: &S,
        keys: &View<K, R, L, M>,
        range: Range<usize>,
        perm: &View<usize, 1, LayoutRight, M>,
        out: &View<u32, 1, LayoutRight, M>,
    ) -> Result<()>;
}

impl Sealed for BinOp1D {}
impl Sealed for BinOp3D {}

impl<K: BinKey> BinOp<K, 1> for BinOp1D {
    fn bin_count(&self) -> usize {
        self.bins
    }

    fn bins_of<L: Layout, M: MemorySpace, S: Launch>(
        &self,
        exec: &S,
        keys: &View<K, 1, L, M>,
        range: Range<usize>,
        out: &View<u32, 1, LayoutRight, M>,
    ) -> Result<()> {
        K::bins_1d(exec, keys, range.start, self, out)
    }

    fn sort_within<L: Layout, M: MemorySpace, S: Launch>(
        &self,
        exec: &S,
        keys: &View<K, 1, L, M>,
        range: Range<usize>,
        perm: &View<usize, 1, LayoutRight, M>,
        out: &View<u32, 1, LayoutRight, M>,
    ) -> Result<()> {
        // The bin of a BinOp1D grows with its key: the sorted keys' bins are in order.
        let sorted = View::<K, 1, LayoutRight, M>::new(
            view_alloc("Kokkos::BinSort::sorted_keys").without_initializing(),
            [range.len()],
        )?;
        let first = range.start;
        parallel_for(
            "Kokkos::BinSort::copy_keys",
            RangePolicy::new(exec, 0, range.len())?,
            crate::kernel!(|i| sorted[i] = keys[first + i]),
        )?;
        sort_by_key(exec, &sorted, perm)?;
        K::bins_1d(exec, &sorted, 0, self, out)
    }
}

impl<K: BinKey> BinOp<K, 2> for BinOp3D {
    fn bin_count(&self) -> usize {
        self.max_bins()
    }

    fn bins_of<L: Layout, M: MemorySpace, S: Launch>(
        &self,
        exec: &S,
        keys: &View<K, 2, L, M>,
        range: Range<usize>,
        out: &View<u32, 1, LayoutRight, M>,
    ) -> Result<()> {
        if keys.extent(1) != 3 {
            return Err(invalid(format!(
                "BinOp3D bins the rows of an n x 3 View; View \"{}\" has {} columns",
                keys.label(),
                keys.extent(1)
            )));
        }
        K::bins_3d(exec, keys, range.start, self, out)
    }

    fn sort_within<L: Layout, M: MemorySpace, S: Launch>(
        &self,
        _: &S,
        keys: &View<K, 2, L, M>,
        _: Range<usize>,
        _: &View<usize, 1, LayoutRight, M>,
        _: &View<u32, 1, LayoutRight, M>,
    ) -> Result<()> {
        Err(Error::Unsupported {
            what: format!("BinSort of View \"{}\"", keys.label()),
            reason: "sort_within_bins is supported with BinOp1D only".into(),
        })
    }
}

/// A key that `BinSort` bins: `u32`, `u64`, `usize`, `i32`, `i64`, `isize`, `f32`, `f64`
/// (sealed), with the kernels that compute bins.
pub trait BinKey: SortKey + DeviceValue {
    /// Whether the type is an integer (Kokkos' one-value-per-bin case of `BinOp1D`).
    #[doc(hidden)]
    const INTEGER: bool;
    /// The key as a double (Kokkos' `static_cast<double>`).
    #[doc(hidden)]
    fn to_f64(self) -> f64;
    /// The bins of `out.extent(0)` keys from `first` on, under `op`.
    #[doc(hidden)]
    fn bins_1d<L: Layout, M: MemorySpace, S: Launch>(
        exec: &S,
        keys: &View<Self, 1, L, M>,
        first: usize,
        op: &BinOp1D,
        out: &View<u32, 1, LayoutRight, M>,
    ) -> Result<()>;
    /// The bins of `out.extent(0)` rows of 3-D points from `first` on, under `op`.
    #[doc(hidden)]
    fn bins_3d<L: Layout, M: MemorySpace, S: Launch>(
        exec: &S,
        keys: &View<Self, 2, L, M>,
        first: usize,
        op: &BinOp3D,
        out: &View<u32, 1, LayoutRight, M>,
    ) -> Result<()>;
}

macro_rules! bin_keys {
    ($($t:ty => $integer:expr),* $(,)?) => {$(
        impl BinKey for $t {
            const INTEGER: bool = $integer;
            fn to_f64(self) -> f64 {
                self as f64
            }
            fn bins_1d<L: Layout, M: MemorySpace, S: Launch>(
                exec: &S,
                keys: &View<$t, 1, L, M>,
                first: usize,
                op: &BinOp1D,
                out: &View<u32, 1, LayoutRight, M>,
            ) -> Result<()> {
                let (mul, min, top, none) = (op.mul, op.min, op.bins as f64, NO_BIN);
                parallel_for(
                    "Kokkos::BinSort::bins",
                    RangePolicy::new(exec, 0, out.extent(0))?,
                    crate::kernel!(|i| {
                        let b = mul * (keys[first + i] as f64 - min);
                        out[i] = if b > -1.0 && b < top { b as u32 } else { none };
                    }),
                )
            }
            fn bins_3d<L: Layout, M: MemorySpace, S: Launch>(
                exec: &S,
                keys: &View<$t, 2, L, M>,
                first: usize,
                op: &BinOp3D,
                out: &View<u32, 1, LayoutRight, M>,
            ) -> Result<()> {
                let ([m0, m1, m2], [l0, l1, l2]) = (op.mul, op.min);
                let (c0, c1, c2) = (op.bins[0] as u32, op.bins[1] as u32, op.bins[2] as u32);
                let (t0, t1, t2) = (c0 as f64, c1 as f64, c2 as f64);
                let none = NO_BIN;
                parallel_for(
                    "Kokkos::BinSort::bins",
                    RangePolicy::new(exec, 0, out.extent(0))?,
                    crate::kernel!(|i| {
                        let x = m0 * (keys[(first + i, 0)] as f64 - l0);
                        let y = m1 * (keys[(first + i, 1)] as f64 - l1);
                        let z = m2 * (keys[(first + i, 2)] as f64 - l2);
                        let inside = x > -1.0 && x <= t0 && y > -1.0 && y <= t1 && z > -1.0
                            && z <= t2;
                        // A coordinate at its max (x == t0) goes to its last bin.
                        let bx = if x < t0 { x as u32 } else { c0 - 1 };
                        let by = if y < t1 { y as u32 } else { c1 - 1 };
                        let bz = if z < t2 { z as u32 } else { c2 - 1 };
                        out[i] = if inside { (bx * c1 + by) * c2 + bz } else { none };
                    }),
                )
            }
        }
    )*};
}

bin_keys!(
    u32 => true, u64 => true, usize => true, i32 => true, i64 => true, isize => true,
    f32 => false, f64 => false,
);
