//! [`ScatterView`]: Kokkos' `Kokkos::Experimental::ScatterView`, a View that many iterations
//! update at the same elements (histograms, particle deposition, assembly), without races and
//! without the cost of contended atomics on the host.

use std::marker::PhantomData;
use std::sync::Arc;

use super::scatter_access::{Copies, ScatterAccess};
use super::scatter_op::{ScatterOp, ScatterSum, ScatterValue};
use crate::error::{Error, Result};
use crate::kernel::capture::{Atomic, AtomicMemory, Borrowed, Capture, IntoCapture, KernelAtomic};
use crate::kernel::params::ParamWriter;
use crate::kernel::view_expr::ViewExpr;
use crate::layout::{Layout, LayoutRight};
use crate::space::MemorySpace;
use crate::space::host_space::HostSpace;
use crate::view::View;
use crate::view::kernel_access::{AccessMode, ViewAccess};

/// How a [`ScatterView`] takes contributions (Kokkos' `ScatterDuplicated` / `ScatterAtomic`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ScatterMode {
    /// Each thread of a host launch combines into its own copy (the first into the View itself);
    /// [`ScatterView::contribute`] combines the copies into the View. The default for
    /// host-accessible contiguous Views (Kokkos' default on host spaces).
    Duplicated,
    /// Every update is an atomic operation on the View (Kokkos' default on GPUs, and the only
    /// mode of a View the host cannot reach).
    Atomic,
}

/// A View that kernels update with one operation (`Op`: [`ScatterSum`] by default, or
/// `ScatterProd`, `ScatterMin`, `ScatterMax`) at any element: Kokkos' `ScatterView`.
///
/// In a kernel, `s[k] += v` (a sum; `s[k] -= v`), `s[k] *= v` (a product), `s.atomic_min(k, v)`,
/// `s.atomic_max(k, v)`; nothing reads it. On the GPU every update is atomic. On the host, in the
/// default [`ScatterMode::Duplicated`], each thread of a launch updates its own copy (no atomics,
/// no contention), and [`ScatterView::contribute`] combines the copies into the View: call it
/// before reading the View. The View may hold values before: contributions are combined with
/// them.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::ScatterView;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let bins = View::<u32, 1>::new("bins", [8])?;
/// let scatter = ScatterView::new(&bins)?;
/// parallel_for("histogram", RangePolicy::new(&exec, 0, 1000)?, kernel!(|i| {
///     scatter[(i * 7) % 8] += 1;
/// }))?;
/// scatter.contribute()?;
/// assert_eq!(bins.to_vec()?, vec![125; 8]);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct ScatterView<T, const R: usize, Op = ScatterSum, L = LayoutRight, M = HostSpace>
where
    T: ScatterValue,
    L: Layout,
    M: MemorySpace,
{
    view: View<T, R, L, M>,
    copies: Option<Arc<Copies<T>>>,
    _op: PhantomData<Op>,
}

impl<T, const R: usize, Op, L: Layout, M: MemorySpace> Clone for ScatterView<T, R, Op, L, M>
where
    T: ScatterValue,
{
    /// Another handle of the same View and copies.
    fn clone(&self) -> Self {
        ScatterView {
            view: self.view.clone(),
            copies: self.copies.clone(),
            _op: PhantomData,
        }
    }
}

impl<T, const R: usize, Op, L, M> ScatterView<T, R, Op, L, M>
where
    T: ScatterValue,
    Op: ScatterOp,
    L: Layout,
    M: MemorySpace,
{
    /// A ScatterView of `view` combining with `op`, in the mode Kokkos picks for its space:
    /// duplicated where the host reaches the View and it is contiguous (one copy per host thread
    /// beyond the first), atomic otherwise. The View keeps its values; contributions combine with
    /// them.
    pub fn with_op(view: &View<T, R, L, M>, op: Op) -> Result<Self> {
        let mode = if M::HOST_ACCESSIBLE && view.span_is_contiguous() {
            ScatterMode::Duplicated
        } else {
            ScatterMode::Atomic
        };
        Self::with_mode(view, op, mode)
    }

    /// A ScatterView of `view` combining with `op` in `mode`. `Err` for
    /// [`ScatterMode::Duplicated`] if the host cannot reach the View or it is not contiguous.
    pub fn with_mode(view: &View<T, R, L, M>, _op: Op, mode: ScatterMode) -> Result<Self> {
        let copies = match mode {
            ScatterMode::Atomic => None,
            ScatterMode::Duplicated => Some(Arc::new(Self::copies(view)?)),
        };
        Ok(ScatterView {
            view: view.clone(),
            copies,
            _op: PhantomData,
        })
    }

    /// The copies of a duplicated ScatterView of `view`: room for one per host thread beyond the
    /// first, each made (the operation's identity) by its thread at its first update.
    fn copies(view: &View<T, R, L, M>) -> Result<Copies<T>> {
        if !M::HOST_ACCESSIBLE || !view.span_is_contiguous() {
            return Err(Error::Unsupported {
                what: format!("a duplicated ScatterView of View \"{}\"", view.label()),
                reason: format!(
                    "its copies are host memory for a contiguous View the host reaches, and this \
                     one is {} in {}; use ScatterMode::Atomic",
                    if view.span_is_contiguous() {
                        "contiguous"
                    } else {
                        "strided"
                    },
                    M::NAME
                ),
            });
        }
        let threads = crate::runtime::settings()?.effective_threads().max(1);
        Ok(Copies::new(view.span(), threads - 1, Op::identity::<T>()))
    }

    /// Which mode it takes contributions in.
    pub fn mode(&self) -> ScatterMode {
        match self.copies {
            Some(_) => ScatterMode::Duplicated,
            None => ScatterMode::Atomic,
        }
    }

    /// The View the contributions go to.
    pub fn subview(&self) -> &View<T, R, L, M> {
        &self.view
    }

    /// Combines the copies' contributions into the View and sets the copies back to the identity
    /// (Kokkos' `contribute(view, scatter)`, which leaves them: here a second `contribute` adds
    /// nothing twice). Nothing to do in atomic mode. `Err` if the View is in use (a guard or a
    /// launch holds it).
    pub fn contribute(&self) -> Result<()> {
        let Some(copies) = &self.copies else {
            return Ok(());
        };
        let _held = Exclusive::take(&self.view)?;
        // SAFETY: copies exist only for a contiguous View the host reaches (`duplicated`), so its
        // `span` elements from its first are host memory of its allocation, which `_held` holds
        // exclusively: no guard, launch or other thread reaches them (nor the copies, which only
        // launches holding the same allocation write) until it is dropped.
        let elements =
            unsafe { std::slice::from_raw_parts_mut(self.view.ptr().as_ptr(), self.view.span()) };
        // SAFETY: as above: no launch writes the copies now.
        unsafe { copies.drain_into::<Op>(elements) };
        Ok(())
    }

    /// Sets the View and the copies to the identity (Kokkos' `reset()`).
    pub fn reset(&self) -> Result<()> {
        self.reset_except_view()?;
        crate::view::deep_copy(&self.view, Op::identity::<T>())
    }

    /// Sets the copies to the identity and leaves the View (Kokkos' `reset_except(view)`).
    pub fn reset_except_view(&self) -> Result<()> {
        let Some(copies) = &self.copies else {
            return Ok(());
        };
        let _held = Exclusive::take(&self.view)?;
        // SAFETY: as in `contribute`: `_held` keeps launches from the copies.
        unsafe { copies.fill(Op::identity::<T>()) };
        Ok(())
    }
}

/// The View's allocation held exclusively, as a host guard holds it, until dropped.
struct Exclusive<'a>(&'a crate::space::Allocation);

impl<'a> Exclusive<'a> {
    fn take<T: ScatterValue, const R: usize, L: Layout, M: MemorySpace>(
        view: &'a View<T, R, L, M>,
    ) -> Result<Exclusive<'a>> {
        view.allocation().borrow_exclusive()?;
        Ok(Exclusive(view.allocation()))
    }
}

impl Drop for Exclusive<'_> {
    fn drop(&mut self) {
        self.0.release_exclusive();
    }
}

impl<T, const R: usize, L, M> ScatterView<T, R, ScatterSum, L, M>
where
    T: ScatterValue,
    L: Layout,
    M: MemorySpace,
{
    /// A ScatterView of `view` that adds contributions (Kokkos' default `ScatterSum`), in the mode
    /// Kokkos picks for its space (see [`ScatterView::with_op`]).
    pub fn new(view: &View<T, R, L, M>) -> Result<Self> {
        Self::with_op(view, ScatterSum)
    }
}

/// A kernel captures a ScatterView as itself (a clone: the same View and copies).
impl<T, const R: usize, Op, L, M> IntoCapture for ScatterView<T, R, Op, L, M>
where
    T: ScatterValue,
    Op: ScatterOp,
    L: Layout,
    M: MemorySpace,
{
    type Value = ScatterView<T, R, Op, L, M>;
    fn capture_value(&self) -> Self::Value {
        self.clone()
    }
}

impl<T: ScatterValue, const R: usize, Op: ScatterOp, L: Layout, M: MemorySpace> crate::seal::Sealed
    for ScatterView<T, R, Op, L, M>
{
}

impl<T: ScatterValue, const R: usize, Op: ScatterOp, L: Layout, M: MemorySpace> KernelAtomic
    for ScatterView<T, R, Op, L, M>
{
}

impl<T: ScatterValue, const R: usize, Op: ScatterOp, L: Layout, M: MemorySpace>
    crate::kernel::capture::AtomicSeal for ScatterView<T, R, Op, L, M>
{
}

#[diagnostic::do_not_recommend]
impl<T: ScatterValue, const R: usize, Op: ScatterOp, L: Layout, M: MemorySpace> AtomicMemory
    for ScatterView<T, R, Op, L, M>
{
}

impl<T: ScatterValue, const R: usize, Op: ScatterOp, L: Layout, M: MemorySpace> crate::seal::Sealed
    for Atomic<ScatterView<T, R, Op, L, M>>
{
}

impl<T, const R: usize, Op, L, M> Capture for Atomic<ScatterView<T, R, Op, L, M>>
where
    T: ScatterValue,
    Op: ScatterOp,
    L: Layout,
    M: MemorySpace,
{
    type Host<'a> = ScatterAccess<'a, T, R, Op, L>;
    type Shadow = ViewExpr<T, R, L>;
    fn name(&self) -> &'static str {
        self.name
    }
    fn access(&self) -> Option<ViewAccess<'_>> {
        Some(ViewAccess::of(
            self.name,
            &self.value.view,
            AccessMode::Atomic,
        ))
    }
    fn host<'a>(&'a self, _: &Borrowed) -> ScatterAccess<'a, T, R, Op, L> {
        // SAFETY: the proof says the launch holds the View's allocation exclusively (an atomic
        // access) while the accessor is used, in host-accessible memory (a host launch checked
        // it); the copies are this ScatterView's, made for its View (contiguous, `span` long).
        unsafe { ScatterAccess::new(&self.value.view, self.value.copies.as_deref()) }
    }
    #[inline(always)]
    fn localize<'a>(host: ScatterAccess<'a, T, R, Op, L>) -> ScatterAccess<'a, T, R, Op, L>
    where
        Self: 'a,
    {
        host.localized()
    }
    fn shadow(&self, cxx_name: &str) -> Self::Shadow {
        ViewExpr::new(cxx_name)
    }
    fn cxx_type() -> String {
        crate::kernel::capture::view_cxx::<T, R, L>(false)
    }
    fn pack(&self, w: &mut ParamWriter<'_>) {
        w.push_view(
            self.value.view.as_ptr() as u64,
            &self.value.view.extents(),
            &self.value.view.strides(),
        );
    }
}
