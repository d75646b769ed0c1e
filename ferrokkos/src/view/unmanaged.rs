//! Unmanaged Views over memory the user owns: a safe scoped form over `&mut [T]`, and an `unsafe` form
//! over a raw pointer (Kokkos' `View<..., MemoryUnmanaged>`).
//!
//! A View handle can be cloned and sent anywhere, so a View over borrowed memory cannot simply carry the
//! borrow's lifetime. The safe form therefore lends the View to a closure and, when the closure returns,
//! *expires* the allocation record: it waits until no host guard is held on it, then every later
//! access through any surviving clone fails with [`Error::Expired`] instead of touching the memory.
//! The record counts the guards each thread holds and sees threads exit, so a guard that no wait can
//! end (held by the lending thread itself, or taken only on threads that have exited) aborts the
//! process rather than hanging it.

use std::ptr::NonNull;
use std::sync::Arc;

use super::element::Element;
use super::view::{View, check_strides};
use crate::error::{Error, Result};
use crate::layout::{Layout, LayoutStride, RegularLayout, checked_span};
use crate::seal::Token;
use crate::space::Allocation;
use crate::space::MemorySpace;

impl<T: Element, const R: usize, L: RegularLayout, M: MemorySpace> View<T, R, L, M> {
    /// Lends `data` to `f` as a View with these extents (in layout `L`), then ends the View's access to
    /// it. Returns what `f` returns.
    ///
    /// Errors (before `f` runs): `data` is shorter than the extents need ([`Error::InvalidView`]
    /// naming both), or the extents overflow.
    ///
    /// When `f` returns, this call waits until no host guard of the View is held (another thread may
    /// still hold one through a clone); afterwards every clone refuses access with
    /// [`Error::Expired`]. A guard that no wait can bring back (one the calling thread still holds,
    /// taken on a clone of the View and kept, leaked or forgotten with `mem::forget`; or one taken
    /// on a thread that has since exited without dropping it) would alias `data` if this call
    /// returned: after about a second (a guard moved to a live thread may be dropped there) the
    /// process aborts with a message naming the View instead of hanging. Guards held by live
    /// threads are waited for.
    ///
    /// ```
    /// use ferrokkos::{InitSettings, View, deep_copy};
    /// let _rt = ferrokkos::initialize(InitSettings::new())?;
    /// let mut data = vec![0.0f64; 6];
    /// View::<f64, 2>::with_slice("wrapped", &mut data, [2, 3], |v| deep_copy(v, 1.5))??;
    /// assert_eq!(data, [1.5; 6]);
    /// # Ok::<(), ferrokkos::Error>(())
    /// ```
    pub fn with_slice<U>(
        label: &str,
        data: &mut [T],
        extents: [usize; R],
        f: impl FnOnce(&Self) -> U,
    ) -> Result<U> {
        let strides = L::strides_for(&extents).ok_or_else(|| Error::SizeOverflow {
            label: label.to_string(),
            extents: extents.to_vec(),
        })?;
        lend(label, data, extents, strides, f)
    }

    /// Wraps memory the caller manages as an unmanaged View with these extents (Kokkos' unmanaged View).
    ///
    /// A null `ptr` is accepted only for an empty View. Errors: null or misaligned pointer, extents
    /// that overflow.
    ///
    /// # Safety
    /// `ptr` must point to `span()` valid, initialized elements of `T` (the product of the extents for
    /// the regular layouts) that stay allocated, and that nothing accesses except through this View and
    /// its clones, for as long as any of them is alive.
    pub unsafe fn from_raw_parts(label: &str, ptr: *mut T, extents: [usize; R]) -> Result<Self> {
        let strides = L::strides_for(&extents).ok_or_else(|| Error::SizeOverflow {
            label: label.to_string(),
            extents: extents.to_vec(),
        })?;
        wrap(label, ptr, extents, strides)
    }
}

impl<T: Element, const R: usize, M: MemorySpace> View<T, R, LayoutStride, M> {
    /// [`View::with_slice`] with explicit strides (which must not make indices share elements).
    pub fn with_slice_strided<U>(
        label: &str,
        data: &mut [T],
        extents: [usize; R],
        strides: [usize; R],
        f: impl FnOnce(&Self) -> U,
    ) -> Result<U> {
        check_strides(label, &extents, &strides)?;
        lend(label, data, extents, strides, f)
    }

    /// [`View::from_raw_parts`] with explicit strides.
    ///
    /// # Safety
    /// As for [`View::from_raw_parts`], with `span()` computed from these strides.
    pub unsafe fn from_raw_parts_strided(
        label: &str,
        ptr: *mut T,
        extents: [usize; R],
        strides: [usize; R],
    ) -> Result<Self> {
        check_strides(label, &extents, &strides)?;
        wrap(label, ptr, extents, strides)
    }
}

fn lend<T: Element, const R: usize, L: Layout, M: MemorySpace, U>(
    label: &str,
    data: &mut [T],
    extents: [usize; R],
    strides: [usize; R],
    f: impl FnOnce(&View<T, R, L, M>) -> U,
) -> Result<U> {
    let span = checked_span(&extents, &strides).ok_or_else(|| Error::SizeOverflow {
        label: label.to_string(),
        extents: extents.to_vec(),
    })?;
    if data.len() < span {
        return Err(Error::InvalidView {
            label: label.to_string(),
            reason: format!(
                "a slice of {} elements is too short for extents {extents:?} (span {span})",
                data.len()
            ),
        });
    }
    let ptr = NonNull::from(&mut *data).cast::<T>();
    let device = reach::<M>(label, ptr.cast())?;
    let alloc = Allocation::lent(label, ptr.cast(), device);
    /// Expires the record when the scope ends, also if `f` panics. It holds the record itself: even
    /// when no View handle survives, device work launched through one may still use the memory, and
    /// expiring waits for it.
    struct Expire(Arc<Allocation>);
    impl Drop for Expire {
        fn drop(&mut self) {
            self.0.expire();
        }
    }
    let expire = Expire(Arc::clone(&alloc));
    let view = View::from_parts(alloc, ptr, extents, strides);
    let out = f(&view);
    drop(view);
    drop(expire);
    Ok(out)
}

fn wrap<T: Element, const R: usize, L: Layout, M: MemorySpace>(
    label: &str,
    ptr: *mut T,
    extents: [usize; R],
    strides: [usize; R],
) -> Result<View<T, R, L, M>> {
    let span = checked_span(&extents, &strides).ok_or_else(|| Error::SizeOverflow {
        label: label.to_string(),
        extents: extents.to_vec(),
    })?;
    let invalid = |reason: String| Error::InvalidView {
        label: label.to_string(),
        reason,
    };
    let ptr = match NonNull::new(ptr) {
        Some(p) => p,
        None if span == 0 => NonNull::dangling(),
        None => return Err(invalid(format!("null pointer for extents {extents:?}"))),
    };
    if !ptr.as_ptr().is_aligned() {
        return Err(invalid(format!(
            "pointer {ptr:p} is not aligned to {} bytes",
            align_of::<T>()
        )));
    }
    let device = reach::<M>(label, ptr.cast())?;
    let alloc = Allocation::unmanaged(label, ptr.cast(), device);
    Ok(View::from_parts(alloc, ptr, extents, strides))
}

/// Whether the GPU can reach the memory at `ptr` that an unmanaged View declared in `M` wraps (for
/// the launches' reach check; `None` for spaces the GPU does not reach anyway). Memory of a
/// host-accessible space that the host cannot reach (device memory) is an error here, since host
/// guards would dereference it.
fn reach<M: MemorySpace>(label: &str, ptr: NonNull<u8>) -> Result<Option<bool>> {
    if !M::HOST_ACCESSIBLE && !M::DEVICE_ACCESSIBLE {
        return Ok(None);
    }
    let reach = M::default().reach_of(ptr.as_ptr(), Token::new())?;
    if M::HOST_ACCESSIBLE && !reach.host {
        return Err(Error::InvalidView {
            label: label.to_string(),
            reason: format!(
                "it is declared in {}, which host code accesses, but {ptr:p} is device memory the \
                 host cannot access (wrap it in CudaSpace)",
                M::NAME
            ),
        });
    }
    Ok(M::DEVICE_ACCESSIBLE.then_some(reach.device))
}
