//! [`OffsetView`]: Kokkos' `Experimental::OffsetView`, a View whose index ranges start anywhere.

use std::ops::{Range, RangeInclusive};

use crate::error::{Error, Result};
use crate::layout::{Layout, LayoutRight, RegularLayout};
use crate::space::MemorySpace;
use crate::space::host_space::HostSpace;
use crate::view::{Element, View, create_mirror_view_in, deep_copy};

mod sealed {
    /// The seal of [`super::IndexRange`].
    #[diagnostic::on_unimplemented(
        message = "`IndexRange` is sealed: an OffsetView's dimension is a `Range<i64>` or a \
                   `RangeInclusive<i64>`",
        label = "`{Self}` cannot be an OffsetView's index range",
        note = "launches prove indices against the begins and extents these ranges give; write \
                `b..e` or `b..=e`"
    )]
    pub trait Sealed {}
}

/// One dimension's index range of an [`OffsetView`]: `a..b` (half-open, as Rust's ranges) or
/// `a..=b` (inclusive, as Kokkos' `{a, b}` pairs), of `i64` (sealed).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an OffsetView's index range",
    label = "not an index range",
    note = "each dimension of an OffsetView takes `begin..end` or `first..=last` of `i64` \
            (`OffsetView::new(\"u\", [-1..=10, 0..=5])`)"
)]
pub trait IndexRange: sealed::Sealed {
    /// `(begin, extent)`, or `None` when the range is reversed or its end passes `i64::MAX`.
    fn begin_extent(&self) -> Option<(i64, usize)>;
}

impl sealed::Sealed for Range<i64> {}
impl IndexRange for Range<i64> {
    fn begin_extent(&self) -> Option<(i64, usize)> {
        let extent = u64::try_from(i128::from(self.end) - i128::from(self.start)).ok()?;
        Some((self.start, usize::try_from(extent).ok()?))
    }
}

impl sealed::Sealed for RangeInclusive<i64> {}
impl IndexRange for RangeInclusive<i64> {
    fn begin_extent(&self) -> Option<(i64, usize)> {
        let (first, last) = (*self.start(), *self.end());
        // `first..=last` is `first..last + 1`, whose end must itself be an i64.
        (first..last.checked_add(1)?).begin_extent()
    }
}

/// A View whose indices of dimension `r` run over `begin(r)..end(r)` instead of `0..extent(r)`:
/// Kokkos' `OffsetView`, for code ported from Fortran (`real :: u(-1:n+1, 0:m)`) and for halos
/// indexed from `-1`. It shares everything else with its [`View`] (layout `L`, memory space `M`,
/// borrows, pending work, `deep_copy`); [`view`](OffsetView::view) is that View, indexed from 0.
///
/// In a kernel it is indexed with its own indices, of any integer type (signed ones reach the
/// negative indices); `o.extent(r)`, `o.begin(r)` and `o.end(r)` give its shape. A kernel
/// writes it under the same race rules as a View (at the iteration index, one to one), and a launch
/// proves its affine accesses in range as it proves a View's, from `max(begin, 0)` up: indices
/// below 0 keep their check. An index outside the ranges panics on the host, naming the
/// OffsetView and its ranges ([`Error::OffsetOutOfBounds`]); on the GPU it reaches no memory and is
/// reported at the next wait ([`Error::DeviceOutOfBounds`], with the zero-based position).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::OffsetView;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// // u(-1:8) with a halo cell on each side of 0..=7, as a Fortran code declares it.
/// let u = OffsetView::<f64, 1>::new("u", [-1..=8])?;
/// let f = OffsetView::<f64, 1>::new("f", [0..=7])?;
/// assert_eq!((u.begin(0), u.end(0), u.extent(0)), (-1, 9, 10));
/// parallel_for("init", RangePolicy::new(&exec, -1i64, 9)?,
///     kernel!(|i: i64| u[i] = (i * i) as f64))?;
/// parallel_for("laplace", RangePolicy::new(&exec, 0i64, 8)?,
///     kernel!(|i: i64| f[i] = u[i - 1] - 2.0 * u[i] + u[i + 1]))?;
/// assert_eq!(f.get([3])?, 2.0);
/// assert_eq!(u.get([-1])?, 1.0);
/// assert!(u.get([9]).is_err());
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct OffsetView<
    T: Element,
    const R: usize,
    L: Layout = LayoutRight,
    M: MemorySpace = HostSpace,
> {
    view: View<T, R, L, M>,
    /// The first index of each dimension; `begins[r] + extent(r)` fits `i64`.
    begins: [i64; R],
}

impl<T: Element, const R: usize, L: Layout, M: MemorySpace> Clone for OffsetView<T, R, L, M> {
    /// Another handle of the same elements.
    fn clone(&self) -> Self {
        OffsetView {
            view: self.view.clone(),
            begins: self.begins,
        }
    }
}

impl<T: Element, const R: usize, L: Layout, M: MemorySpace> std::fmt::Debug
    for OffsetView<T, R, L, M>
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("OffsetView")
            .field("label", &self.label())
            .field(
                "ranges",
                &format_args!("{}", crate::error::index_ranges(&self.begins, &self.ends())),
            )
            .field("layout", &L::NAME)
            .field("space", &M::NAME)
            .finish()
    }
}

impl<T: Element, const R: usize, L: RegularLayout, M: MemorySpace> OffsetView<T, R, L, M> {
    /// An OffsetView `label` over `ranges`, one per dimension (`[-1..=10, 0..=5]`: Kokkos'
    /// `{-1, 10}, {0, 5}`; or half-open, `[-1..11, 0..6]`), zeroed.
    /// `Err(Error::InvalidArgument)` naming the label for a reversed range, one whose end passes
    /// `i64::MAX`, or a rank of 0 (an OffsetView has at least one dimension, as in Kokkos); an
    /// allocation error as for a View.
    pub fn new(label: &str, ranges: [impl IndexRange; R]) -> Result<Self> {
        let mut begins = [0i64; R];
        let mut extents = [0usize; R];
        for (r, range) in ranges.iter().enumerate() {
            (begins[r], extents[r]) =
                range.begin_extent().ok_or_else(|| Error::InvalidArgument {
                    operation: "OffsetView",
                    reason: format!(
                        "\"{label}\": the index range of dimension {r} is reversed or ends past \
                     i64::MAX"
                    ),
                })?;
        }
        Self::check_rank(label)?;
        Ok(OffsetView {
            view: View::new(label, extents)?,
            begins,
        })
    }
}

impl<T: Element, const R: usize, L: Layout, M: MemorySpace> OffsetView<T, R, L, M> {
    /// `Err` for rank 0.
    fn check_rank(label: &str) -> Result<()> {
        if R == 0 {
            return Err(Error::InvalidArgument {
                operation: "OffsetView",
                reason: format!("\"{label}\": an OffsetView has at least one dimension"),
            });
        }
        Ok(())
    }

    /// An OffsetView of the elements of `view` (sharing them), whose indices of dimension `r`
    /// start at `begins[r]` (Kokkos' `OffsetView(view, begins)`). `Err(Error::InvalidArgument)`
    /// naming the View when a range would end past `i64::MAX`, or for rank 0.
    pub fn from_view(view: &View<T, R, L, M>, begins: [i64; R]) -> Result<Self> {
        Self::check_rank(view.label())?;
        for (r, (&b, e)) in begins.iter().zip(view.extents()).enumerate() {
            if i64::try_from(e)
                .ok()
                .and_then(|e| b.checked_add(e))
                .is_none()
            {
                return Err(Error::InvalidArgument {
                    operation: "OffsetView::from_view",
                    reason: format!(
                        "View \"{}\": dimension {r} of extent {e} starting at {b} would end past \
                         i64::MAX",
                        view.label()
                    ),
                });
            }
        }
        Ok(OffsetView {
            view: view.clone(),
            begins,
        })
    }

    /// The first index of dimension `r` (Kokkos' `begin(r)`); panics if `r >= R`.
    pub fn begin(&self, r: usize) -> i64 {
        self.begins[r]
    }

    /// One past the last index of dimension `r` (Kokkos' `end(r)`); panics if `r >= R`.
    pub fn end(&self, r: usize) -> i64 {
        self.begins[r] + self.view.extent(r) as i64
    }

    /// The first index of every dimension (Kokkos' `begins()`).
    pub fn begins(&self) -> [i64; R] {
        self.begins
    }

    /// The begins as a slice (for a launch's access).
    pub(crate) fn begins_slice(&self) -> &[i64] {
        &self.begins
    }

    /// One past the last index of every dimension.
    pub fn ends(&self) -> [i64; R] {
        std::array::from_fn(|r| self.end(r))
    }

    /// The number of indices of dimension `r`; panics if `r >= R`.
    pub fn extent(&self, r: usize) -> usize {
        self.view.extent(r)
    }

    /// The extents.
    pub fn extents(&self) -> [usize; R] {
        self.view.extents()
    }

    /// The number of elements.
    pub fn size(&self) -> usize {
        self.view.size()
    }

    /// The label.
    pub fn label(&self) -> &str {
        self.view.label()
    }

    /// The elements as a View indexed from 0 (Kokkos' `view()`), sharing them.
    pub fn view(&self) -> &View<T, R, L, M> {
        &self.view
    }

    /// The zero-based position of `index`, or `Err(Error::OffsetOutOfBounds)` naming the
    /// OffsetView and its ranges.
    fn position(&self, index: [i64; R]) -> Result<[usize; R]> {
        let mut at = [0usize; R];
        for r in 0..R {
            let k = i128::from(index[r]) - i128::from(self.begins[r]);
            match usize::try_from(k) {
                Ok(k) if k < self.view.extent(r) => at[r] = k,
                _ => {
                    return Err(Error::OffsetOutOfBounds {
                        label: self.label().to_string(),
                        index: index.iter().map(|&i| i128::from(i)).collect(),
                        begins: self.begins.to_vec(),
                        ends: self.ends().to_vec(),
                    });
                }
            }
        }
        Ok(at)
    }

    /// An OffsetView of the same ranges in host-accessible memory: this one where `M` is
    /// (Kokkos' `create_mirror_view`), otherwise a new one (not copied: `deep_copy_from` fills it).
    pub fn create_mirror_view(&self) -> Result<OffsetView<T, R, L, M::HostMirror>> {
        Ok(OffsetView {
            view: create_mirror_view_in(M::HostMirror::default(), &self.view)?,
            begins: self.begins,
        })
    }

    /// Copies the elements of `src`, in any memory space, into this one (Kokkos' `deep_copy` of
    /// OffsetViews: element by element in order of position). `Err(Error::InvalidArgument)` naming
    /// both when their index ranges differ (the extents and the begins), so that no element lands
    /// at another index than it had.
    pub fn deep_copy_from<K: Layout, M2: MemorySpace>(
        &self,
        src: &OffsetView<T, R, K, M2>,
    ) -> Result<()> {
        if src.begins != self.begins || src.extents() != self.extents() {
            return Err(Error::InvalidArgument {
                operation: "OffsetView deep_copy",
                reason: format!(
                    "destination \"{}\" has index ranges {}, source \"{}\" has {}",
                    self.label(),
                    crate::error::index_ranges(&self.begins, &self.ends()),
                    src.label(),
                    crate::error::index_ranges(&src.begins, &src.ends())
                ),
            });
        }
        deep_copy(&self.view, &src.view)
    }
}

impl<T: Element, const R: usize, L: Layout, M: crate::space::HostAccessible>
    OffsetView<T, R, L, M>
{
    /// The element at `index`, in the OffsetView's own indices. `Err(Error::OffsetOutOfBounds)`
    /// naming it and its ranges outside them; a borrow error as for [`View::get`].
    pub fn get(&self, index: [i64; R]) -> Result<T> {
        let at = self.position(index)?;
        self.view.get(at)
    }

    /// Writes the element at `index`. Errors as for [`get`](OffsetView::get).
    pub fn set(&self, index: [i64; R], value: T) -> Result<()> {
        let at = self.position(index)?;
        self.view.set(at, value)
    }
}
