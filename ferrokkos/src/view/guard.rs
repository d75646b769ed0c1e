//! Host access to elements: borrow-checked guards and by-value accessors (DESIGN.md decision 5).

use std::ops::{Index, IndexMut};

use super::element::Element;
use super::index::{ViewIndex, for_each_index};
use super::raw::RawMapping;
use super::view::View;
use crate::error::Result;
use crate::layout::Layout;
use crate::space::HostAccessible;

/// Shared, read-only host access to a View's elements, indexed as `g[i]`, `g[(i, j)]`, `g[[i, j, k]]`
/// or `g[()]` (rank 0). Taken with [`View::host`]; any number may coexist, but none while a
/// [`HostMut`] of the same allocation is alive.
///
/// Indexing is always bounds-checked (also in release builds, since it is safe code) and panics with a
/// message naming the View's label, the index and the extents.
pub struct HostRef<'a, T: Element, const R: usize, L: Layout, M: HostAccessible> {
    raw: RawMapping<'a, T, R, L>,
    view: &'a View<T, R, L, M>,
}

/// Exclusive, read-write host access to a View's elements. Taken with [`View::host_mut`]; no other
/// guard of the same allocation (clones and subviews included) can exist at the same time.
pub struct HostMut<'a, T: Element, const R: usize, L: Layout, M: HostAccessible> {
    raw: RawMapping<'a, T, R, L>,
    view: &'a View<T, R, L, M>,
}

impl<T: Element, const R: usize, L: Layout, M: HostAccessible> View<T, R, L, M> {
    /// Borrows the elements for reading. An [`crate::Error::Borrow`] naming the View if a [`HostMut`] of the
    /// same allocation is alive.
    ///
    /// ```
    /// use ferrokkos::{InitSettings, View};
    /// let _rt = ferrokkos::initialize(InitSettings::new())?;
    /// let v = View::<i64, 2>::new("grid", [2, 3])?;
    /// v.host_mut()?[(1, 2)] = 7;
    /// let g = v.host()?;
    /// assert_eq!((g[(1, 2)], g[[0, 0]]), (7, 0));
    /// assert!(v.host_mut().is_err()); // a reader is alive
    /// # Ok::<(), ferrokkos::Error>(())
    /// ```
    pub fn host(&self) -> Result<HostRef<'_, T, R, L, M>> {
        self.allocation().borrow_shared()?;
        Ok(HostRef {
            raw: RawMapping::of(self),
            view: self,
        })
    }

    /// Borrows the elements for reading and writing. An [`crate::Error::Borrow`] naming the View if any other
    /// guard of the same allocation is alive.
    pub fn host_mut(&self) -> Result<HostMut<'_, T, R, L, M>> {
        self.allocation().borrow_exclusive()?;
        Ok(HostMut {
            raw: RawMapping::of(self),
            view: self,
        })
    }

    /// Reads one element. Errors: out of bounds, or a [`HostMut`] is alive.
    pub fn get(&self, index: impl ViewIndex<R>) -> Result<T> {
        let g = self.host()?;
        let offset = self.checked_offset(&index.to_array())?;
        Ok(g.read(offset))
    }

    /// Writes one element. Errors: out of bounds, or another guard is alive.
    pub fn set(&self, index: impl ViewIndex<R>, value: T) -> Result<()> {
        let mut g = self.host_mut()?;
        let offset = self.checked_offset(&index.to_array())?;
        *g.element_mut(offset) = value;
        Ok(())
    }

    /// All elements in row-major index order (whatever the layout).
    pub fn to_vec(&self) -> Result<Vec<T>> {
        let g = self.host()?;
        let mut out = Vec::with_capacity(self.size());
        for_each_index(&self.extents(), |i| out.push(g.read(self.offset_of(i))));
        Ok(out)
    }
}

impl<T: Element, const R: usize, L: Layout, M: HostAccessible> HostRef<'_, T, R, L, M> {
    /// The element at `offset` (in bounds of the View's mapping).
    #[inline(always)]
    fn read(&self, offset: usize) -> T {
        // SAFETY: `offset` comes from an in-bounds index of the View, so it lies inside the allocation
        // (View invariant); the shared borrow excludes writers; the space is host-accessible.
        unsafe { *self.view.ptr().as_ptr().add(offset) }
    }

    /// The element at `index`; panics, naming the View, if it is out of bounds.
    #[inline(always)]
    #[track_caller]
    pub(super) fn element(&self, index: [usize; R]) -> T {
        let p = self.raw.element(index);
        // SAFETY: in bounds (checked by `element`), shared borrow held, host-accessible space.
        unsafe { p.read() }
    }

    /// The elements as one slice in memory order, if the View is contiguous.
    pub fn as_slice(&self) -> Option<&[T]> {
        self.view.span_is_contiguous().then(|| {
            // SAFETY: contiguous: the `size()` elements from `ptr` are exactly the View's elements,
            // inside the allocation; the shared borrow excludes writers for the guard's lifetime.
            unsafe { std::slice::from_raw_parts(self.view.ptr().as_ptr(), self.view.size()) }
        })
    }

    /// The View this guard borrows.
    pub fn view(&self) -> &View<T, R, L, M> {
        self.view
    }
}

impl<T: Element, const R: usize, L: Layout, M: HostAccessible> HostMut<'_, T, R, L, M> {
    #[inline(always)]
    fn element_mut(&mut self, offset: usize) -> &mut T {
        // SAFETY: `offset` comes from an in-bounds index, so it lies inside the allocation; the
        // exclusive borrow excludes every other access; `&mut self` ties the reference to one use.
        unsafe { &mut *self.view.ptr().as_ptr().add(offset) }
    }

    /// The elements as one slice in memory order, if the View is contiguous.
    pub fn as_slice(&self) -> Option<&[T]> {
        self.view.span_is_contiguous().then(|| {
            // SAFETY: see `HostRef::as_slice`; the exclusive borrow is held.
            unsafe { std::slice::from_raw_parts(self.view.ptr().as_ptr(), self.view.size()) }
        })
    }

    /// The elements as one mutable slice in memory order, if the View is contiguous.
    pub fn as_mut_slice(&mut self) -> Option<&mut [T]> {
        self.view.span_is_contiguous().then(|| {
            // SAFETY: contiguous elements inside the allocation; the exclusive borrow excludes every
            // other access for the guard's lifetime, and `&mut self` makes this slice unique.
            unsafe { std::slice::from_raw_parts_mut(self.view.ptr().as_ptr(), self.view.size()) }
        })
    }

    /// Sets every element to `value`.
    pub fn fill(&mut self, value: T) {
        if let Some(all) = self.as_mut_slice() {
            all.fill(value);
        } else {
            let view = self.view;
            for_each_index(&view.extents(), |i| {
                *self.element_mut(view.offset_of(i)) = value
            });
        }
    }

    /// The View this guard borrows.
    pub fn view(&self) -> &View<T, R, L, M> {
        self.view
    }
}

impl<T: Element, const R: usize, L: Layout, M: HostAccessible, I: ViewIndex<R>> Index<I>
    for HostRef<'_, T, R, L, M>
{
    type Output = T;

    #[inline(always)]
    #[track_caller]
    fn index(&self, index: I) -> &T {
        let p = self.raw.element(index.to_array());
        // SAFETY: in bounds (checked by `element`), shared borrow held, host-accessible space.
        unsafe { &*p }
    }
}

impl<T: Element, const R: usize, L: Layout, M: HostAccessible, I: ViewIndex<R>> Index<I>
    for HostMut<'_, T, R, L, M>
{
    type Output = T;

    #[inline(always)]
    #[track_caller]
    fn index(&self, index: I) -> &T {
        let p = self.raw.element(index.to_array());
        // SAFETY: in bounds (checked by `element`), exclusive borrow held, host-accessible space.
        unsafe { &*p }
    }
}

impl<T: Element, const R: usize, L: Layout, M: HostAccessible, I: ViewIndex<R>> IndexMut<I>
    for HostMut<'_, T, R, L, M>
{
    #[inline(always)]
    #[track_caller]
    fn index_mut(&mut self, index: I) -> &mut T {
        let p = self.raw.element(index.to_array());
        // SAFETY: in bounds (checked by `element`); the exclusive borrow excludes every other access,
        // and `&mut self` ties the reference to one use.
        unsafe { &mut *p }
    }
}

impl<T: Element, const R: usize, L: Layout, M: HostAccessible> Drop for HostRef<'_, T, R, L, M> {
    fn drop(&mut self) {
        self.view.allocation().release_shared();
    }
}

impl<T: Element, const R: usize, L: Layout, M: HostAccessible> Drop for HostMut<'_, T, R, L, M> {
    fn drop(&mut self) {
        self.view.allocation().release_exclusive();
    }
}

impl<T: Element, const R: usize, L: Layout, M: crate::space::MemorySpace> View<T, R, L, M> {
    /// Runs `f` over the elements as one mutable slice, borrowed exclusively (after the device
    /// work that uses them): for the algorithms' host paths, generic over the memory space.
    /// `Ok(None)` when host code cannot reach the space or the View is not contiguous.
    pub(crate) fn with_host_slice_mut<U>(
        &self,
        f: impl FnOnce(&mut [T]) -> U,
    ) -> Result<Option<U>> {
        if !M::HOST_ACCESSIBLE || !self.span_is_contiguous() {
            return Ok(None);
        }
        let alloc = self.allocation();
        alloc.borrow_exclusive()?;
        struct Release<'a>(&'a crate::space::Allocation);
        impl Drop for Release<'_> {
            fn drop(&mut self) {
                self.0.release_exclusive();
            }
        }
        let _release = Release(alloc);
        // SAFETY: the space is host-accessible (its `HOST_ACCESSIBLE`, which only the sealed
        // spaces of ferrokkos declare), the elements are contiguous inside the allocation, and the
        // exclusive borrow, held until `_release` drops after `f`, excludes every other access.
        let all = unsafe { std::slice::from_raw_parts_mut(self.ptr().as_ptr(), self.size()) };
        Ok(Some(f(all)))
    }
}
