//! [`View`]: a multidimensional array in a memory space, shared by reference like a Kokkos View.

use std::fmt;
use std::marker::PhantomData;
use std::ptr::NonNull;
use std::sync::Arc;

use super::element::Element;
use crate::error::{Error, Result};
use crate::layout::{
    Layout, LayoutRight, LayoutStride, RegularLayout, checked_size, checked_span,
    strides_are_injective,
};
use crate::space::Allocation;
use crate::space::host_space::HostSpace;
use crate::space::{Init, MemorySpace};

/// The highest rank a View may have (as in Kokkos).
pub const MAX_RANK: usize = 8;

/// A multidimensional array of `T` with rank `R`, layout `L`, in memory space `M`.
///
/// Views have Kokkos' reference semantics: `clone()` is cheap and the clone shares the allocation; the
/// memory is freed when the last handle (including subviews) drops. Views are `Send + Sync`.
///
/// Host code reads and writes elements through borrow-checked guards ([`View::host`],
/// [`View::host_mut`]) or by value ([`View::get`], [`View::set`]) (see "Host access" below).
///
/// # Host access and why it is race-free
///
/// View handles are shared freely (clones, subviews, other threads), so a `&mut View` proves nothing
/// about who else can reach the elements. Host code therefore reaches elements only through *guards*
/// taken on the allocation, which every handle of it shares:
///
/// - [`View::host`] returns a [`HostRef`](crate::HostRef): shared, read-only;
/// - [`View::host_mut`] returns a [`HostMut`](crate::HostMut): exclusive, read-write;
/// - [`View::get`] / [`View::set`] take and release a guard for one element.
///
/// The allocation's borrow flag is an atomic reader-writer state. A guard that conflicts with one alive
/// anywhere in the process is an [`crate::Error::Borrow`] naming the View, never a wait. Since every
/// safe path to the elements holds a guard, no two safe accesses can race. Raw pointers
/// ([`View::as_ptr`]) exist for interoperability; using them is `unsafe`.
///
/// Guards index with `g[i]` (rank 1), `g[(i, j, ...)]` (ranks 2 to 8), `g[[i, j, ...]]` (any rank) and
/// `g[()]` (rank 0). Indexing is always bounds-checked; an out-of-bounds index panics with a message
/// naming the label, the index and the extents.
///
/// # Examples
///
/// ```
/// use ferrokkos::{InitSettings, LayoutLeft, View};
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let a = View::<f64, 2>::new("A", [3, 4])?; // LayoutRight in HostSpace, zero-filled
/// assert_eq!((a.label(), a.extent(0), a.extent(1), a.size()), ("A", 3, 4, 12));
/// assert_eq!((a.stride(0), a.stride(1)), (4, 1));
///
/// let b = View::<f32, 3, LayoutLeft>::new("B", [2, 3, 4])?;
/// assert_eq!([b.stride(0), b.stride(1), b.stride(2)], [1, 2, 6]);
///
/// let alias = a.clone(); // shares the allocation
/// alias.set((1, 2), 5.0)?;
/// assert_eq!(a.get((1, 2))?, 5.0);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct View<T: Element, const R: usize, L: Layout = LayoutRight, M: MemorySpace = HostSpace> {
    alloc: Arc<Allocation>,
    ptr: NonNull<T>,
    extents: [usize; R],
    strides: [usize; R],
    _marker: PhantomData<(L, M)>,
}

// SAFETY: a View is a handle to a shared allocation of `T: Send + Sync` plain data. Host access to the
// elements goes through guards that check the allocation's atomic borrow flag, and kernels access them
// only through accessors whose creation proves (or, under `unsafe`, promises) freedom from data races.
unsafe impl<T: Element, const R: usize, L: Layout, M: MemorySpace> Send for View<T, R, L, M> {}
// SAFETY: as for Send; `&View` allows no unsynchronized element access.
unsafe impl<T: Element, const R: usize, L: Layout, M: MemorySpace> Sync for View<T, R, L, M> {}

impl<T: Element, const R: usize, L: Layout, M: MemorySpace> Clone for View<T, R, L, M> {
    fn clone(&self) -> Self {
        View {
            alloc: Arc::clone(&self.alloc),
            ptr: self.ptr,
            extents: self.extents,
            strides: self.strides,
            _marker: PhantomData,
        }
    }
}

impl<T: Element, const R: usize, L: Layout, M: MemorySpace> fmt::Debug for View<T, R, L, M> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("View")
            .field("label", &self.label())
            .field("type", &std::any::type_name::<T>())
            .field("extents", &self.extents)
            .field("strides", &self.strides)
            .field("layout", &L::NAME)
            .field("space", &M::NAME)
            .finish()
    }
}

/// How to allocate a View: its label, memory space and initialization (Kokkos' `view_alloc`).
///
/// A plain `&str` or `String` converts into a `ViewAlloc` with default settings, so
/// `View::new("x", [n])` and `View::new(view_alloc("x").without_initializing(), [n])` both work.
#[derive(Debug, Clone)]
pub struct ViewAlloc<M: MemorySpace = HostSpace> {
    label: String,
    space: M,
    init: Init,
}

/// Allocation properties for a View labelled `label` (Kokkos' `view_alloc`).
///
/// ```
/// use ferrokkos::{InitSettings, View, view_alloc};
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let v = View::<f64, 1>::new(view_alloc("scratch").without_initializing(), [1 << 20])?;
/// assert_eq!(v.label(), "scratch");
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn view_alloc<M: MemorySpace>(label: impl Into<String>) -> ViewAlloc<M> {
    ViewAlloc {
        label: label.into(),
        space: M::default(),
        init: Init::Zeroed,
    }
}

impl<M: MemorySpace> ViewAlloc<M> {
    /// Skips zero-filling where the space allows it (Kokkos' `WithoutInitializing`). See [`Init`].
    /// Only for element types valid for every bit pattern ([`Element::ANY_BIT_PATTERN`]): Views of
    /// `bool` or `char` are zero-filled regardless.
    pub fn without_initializing(mut self) -> Self {
        self.init = Init::Uninitialized;
        self
    }

    /// The memory space instance to allocate in.
    pub fn in_space(mut self, space: M) -> Self {
        self.space = space;
        self
    }

    /// The label.
    pub fn label(&self) -> &str {
        &self.label
    }
}

impl<M: MemorySpace> From<&str> for ViewAlloc<M> {
    fn from(label: &str) -> Self {
        view_alloc(label)
    }
}

impl<M: MemorySpace> From<String> for ViewAlloc<M> {
    fn from(label: String) -> Self {
        view_alloc(label)
    }
}

impl<M: MemorySpace> From<&String> for ViewAlloc<M> {
    fn from(label: &String) -> Self {
        view_alloc(label.as_str())
    }
}

impl<T: Element, const R: usize, L: RegularLayout, M: MemorySpace> View<T, R, L, M> {
    /// Allocates a View with these extents, zero-filled unless the properties say otherwise.
    ///
    /// Errors: [`Error::SizeOverflow`] if the number of elements overflows `usize`,
    /// [`Error::Allocation`] (naming the label, the bytes and the space) if the space cannot provide
    /// the bytes (more than `usize` can count included), [`Error::NotInitialized`] /
    /// [`Error::Finalized`] outside the runtime's lifetime.
    pub fn new(props: impl Into<ViewAlloc<M>>, extents: [usize; R]) -> Result<Self> {
        let props = props.into();
        let strides = L::strides_for(&extents).ok_or_else(|| overflow(&props.label, &extents))?;
        Self::allocate(&props, extents, strides)
    }
}

impl<T: Element, const R: usize, M: MemorySpace> View<T, R, LayoutStride, M> {
    /// Allocates a LayoutStride View with explicit strides (in elements). The strides must map distinct
    /// indices to distinct elements ([`Error::InvalidView`] otherwise); the allocation spans the largest
    /// offset.
    ///
    /// ```
    /// use ferrokkos::{InitSettings, LayoutStride, View};
    /// let _rt = ferrokkos::initialize(InitSettings::new())?;
    /// let v = View::<i32, 2, LayoutStride>::new_strided("padded", [3, 4], [8, 1])?;
    /// assert_eq!((v.span(), v.span_is_contiguous()), (20, false));
    /// # Ok::<(), ferrokkos::Error>(())
    /// ```
    pub fn new_strided(
        props: impl Into<ViewAlloc<M>>,
        extents: [usize; R],
        strides: [usize; R],
    ) -> Result<Self> {
        let props = props.into();
        check_strides(&props.label, &extents, &strides)?;
        Self::allocate(&props, extents, strides)
    }
}

/// Checks that strides are injective and their span fits in memory.
pub(crate) fn check_strides(label: &str, extents: &[usize], strides: &[usize]) -> Result<()> {
    if !strides_are_injective(extents, strides) {
        return Err(Error::InvalidView {
            label: label.to_string(),
            reason: format!(
                "strides {strides:?} make different indices of extents {extents:?} share elements"
            ),
        });
    }
    checked_span(extents, strides)
        .map(drop)
        .ok_or_else(|| overflow(label, extents))
}

fn overflow(label: &str, extents: &[usize]) -> Error {
    Error::SizeOverflow {
        label: label.to_string(),
        extents: extents.to_vec(),
    }
}

impl<T: Element, const R: usize, L: Layout, M: MemorySpace> View<T, R, L, M> {
    /// The rank (number of dimensions).
    pub const RANK: usize = R;

    /// Allocates memory for `extents` / `strides` (already validated for the layout) and wraps it.
    pub(crate) fn allocate(
        props: &ViewAlloc<M>,
        extents: [usize; R],
        strides: [usize; R],
    ) -> Result<Self> {
        let span =
            checked_span(&extents, &strides).ok_or_else(|| overflow(&props.label, &extents))?;
        checked_size(&extents).ok_or_else(|| overflow(&props.label, &extents))?;
        let bytes = span
            .checked_mul(size_of::<T>())
            .ok_or_else(|| Error::Allocation {
                label: props.label.clone(),
                bytes: span as u128 * size_of::<T>() as u128,
                space: M::NAME,
            })?;
        // Stale bytes are no value of a `bool` or a `char`: such elements are always zeroed.
        let init = if T::ANY_BIT_PATTERN {
            props.init
        } else {
            Init::Zeroed
        };
        let memory = props
            .space
            .allocate(&props.label, bytes, init, crate::seal::Token::new())?;
        let alloc = Allocation::owned(&props.label, memory);
        let ptr = alloc.ptr().cast::<T>();
        Ok(Self::from_parts(alloc, ptr, extents, strides))
    }

    /// Assembles a View. `ptr` must point into `alloc` such that every offset of `extents` / `strides`
    /// (valid for `L`) stays inside it.
    pub(crate) fn from_parts(
        alloc: Arc<Allocation>,
        ptr: NonNull<T>,
        extents: [usize; R],
        strides: [usize; R],
    ) -> Self {
        const { assert!(R <= MAX_RANK, "a View has at most 8 dimensions") };
        // Zero-sized elements would make a View of any extents occupy no memory while its loops
        // run over all of them (2^64 iterations for `usize::MAX`).
        const {
            assert!(
                size_of::<T>() > 0,
                "a View's element type must not be zero-sized"
            )
        };
        View {
            alloc,
            ptr,
            extents,
            strides,
            _marker: PhantomData,
        }
    }

    /// The View's label (subviews and clones share their allocation's label).
    pub fn label(&self) -> &str {
        self.alloc.label()
    }

    /// The extent of dimension `r`; 1 for `r >= R`, as in Kokkos.
    pub fn extent(&self, r: usize) -> usize {
        self.extents.get(r).copied().unwrap_or(1)
    }

    /// All extents.
    pub fn extents(&self) -> [usize; R] {
        self.extents
    }

    /// All extents, borrowed (for checks made at each launch without copying them).
    pub(crate) fn extents_slice(&self) -> &[usize] {
        &self.extents
    }

    /// The stride of dimension `r`, in elements; for `r >= R`, the span (the stride of a dimension
    /// that would follow all others).
    pub fn stride(&self, r: usize) -> usize {
        self.strides.get(r).copied().unwrap_or_else(|| self.span())
    }

    /// All strides, in elements.
    pub fn strides(&self) -> [usize; R] {
        self.strides
    }

    /// The number of elements (the product of the extents).
    pub fn size(&self) -> usize {
        self.extents.iter().product()
    }

    /// The number of elements the View's memory spans, holes included.
    pub fn span(&self) -> usize {
        checked_span(&self.extents, &self.strides).unwrap_or(usize::MAX)
    }

    /// Whether the elements occupy one contiguous block (span equals size).
    pub fn span_is_contiguous(&self) -> bool {
        self.span() == self.size()
    }

    /// A pointer to the element at index zero. Reading or writing through it is `unsafe` and must
    /// respect the host borrows and the kernels using the View.
    pub fn as_ptr(&self) -> *const T {
        self.ptr.as_ptr()
    }

    /// A mutable pointer to the element at index zero (see [`View::as_ptr`]).
    pub fn as_mut_ptr(&self) -> *mut T {
        self.ptr.as_ptr()
    }

    /// Whether a memory space allocated this View's memory (false for unmanaged Views).
    pub fn is_managed(&self) -> bool {
        self.alloc.is_managed()
    }

    /// How many handles (clones and subviews) share the allocation.
    pub fn use_count(&self) -> usize {
        // A lent allocation is also held by its lend (`with_slice`), which is no View handle.
        Arc::strong_count(&self.alloc) - usize::from(self.alloc.is_lent())
    }

    /// Whether `other` shares this View's allocation.
    pub fn shares_allocation_with<U: Element, const Q: usize, K: Layout, N: MemorySpace>(
        &self,
        other: &View<U, Q, K, N>,
    ) -> bool {
        Arc::ptr_eq(&self.alloc, &other.alloc)
    }

    /// The memory space instance.
    pub fn memory_space(&self) -> M {
        M::default()
    }

    /// The shared allocation record.
    pub(crate) fn allocation(&self) -> &Arc<Allocation> {
        &self.alloc
    }

    /// The pointer to the element at index zero.
    pub(crate) fn ptr(&self) -> NonNull<T> {
        self.ptr
    }

    /// The element offset of `index`, or the bounds error naming the View.
    #[inline]
    pub(crate) fn checked_offset(&self, index: &[usize; R]) -> Result<usize> {
        if index.iter().zip(&self.extents).all(|(i, e)| i < e) {
            Ok(L::offset(index, &self.strides))
        } else {
            Err(Error::OutOfBounds {
                label: self.label().to_string(),
                index: index.to_vec(),
                extents: self.extents.to_vec(),
            })
        }
    }

    /// The element offset of `index`, which must be in bounds.
    #[inline(always)]
    pub(crate) fn offset_of(&self, index: &[usize; R]) -> usize {
        L::offset(index, &self.strides)
    }

    /// The same View with another layout or space type, when `K`/`N` name the same mapping and
    /// memory (callers check this).
    pub(crate) fn retype<K: Layout, N: MemorySpace>(&self) -> View<T, R, K, N> {
        View::from_parts(
            Arc::clone(&self.alloc),
            self.ptr,
            self.extents,
            self.strides,
        )
    }
}

impl<T: Element, const R: usize, L: RegularLayout, M: MemorySpace> View<T, R, L, M> {
    /// This View as a LayoutStride View of the same elements (always possible, as in Kokkos).
    pub fn to_layout_stride(&self) -> View<T, R, LayoutStride, M> {
        self.retype()
    }
}

impl<T: Element, const R: usize, M: MemorySpace> View<T, R, LayoutStride, M> {
    /// This LayoutStride View as a View of layout `K`, if its strides fit `K` (stride 1 in the
    /// dimension `K` makes contiguous, unless that extent is 0 or 1); otherwise [`Error::InvalidView`]
    /// naming the strides.
    pub fn try_into_layout<K: RegularLayout>(&self) -> Result<View<T, R, K, M>> {
        let mut strides = self.strides;
        if let Some(r) = K::unit_dim::<R>() {
            match (self.extents[r], self.strides[r]) {
                (_, 1) => {}
                (0 | 1, _) => strides[r] = 1, // never multiplied by a non-zero index
                _ => {
                    return Err(Error::InvalidView {
                        label: self.label().to_string(),
                        reason: format!("strides {:?} do not fit {}", self.strides, K::NAME),
                    });
                }
            }
        }
        Ok(View::from_parts(
            Arc::clone(&self.alloc),
            self.ptr,
            self.extents,
            strides,
        ))
    }
}
