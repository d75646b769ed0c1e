//! Mirrors: a View with the same shape in another memory space (Kokkos' `create_mirror` family).
//!
//! | function | result space | allocation |
//! |---|---|---|
//! | [`create_mirror`] | the source space's host mirror space | always new |
//! | [`create_mirror_in`] | the given space | always new |
//! | [`create_mirror_view`] | the host mirror space | shared if the source is already there |
//! | [`create_mirror_view_in`] | the given space | shared if the source is already there |
//! | [`create_mirror_view_and_copy`] | the given space | shared if already there, else new + copy |
//!
//! Every function takes a source in any memory space and, for the `_in` forms and
//! [`create_mirror_view_and_copy`], a destination in any memory space (device to host, host to
//! device, between two device spaces), as Kokkos' `create_mirror(space, v)` family does: the copy
//! is a [`deep_copy`](super::deep_copy::deep_copy), which knows every pair of spaces.
//!
//! A new mirror keeps the extents and layout; a LayoutStride source gets compact strides in the same
//! memory order. Its label is the source's with `_mirror` appended, as in Kokkos.

use std::any::TypeId;

use super::element::Element;
use super::view::{View, ViewAlloc, view_alloc};
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::space::MemorySpace;

/// A new View in `M::HostMirror` with the shape of `view` (not a copy of its contents).
///
/// ```
/// use ferrokkos::{HostSpace, InitSettings, View, create_mirror, create_mirror_view};
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let a = View::<f64, 2>::new("a", [3, 3])?;
/// let m = create_mirror(&a)?;
/// assert!(!m.shares_allocation_with(&a));
/// assert_eq!((m.label(), m.extents()), ("a_mirror", [3, 3]));
/// let same = create_mirror_view(&a)?; // a is already host memory
/// assert!(same.shares_allocation_with(&a));
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn create_mirror<T: Element, const R: usize, L: Layout, M: MemorySpace>(
    view: &View<T, R, L, M>,
) -> Result<View<T, R, L, M::HostMirror>> {
    create_mirror_in(M::HostMirror::default(), view)
}

/// A new View in `space` with the shape of `view` (not a copy of its contents); `view` and
/// `space` may be in any memory spaces (Kokkos' `create_mirror(space, v)`).
pub fn create_mirror_in<T: Element, const R: usize, L: Layout, M: MemorySpace, S: MemorySpace>(
    space: S,
    view: &View<T, R, L, M>,
) -> Result<View<T, R, L, S>> {
    new_like(
        view_alloc(format!("{}_mirror", view.label())).in_space(space),
        view,
    )
}

/// `view` itself if its space is host-accessible (its own host mirror space), else [`create_mirror`].
pub fn create_mirror_view<T: Element, const R: usize, L: Layout, M: MemorySpace>(
    view: &View<T, R, L, M>,
) -> Result<View<T, R, L, M::HostMirror>> {
    create_mirror_view_in(M::HostMirror::default(), view)
}

/// `view` itself if it already lives in `S`, else [`create_mirror_in`] (Kokkos'
/// `create_mirror_view(space, v)`, for any two memory spaces).
pub fn create_mirror_view_in<
    T: Element,
    const R: usize,
    L: Layout,
    M: MemorySpace,
    S: MemorySpace,
>(
    space: S,
    view: &View<T, R, L, M>,
) -> Result<View<T, R, L, S>> {
    match same_space::<T, R, L, M, S>(view) {
        Some(same) => Ok(same),
        None => create_mirror_in(space, view),
    }
}

/// `view` itself if it already lives in `S`, else a new mirror in `space` holding a copy of its
/// contents (Kokkos' `create_mirror_view_and_copy(space, v)`). Both spaces may be any memory
/// spaces: its main use is bringing a device View to the host, in code generic over the space. The
/// copy is complete when this returns.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::create_mirror_view_and_copy;
///
/// /// Squares on any execution space, read back on the host.
/// fn squares<S: Launch>(exec: &S, n: usize) -> ferrokkos::Result<Vec<u64>> {
///     let v = View::<u64, 1, LayoutRight, S::MemorySpace>::new("v", [n])?;
///     parallel_for("squares", RangePolicy::new(exec, 0, n)?, kernel!(|i| v[i] = (i * i) as u64))?;
///     let host = create_mirror_view_and_copy(HostSpace, &v)?; // v itself on the host spaces
///     host.to_vec()
/// }
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// assert_eq!(squares(&Threads::default_instance()?, 4)?, [0, 1, 4, 9]);
///
/// let a = View::<i32, 1>::new("a", [4])?;
/// a.set(2, 7)?;
/// let m = create_mirror_view_and_copy(HostSpace, &a)?;
/// assert!(m.shares_allocation_with(&a)); // already in HostSpace: the same View
/// assert_eq!(m.to_vec()?, [0, 0, 7, 0]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn create_mirror_view_and_copy<T, const R: usize, L, M, S>(
    space: S,
    view: &View<T, R, L, M>,
) -> Result<View<T, R, L, S>>
where
    T: Element,
    L: Layout,
    M: MemorySpace,
    S: MemorySpace,
{
    if let Some(same) = same_space::<T, R, L, M, S>(view) {
        return Ok(same);
    }
    let mirror = new_like(
        view_alloc(format!("{}_mirror", view.label()))
            .in_space(space)
            .without_initializing(),
        view,
    )?;
    super::deep_copy::deep_copy(&mirror, view)?;
    Ok(mirror)
}

/// `view` typed as living in `S`, if `S` is its space.
fn same_space<T: Element, const R: usize, L: Layout, M: MemorySpace, S: MemorySpace>(
    view: &View<T, R, L, M>,
) -> Option<View<T, R, L, S>> {
    (TypeId::of::<M>() == TypeId::of::<S>()).then(|| view.retype::<L, S>())
}

/// A new View allocated with `props` with the extents and layout of `view`.
fn new_like<T: Element, const R: usize, L: Layout, M: MemorySpace, S: MemorySpace>(
    props: ViewAlloc<S>,
    view: &View<T, R, L, M>,
) -> Result<View<T, R, L, S>> {
    let extents = view.extents();
    let strides =
        L::compact_strides(&extents, &view.strides()).ok_or_else(|| Error::SizeOverflow {
            label: props.label().to_string(),
            extents: extents.to_vec(),
        })?;
    View::allocate(&props, extents, strides)
}
