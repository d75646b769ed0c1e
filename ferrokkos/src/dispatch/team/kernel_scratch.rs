//! Scratch Views of `kernel!` team kernels on the host: [`KernelScratch`], carved from the
//! member's arena like a [`super::ScratchView`], but read and written through `&self` (the nested
//! ranges' closures share it), as cells.
//!
//! Invariants: the launch checked that the policy's scratch requests hold every View the kernel
//! declares (`Kernel::check_team`), and the kernel carves them in declaration order at team level,
//! so carving cannot fail; a team runs on one thread (the View is neither `Send` nor `Sync`).

use std::cell::Cell;

use super::scratch::ScratchArena;
use crate::kernel::ScratchValue;

/// A scratch View of a `kernel!` team kernel on the host (right layout): `at` and `put` by index,
/// an index out of bounds panics naming it and the extents (as View accessors do).
pub struct KernelScratch<'a, T, const R: usize> {
    cells: &'a [Cell<T>],
    extents: [usize; R],
}

/// The index of a scratch View of rank `R`: `usize` for rank 1, a tuple of `usize` for 2 and 3.
pub trait ScratchIndex<const R: usize>: Copy {
    /// The index as an array.
    fn array(self) -> [usize; R];
}

impl ScratchIndex<1> for usize {
    fn array(self) -> [usize; 1] {
        [self]
    }
}

impl ScratchIndex<2> for (usize, usize) {
    fn array(self) -> [usize; 2] {
        [self.0, self.1]
    }
}

impl ScratchIndex<3> for (usize, usize, usize) {
    fn array(self) -> [usize; 3] {
        [self.0, self.1, self.2]
    }
}

impl<T: Copy, const R: usize> KernelScratch<'_, T, R> {
    /// The extent of dimension `d` (0 past the rank).
    pub fn extent(&self, d: usize) -> usize {
        self.extents.get(d).copied().unwrap_or(0)
    }

    fn offset(&self, index: [usize; R]) -> usize {
        super::scratch::right_offset(index, &self.extents)
    }

    /// The element at `index`.
    #[inline]
    pub fn at(&self, index: impl ScratchIndex<R>) -> T {
        self.cells[self.offset(index.array())].get()
    }

    /// Writes the element at `index`.
    #[inline]
    pub fn put(&self, index: impl ScratchIndex<R>, value: T) {
        self.cells[self.offset(index.array())].set(value)
    }
}

/// Carves a scratch View of `extents` for a `kernel!` team kernel (what its
/// `team.team_scratch(level).view::<T, R>(extents)` becomes on the host).
#[doc(hidden)]
pub fn kernel_scratch<'a, T: ScratchValue, const R: usize>(
    arena: &ScratchArena<'a>,
    extents: [usize; R],
) -> KernelScratch<'a, T, R> {
    match arena.view::<T, R>(extents) {
        Ok(mut view) => {
            let cells = Cell::from_mut(view.take_slice()).as_slice_of_cells();
            KernelScratch { cells, extents }
        }
        // Unreachable after the launch's check; an empty View then refuses every index.
        Err(_) => KernelScratch {
            cells: &[],
            extents: [0; R],
        },
    }
}
