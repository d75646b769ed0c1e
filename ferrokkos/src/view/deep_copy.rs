//! `deep_copy`: every rule for copying between Views and filling them, in one place (DESIGN.md
//! decision 9).
//!
//! | destination | source | rule |
//! |---|---|---|
//! | View | View of other extents | [`Error::ExtentMismatch`] naming both labels and shapes |
//! | View | the same elements (same allocation, pointer and strides) | nothing to do |
//! | View | View in the same allocation, overlapping | copy through a temporary (source values win) |
//! | host View | host View, both contiguous with equal strides | one block copy, split over the host instance's threads from 128 KiB, with streaming stores from half the last-level cache |
//! | host View | host View, any other layouts | element by element, in index order |
//! | contiguous host View | a value | one block fill, split and streamed as a block copy |
//! | other host View | a value | element by element |
//! | a value | rank-0 host View | read the element |
//! | either side in a GPU-reachable space | contiguous, equal strides | one `cuMemcpyAsync` on the instance's stream |
//! | either side in a GPU-reachable space | other layouts, both sides reachable by the GPU | the built-in strided copy kernel |
//! | either side in a GPU-reachable space | other layouts, one side pageable host memory | pack/unpack on the host, one transfer, the copy kernel on the device side |
//! | View in a GPU-reachable space | a value, all-zero bytes, contiguous | `cuMemsetD8Async` |
//! | View in a GPU-reachable space | a value of 1, 2 or 4 bytes, contiguous | `cuMemsetD16/D32Async` |
//! | View in a GPU-reachable space | any other value or layout | the built-in fill kernel |
//! | View in a GPU-reachable space over pageable memory | a value | fill on the host |
//!
//! "GPU-reachable" are the spaces the GPU may access (CudaSpace, CudaHostPinnedSpace,
//! CudaUVMSpace). Which memory a pointer really is comes from the driver's pointer attributes, not
//! from the declared space, so an unmanaged View over a `Vec` or calloc'd memory declared in any
//! space is filled and copied correctly (Kokkos failed there, kokkos#7377).
//!
//! The device rows run on the default Cuda instance (or the instance given to
//! [`deep_copy_async`]) and are ordered after device work on any instance that still uses either
//! View; [`deep_copy`] waits for the copy, [`deep_copy_async`] does not.
//!
//! Every copy that moves data takes the host guards of both allocations, so a copy into a View that
//! host code is reading, or from one that it is writing, is an [`Error::Borrow`] naming the View. A copy
//! with nothing to do (empty Views, or a View onto itself) touches no element and takes no guard, as it
//! is a no-op in Kokkos.

use super::element::Element;
use super::host_bulk;
use super::index::for_each_index;
use super::view::View;
use crate::error::{Error, Result};
use crate::layout::Layout;
use crate::seal::Token;
use crate::space::Allocation;
use crate::space::{CopyExec, DeviceCopy, Elem, ExecutionSpace, MemorySpace, Side};
use crate::tools::{CopySide, DeepCopyScope};

/// Copies `src` into `dst` and waits until the copy is complete (Kokkos' `deep_copy`).
///
/// - `deep_copy(&dst, &src)`: Views of equal extents, any layouts;
/// - `deep_copy(&dst, value)`: fill every element;
/// - `deep_copy(&mut value, &rank0_view)`: read a rank-0 View.
///
/// ```
/// use ferrokkos::{InitSettings, LayoutLeft, View, deep_copy};
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let right = View::<i32, 2>::new("right", [2, 3])?;
/// let left = View::<i32, 2, LayoutLeft>::new("left", [2, 3])?;
/// deep_copy(&right, 4)?;
/// right.set((1, 2), 9)?;
/// deep_copy(&left, &right)?;
/// assert_eq!(left.to_vec()?, [4, 4, 4, 4, 4, 9]);
///
/// let total = View::<f64, 0>::new("total", [])?;
/// deep_copy(&total, 2.5)?;
/// let mut x = 0.0;
/// deep_copy(&mut x, &total)?;
/// assert_eq!(x, 2.5);
///
/// let wrong = View::<i32, 2>::new("wrong", [3, 2])?;
/// assert_eq!(
///     deep_copy(&wrong, &right).unwrap_err().to_string(),
///     "deep_copy: extents differ: destination \"wrong\" has [3, 2], source \"right\" has [2, 3]"
/// );
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn deep_copy<D: DeepCopyDst<S>, S>(dst: D, src: S) -> Result<()> {
    dst.deep_copy_from(src)
}

/// Copies `src` into `dst` on the execution-space instance `exec`, without waiting for the copy
/// (Kokkos' `deep_copy(exec, dst, src)`).
///
/// On a GPU instance ([`crate::Cuda`]) the copy is ordered after the work on `exec` and after device
/// work on any instance that uses either View; host access to either View waits for it. Copies into
/// or out of pageable host memory (a `HostSpace` View) complete before this returns (a CUDA rule:
/// the driver stages pageable memory synchronously). For a truly asynchronous download, copy into a
/// [`crate::CudaHostPinnedSpace`] mirror (`create_mirror_view_in(CudaHostPinnedSpace, &v)`). A fill
/// (`deep_copy_async(&exec, &v, value)`) is asynchronous unless the View is pageable memory.
///
/// On a host instance (Serial, Threads), whose work runs on the calling thread as it is submitted,
/// the copy is complete when this returns.
pub fn deep_copy_async<E: ExecutionSpace, D: DeepCopyDst<S>, S>(
    exec: &E,
    dst: D,
    src: S,
) -> Result<()> {
    let exec = CopyExec {
        instance: exec.copy_instance(Token::new()),
        copies: exec.memory_space().device_copy(Token::new()),
    };
    dst.deep_copy_on(Some(exec), false, src)
}

/// A host borrow of an allocation for the duration of one copy (waits for device work first).
struct HostBorrow<'a> {
    alloc: &'a Allocation,
    exclusive: bool,
}

impl<'a> HostBorrow<'a> {
    fn shared(alloc: &'a Allocation) -> Result<Self> {
        alloc.borrow_shared()?;
        Ok(HostBorrow {
            alloc,
            exclusive: false,
        })
    }

    fn exclusive(alloc: &'a Allocation) -> Result<Self> {
        alloc.borrow_exclusive()?;
        Ok(HostBorrow {
            alloc,
            exclusive: true,
        })
    }
}

impl Drop for HostBorrow<'_> {
    fn drop(&mut self) {
        if self.exclusive {
            self.alloc.release_exclusive();
        } else {
            self.alloc.release_shared();
        }
    }
}

/// How a View-to-View copy is carried out on the host (the host rows of the table above).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum CopyPlan {
    Nothing,
    ViaTemporary,
    Memcpy,
    ElementWise,
}

/// Chooses the host rule for copying `src` into `dst` (extents already equal).
pub(crate) fn plan<T, const R: usize, L1, L2, M1, M2>(
    dst: &View<T, R, L1, M1>,
    src: &View<T, R, L2, M2>,
) -> CopyPlan
where
    T: Element,
    L1: Layout,
    L2: Layout,
    M1: MemorySpace,
    M2: MemorySpace,
{
    if dst.size() == 0 {
        return CopyPlan::Nothing;
    }
    if dst.shares_allocation_with(src) {
        if dst.as_ptr() == src.as_ptr() && dst.strides() == src.strides() {
            return CopyPlan::Nothing;
        }
        return CopyPlan::ViaTemporary;
    }
    if dst.span_is_contiguous() && src.span_is_contiguous() && dst.strides() == src.strides() {
        CopyPlan::Memcpy
    } else {
        CopyPlan::ElementWise
    }
}

/// The backend that carries out a copy given `exec` between Views in `M1` and `M2`: the one of
/// `exec`'s memory space, else of either View's space; `None` for the host rows.
fn copies<M1: MemorySpace, M2: MemorySpace>(
    exec: Option<CopyExec<'_>>,
) -> Option<&'static dyn DeviceCopy> {
    exec.and_then(|e| e.copies)
        .or_else(|| M1::default().device_copy(Token::new()))
        .or_else(|| M2::default().device_copy(Token::new()))
}

/// The instance a backend copies on, as it receives it.
fn instance(exec: Option<CopyExec<'_>>) -> Option<&dyn std::any::Any> {
    exec.map(|e| e.instance)
}

/// The name Kokkos Tools give the host side of a copy from or into a value.
const SCALAR_SPACE: &str = "Host";

/// The device-row description of a View.
fn side<'a, T: Element, const R: usize, L: Layout, M: MemorySpace>(
    v: &'a View<T, R, L, M>,
    extents: &'a [usize],
    strides: &'a [usize],
) -> Side<'a> {
    Side {
        alloc: Some(v.allocation()),
        ptr: v.as_mut_ptr().cast(),
        extents,
        strides,
    }
}

/// The element type's size and alignment.
fn elem<T>() -> Elem {
    Elem {
        size: std::mem::size_of::<T>(),
        align: std::mem::align_of::<T>(),
    }
}

/// One side of a copy as Kokkos Tools see it.
fn tool_side<M: MemorySpace>(label: &str, ptr: *const u8) -> CopySide<'_> {
    CopySide {
        space: crate::tools::space_name(M::NAME),
        label,
        ptr,
    }
}

/// The host side of a copy from or into a value, as Kokkos Tools see it.
fn scalar_side(ptr: *const u8) -> CopySide<'static> {
    CopySide {
        space: SCALAR_SPACE,
        label: "Scalar",
        ptr,
    }
}

/// Describes a copy for error messages.
fn describe<'a>(dst: &'a str, src: &'a str) -> impl Fn() -> String + 'a {
    move || format!("deep_copy into View \"{dst}\" from View \"{src}\"")
}

/// The destination of a [`deep_copy`] from `Src`: a View (from a View or a value) or a `&mut` value
/// (from a rank-0 View).
pub trait DeepCopyDst<Src>: Sized {
    /// Performs the copy and waits for it.
    fn deep_copy_from(self, src: Src) -> Result<()> {
        self.deep_copy_on(None, true, src)
    }

    /// Performs the copy on the instance `exec` (the backend's default instance when `None` and a
    /// device row applies), waiting for it when `blocking`.
    #[doc(hidden)]
    fn deep_copy_on(self, exec: Option<CopyExec<'_>>, blocking: bool, src: Src) -> Result<()>;
}

impl<T, const R: usize, L1, L2, M1, M2> DeepCopyDst<&View<T, R, L2, M2>> for &View<T, R, L1, M1>
where
    T: Element,
    L1: Layout,
    L2: Layout,
    M1: MemorySpace,
    M2: MemorySpace,
{
    fn deep_copy_on(
        self,
        exec: Option<CopyExec<'_>>,
        blocking: bool,
        src: &View<T, R, L2, M2>,
    ) -> Result<()> {
        let dst = self;
        if dst.extents() != src.extents() {
            return Err(Error::ExtentMismatch {
                operation: "deep_copy",
                dst_label: dst.label().to_string(),
                dst_extents: dst.extents().to_vec(),
                src_label: src.label().to_string(),
                src_extents: src.extents().to_vec(),
            });
        }
        let plan = plan(dst, src);
        if plan == CopyPlan::Nothing {
            return Ok(());
        }
        let _tools = DeepCopyScope::begin(
            tool_side::<M1>(dst.label(), dst.as_ptr().cast()),
            tool_side::<M2>(src.label(), src.as_ptr().cast()),
            dst.size() * size_of::<T>(),
        );
        if let Some(device) = copies::<M1, M2>(exec) {
            let (de, ds) = (dst.extents(), dst.strides());
            let (se, ss) = (src.extents(), src.strides());
            let what = describe(dst.label(), src.label());
            return device.copy(
                instance(exec),
                &side(dst, &de, &ds),
                &side(src, &se, &ss),
                elem::<T>(),
                blocking,
                &what,
            );
        }
        let elements = |d: &View<T, R, L1, M1>, s: &View<T, R, L2, M2>| {
            for_each_index(&d.extents(), |i| {
                // SAFETY: `i` is inside the extents of both Views (they are equal), so both offsets
                // are inside their allocations; the caller holds the borrows that keep other users
                // out, and the two blocks do not overlap.
                unsafe {
                    *d.as_mut_ptr().add(d.offset_of(i)) = *s.as_ptr().add(s.offset_of(i));
                }
            });
        };
        match plan {
            CopyPlan::Nothing => Ok(()),
            CopyPlan::ViaTemporary => {
                let mut values = Vec::with_capacity(src.size());
                {
                    let _s = HostBorrow::shared(src.allocation())?;
                    for_each_index(&src.extents(), |i| {
                        // SAFETY: `i` is inside the extents; the shared borrow keeps writers out.
                        values.push(unsafe { *src.as_ptr().add(src.offset_of(i)) });
                    });
                }
                let _d = HostBorrow::exclusive(dst.allocation())?;
                let mut next = values.iter();
                for_each_index(&dst.extents(), |i| {
                    if let Some(v) = next.next() {
                        // SAFETY: `i` is inside the extents; the exclusive borrow keeps others out.
                        unsafe { *dst.as_mut_ptr().add(dst.offset_of(i)) = *v };
                    }
                });
                Ok(())
            }
            CopyPlan::Memcpy => {
                let _s = HostBorrow::shared(src.allocation())?;
                let _d = HostBorrow::exclusive(dst.allocation())?;
                // SAFETY: both Views are contiguous with equal strides, so their spans are `size()`
                // elements starting at element 0 (the lowest address); the borrows keep other users
                // out for the call and the two allocations differ.
                unsafe {
                    host_bulk::copy(
                        instance(exec),
                        dst.as_mut_ptr().cast(),
                        src.as_ptr().cast(),
                        dst.size() * size_of::<T>(),
                    )
                };
                Ok(())
            }
            CopyPlan::ElementWise => {
                let _s = HostBorrow::shared(src.allocation())?;
                let _d = HostBorrow::exclusive(dst.allocation())?;
                elements(dst, src);
                Ok(())
            }
        }
    }
}

/// Copies the index box `[0, common)` of `src` into `dst` (two allocations; `common` within both
/// Views' extents), by the same rules as a View-to-View `deep_copy` (used by `resize`).
pub(crate) fn copy_box<T, const R: usize, L, M>(
    dst: &View<T, R, L, M>,
    src: &View<T, R, L, M>,
    common: [usize; R],
) -> Result<()>
where
    T: Element,
    L: Layout,
    M: MemorySpace,
{
    if common.contains(&0) {
        return Ok(());
    }
    if let Some(device) = copies::<M, M>(None) {
        let (ds, ss) = (dst.strides(), src.strides());
        let what = describe(dst.label(), src.label());
        return device.copy(
            None,
            &side(dst, &common, &ds),
            &side(src, &common, &ss),
            elem::<T>(),
            true,
            &what,
        );
    }
    let _s = HostBorrow::shared(src.allocation())?;
    let _d = HostBorrow::exclusive(dst.allocation())?;
    for_each_index(&common, |i| {
        // SAFETY: `i` is inside `common`, within both Views' extents; the borrows keep other users
        // out, and the allocations differ.
        unsafe { *dst.as_mut_ptr().add(dst.offset_of(i)) = *src.as_ptr().add(src.offset_of(i)) };
    });
    Ok(())
}

impl<T: Element, const R: usize, L: Layout, M: MemorySpace> DeepCopyDst<T> for &View<T, R, L, M> {
    fn deep_copy_on(self, exec: Option<CopyExec<'_>>, blocking: bool, value: T) -> Result<()> {
        if self.size() == 0 {
            return Ok(());
        }
        let _tools = DeepCopyScope::begin(
            tool_side::<M>(self.label(), self.as_ptr().cast()),
            scalar_side((&value as *const T).cast()),
            self.size() * size_of::<T>(),
        );
        if let Some(device) = copies::<M, M>(exec) {
            let (e, s) = (self.extents(), self.strides());
            // SAFETY: `T: Element` is plain data; its bytes are read for the duration of the call.
            let bytes = unsafe {
                std::slice::from_raw_parts((&value as *const T).cast::<u8>(), size_of::<T>())
            };
            let what = || format!("deep_copy of a value into View \"{}\"", self.label());
            return device.fill(
                instance(exec),
                &side(self, &e, &s),
                bytes,
                elem::<T>(),
                blocking,
                &what,
            );
        }
        let _d = HostBorrow::exclusive(self.allocation())?;
        if self.span_is_contiguous() {
            // SAFETY: `T: Element` is plain data; its bytes are read for the duration of the call.
            let bytes = unsafe {
                std::slice::from_raw_parts((&value as *const T).cast::<u8>(), size_of::<T>())
            };
            // SAFETY: a contiguous View's span is `size()` elements from element 0 (the lowest
            // address), inside its allocation; the exclusive borrow keeps others out for the call.
            unsafe {
                host_bulk::fill(instance(exec), self.as_mut_ptr().cast(), bytes, self.size())
            };
            return Ok(());
        }
        for_each_index(&self.extents(), |i| {
            // SAFETY: `i` is inside the extents; the exclusive borrow keeps others out.
            unsafe { *self.as_mut_ptr().add(self.offset_of(i)) = value };
        });
        Ok(())
    }
}

impl<T: Element, L: Layout, M: MemorySpace> DeepCopyDst<&View<T, 0, L, M>> for &mut T {
    fn deep_copy_on(
        self,
        exec: Option<CopyExec<'_>>,
        _blocking: bool,
        src: &View<T, 0, L, M>,
    ) -> Result<()> {
        let _tools = DeepCopyScope::begin(
            scalar_side((&*self as *const T).cast()),
            tool_side::<M>(src.label(), src.as_ptr().cast()),
            size_of::<T>(),
        );
        if let Some(device) = copies::<M, M>(exec) {
            let what = || format!("deep_copy of View \"{}\" into a value", src.label());
            let dst = Side {
                alloc: None,
                ptr: (self as *mut T).cast(),
                extents: &[],
                strides: &[],
            };
            // Reading into a host value always waits: the value is pageable host memory.
            return device.copy(
                instance(exec),
                &dst,
                &side(src, &[], &[]),
                elem::<T>(),
                true,
                &what,
            );
        }
        let _s = HostBorrow::shared(src.allocation())?;
        // SAFETY: a rank-0 View has one element at its pointer; the borrow keeps writers out.
        *self = unsafe { *src.as_ptr() };
        Ok(())
    }
}
