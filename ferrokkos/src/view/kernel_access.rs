//! What the host side of a `kernel!` kernel uses to reach View elements: copyable accessors created
//! at launch, while the launch holds the allocations' borrows (DESIGN.md decisions 4 and 5).
//!
//! The `kernel!` macro proves its race rules on the kernel's syntax (a written View is touched only at
//! the iteration index; other writes are atomic or sit in `unsafe`), and the launch checks that no
//! written View shares its allocation with another capture. Under those two facts the accessors'
//! safe methods cannot race, which is why only this crate creates them.

use super::element::Element;
use super::raw::RawMapping;
use super::view::View;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::space::Allocation;
use crate::space::MemorySpace;
use std::sync::Arc;

use crate::seal::SealedKernelIndex;

/// An index a kernel may use on a rank-`R` View: `()` (rank 0), any integer (rank 1) or a tuple of
/// integers (ranks 2 to 8). A negative coordinate is out of bounds. (Sealed, like the accessors it
/// indexes.)
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an index of a rank-{R} View in a kernel",
    label = "not an index of a rank-{R} View",
    note = "a kernel indexes a rank-0 View with `()` (`s[()]`), a rank-1 View with one integer of \
            any integer type (`x[i]`) and a View of rank 2 to 8 with a tuple of as many integers \
            (`a[(i, j)]`, `a[(i, j, k)]`)"
)]
pub trait KernelIndex<const R: usize>: SealedKernelIndex + Copy {
    /// The index as `usize` coordinates (negative ones wrap to huge values, hence out of bounds).
    fn to_index(self) -> [usize; R];

    /// The zero-based coordinates of the index in a View whose indices start at `begins` (an
    /// OffsetView's): `index[r] - begins[r]` where that is not negative, else `usize::MAX`, so an
    /// index below its range is out of bounds, never wrapped into it.
    fn offset_index(self, begins: &[i64; R]) -> [usize; R];

    /// The index's exact value, for messages.
    fn exact(self) -> [i128; R];
}

/// The integer types a kernel may index with (sealed).
#[diagnostic::on_unimplemented(
    message = "`{Self}` is not an integer: each coordinate of a View's index in a kernel is one",
    label = "not an integer coordinate",
    note = "a coordinate is an `i8` to `i64`, `isize`, `u8` to `u64` or `usize` (a negative one is \
            out of bounds); convert with `as`"
)]
pub trait IndexInt: SealedKernelIndex + Copy {
    /// The value as a coordinate (negative values wrap, so they are out of bounds).
    fn coordinate(self) -> usize;

    /// `self - begin`, computed exactly, when it is a `usize`; else `usize::MAX` (out of bounds of
    /// any View), so that no index outside the range wraps into it.
    fn past_begin(self, begin: i64) -> usize;

    /// The value, exactly (for messages).
    fn exact_value(self) -> i128;
}

macro_rules! index_int {
    ($($t:ty)*) => {$(
        impl SealedKernelIndex for $t {}

        impl IndexInt for $t {
            #[inline(always)]
            fn coordinate(self) -> usize {
                // Sign extension then reinterpretation: -1 becomes usize::MAX, never in bounds.
                self as i128 as usize
            }
            #[inline(always)]
            fn past_begin(self, begin: i64) -> usize {
                usize::try_from(self as i128 - begin as i128).unwrap_or(usize::MAX)
            }
            fn exact_value(self) -> i128 {
                self as i128
            }
        }
        impl KernelIndex<1> for $t {
            #[inline(always)]
            fn to_index(self) -> [usize; 1] {
                [self.coordinate()]
            }
            #[inline(always)]
            fn offset_index(self, begins: &[i64; 1]) -> [usize; 1] {
                [self.past_begin(begins[0])]
            }
            fn exact(self) -> [i128; 1] {
                [self as i128]
            }
        }
    )*};
}

index_int!(i8 i16 i32 i64 isize u8 u16 u32 u64 usize);

impl SealedKernelIndex for () {}

/// A rank-0 View's one element: `s[()]`.
impl KernelIndex<0> for () {
    #[inline(always)]
    fn to_index(self) -> [usize; 0] {
        []
    }
    fn offset_index(self, _: &[i64; 0]) -> [usize; 0] {
        []
    }
    fn exact(self) -> [i128; 0] {
        []
    }
}

macro_rules! tuple_index {
    ($r:literal: $($i:ident $v:ident),+) => {
        impl<$($i: IndexInt),+> SealedKernelIndex for ($($i,)+) {}

        impl<$($i: IndexInt),+> KernelIndex<$r> for ($($i,)+) {
            #[inline(always)]
            fn to_index(self) -> [usize; $r] {
                let ($($v,)+) = self;
                [$($v.coordinate()),+]
            }
            #[inline(always)]
            fn offset_index(self, begins: &[i64; $r]) -> [usize; $r] {
                let ($($v,)+) = self;
                let mut k = 0;
                [$({ k += 1; $v.past_begin(begins[k - 1]) }),+]
            }
            fn exact(self) -> [i128; $r] {
                let ($($v,)+) = self;
                [$($v.exact_value()),+]
            }
        }
    };
}

tuple_index!(2: I0 a, I1 b);
tuple_index!(3: I0 a, I1 b, I2 c);
tuple_index!(4: I0 a, I1 b, I2 c, I3 d);
tuple_index!(5: I0 a, I1 b, I2 c, I3 d, I4 e);
tuple_index!(6: I0 a, I1 b, I2 c, I3 d, I4 e, I5 f);
tuple_index!(7: I0 a, I1 b, I2 c, I3 d, I4 e, I5 f, I6 g);
tuple_index!(8: I0 a, I1 b, I2 c, I3 d, I4 e, I5 f, I6 g, I7 h);

macro_rules! accessor {
    ($(#[$doc:meta])* $name:ident) => {
        $(#[$doc])*
        pub struct $name<'a, T, const R: usize, L> {
            pub(in crate::view) raw: RawMapping<'a, T, R, L>,
        }

        impl<T, const R: usize, L> Clone for $name<'_, T, R, L> {
            fn clone(&self) -> Self {
                *self
            }
        }

        impl<T, const R: usize, L> Copy for $name<'_, T, R, L> {}

        impl<'a, T: Element, const R: usize, L: Layout> $name<'a, T, R, L> {
            /// The accessor of `view`, borrowed from it (so from the kernel that owns the View).
            ///
            /// # Safety
            /// The launch holds the borrow that this accessor's methods need (shared for reads,
            /// exclusive for writes and atomics) on the View's allocation while the accessor or a
            /// copy is used, and the memory is host-accessible; the kernel using it obeys the race
            /// rules or was declared `unsafe` by its author.
            pub(crate) unsafe fn new<M: MemorySpace>(view: &'a View<T, R, L, M>) -> Self {
                $name { raw: RawMapping::of(view) }
            }

            /// `x.extent(r)`: the extent of dimension `r`.
            #[inline(always)]
            pub fn extent(&self, r: usize) -> usize {
                self.raw.extent(r)
            }
        }
    };
}

accessor! {
    /// A View that a kernel reads: `x[i]`. It lives only as long as the launch that made it (the
    /// lifetime `'a`), so it cannot be kept after the launch.
    ReadAccess
}
accessor! {
    /// A View that a kernel writes at its iteration index (and may read there): `y[i] = v`. Its
    /// element methods are `unsafe`: `kernel!` calls them where it proved that no other iteration
    /// touches the element, and in the author's `unsafe { }` blocks.
    WriteAccess
}
accessor! {
    /// A View that a kernel updates with atomic operations: `h.atomic_add(k, 1)`.
    AtomicAccess
}

impl<T: Element, const R: usize, L: Layout> ReadAccess<'_, T, R, L> {
    /// `x[index]`: reads an element; panics, naming the View, if `index` is out of bounds.
    #[inline(always)]
    #[track_caller]
    pub fn at(&self, index: impl KernelIndex<R>) -> T {
        let p = self.raw.element(index.to_index());
        // SAFETY: in bounds; the launch holds a borrow of the allocation under which nothing writes
        // this element except, in a kernel its author declared `unsafe`, what that author allowed.
        unsafe { p.read() }
    }

    /// `x[index]` where the launch proved `index` in bounds (see `kernel/bounds.rs`): no check.
    ///
    /// # Safety
    /// `index` is in bounds: `kernel!` calls this only in the host body's proven form, which a
    /// launch runs only after proving every such access's index map within the View's extents over
    /// all of its iterations.
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn at_unchecked(&self, index: impl KernelIndex<R>) -> T {
        // SAFETY: in bounds by the caller's contract; otherwise as in `at`.
        unsafe { self.raw.element_unchecked(index.to_index()).read() }
    }
}

impl<T: Element, const R: usize, L: Layout> WriteAccess<'_, T, R, L> {
    /// `y[index]`: reads an element of a View the kernel writes; panics, naming the View, if
    /// `index` is out of bounds.
    ///
    /// # Safety
    /// No other iteration of the launch writes this element (`kernel!` proves it for the iteration
    /// index; elsewhere the author of an `unsafe { }` block promises it).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn at(&self, index: impl KernelIndex<R>) -> T {
        let p = self.raw.element(index.to_index());
        // SAFETY: in bounds; the launch holds the exclusive borrow, and by the caller's contract no
        // other iteration writes this element.
        unsafe { p.read() }
    }

    /// `y[index] = value`: writes an element; panics, naming the View, if `index` is out of
    /// bounds.
    ///
    /// # Safety
    /// No other iteration of the launch reads or writes this element (`kernel!` proves it for the
    /// iteration index; elsewhere the author of an `unsafe { }` block promises it).
    #[inline(always)]
    #[track_caller]
    pub unsafe fn put(&self, index: impl KernelIndex<R>, value: T) {
        let p = self.raw.element(index.to_index());
        // SAFETY: in bounds; the launch holds the exclusive borrow, and by the caller's contract no
        // other iteration touches this element.
        unsafe { p.write(value) }
    }

    /// `y[index]` where the launch proved `index` in bounds: no check.
    ///
    /// # Safety
    /// As for [`WriteAccess::at`], and `index` is in bounds (as for [`ReadAccess::at_unchecked`]).
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn at_unchecked(&self, index: impl KernelIndex<R>) -> T {
        // SAFETY: in bounds and race-free by the caller's contract.
        unsafe { self.raw.element_unchecked(index.to_index()).read() }
    }

    /// `y[index] = value` where the launch proved `index` in bounds: no check.
    ///
    /// # Safety
    /// As for [`WriteAccess::put`], and `index` is in bounds (as for [`ReadAccess::at_unchecked`]).
    #[doc(hidden)]
    #[inline(always)]
    pub unsafe fn put_unchecked(&self, index: impl KernelIndex<R>, value: T) {
        // SAFETY: in bounds and race-free by the caller's contract.
        unsafe { self.raw.element_unchecked(index.to_index()).write(value) }
    }
}

/// How a kernel uses a captured View.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AccessMode {
    /// Read only.
    Read,
    /// Written (at the iteration index, or anywhere in `unsafe`).
    Write,
    /// Updated with atomic operations.
    Atomic,
}

/// How many captured Views a launch keeps on the stack before its lists move to the heap.
const INLINE_VIEWS: usize = 16;

/// One captured View of a kernel: its name in the kernel, its allocation and how it is used.
#[derive(Clone, Copy)]
pub struct ViewAccess<'a> {
    pub(crate) name: &'static str,
    pub(crate) allocation: &'a Arc<Allocation>,
    pub(crate) mode: AccessMode,
    /// The View's extents (a launch proves indices in bounds against them, see `kernel/bounds.rs`).
    pub(crate) extents: &'a [usize],
    /// The first index of each dimension: empty for a View (whose indices start at 0), an
    /// OffsetView's begins otherwise.
    pub(crate) begins: &'a [i64],
    /// The View's memory space, and whether the host and the device can reach it.
    pub(crate) space: &'static str,
    pub(crate) host_accessible: bool,
    pub(crate) device_accessible: bool,
}

impl<'a> ViewAccess<'a> {
    /// The access of the capture `name` to `view`.
    pub(crate) fn of<T: Element, const R: usize, L: Layout, M: MemorySpace>(
        name: &'static str,
        view: &'a View<T, R, L, M>,
        mode: AccessMode,
    ) -> Self {
        ViewAccess {
            name,
            allocation: view.allocation(),
            mode,
            extents: view.extents_slice(),
            begins: &[],
            space: M::NAME,
            host_accessible: M::HOST_ACCESSIBLE,
            device_accessible: M::DEVICE_ACCESSIBLE,
        }
    }
}

/// A list of `Copy` items kept on the stack while it has at most [`INLINE_VIEWS`] of them (a launch
/// builds two: its accesses and its borrows, so a kernel of few Views neither allocates nor zeroes
/// memory); past that all of them move to `spill`, which then holds the whole list.
///
/// Invariant: `len <= INLINE_VIEWS` and the first `len` inline items are written, or
/// `len > INLINE_VIEWS` and `spill` holds all `len` items.
struct Small<T: Copy> {
    items: [std::mem::MaybeUninit<T>; INLINE_VIEWS],
    len: usize,
    spill: Vec<T>,
}

impl<T: Copy> Small<T> {
    fn new() -> Self {
        Small {
            items: [const { std::mem::MaybeUninit::uninit() }; INLINE_VIEWS],
            len: 0,
            spill: Vec::new(),
        }
    }

    /// Appends `item` (any number of them: a kernel may capture any number of Views).
    #[inline]
    fn push(&mut self, item: T) {
        if self.len < INLINE_VIEWS {
            self.items[self.len].write(item);
            self.len += 1;
        } else {
            self.push_spilled(item);
        }
    }

    /// [`Small::push`] past the inline capacity (rare: kept out of the launch's path).
    #[cold]
    #[inline(never)]
    fn push_spilled(&mut self, item: T) {
        if self.len == INLINE_VIEWS {
            let inline = self.as_slice().to_vec();
            self.spill = inline;
        }
        self.spill.push(item);
        self.len += 1;
    }

    fn as_slice(&self) -> &[T] {
        if self.len > INLINE_VIEWS {
            return &self.spill;
        }
        // SAFETY: the first `len` (at most `INLINE_VIEWS`) items were written by `push` (the
        // invariant); `MaybeUninit<T>` has `T`'s layout.
        unsafe { std::slice::from_raw_parts(self.items.as_ptr().cast::<T>(), self.len) }
    }
}

/// Where a launch's kernel runs, for the check that it can reach every captured View.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Reach {
    /// On host threads: every View must be host-accessible; device work still using a View is
    /// waited for.
    Host,
    /// On the GPU: every View must be device-accessible; the launch orders itself after device work
    /// on its stream instead of waiting. Launches of the Cuda backend.
    #[cfg_attr(not(feature = "cuda"), allow(dead_code))]
    Device,
}

/// The borrows one launch holds on the allocations of its captured Views; released when dropped.
pub(crate) struct LaunchBorrows<'a> {
    held: Small<(&'a Arc<Allocation>, bool)>,
}

impl<'a> LaunchBorrows<'a> {
    /// Checks the captures of a kernel and borrows their allocations: an allocation that the kernel
    /// writes (or updates atomically) exclusively, others shared. `visit` hands each captured View's
    /// access to its argument. Unless the kernel is `unsafe`, a written View sharing its allocation
    /// with another captured View is [`Error::KernelAlias`]; `what` names the launch.
    pub(crate) fn take(
        visit: impl FnOnce(&mut dyn FnMut(ViewAccess<'a>)),
        is_unsafe: bool,
        reach: Reach,
        what: &dyn Fn() -> String,
    ) -> Result<LaunchBorrows<'a>> {
        let mut accesses = Small::new();
        visit(&mut |a| accesses.push(a));
        let list = accesses.as_slice();
        for a in list {
            let (ok, who) = match reach {
                Reach::Host => (a.host_accessible, "host code"),
                // An unmanaged View's memory is what the driver said it is, not what its space
                // declares (a CudaSpace View may wrap a host `Vec`).
                Reach::Device => (
                    a.device_accessible && a.allocation.device_reachable() != Some(false),
                    "the GPU",
                ),
            };
            if !ok {
                let wraps = if a.device_accessible {
                    " but wraps host memory (or was made before initialize, when its memory \
                     could not be looked up)"
                } else {
                    ""
                };
                return Err(Error::Unsupported {
                    what: what(),
                    reason: format!(
                        "the kernel captures `{}`, View \"{}\" in {}{wraps}, which {who} cannot \
                         access; deep_copy it into a View of a space it can reach",
                        a.name,
                        a.allocation.label(),
                        a.space
                    ),
                });
            }
        }
        let same = |a: &Allocation, b: &Allocation| std::ptr::eq(a, b);
        if !is_unsafe {
            for (k, a) in list.iter().enumerate() {
                if a.mode == AccessMode::Read {
                    continue;
                }
                let other = list
                    .iter()
                    .enumerate()
                    .find(|(j, b)| *j != k && same(a.allocation, b.allocation));
                if let Some((_, b)) = other {
                    return Err(Error::KernelAlias {
                        launch: what(),
                        written: a.name.to_string(),
                        other: b.name.to_string(),
                        label: a.allocation.label().to_string(),
                    });
                }
            }
        }
        // One borrow per allocation, at its first access: exclusive if any capture of it writes.
        let mut borrows = LaunchBorrows { held: Small::new() };
        for (k, a) in list.iter().enumerate() {
            if list[..k].iter().any(|b| same(a.allocation, b.allocation)) {
                continue;
            }
            let exclusive = list[k..]
                .iter()
                .any(|b| same(a.allocation, b.allocation) && b.mode != AccessMode::Read);
            match (exclusive, reach) {
                (true, Reach::Host) => a.allocation.borrow_exclusive()?,
                (false, Reach::Host) => a.allocation.borrow_shared()?,
                (true, Reach::Device) => a.allocation.borrow_exclusive_async()?,
                (false, Reach::Device) => a.allocation.borrow_shared_async()?,
            }
            // Recorded only once taken, so that dropping `borrows` on an error releases exactly the
            // borrows taken so far.
            borrows.held.push((a.allocation, exclusive));
        }
        Ok(borrows)
    }

    /// The borrowed allocations (one entry per allocation), which the Cuda backend stamps with its
    /// launch.
    #[cfg(feature = "cuda")]
    pub(crate) fn allocations(&self) -> impl Iterator<Item = &'a Allocation> + '_ {
        self.held
            .as_slice()
            .iter()
            .map(|(a, _)| -> &'a Allocation { a })
    }

    /// The borrowed allocations with whether each is borrowed exclusively (written): what
    /// the Cuda backend's launches stamp and order themselves after.
    #[cfg(feature = "cuda")]
    pub(crate) fn held(&self) -> impl Iterator<Item = (&'a Arc<Allocation>, bool)> + '_ {
        self.held.as_slice().iter().copied()
    }
}

impl Drop for LaunchBorrows<'_> {
    fn drop(&mut self) {
        for (alloc, exclusive) in self.held.as_slice() {
            if *exclusive {
                alloc.release_exclusive();
            } else {
                alloc.release_shared();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{INLINE_VIEWS, Small};

    #[test]
    fn small_lists_keep_every_item_past_the_inline_capacity() {
        let mut list = Small::new();
        for k in 0..INLINE_VIEWS {
            list.push(k);
        }
        assert_eq!(list.as_slice(), (0..INLINE_VIEWS).collect::<Vec<_>>());
        for k in INLINE_VIEWS..3 * INLINE_VIEWS {
            list.push(k);
        }
        assert_eq!(list.as_slice(), (0..3 * INLINE_VIEWS).collect::<Vec<_>>());
    }
}
