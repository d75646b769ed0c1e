//! `deep_copy`: every rule for copying between Views and filling them, in one place (DESIGN.md
//! decision 9).
//!
//! | destination | source | rule |
//! |---|---|---|
//! | View | View of other extents | [`Error::ExtentMismatch`] naming both labels and shapes |
//! | View | the same elements (same allocation, pointer and strides) | nothing to do |
//! | View | View in the same allocation, overlapping | copy through a temporary (source values win) |
//! | host View | host View, both contiguous with equal strides | one `memcpy` |
//! | host View | host View, any other layouts | element by element, in index order |
//! | host View | a value | fill (`slice::fill` when contiguous) |
//! | a value | rank-0 host View | read the element |
//!
//! Host rows need both sides host-accessible; the CUDA backend adds its rows here (device copies,
//! memsets and copy kernels chosen from the driver's pointer attributes).
//!
//! Every copy that moves data takes the host guards of both allocations, so a copy into a View that
//! host code is reading, or from one that it is writing, is an [`Error::Borrow`] naming the View. A copy
//! with nothing to do (empty Views, or a View onto itself) touches no element and takes no guard, as it
//! is a no-op in Kokkos.

use super::element::Element;
use super::index::for_each_index;
use super::layout::Layout;
use super::view::View;
use crate::error::{Error, Result};
use crate::space::HostAccessible;

/// The destination of a [`deep_copy`] from `Src`: a View (from a View or a value) or a `&mut` value
/// (from a rank-0 View).
pub trait DeepCopyDst<Src> {
    /// Performs the copy.
    fn deep_copy_from(self, src: Src) -> Result<()>;
}

/// Copies `src` into `dst` and waits until the copy is complete (Kokkos' `deep_copy`).
///
/// - `deep_copy(&dst, &src)`: Views of equal extents, any layouts;
/// - `deep_copy(&dst, value)`: fill every element;
/// - `deep_copy(&mut value, &rank0_view)`: read a rank-0 View.
///
/// ```
/// use ferrokkos::{InitSettings, LayoutLeft, View, deep_copy};
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let right = View::<i32, 2>::new("right", [2, 3])?;
/// let left = View::<i32, 2, LayoutLeft>::new("left", [2, 3])?;
/// deep_copy(&right, 4)?;
/// right.set((1, 2), 9)?;
/// deep_copy(&left, &right)?;
/// assert_eq!(left.to_vec()?, [4, 4, 4, 4, 4, 9]);
///
/// let total = View::<f64, 0>::new("total", [])?;
/// deep_copy(&total, 2.5)?;
/// let mut x = 0.0;
/// deep_copy(&mut x, &total)?;
/// assert_eq!(x, 2.5);
///
/// let wrong = View::<i32, 2>::new("wrong", [3, 2])?;
/// assert_eq!(
///     deep_copy(&wrong, &right).unwrap_err().to_string(),
///     "deep_copy: extents differ: destination \"wrong\" has [3, 2], source \"right\" has [2, 3]"
/// );
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn deep_copy<D: DeepCopyDst<S>, S>(dst: D, src: S) -> Result<()> {
    dst.deep_copy_from(src)
}

/// How a View-to-View copy is carried out (the rows of the table above).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CopyPlan {
    Nothing,
    ViaTemporary,
    Memcpy,
    ElementWise,
}

/// Chooses the rule for copying `src` into `dst` (extents already equal).
pub(crate) fn plan<T, const R: usize, L1, L2, M1, M2>(
    dst: &View<T, R, L1, M1>,
    src: &View<T, R, L2, M2>,
) -> CopyPlan
where
    T: Element,
    L1: Layout,
    L2: Layout,
    M1: HostAccessible,
    M2: HostAccessible,
{
    if dst.size() == 0 {
        return CopyPlan::Nothing;
    }
    if dst.shares_allocation_with(src) {
        if dst.as_ptr() == src.as_ptr() && dst.strides() == src.strides() {
            return CopyPlan::Nothing;
        }
        return CopyPlan::ViaTemporary;
    }
    if dst.span_is_contiguous() && src.span_is_contiguous() && dst.strides() == src.strides() {
        CopyPlan::Memcpy
    } else {
        CopyPlan::ElementWise
    }
}

impl<T, const R: usize, L1, L2, M1, M2> DeepCopyDst<&View<T, R, L2, M2>> for &View<T, R, L1, M1>
where
    T: Element,
    L1: Layout,
    L2: Layout,
    M1: HostAccessible,
    M2: HostAccessible,
{
    fn deep_copy_from(self, src: &View<T, R, L2, M2>) -> Result<()> {
        let dst = self;
        if dst.extents() != src.extents() {
            return Err(Error::ExtentMismatch {
                operation: "deep_copy",
                dst_label: dst.label().to_string(),
                dst_extents: dst.extents().to_vec(),
                src_label: src.label().to_string(),
                src_extents: src.extents().to_vec(),
            });
        }
        match plan(dst, src) {
            CopyPlan::Nothing => Ok(()),
            CopyPlan::ViaTemporary => {
                let values = src.to_vec()?;
                let mut d = dst.host_mut()?;
                let mut next = values.iter();
                for_each_index(&dst.extents(), |i| {
                    if let Some(v) = next.next() {
                        d[*i] = *v;
                    }
                });
                Ok(())
            }
            CopyPlan::Memcpy => {
                let s = src.host()?;
                let mut d = dst.host_mut()?;
                if let (Some(to), Some(from)) = (d.as_mut_slice(), s.as_slice()) {
                    to.copy_from_slice(from);
                }
                Ok(())
            }
            CopyPlan::ElementWise => {
                let s = src.host()?;
                let mut d = dst.host_mut()?;
                for_each_index(&dst.extents(), |i| d[*i] = s[*i]);
                Ok(())
            }
        }
    }
}

impl<T: Element, const R: usize, L: Layout, M: HostAccessible> DeepCopyDst<T>
    for &View<T, R, L, M>
{
    fn deep_copy_from(self, value: T) -> Result<()> {
        self.host_mut()?.fill(value);
        Ok(())
    }
}

impl<T: Element, L: Layout, M: HostAccessible> DeepCopyDst<&View<T, 0, L, M>> for &mut T {
    fn deep_copy_from(self, src: &View<T, 0, L, M>) -> Result<()> {
        *self = src.get(())?;
        Ok(())
    }
}
