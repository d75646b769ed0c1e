//! [`DynamicView`]: Kokkos' `Kokkos::Experimental::DynamicView`, a 1-D View that grows on the host
//! between launches, up to a bound given when it is made.

use crate::error::{Error, Result};
use crate::kernel::capture::IntoCapture;
use crate::layout::LayoutRight;
use crate::space::MemorySpace;
use crate::space::host_space::HostSpace;
use crate::view::{Element, View, resize, subview};

/// A 1-D View whose length changes on the host between launches (`resize_serial`), keeping its
/// values, up to `max_extent` elements: Kokkos' `DynamicView`.
///
/// Kernels and copies see its first `size()` elements as a View ([`DynamicView::view`]); a kernel
/// captures that View directly (`kernel!(|i| d[i] = ..)`). The elements live in one allocation
/// that grows by whole chunks (`chunk_size()` elements, a power of two), at least doubling, so a
/// sequence of small growths copies each element a bounded number of times. A View taken before a
/// growth that reallocated (a kernel made then) keeps the old elements, as a View handle does.
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::DynamicView;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let mut d = DynamicView::<f64>::new("particles", 64, 1 << 20)?;
/// d.resize_serial(100)?;
/// parallel_for("fill", RangePolicy::new(&exec, 0, 100)?, kernel!(|i| d[i] = i as f64))?;
/// d.resize_serial(1000)?; // the first 100 values stay
/// assert_eq!((d.size(), d.view().get(99)?, d.view().get(500)?), (1000, 99.0, 0.0));
/// assert!(d.resize_serial(2 << 20).is_err()); // past max_extent
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct DynamicView<T: Element, M: MemorySpace = HostSpace> {
    /// The allocation: `allocation_extent()` elements.
    storage: View<T, 1, LayoutRight, M>,
    /// Its first `size` elements.
    current: View<T, 1, LayoutRight, M>,
    chunk: usize,
    max_extent: usize,
}

impl<T: Element, M: MemorySpace> Clone for DynamicView<T, M> {
    /// Another handle of the same elements (growing one handle does not grow the other).
    fn clone(&self) -> Self {
        DynamicView {
            storage: self.storage.clone(),
            current: self.current.clone(),
            chunk: self.chunk,
            max_extent: self.max_extent,
        }
    }
}

impl<T: Element, M: MemorySpace> std::fmt::Debug for DynamicView<T, M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DynamicView")
            .field("label", &self.label())
            .field("size", &self.size())
            .field("allocation_extent", &self.allocation_extent())
            .field("chunk_size", &self.chunk)
            .field("max_extent", &self.max_extent)
            .finish()
    }
}

impl<T: Element, M: MemorySpace> DynamicView<T, M> {
    /// An empty DynamicView `label` (Kokkos' `DynamicView(label, min_chunk_size, max_extent)`):
    /// chunks of `min_chunk_size` rounded up to a power of two, at most `max_extent` elements.
    /// `Err(Error::InvalidArgument)` for a chunk size above 2^40.
    pub fn new(label: &str, min_chunk_size: usize, max_extent: usize) -> Result<Self> {
        if min_chunk_size > 1 << 40 {
            return Err(invalid(
                label,
                format!("a chunk of {min_chunk_size} elements; at most 2^40"),
            ));
        }
        let chunk = min_chunk_size.max(1).next_power_of_two();
        let storage = View::new(label, [0])?;
        let current = subview(&storage, 0..0)?;
        Ok(DynamicView {
            storage,
            current,
            chunk,
            max_extent,
        })
    }

    /// Gives it `n` elements (Kokkos' `resize_serial`): the first `min(n, size())` keep their
    /// values, new ones are zero. Growing past the allocation allocates whole chunks (at least
    /// doubling it, at most up to `max_extent` rounded to a chunk) and copies the values; shrinking
    /// keeps the allocation. `Err(Error::InvalidArgument)` past `max_extent`; then nothing
    /// changes.
    pub fn resize_serial(&mut self, n: usize) -> Result<()> {
        if n > self.max_extent {
            return Err(invalid(
                self.label(),
                format!(
                    "resize_serial to {n} elements, past its max_extent of {}",
                    self.max_extent
                ),
            ));
        }
        let (size, allocated) = (self.size(), self.allocation_extent());
        if n > allocated {
            let chunks = |k: usize| k.div_ceil(self.chunk) * self.chunk;
            let grown = chunks(n).max(chunks(self.max_extent).min(2 * allocated));
            resize(&mut self.storage, [grown])?;
        }
        // New elements are zero: those past the old allocation are (`resize` zeroes them), and
        // those between the old size and the old allocation, which a shrink left, are zeroed here.
        let stale = size..n.min(allocated);
        if !stale.is_empty() {
            let zeros = View::<T, 1, LayoutRight, M>::new(self.label(), [stale.len()])?;
            crate::view::deep_copy(&subview(&self.storage, stale)?, &zeros)?;
        }
        self.current = subview(&self.storage, 0..n)?;
        Ok(())
    }

    /// The number of elements (Kokkos' `size()` and `extent(0)`).
    pub fn size(&self) -> usize {
        self.current.extent(0)
    }

    /// The number of elements allocated (Kokkos' `allocation_extent()`): whole chunks.
    pub fn allocation_extent(&self) -> usize {
        self.storage.extent(0)
    }

    /// The elements per chunk (a power of two).
    pub fn chunk_size(&self) -> usize {
        self.chunk
    }

    /// The most chunks it may have (Kokkos' `chunk_max()`).
    pub fn chunk_max(&self) -> usize {
        self.max_extent.div_ceil(self.chunk)
    }

    /// The most elements it may have.
    pub fn max_extent(&self) -> usize {
        self.max_extent
    }

    /// The label.
    pub fn label(&self) -> &str {
        self.storage.label()
    }

    /// Its first `size()` elements as a View (for kernels, `deep_copy`, host access), sharing the
    /// allocation.
    pub fn view(&self) -> &View<T, 1, LayoutRight, M> {
        &self.current
    }
}

fn invalid(label: &str, what: String) -> Error {
    Error::InvalidArgument {
        operation: "DynamicView",
        reason: format!("\"{label}\": {what}"),
    }
}

/// A kernel captures a DynamicView as its first `size()` elements (a View).
impl<T: Element, M: MemorySpace> IntoCapture for DynamicView<T, M> {
    type Value = View<T, 1, LayoutRight, M>;
    fn capture_value(&self) -> Self::Value {
        self.current.clone()
    }
}
