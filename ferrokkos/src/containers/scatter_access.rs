//! What a host kernel sees of a captured [`ScatterView`](super::ScatterView): `s[k] += v` becomes
//! `s.atomic_add(k, v)` (the same rewrite as an atomic View's), which lands in the copy of the
//! thread's job participant (duplicated) or in the View atomically (atomic).
//!
//! Soundness: a ScatterView's copies are written only by host kernels that capture it, each of
//! which holds its View's allocation borrowed exclusively for the whole launch (the capture's
//! access is atomic), and by `contribute` / `reset`, which hold the same borrow (a host guard).
//! Within a launch, participant `p` (distinct among the threads running the job at the same time,
//! `runtime/context.rs`) writes only copy `p` (participant 0: the View itself), so no two threads
//! write one element at the same time without atomics. A localized accessor (made on the thread
//! running a participant, for that participant) keeps the copy's address instead of looking the
//! participant up per update; the drivers localize per run of iterations, on the running thread.

use std::cell::UnsafeCell;
use std::marker::PhantomData;
use std::sync::OnceLock;

use super::scatter_op::{ScatterMax, ScatterMin, ScatterOp, ScatterProd, ScatterSum, ScatterValue};
use crate::layout::Layout;
use crate::runtime::context;
use crate::view::View;
use crate::view::kernel_access::KernelIndex;
use crate::view::raw::RawMapping;

/// The bytes a copy starts on and is rounded up to: two cache lines (a line and the one an
/// adjacent-line prefetcher pairs with it), so that no two copies share a line.
const COPY_ALIGN: usize = 128;

/// One participant's copy: `span` elements from `lead`, on a [`COPY_ALIGN`] boundary.
struct OneCopy<T> {
    data: Box<[UnsafeCell<T>]>,
    lead: usize,
}

/// The per-participant copies of a duplicated ScatterView: up to `count` copies of the View's span
/// (participants `1..=count`; participant 0 writes the View itself), each element the operation's
/// identity until a contribution lands. A copy is allocated and filled by the participant that
/// updates it, on its own thread, at its first update (so its pages and cache lines start where
/// that thread runs: one buffer filled by the dispatching thread made every thread of a 16-thread
/// histogram update at half its one-thread rate); a copy never made holds only identities.
pub(crate) struct Copies<T> {
    copies: Box<[OnceLock<OneCopy<T>>]>,
    span: usize,
    identity: T,
    count: usize,
}

// SAFETY: the cells are written only as the module's comment says: by one participant per copy
// under the View's exclusive launch borrow, or by `contribute` / `reset` under the same borrow;
// a copy is made once, under its `OnceLock`.
unsafe impl<T: Send> Sync for Copies<T> {}

impl<T: ScatterValue> Copies<T> {
    /// Room for `count` copies of `span` elements, each `identity` (made at their first use).
    pub(crate) fn new(span: usize, count: usize, identity: T) -> Copies<T> {
        Copies {
            copies: (0..count).map(|_| OnceLock::new()).collect(),
            span,
            identity,
            count,
        }
    }

    /// Copy `k`'s `span` elements (`1 <= k <= count`), made now (on this thread) if it was not.
    fn copy(&self, k: usize) -> &[UnsafeCell<T>] {
        let c = self.copies[k - 1].get_or_init(|| {
            let size = std::mem::size_of::<T>().max(1);
            let block = (COPY_ALIGN / size).max(1);
            let data: Box<[UnsafeCell<T>]> = (0..self.span.div_ceil(block) * block + block)
                .map(|_| UnsafeCell::new(self.identity))
                .collect();
            // Elements are `size`-aligned and `size` divides COPY_ALIGN (a power of two at most
            // 16), so an element on the boundary exists within the first `block` elements.
            let lead = data.as_ptr().align_offset(COPY_ALIGN).min(block);
            OneCopy { data, lead }
        });
        &c.data[c.lead..c.lead + self.span]
    }

    /// The copies made so far.
    fn made(&self) -> impl Iterator<Item = &[UnsafeCell<T>]> {
        self.copies
            .iter()
            .filter_map(|c| c.get())
            .map(|c| &c.data[c.lead..c.lead + self.span])
    }

    /// Combines every copy into `dst` (the View's `span` elements, in storage order) with `Op`,
    /// and sets the copies to the identity.
    ///
    /// # Safety
    /// The caller holds the View's allocation exclusively (no launch writes the copies).
    pub(crate) unsafe fn drain_into<Op: ScatterOp>(&self, dst: &mut [T]) {
        let identity = Op::identity::<T>();
        for copy in self.made() {
            for (d, c) in dst.iter_mut().zip(copy) {
                let p = c.get();
                // SAFETY: the caller's exclusive borrow: nothing else touches the copies now.
                unsafe {
                    *d = Op::combine(*d, *p);
                    *p = identity;
                }
            }
        }
    }

    /// Sets every copy to `identity`.
    ///
    /// # Safety
    /// As for [`Copies::drain_into`].
    pub(crate) unsafe fn fill(&self, identity: T) {
        for c in self.made().flatten() {
            // SAFETY: as in `drain_into`.
            unsafe { *c.get() = identity };
        }
    }
}

/// A captured ScatterView in a host kernel: `s.atomic_add(k, v)` for `s[k] += v`, and the other
/// updates of its operation. Its lifetime is the launch's.
pub struct ScatterAccess<'a, T, const R: usize, Op, L> {
    raw: RawMapping<'a, T, R, L>,
    /// The View's first element (the base of the offsets the copies share).
    base: *mut T,
    /// The copies (duplicated), or none (atomic).
    copies: Option<&'a Copies<T>>,
    /// Where the updates of the participant this accessor was localized for land (the View's
    /// first element for participant 0, its copy's otherwise; see [`ScatterAccess::localized`]),
    /// or null: each update then looks up the running participant.
    own: *mut T,
    _op: PhantomData<Op>,
}

impl<T, const R: usize, Op, L> Clone for ScatterAccess<'_, T, R, Op, L> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<T, const R: usize, Op, L> Copy for ScatterAccess<'_, T, R, Op, L> {}

// SAFETY: the accessor is pointers into memory the launch borrowed; which thread writes where is
// the module's invariant, not the accessor's location.
unsafe impl<T: Send, const R: usize, Op, L> Sync for ScatterAccess<'_, T, R, Op, L> {}
// SAFETY: as for `Sync`.
unsafe impl<T: Send, const R: usize, Op, L> Send for ScatterAccess<'_, T, R, Op, L> {}

impl<'a, T: ScatterValue, const R: usize, Op: ScatterOp, L: Layout> ScatterAccess<'a, T, R, Op, L> {
    /// The accessor of `view` with `copies` (a duplicated ScatterView) or without (atomic).
    ///
    /// # Safety
    /// The launch holds `view`'s allocation exclusively while the accessor is used, the memory is
    /// host-accessible, and `copies` (if any) are the ScatterView's own, of `view.span()`
    /// elements each (a contiguous View).
    pub(crate) unsafe fn new<M: crate::space::MemorySpace>(
        view: &'a View<T, R, L, M>,
        copies: Option<&'a Copies<T>>,
    ) -> Self {
        ScatterAccess {
            raw: RawMapping::of(view),
            base: view.ptr().as_ptr(),
            copies,
            own: std::ptr::null_mut(),
            _op: PhantomData,
        }
    }

    /// This accessor for the participant that the calling thread runs now: its updates land in
    /// that participant's copy without looking the participant up per update. A host driver
    /// localizes its kernel once per run of iterations, on the thread that runs them; every
    /// update then goes where [`context::participant`] would have sent it there.
    pub(crate) fn localized(self) -> Self {
        let Some(copies) = self.copies else {
            return self;
        };
        let own = match context::participant() {
            0 => self.base,
            k => {
                Self::check_participant(k, copies.count);
                // `UnsafeCell<T>` has `T`'s layout: copy `k`'s first cell is its first element.
                UnsafeCell::raw_get(copies.copy(k).as_ptr())
            }
        };
        ScatterAccess { own, ..self }
    }

    /// Panics unless participant `k` has a copy.
    #[track_caller]
    fn check_participant(k: usize, count: usize) {
        assert!(
            k <= count,
            "a ScatterView has {count} copies, and participant {k} of a host job updates it"
        );
    }

    /// `s.extent(r)`: the extent of dimension `r`.
    #[inline(always)]
    pub fn extent(&self, r: usize) -> usize {
        self.raw.extent(r)
    }

    /// Combines `v` into the element at `index` with `combine`: in this participant's copy, or
    /// atomically (`atomic`) without copies.
    #[inline(always)]
    #[track_caller]
    fn update(
        &self,
        index: impl KernelIndex<R>,
        v: T,
        combine: impl Fn(T, T) -> T,
        atomic: unsafe fn(*mut T, T),
    ) {
        let p = self.raw.element(index.to_index());
        let Some(copies) = self.copies else {
            // SAFETY: `p` is in bounds and aligned; every access of the View in this launch is
            // atomic (no copies), and the launch holds it exclusively.
            unsafe { atomic(p, v) };
            return;
        };
        // SAFETY: `p` is in the View's span (bounds-checked), so its offset is below `span`, the
        // length of each copy.
        let offset = unsafe { p.offset_from(self.base) } as usize;
        let q = if !self.own.is_null() {
            // SAFETY: `own` is the first element of the localizing participant's copy (or the View)
            // of `span` elements, and `offset < span`.
            unsafe { self.own.add(offset) }
        } else {
            match context::participant() {
                0 => p,
                k => {
                    Self::check_participant(k, copies.count);
                    copies.copy(k)[offset].get()
                }
            }
        };
        // SAFETY: `q` is this participant's own element (the View for participant 0, its copy
        // otherwise), which no other thread touches during the launch (module invariant).
        unsafe { *q = combine(*q, v) };
    }
}

impl<T: ScatterValue, const R: usize, L: Layout> ScatterAccess<'_, T, R, ScatterSum, L> {
    /// `s[index] += v`.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_add(&self, index: impl KernelIndex<R>, v: T) {
        // SAFETY (each atomic closure below): `update` calls it with the element's pointer, in
        // bounds and aligned, when every access of the View in the launch is atomic.
        self.update(index, v, T::add, |p, v| unsafe {
            T::fetch_add(p, v, std::sync::atomic::Ordering::Relaxed);
        });
    }

    /// `s[index] -= v`.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_sub(&self, index: impl KernelIndex<R>, v: T) {
        // SAFETY: as in `atomic_add`.
        self.update(index, v, T::sub, |p, v| unsafe {
            T::fetch_sub(p, v, std::sync::atomic::Ordering::Relaxed);
        });
    }
}

impl<T: ScatterValue, const R: usize, L: Layout> ScatterAccess<'_, T, R, ScatterProd, L> {
    /// `s[index] *= v`.
    #[inline(always)]
    #[track_caller]
    pub fn atomic_mul(&self, index: impl KernelIndex<R>, v: T) {
        // SAFETY: as in `ScatterSum`'s `atomic_add`.
        self.update(index, v, T::mul, |p, v| unsafe {
            T::update(p, crate::view::MemoryOrder::Relaxed, |x| T::mul(x, v));
        });
    }
}

impl<T: ScatterValue, const R: usize, L: Layout> ScatterAccess<'_, T, R, ScatterMin, L> {
    /// Keeps the smaller of the element and `v` (Kokkos' `access(index).update(v)`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_min(&self, index: impl KernelIndex<R>, v: T) {
        // SAFETY: as in `ScatterSum`'s `atomic_add`.
        self.update(index, v, T::min, |p, v| unsafe {
            T::fetch_min(p, v, std::sync::atomic::Ordering::Relaxed);
        });
    }
}

impl<T: ScatterValue, const R: usize, L: Layout> ScatterAccess<'_, T, R, ScatterMax, L> {
    /// Keeps the larger of the element and `v` (Kokkos' `access(index).update(v)`).
    #[inline(always)]
    #[track_caller]
    pub fn atomic_max(&self, index: impl KernelIndex<R>, v: T) {
        // SAFETY: as in `ScatterSum`'s `atomic_add`.
        self.update(index, v, T::max, |p, v| unsafe {
            T::fetch_max(p, v, std::sync::atomic::Ordering::Relaxed);
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::containers::ScatterSum;

    #[test]
    fn a_copy_is_made_at_its_first_use_aligned_and_drained_into_the_view() {
        let copies = Copies::<u32>::new(5, 3, 0);
        assert_eq!(copies.made().count(), 0);
        let two = copies.copy(2);
        assert_eq!(two.len(), 5);
        assert_eq!(two.as_ptr() as usize % COPY_ALIGN, 0);
        // SAFETY: this test is the only user of the copies.
        unsafe { *two[3].get() = 7 };
        assert_eq!(copies.made().count(), 1);
        let mut view = [1u32; 5];
        // SAFETY: as above.
        unsafe { copies.drain_into::<ScatterSum>(&mut view) };
        assert_eq!(view, [1, 1, 1, 8, 1]);
        // SAFETY: as above.
        assert_eq!(unsafe { *copies.copy(2)[3].get() }, 0);
        assert_eq!(copies.made().count(), 1);
    }
}
