//! The seam between `deep_copy` and the backends whose memory host code cannot copy alone: a
//! memory space names its backend's [`DeviceCopy`] (`MemorySpace::device_copy`), and `deep_copy`
//! hands it raw descriptions of both sides ([`Side`]). The types are `pub` in a private module, so
//! no other crate can name them.

use std::any::Any;
use std::sync::Arc;

use super::Allocation;
use crate::error::Result;

/// One side of a copy or fill: where element 0 is, the shape (strides in elements) and the
/// allocation whose borrows and pending work apply.
// Read by the Cuda backend's copies and fills (the only `DeviceCopy` of the build).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub struct Side<'a> {
    pub(crate) alloc: Option<&'a Arc<Allocation>>,
    pub(crate) ptr: *mut u8,
    pub(crate) extents: &'a [usize],
    pub(crate) strides: &'a [usize],
}

/// The element type's size and alignment.
#[derive(Clone, Copy, Debug)]
// Read by the Cuda backend's copies and fills (the only `DeviceCopy` of the build).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub struct Elem {
    pub(crate) size: usize,
    pub(crate) align: usize,
}

// The shape queries the Cuda backend's copies and fills make.
#[cfg(feature = "cuda")]
impl Side<'_> {
    /// The number of elements.
    pub(crate) fn count(&self) -> usize {
        self.extents.iter().product()
    }

    /// Whether the elements fill one block without holes, in row-major or column-major order.
    pub(crate) fn is_contiguous(&self) -> bool {
        let n = self.extents.len();
        let mut order: Vec<usize> = (0..n).filter(|&r| self.extents[r] > 1).collect();
        order.sort_by_key(|&r| self.strides[r]);
        let mut expected = 1;
        for r in order {
            if self.strides[r] != expected {
                return false;
            }
            expected *= self.extents[r];
        }
        true
    }

    /// Whether both sides lay out their elements the same way (equal strides where it matters).
    pub(crate) fn same_layout(&self, other: &Side<'_>) -> bool {
        self.extents
            .iter()
            .zip(self.strides.iter().zip(other.strides))
            .all(|(&e, (&a, &b))| e <= 1 || a == b)
    }

    /// The byte offset of the element at row-major position `k`.
    pub(crate) fn offset_of(&self, mut k: usize, elem: Elem) -> usize {
        let mut off = 0;
        for r in (0..self.extents.len()).rev() {
            let e = self.extents[r].max(1);
            off += (k % e) * self.strides[r];
            k /= e;
        }
        off * elem.size
    }
}

/// The copies and fills of `deep_copy` that a backend carries out (the device rows of the table in
/// `view/deep_copy.rs`).
pub trait DeviceCopy: Sync {
    /// Copies `src` into `dst` (equal extents, not the same elements) on `exec` when it is an
    /// instance of this backend, else on the backend's default instance; waits for the copy when
    /// `blocking` or when `exec` is an instance of another backend.
    fn copy(
        &self,
        exec: Option<&dyn Any>,
        dst: &Side<'_>,
        src: &Side<'_>,
        elem: Elem,
        blocking: bool,
        what: &dyn Fn() -> String,
    ) -> Result<()>;

    /// Fills every element of `dst` with the element whose bytes are `value`, on `exec` as for
    /// [`DeviceCopy::copy`].
    fn fill(
        &self,
        exec: Option<&dyn Any>,
        dst: &Side<'_>,
        value: &[u8],
        elem: Elem,
        blocking: bool,
        what: &dyn Fn() -> String,
    ) -> Result<()>;
}

/// The execution-space instance a copy was given ([`crate::deep_copy_async`]): the instance, and the
/// copies of its memory space's backend (none for the host spaces).
#[derive(Clone, Copy)]
pub struct CopyExec<'a> {
    pub(crate) instance: &'a dyn Any,
    pub(crate) copies: Option<&'static dyn DeviceCopy>,
}
