//! The host accessors of a View whose indices start at given values (an OffsetView's): the View's
//! own accessors ([`ReadAccess`], [`WriteAccess`]) with the begin of each dimension, which every
//! access subtracts before it reaches the elements.
//!
//! Soundness: the checked methods compare the index with each begin as integers
//! ([`KernelIndex::offset_index`]), so an index below its range is out of bounds (a panic naming the
//! OffsetView), never wrapped into it. The `_unchecked` methods subtract with wrapping arithmetic;
//! a launch calls them only where it proved the index's exact value inside
//! `[max(begin, 0), begin + extent)` (`kernel/bounds.rs`, with the begins in the capture's
//! `ViewAccess`), where the wrapped difference is the exact one.

use super::element::Element;
use super::kernel_access::{KernelIndex, ReadAccess, WriteAccess};
use super::view::View;
use crate::error::Error;
use crate::layout::Layout;
use crate::space::MemorySpace;

/// The panic of an access at `index` outside the ranges `begins` + `extents` of `label`.
#[cold]
#[inline(never)]
#[track_caller]
fn out_of_ranges(label: &str, index: &[i128], begins: &[i64], extents: &[usize]) -> ! {
    panic!(
        "{}",
        Error::OffsetOutOfBounds {
            label: label.to_string(),
            index: index.to_vec(),
            begins: begins.to_vec(),
            ends: begins
                .iter()
                .zip(extents)
                .map(|(&b, &e)| b.saturating_add(e as i64))
                .collect(),
        }
    )
}

macro_rules! offset_accessor {
    ($(#[$doc:meta])* $name:ident over $inner:ident) => {
        $(#[$doc])*
        pub struct $name<'a, T, const R: usize, L> {
            inner: $inner<'a, T, R, L>,
            begins: [i64; R],
        }

        impl<T, const R: usize, L> Clone for $name<'_, T, R, L> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<T, const R: usize, L> Copy for $name<'_, T, R, L> {}

        impl<'a, T: Element, const R: usize, L: Layout> $name<'a, T, R, L> {
            /// The accessor of `view` with its indices starting at `begins`.
            ///
            /// # Safety
            /// As for the View's own accessor's `new`.
            pub(crate) unsafe fn new<M: MemorySpace>(
                view: &'a View<T, R, L, M>,
                begins: [i64; R],
            ) -> Self {
                $name {
                    // SAFETY: the caller's contract is the inner accessor's.
                    inner: unsafe { $inner::new(view) },
                    begins,
                }
            }

            /// `x.extent(r)`: the number of indices of dimension `r`.
            #[inline(always)]
            pub fn extent(&self, r: usize) -> usize {
                self.inner.extent(r)
            }

            /// `x.begin(r)`: the first index of dimension `r`.
            #[inline(always)]
            pub fn begin(&self, r: usize) -> i64 {
                self.begins[r]
            }

            /// `x.end(r)`: one past the last index of dimension `r`.
            #[inline(always)]
            pub fn end(&self, r: usize) -> i64 {
                self.begins[r] + self.inner.extent(r) as i64
            }

            /// The zero-based coordinates of `index`; panics, naming the OffsetView and its
            /// ranges, when it is outside them.
            #[inline(always)]
            #[track_caller]
            fn coordinates(&self, index: impl KernelIndex<R>) -> [usize; R] {
                let c = index.offset_index(&self.begins);
                for r in 0..R {
                    if c[r] >= self.inner.raw.extent(r) {
                        let extents: [usize; R] = std::array::from_fn(|k| self.inner.extent(k));
                        out_of_ranges(
                            self.inner.raw.label(),
                            &index.exact(),
                            &self.begins,
                            &extents,
                        );
                    }
                }
                c
            }

            /// The zero-based coordinates of `index`, which a launch proved in range.
            #[inline(always)]
            fn proven(&self, index: impl KernelIndex<R>) -> [usize; R] {
                let mut c = index.to_index();
                for r in 0..R {
                    c[r] = c[r].wrapping_sub(self.begins[r] as usize);
                }
                c
            }
        }
    };
}

offset_accessor! {
    /// An OffsetView that a kernel reads: `x[i]` with `i` in the OffsetView's index ranges. It lives
    /// only as long as the launch that made it.
    OffsetReadAccess over ReadAccess
}
offset_accessor! {
    /// An OffsetView that a kernel writes at its iteration index (and may read there). Its element
    /// methods are `unsafe`, as a View's [`WriteAccess`]'s are.
    OffsetWriteAccess over WriteAccess
}

impl<T: Element, const R: usize, L: Layout> OffsetReadAccess<'_, T, R, L> {
    /// `x[index]`: reads an element; panics, naming the OffsetView, if `index` is outside its
    /// ranges.
    #[inline(always)]
    #[track_caller]
    pub fn at(&self, index: impl KernelIndex<R>) -> T {
        let c = self.coordinates(index);
        // SAFETY: `coordinates` checked every coordinate against its extent; otherwise as for
        // `ReadAccess::at`.
        unsafe { self.inner.raw.element_unchecked(c).read() }
    }

    /// `x[index]` where the launch proved `index` in range: no check.
    ///
    /// # Safety
    /// The index's exact value lies in `[max(begin, 0), begin + extent)` in every dimension
    /// (`kernel/bounds.rs` proves it before a launch runs the proven body).
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn at_unchecked(&self, index: impl KernelIndex<R>) -> T {
        // SAFETY: the wrapped differences are the exact ones, in bounds (the caller's contract).
        unsafe { self.inner.raw.element_unchecked(self.proven(index)).read() }
    }
}

impl<T: Element, const R: usize, L: Layout> OffsetWriteAccess<'_, T, R, L> {
    /// `y[index]`: reads an element of an OffsetView the kernel writes; panics, naming it, if
    /// `index` is outside its ranges.
    ///
    /// # Safety
    /// As for [`WriteAccess::at`].
    #[inline(always)]
    #[track_caller]
    pub unsafe fn at(&self, index: impl KernelIndex<R>) -> T {
        let c = self.coordinates(index);
        // SAFETY: in bounds (checked); race-free by the caller's contract.
        unsafe { self.inner.raw.element_unchecked(c).read() }
    }

    /// `y[index] = value`: writes an element; panics, naming the OffsetView, if `index` is outside
    /// its ranges.
    ///
    /// # Safety
    /// As for [`WriteAccess::put`].
    #[inline(always)]
    #[track_caller]
    pub unsafe fn put(&self, index: impl KernelIndex<R>, value: T) {
        let c = self.coordinates(index);
        // SAFETY: in bounds (checked); race-free by the caller's contract.
        unsafe { self.inner.raw.element_unchecked(c).write(value) }
    }

    /// `y[index]` where the launch proved `index` in range: no check.
    ///
    /// # Safety
    /// As for [`OffsetWriteAccess::at`] and [`OffsetReadAccess::at_unchecked`].
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn at_unchecked(&self, index: impl KernelIndex<R>) -> T {
        // SAFETY: in bounds and race-free by the caller's contract.
        unsafe { self.inner.raw.element_unchecked(self.proven(index)).read() }
    }

    /// `y[index] = value` where the launch proved `index` in range: no check.
    ///
    /// # Safety
    /// As for [`OffsetWriteAccess::put`] and [`OffsetReadAccess::at_unchecked`].
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn put_unchecked(&self, index: impl KernelIndex<R>, value: T) {
        // SAFETY: in bounds and race-free by the caller's contract.
        unsafe {
            self.inner
                .raw
                .element_unchecked(self.proven(index))
                .write(value)
        }
    }
}
