//! [`DynRankView`]: Kokkos' `DynRankView`, a View whose rank (0 to 7) is chosen at run time.

use std::marker::PhantomData;

use crate::error::{Error, Result};
use crate::layout::{LayoutRight, RegularLayout};
use crate::space::MemorySpace;
use crate::space::host_space::HostSpace;
use crate::view::{Element, View, create_mirror_view_in, deep_copy, realloc, resize};

/// The most dimensions a DynRankView has (Kokkos' `DynRankView` limit).
const DYN_RANK_MAX: usize = 7;

/// A View whose rank, 0 to 7, is chosen at run time, in layout `L` and memory space `M`: Kokkos'
/// `DynRankView`, for code that reads the shape of its data from input (Trilinos' field
/// containers, file readers).
///
/// Kernels take its elements through a View of the rank the code expects: `d.view::<2>()?` shares
/// the allocation, and is `Err(Error::InvalidArgument)` naming both ranks when the rank differs, so
/// a kernel indexes a DynRankView with exactly as many indices as it has (Kokkos pads missing
/// indices with zeros instead). [`extent`](DynRankView::extent) past the rank is 1, as in Kokkos.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::DynRankView;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let shape = vec![3, 4]; // read from a file, say
/// let d = DynRankView::<f64>::new("field", &shape)?;
/// assert_eq!((d.rank(), d.extent(1), d.extent(5), d.size()), (2, 4, 1, 12));
/// let a = d.view::<2>()?;
/// parallel_for("fill", MDRangePolicy::new(&exec, [0, 0], [3, 4])?,
///     kernel!(|(i, j)| a[(i, j)] = (10 * i + j) as f64))?;
/// assert_eq!(d.get(&[2, 3])?, 23.0);
/// assert!(d.view::<3>().is_err());
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct DynRankView<T: Element, L: RegularLayout = LayoutRight, M: MemorySpace = HostSpace> {
    /// The elements, `size()` of them in `L`'s order for `extents`.
    flat: View<T, 1, LayoutRight, M>,
    extents: Vec<usize>,
    _layout: PhantomData<L>,
}

impl<T: Element, L: RegularLayout, M: MemorySpace> Clone for DynRankView<T, L, M> {
    /// Another handle of the same elements.
    fn clone(&self) -> Self {
        DynRankView {
            flat: self.flat.clone(),
            extents: self.extents.clone(),
            _layout: PhantomData,
        }
    }
}

impl<T: Element, L: RegularLayout, M: MemorySpace> std::fmt::Debug for DynRankView<T, L, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynRankView")
            .field("label", &self.label())
            .field("extents", &self.extents)
            .field("layout", &L::NAME)
            .field("space", &M::NAME)
            .finish()
    }
}

impl<T: Element, L: RegularLayout, M: MemorySpace> DynRankView<T, L, M> {
    /// A DynRankView `label` of `extents` (its rank is their number, at most 7), zeroed.
    /// `Err(Error::InvalidArgument)` for more than 7 extents; an allocation error as for a View.
    pub fn new(label: &str, extents: &[usize]) -> Result<Self> {
        if extents.len() > DYN_RANK_MAX {
            return Err(Error::InvalidArgument {
                operation: "DynRankView",
                reason: format!(
                    "\"{label}\": {} extents {extents:?}; a DynRankView has at most 7",
                    extents.len()
                ),
            });
        }
        let size = extents
            .iter()
            .try_fold(1usize, |a, &e| a.checked_mul(e))
            .ok_or_else(|| Error::InvalidArgument {
                operation: "DynRankView",
                reason: format!("\"{label}\": extents {extents:?} overflow usize"),
            })?;
        Ok(DynRankView {
            flat: View::new(label, [size])?,
            extents: extents.to_vec(),
            _layout: PhantomData,
        })
    }

    /// A DynRankView of the elements of `view` (sharing them), which must be contiguous in its
    /// layout (a View it made, not a strided subview): `Err(Error::InvalidArgument)` otherwise.
    pub fn from_view<const R: usize>(view: &View<T, R, L, M>) -> Result<Self> {
        let extents = view.extents();
        if R > DYN_RANK_MAX || L::strides_for(&extents) != Some(view.strides()) {
            return Err(Error::InvalidArgument {
                operation: "DynRankView::from_view",
                reason: format!(
                    "View \"{}\" of rank {R}, extents {extents:?} and strides {:?}: a DynRankView \
                     takes a contiguous View of rank at most 7",
                    view.label(),
                    view.strides()
                ),
            });
        }
        Ok(DynRankView {
            flat: View::from_parts(view.allocation().clone(), view.ptr(), [view.size()], [1]),
            extents: extents.to_vec(),
            _layout: PhantomData,
        })
    }

    /// The rank (Kokkos' `rank()`).
    pub fn rank(&self) -> usize {
        self.extents.len()
    }

    /// Extent `r`: 1 past the rank (Kokkos' `extent(r)`).
    pub fn extent(&self, r: usize) -> usize {
        self.extents.get(r).copied().unwrap_or(1)
    }

    /// The extents, `rank()` of them.
    pub fn extents(&self) -> &[usize] {
        &self.extents
    }

    /// The number of elements (Kokkos' `size()`).
    pub fn size(&self) -> usize {
        self.flat.extent(0)
    }

    /// The label.
    pub fn label(&self) -> &str {
        self.flat.label()
    }

    /// The elements as a View of rank `R`, sharing them (for kernels, copies and host access).
    /// `Err(Error::InvalidArgument)` naming both ranks when `R` is not [`rank`](DynRankView::rank).
    pub fn view<const R: usize>(&self) -> Result<View<T, R, L, M>> {
        let extents: [usize; R] =
            self.extents
                .as_slice()
                .try_into()
                .map_err(|_| Error::InvalidArgument {
                    operation: "DynRankView::view",
                    reason: format!(
                        "\"{}\" has rank {} (extents {:?}); asked for a View of rank {R}",
                        self.label(),
                        self.rank(),
                        self.extents
                    ),
                })?;
        let strides = L::strides_for(&extents).expect("the size fit when it was made");
        // Compact strides of `L` over the extents whose product is the flat View's length: every
        // offset lies in the flat elements.
        Ok(View::from_parts(
            self.flat.allocation().clone(),
            self.flat.ptr(),
            extents,
            strides,
        ))
    }

    /// A DynRankView of the same extents in host-accessible memory: this one where `M` is (Kokkos'
    /// `create_mirror_view`), otherwise a new one (not copied: `deep_copy_from` fills it).
    pub fn create_mirror_view(&self) -> Result<DynRankView<T, L, M::HostMirror>> {
        Ok(DynRankView {
            flat: create_mirror_view_in(M::HostMirror::default(), &self.flat)?,
            extents: self.extents.clone(),
            _layout: PhantomData,
        })
    }

    /// Copies the elements of `src`, in any memory space, into this one (Kokkos' `deep_copy` of
    /// DynRankViews). `Err(Error::InvalidArgument)` naming both when their extents differ.
    pub fn deep_copy_from<M2: MemorySpace>(&self, src: &DynRankView<T, L, M2>) -> Result<()> {
        if src.extents != self.extents {
            return Err(Error::InvalidArgument {
                operation: "DynRankView deep_copy",
                reason: format!(
                    "destination \"{}\" has extents {:?}, source \"{}\" has {:?}",
                    self.label(),
                    self.extents,
                    src.label(),
                    src.extents
                ),
            });
        }
        deep_copy(&self.flat, &src.flat)
    }

    /// The elements as a rank-7 View: the extents padded with 1 after the last (which leaves the
    /// strides of the first `rank()` dimensions as they are, in either layout), sharing them.
    fn padded(&self) -> View<T, DYN_RANK_MAX, L, M> {
        let extents = pad(&self.extents);
        let strides = L::strides_for(&extents).expect("the size fit when it was made");
        View::from_parts(
            self.flat.allocation().clone(),
            self.flat.ptr(),
            extents,
            strides,
        )
    }

    /// Replaces the elements by `view`'s (a contiguous rank-7 View), with `extents` as the shape.
    fn take(&mut self, view: View<T, DYN_RANK_MAX, L, M>, extents: &[usize]) {
        self.flat = View::from_parts(view.allocation().clone(), view.ptr(), [view.size()], [1]);
        self.extents = extents.to_vec();
    }

    /// Checks a new shape: at most 7 extents.
    fn check_extents(&self, operation: &'static str, extents: &[usize]) -> Result<()> {
        if extents.len() > DYN_RANK_MAX {
            return Err(Error::InvalidArgument {
                operation,
                reason: format!(
                    "\"{}\": {} extents {extents:?}; a DynRankView has at most 7",
                    self.label(),
                    extents.len()
                ),
            });
        }
        Ok(())
    }

    /// Gives the DynRankView the shape `extents` (Kokkos' `resize`; its rank becomes their
    /// number), keeping the values at the indices both shapes have, in new memory where the shape
    /// changes (other handles keep the old elements). The new elements are zero.
    /// `Err(Error::InvalidArgument)` for more than 7 extents; an allocation error as for a View.
    pub fn resize(&mut self, extents: &[usize]) -> Result<()> {
        self.check_extents("DynRankView::resize", extents)?;
        let mut view = self.padded();
        resize(&mut view, pad(extents))?;
        self.take(view, extents);
        Ok(())
    }

    /// Gives the DynRankView the shape `extents` in new zeroed memory, keeping no values (Kokkos'
    /// `realloc`). Errors as for [`resize`](DynRankView::resize).
    pub fn realloc(&mut self, extents: &[usize]) -> Result<()> {
        self.check_extents("DynRankView::realloc", extents)?;
        let mut view = self.padded();
        realloc(&mut view, pad(extents))?;
        self.take(view, extents);
        Ok(())
    }

    /// The flat offset of `index`, or `Err(Error::OutOfBounds)` naming the View.
    fn offset(&self, index: &[usize]) -> Result<usize> {
        let out = || Error::OutOfBounds {
            label: self.label().to_string(),
            index: index.to_vec(),
            extents: self.extents.clone(),
        };
        if index.len() != self.rank() || index.iter().zip(&self.extents).any(|(i, e)| i >= e) {
            return Err(out());
        }
        // `L`'s strides for the padded extents (see `padded`), and index 0 in the padding.
        let mut at = [0usize; DYN_RANK_MAX];
        at[..self.rank()].copy_from_slice(index);
        let strides = L::strides_for(&pad(&self.extents)).ok_or_else(out)?;
        Ok(L::offset(&at, &strides))
    }
}

/// `extents` (at most 7) padded to rank 7 with extents of 1.
fn pad(extents: &[usize]) -> [usize; DYN_RANK_MAX] {
    let mut padded = [1usize; DYN_RANK_MAX];
    padded[..extents.len()].copy_from_slice(extents);
    padded
}

impl<T: Element, L: RegularLayout, M: crate::space::HostAccessible> DynRankView<T, L, M> {
    /// The element at `index` (`rank()` indices). `Err(Error::OutOfBounds)` naming the View for
    /// another number of indices or one past its extent.
    pub fn get(&self, index: &[usize]) -> Result<T> {
        let k = self.offset(index)?;
        self.flat.get(k)
    }

    /// Writes the element at `index`. Errors as for [`get`](DynRankView::get).
    pub fn set(&self, index: &[usize], value: T) -> Result<()> {
        let k = self.offset(index)?;
        self.flat.set(k, value)
    }
}
