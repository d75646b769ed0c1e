//! The seam between `sort` (the algorithms layer) and the backends whose memory host code cannot
//! sort: an execution space's memory space names its backend's [`DeviceSort`]
//! (`MemorySpace::device_sort`), and the algorithms hand it raw descriptions of the keys and the
//! values ([`SortPart`]). The types are `pub` in a private module, so no other crate can name them.

use std::any::Any;
use std::sync::Arc;

use super::Allocation;
use crate::error::Result;

/// How a key's bits order: the radix sort's digits are taken from the bits made order-preserving
/// (a signed key's sign bit flipped; a float's sign bit flipped when positive, every bit when
/// negative, which is `total_cmp`'s order).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyKind {
    /// An unsigned integer.
    Unsigned,
    /// A two's-complement integer.
    Signed,
    /// An IEEE float.
    Float,
}

/// The contiguous elements of one View that a sort reads and writes.
// Read by the Cuda backend's sort (the only `DeviceSort` of the build).
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub struct SortPart<'a> {
    pub(crate) alloc: &'a Arc<Allocation>,
    pub(crate) label: &'a str,
    pub(crate) ptr: *mut u8,
    /// The bytes of one element.
    pub(crate) size: usize,
    /// The alignment of one element.
    pub(crate) align: usize,
}

/// The keys of a sort: their elements and how their bits order.
#[cfg_attr(not(feature = "cuda"), allow(dead_code))]
pub struct SortKeys<'a> {
    pub(crate) part: SortPart<'a>,
    pub(crate) kind: KeyKind,
    pub(crate) count: usize,
}

/// The sorts a backend carries out on its own instances, over memory its devices reach.
pub trait DeviceSort: Sync {
    /// Sorts the `keys.count` keys ascending (in the order of their [`KeyKind`]), stably, on
    /// `exec` (the instance's `copy_instance`), queued on it: the Views' allocations are borrowed
    /// for the queued work and stamped. `values`, when given, holds `keys.count` elements that
    /// move with their keys. An `exec` of another backend, or memory the device does not reach,
    /// is an error naming it.
    fn sort(
        &self,
        exec: &dyn Any,
        keys: &SortKeys<'_>,
        values: Option<&SortPart<'_>>,
        what: &dyn Fn() -> String,
    ) -> Result<()>;
}
