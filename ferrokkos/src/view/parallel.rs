//! [`ParallelMut`]: writing a View's elements from the iterations of a host kernel, under Kokkos'
//! contract (DESIGN.md decision 4).

use super::element::Element;
use super::index::ViewIndex;
use super::raw::RawMapping;
use super::view::View;
use crate::error::Result;
use crate::layout::Layout;
use crate::space::HostAccessible;

/// Read-write access to a View's elements that many threads share: what a host kernel uses to write a
/// View. Taken with the `unsafe` [`View::parallel_mut`]; holds the allocation's exclusive borrow (no
/// other guard of it can exist meanwhile) and releases it when dropped.
///
/// `get` and `set` take `&self`, so a kernel running on several threads can call them. Every index is
/// bounds-checked; an out-of-bounds index panics with the View's label, the index and the extents.
pub struct ParallelMut<'a, T: Element, const R: usize, L: Layout, M: HostAccessible> {
    raw: RawMapping<'a, T, R, L>,
    view: &'a View<T, R, L, M>,
}

// SAFETY: sharing a ParallelMut among threads lets them read and write elements concurrently. The
// `unsafe` constructor's contract (no element written by one access and touched by another while the
// accessor is alive) makes those accesses race-free; the elements are `Send + Sync` plain data.
unsafe impl<T: Element, const R: usize, L: Layout, M: HostAccessible> Sync
    for ParallelMut<'_, T, R, L, M>
{
}

// SAFETY: as for `Sync`; the accessor owns nothing tied to a thread (the borrow flag is atomic).
unsafe impl<T: Element, const R: usize, L: Layout, M: HostAccessible> Send
    for ParallelMut<'_, T, R, L, M>
{
}

impl<T: Element, const R: usize, L: Layout, M: HostAccessible> View<T, R, L, M> {
    /// Read-write access that the iterations of a host kernel can share (see [`ParallelMut`]). An
    /// [`crate::Error::Borrow`] naming the View if any other guard of its allocation is alive.
    ///
    /// # Safety
    /// Kokkos' contract for kernels: while the returned accessor (or a copy of a reference to it) is
    /// alive, no element may be written through it by one thread while another thread reads or writes
    /// the same element through it. In a `parallel_for`, that means no element is written by two
    /// iterations, and no element written by one iteration is read by another. (Data races are
    /// undefined behaviour; an out-of-bounds index is not: it always panics.)
    ///
    /// ```
    /// use ferrokkos::prelude::*;
    /// let _rt = ferrokkos::initialize(InitSettings::new())?;
    /// let exec = Threads::default_instance()?;
    /// let v = View::<u64, 1>::new("squares", [100])?;
    /// {
    ///     // SAFETY: iteration i writes element i only.
    ///     let out = unsafe { v.parallel_mut()? };
    ///     assert!(v.host().is_err()); // exclusively borrowed meanwhile
    ///     parallel_for("squares", RangePolicy::new(&exec, 0, 100)?, |i: usize| {
    ///         out.set(i, (i * i) as u64)
    ///     })?;
    /// }
    /// assert_eq!(v.get(9)?, 81);
    /// # Ok::<(), ferrokkos::Error>(())
    /// ```
    pub unsafe fn parallel_mut(&self) -> Result<ParallelMut<'_, T, R, L, M>> {
        self.allocation().borrow_exclusive()?;
        Ok(ParallelMut {
            raw: RawMapping::of(self),
            view: self,
        })
    }
}

impl<T: Element, const R: usize, L: Layout, M: HostAccessible> ParallelMut<'_, T, R, L, M> {
    /// Reads the element at `index`.
    #[inline(always)]
    #[track_caller]
    pub fn get(&self, index: impl ViewIndex<R>) -> T {
        let p = self.raw.element(index.to_array());
        // SAFETY: in bounds; no other guard exists; by the constructor's contract no other thread
        // writes this element now.
        unsafe { p.read() }
    }

    /// Writes the element at `index`.
    #[inline(always)]
    #[track_caller]
    pub fn set(&self, index: impl ViewIndex<R>, value: T) {
        let p = self.raw.element(index.to_array());
        // SAFETY: in bounds; no other guard exists; by the constructor's contract no other thread
        // reads or writes this element now.
        unsafe { p.write(value) }
    }

    /// The View this accessor writes.
    pub fn view(&self) -> &View<T, R, L, M> {
        self.view
    }
}

impl<T: Element, const R: usize, L: Layout, M: HostAccessible> Drop
    for ParallelMut<'_, T, R, L, M>
{
    fn drop(&mut self) {
        self.view.allocation().release_exclusive();
    }
}
