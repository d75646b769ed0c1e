//! [`AtomicView`]: a View whose every access in a kernel is atomic (Kokkos'
//! `MemoryTraits<Atomic>`).

use super::atomic::HostAtomic;
use super::view::View;
use crate::layout::{Layout, LayoutRight};
use crate::space::MemorySpace;
use crate::space::host_space::HostSpace;

/// A handle to a View whose accesses in kernels are all atomic, as a Kokkos View with
/// `MemoryTraits<Atomic>`: a `kernel!` may write it at any index (`hist[bin] += 1.0` becomes an
/// atomic add, `a[k] = v` an atomic store, `a[k]` an atomic load), where a plain View may be written
/// only one to one with the iteration index. Made by [`View::atomic`]; it shares the View's
/// allocation (host code reads the results through the View).
///
/// Atomic writes are the sanctioned cross-iteration write: no two accesses race, but a read and a
/// later write of one element are two accesses (`a[k] = a[k] * 2.0` can lose another iteration's
/// update; `+=`, `-=`, `&=`, `|=` and `^=` are single atomic updates).
///
/// ```
/// use ferrokkos::prelude::*;
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let hist = View::<u32, 1>::new("histogram", [4])?;
/// let counts = hist.atomic();
/// parallel_for("bin", 1000, kernel!(|i| counts[i % 4] += 1))?;
/// assert_eq!(hist.to_vec()?, vec![250; 4]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct AtomicView<
    T: HostAtomic,
    const R: usize,
    L: Layout = LayoutRight,
    M: MemorySpace = HostSpace,
> {
    view: View<T, R, L, M>,
}

impl<T: HostAtomic, const R: usize, L: Layout, M: MemorySpace> Clone for AtomicView<T, R, L, M> {
    fn clone(&self) -> Self {
        AtomicView {
            view: self.view.clone(),
        }
    }
}

impl<T: HostAtomic, const R: usize, L: Layout, M: MemorySpace> std::fmt::Debug
    for AtomicView<T, R, L, M>
{
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AtomicView")
            .field("view", &self.view)
            .finish()
    }
}

impl<T: HostAtomic, const R: usize, L: Layout, M: MemorySpace> View<T, R, L, M> {
    /// This View with Kokkos' `Atomic` memory trait: every access a kernel makes through the
    /// returned handle is atomic (see [`AtomicView`]). Shares the allocation.
    pub fn atomic(&self) -> AtomicView<T, R, L, M> {
        AtomicView { view: self.clone() }
    }
}

impl<T: HostAtomic, const R: usize, L: Layout, M: MemorySpace> AtomicView<T, R, L, M> {
    /// The View (the same allocation, accessed normally).
    pub fn view(&self) -> &View<T, R, L, M> {
        &self.view
    }

    /// The View's label.
    pub fn label(&self) -> &str {
        self.view.label()
    }

    /// The extent of dimension `r` (0 beyond the rank).
    pub fn extent(&self, r: usize) -> usize {
        self.view.extent(r)
    }
}
