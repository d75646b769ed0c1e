//! `resize` and `realloc`: give a View handle new extents (Kokkos' `resize` / `realloc`).
//!
//! Both replace the handle's allocation and leave other handles (clones, subviews) on the old one, as in
//! Kokkos. Both keep the label and work on managed LayoutRight / LayoutLeft Views; an unmanaged View is
//! an [`Error::InvalidView`].

use super::element::Element;
use super::view::{View, view_alloc};
use crate::error::{Error, Result};
use crate::layout::RegularLayout;
use crate::space::MemorySpace;

fn require_managed<T: Element, const R: usize, L: RegularLayout, M: MemorySpace>(
    view: &View<T, R, L, M>,
    operation: &str,
) -> Result<()> {
    if view.is_managed() {
        Ok(())
    } else {
        Err(Error::InvalidView {
            label: view.label().to_string(),
            reason: format!("{operation} needs a managed View; this one wraps user memory"),
        })
    }
}

/// Gives `view` the new extents, keeping the contents of the index box both shapes share; new
/// elements are zero. With unchanged extents nothing happens (the allocation and pointer stay). Views
/// in GPU memory are resized on the device (the common box is copied by `deep_copy`'s rules).
///
/// ```
/// use ferrokkos::{InitSettings, View, resize};
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let mut v = View::<i32, 2>::new("v", [2, 2])?;
/// v.set((1, 1), 5)?;
/// resize(&mut v, [3, 1])?;
/// assert_eq!(v.to_vec()?, [0, 0, 0]);
/// resize(&mut v, [3, 2])?;
/// v.set((2, 1), 8)?;
/// let before = v.as_ptr();
/// resize(&mut v, [3, 2])?;
/// assert_eq!((v.as_ptr(), v.to_vec()?), (before, vec![0, 0, 0, 0, 0, 8]));
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn resize<T: Element, const R: usize, L: RegularLayout, M: MemorySpace>(
    view: &mut View<T, R, L, M>,
    extents: [usize; R],
) -> Result<()> {
    require_managed(view, "resize")?;
    if view.extents() == extents {
        return Ok(());
    }
    let resized = View::<T, R, L, M>::new(view_alloc(view.label()), extents)?;
    let common: [usize; R] = std::array::from_fn(|r| extents[r].min(view.extent(r)));
    super::deep_copy::copy_box(&resized, view, common)?;
    *view = resized;
    Ok(())
}

/// Gives `view` a new, zero-filled allocation with the new extents, discarding the contents.
pub fn realloc<T: Element, const R: usize, L: RegularLayout, M: MemorySpace>(
    view: &mut View<T, R, L, M>,
    extents: [usize; R],
) -> Result<()> {
    require_managed(view, "realloc")?;
    *view = View::new(view_alloc(view.label()), extents)?;
    Ok(())
}

/// [`realloc`] without zero-filling where the space allows it (Kokkos'
/// `realloc(WithoutInitializing, v, ...)`).
pub fn realloc_without_initializing<
    T: Element,
    const R: usize,
    L: RegularLayout,
    M: MemorySpace,
>(
    view: &mut View<T, R, L, M>,
    extents: [usize; R],
) -> Result<()> {
    require_managed(view, "realloc")?;
    *view = View::new(view_alloc(view.label()).without_initializing(), extents)?;
    Ok(())
}
