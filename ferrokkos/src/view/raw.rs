//! [`RawMapping`]: a View's pointer, extents and strides copied into an accessor, so that a kernel
//! holding the accessor reaches elements without going through the View (and the compiler can keep
//! them in registers across iterations).

use std::marker::PhantomData;
use std::ptr::NonNull;

use super::element::Element;
use super::view::View;
use crate::error::Error;
use crate::layout::Layout;
use crate::space::MemorySpace;

/// The element mapping of one View, borrowed from it for `'a`.
pub(crate) struct RawMapping<'a, T, const R: usize, L> {
    ptr: NonNull<T>,
    extents: [usize; R],
    strides: [usize; R],
    /// The View's label (for out-of-bounds panics), valid for `'a`.
    label: NonNull<str>,
    _borrow: PhantomData<(&'a str, L)>,
}

// SAFETY: a RawMapping is a pointer and the View's shape; it reads or writes nothing by itself. Every
// dereference of the pointers it returns happens in the guard types (HostRef, HostMut, ParallelMut),
// whose borrow rules or `unsafe` contracts make the access race-free. The elements are `Send + Sync`.
unsafe impl<T: Element, const R: usize, L: Layout> Sync for RawMapping<'_, T, R, L> {}

// SAFETY: as for `Sync`; nothing in a RawMapping is tied to a thread.
unsafe impl<T: Element, const R: usize, L: Layout> Send for RawMapping<'_, T, R, L> {}

impl<T, const R: usize, L> Clone for RawMapping<'_, T, R, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, const R: usize, L> Copy for RawMapping<'_, T, R, L> {}

impl<'a, T: Element, const R: usize, L: Layout> RawMapping<'a, T, R, L> {
    /// The mapping of `view`.
    pub(crate) fn of<M: MemorySpace>(view: &'a View<T, R, L, M>) -> Self {
        RawMapping {
            ptr: view.ptr(),
            extents: view.extents(),
            strides: view.strides(),
            label: NonNull::from(view.label()),
            _borrow: PhantomData,
        }
    }

    /// The extent of dimension `r` (panics if `r >= R`).
    #[inline(always)]
    pub(crate) fn extent(&self, r: usize) -> usize {
        self.extents[r]
    }

    /// The View's label.
    pub(crate) fn label(&self) -> &str {
        // SAFETY: the label lives as long as the View's allocation, alive for `'a`.
        unsafe { self.label.as_ref() }
    }

    /// The pointer to the element at `index`; panics (naming the View) if it is out of bounds.
    #[inline(always)]
    #[track_caller]
    pub(crate) fn element(&self, index: [usize; R]) -> *mut T {
        for r in 0..R {
            if index[r] >= self.extents[r] {
                // By value: the index need not live in memory on the fast path (which would keep the
                // compiler from vectorizing loops around it).
                self.out_of_bounds(index);
            }
        }
        // SAFETY: the index is in bounds (checked above), so the offset lies inside the View's span,
        // which lies inside its allocation (View invariant), alive for `'a`.
        unsafe { self.ptr.as_ptr().add(L::offset(&index, &self.strides)) }
    }

    /// The pointer to the element at `index`, which the caller has proved in bounds.
    ///
    /// # Safety
    /// `index[r] < extent(r)` for every `r`.
    #[inline(always)]
    pub(crate) unsafe fn element_unchecked(&self, index: [usize; R]) -> *mut T {
        debug_assert!((0..R).all(|r| index[r] < self.extents[r]));
        // SAFETY: in bounds by the caller's contract, so the offset lies inside the View's span,
        // which lies inside its allocation (View invariant), alive for `'a`.
        unsafe { self.ptr.as_ptr().add(L::offset(&index, &self.strides)) }
    }

    #[cold]
    #[inline(never)]
    #[track_caller]
    fn out_of_bounds(&self, index: [usize; R]) -> ! {
        panic!(
            "{}",
            Error::OutOfBounds {
                // SAFETY: the label lives as long as the View's allocation, alive for `'a`.
                label: unsafe { self.label.as_ref() }.to_string(),
                index: index.to_vec(),
                extents: self.extents.to_vec(),
            }
        )
    }
}
