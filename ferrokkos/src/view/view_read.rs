//! [`ViewRead`]: what a `#[device]` function's `&View<T, R>` parameter becomes on the host, so that
//! one function body reads a kernel's View (its launch accessor) and a host guard alike.

use super::element::Element;
use super::guard::HostRef;
use super::kernel_access::{AtomicAccess, KernelIndex, ReadAccess};
use crate::layout::Layout;
use crate::seal::{Sealed, SealedViewRead};
use crate::space::HostAccessible;

/// Read access to the elements of a rank-`R` View of `T`, whatever its layout and space: the host
/// type of a `#[ferrokkos::device]` function's `&View<T, R>` parameter (`#[device]` rewrites the
/// parameter to `&impl ViewRead<T, R>` and its indexing `u[(j, k)]` to `u.at((j, k))`).
///
/// Kernels pass their captured Views (`laplacian(&u, j, k)`); host code passes a guard
/// (`laplacian(&u.host()?, j, k)`). Sealed: a kernel trusts `at` to read and never write.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::{device, kernel};
///
/// #[device]
/// fn neighbours(u: &View<f64, 1>, i: usize) -> f64 {
///     u[i - 1] + u[i + 1]
/// }
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let u = View::<f64, 1>::new("u", [5])?;
/// let s = View::<f64, 1>::new("s", [5])?;
/// parallel_for("fill", 5, kernel!(|i| u[i] = i as f64))?;
/// parallel_for("sum", RangePolicy::new(&Serial::default_instance()?, 1, 4)?,
///     kernel!(|i| s[i] = neighbours(&u, i)))?;
/// assert_eq!(s.to_vec()?, [0.0, 2.0, 4.0, 6.0, 0.0]);
/// assert_eq!(neighbours(&u.host()?, 2), 4.0);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not a readable View of `{T}` of rank {R}",
    label = "a `&View<{T}, {R}>` parameter of a `#[device]` function",
    note = "kernels pass a captured View that they only read (`f(&u, i)`); host code passes a guard \
            (`f(&u.host()?, i)`)"
)]
pub trait ViewRead<T, const R: usize>: SealedViewRead {
    /// `u[index]`: the element at `index`; panics, naming the View, if it is out of bounds.
    #[track_caller]
    fn at(&self, index: impl KernelIndex<R>) -> T;

    /// `u.extent(r)`: the extent of dimension `r`; panics if the View has no dimension `r`.
    fn extent(&self, r: usize) -> usize;
}

impl<T: Element, const R: usize, L: Layout> Sealed for ReadAccess<'_, T, R, L> {}

impl<T: Element, const R: usize, L: Layout> ViewRead<T, R> for ReadAccess<'_, T, R, L> {
    #[inline(always)]
    #[track_caller]
    fn at(&self, index: impl KernelIndex<R>) -> T {
        ReadAccess::at(self, index)
    }

    #[inline(always)]
    fn extent(&self, r: usize) -> usize {
        ReadAccess::extent(self, r)
    }
}

impl<T: Element, const R: usize, L: Layout, M: HostAccessible> Sealed for HostRef<'_, T, R, L, M> {}

impl<T: Element, const R: usize, L: Layout, M: HostAccessible> ViewRead<T, R>
    for HostRef<'_, T, R, L, M>
{
    #[inline(always)]
    #[track_caller]
    fn at(&self, index: impl KernelIndex<R>) -> T {
        self.element(index.to_index())
    }

    #[inline(always)]
    fn extent(&self, r: usize) -> usize {
        self.view().extent(r)
    }
}

/// A View a kernel reads, passed to a `#[device]` function whose every read of it the launch
/// proved in bounds (see `kernel/device_bounds.rs`): `at` skips the check. Only the proven form of
/// a `kernel!` body makes one, for the duration of one call.
#[doc(hidden)]
#[derive(Clone, Copy)]
pub struct ProvenRead<'a, T, const R: usize, L> {
    access: ReadAccess<'a, T, R, L>,
}

impl<'a, T: Element, const R: usize, L: Layout> ProvenRead<'a, T, R, L> {
    /// `access`, read without checks.
    ///
    /// # Safety
    /// Every index this value's `at` is called with is within the View's extents: the kernel
    /// hands it to a `#[device]` function whose `DeviceFunction::ACCESSES` lists every read the
    /// function makes of that parameter, and the launch proved those maps, at the call's
    /// arguments, in bounds over the iterations that run this form.
    #[inline(always)]
    pub unsafe fn new(access: &ReadAccess<'a, T, R, L>) -> Self {
        ProvenRead { access: *access }
    }
}

/// What the proven form of a kernel body hands a `#[device]` function for a View it passes
/// (macro support): a View the kernel reads becomes a [`ProvenRead`]; an atomic View stays itself
/// (its atomic methods keep their checks, and no `ACCESSES` entry names it).
#[doc(hidden)]
pub trait ProvenArg {
    /// What the function receives.
    type Proven;
    /// `self` for the proven call.
    ///
    /// # Safety
    /// As [`ProvenRead::new`]'s.
    unsafe fn proven(&self) -> Self::Proven;
}

impl<'a, T: Element, const R: usize, L: Layout> ProvenArg for ReadAccess<'a, T, R, L> {
    type Proven = ProvenRead<'a, T, R, L>;
    #[inline(always)]
    unsafe fn proven(&self) -> ProvenRead<'a, T, R, L> {
        // SAFETY: the caller's contract is `new`'s.
        unsafe { ProvenRead::new(self) }
    }
}

impl<'a, T: Element, const R: usize, L: Layout> ProvenArg for AtomicAccess<'a, T, R, L> {
    type Proven = AtomicAccess<'a, T, R, L>;
    #[inline(always)]
    unsafe fn proven(&self) -> AtomicAccess<'a, T, R, L> {
        *self
    }
}

impl<T: Element, const R: usize, L: Layout> Sealed for ProvenRead<'_, T, R, L> {}

impl<T: Element, const R: usize, L: Layout> ViewRead<T, R> for ProvenRead<'_, T, R, L> {
    #[inline(always)]
    fn at(&self, index: impl KernelIndex<R>) -> T {
        // SAFETY: `index` is in bounds by the contract of `new`.
        unsafe { self.access.at_unchecked(index) }
    }

    #[inline(always)]
    fn extent(&self, r: usize) -> usize {
        self.access.extent(r)
    }
}
