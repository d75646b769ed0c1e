//! [`Bitset`]: Kokkos' `Kokkos::Bitset`, a fixed number of bits in a memory space that kernels
//! set, reset and test atomically.

use crate::error::{Error, Result};
use crate::kernel::capture::{Borrowed, IntoCapture, KernelScalar, KernelValue};
use crate::kernel::params::ParamWriter;
use crate::kernel::shadow::BitsetShadow;
use crate::layout::LayoutRight;
use crate::seal::SealedKernelValue;
use crate::space::host_space::HostSpace;
use crate::space::{HostAccessible, MemorySpace};
use crate::view::kernel_access::{AccessMode, ViewAccess};
use crate::view::{View, create_mirror_view, deep_copy, subview};

use super::bitset_access::BitsetAccess;

/// The most bits a Bitset may have.
const MAX_SIZE: usize = 1 << 40;

/// `size()` bits in memory space `M`, all clear when made: Kokkos' `Bitset`.
///
/// Kernels capture it and call `b.set(i)`, `b.reset(i)` (each true when the call changed the bit),
/// `b.test(i)` and `b.size()`; every one is an atomic operation on the bit's 32-bit word, so any
/// number of iterations may use one Bitset at once, and a bit past `size()` is never set and tests
/// false (as in Kokkos). On the host, [`count`](Bitset::count), [`set_all`](Bitset::set_all),
/// [`reset_all`](Bitset::reset_all) and [`deep_copy_from`](Bitset::deep_copy_from) work in every
/// memory space; [`test`](Bitset::test), [`set`](Bitset::set) and [`reset`](Bitset::reset) of one bit
/// in host-accessible ones. A clone shares the bits (Kokkos' shallow copy).
///
/// ```
/// use ferrokkos::prelude::*;
/// use ferrokkos::Bitset;
///
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let exec = Threads::default_instance()?;
/// let seen = Bitset::<HostSpace>::new("seen", 100)?;
/// // Which remainders mod 37 occur among 0..1000, and how many iterations found a new one.
/// let mut first = 0usize;
/// parallel_reduce(
///     "mark",
///     RangePolicy::new(&exec, 0, 1000)?,
///     kernel!(|i, n: &mut usize| if seen.set(i % 37) { *n += 1 }),
///     &mut first,
/// )?;
/// assert_eq!((first, seen.count()?), (37, 37));
/// assert!(seen.test(36)? && !seen.test(37)?);
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub struct Bitset<M: MemorySpace = HostSpace> {
    /// `size.div_ceil(32)` words; bit `i` is bit `i % 32` of word `i / 32`, and the bits of the
    /// last word past `size` stay clear.
    words: View<u32, 1, LayoutRight, M>,
    size: usize,
}

impl<M: MemorySpace> Clone for Bitset<M> {
    /// Another handle of the same bits.
    fn clone(&self) -> Self {
        Bitset {
            words: self.words.clone(),
            size: self.size,
        }
    }
}

impl<M: MemorySpace> std::fmt::Debug for Bitset<M> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Bitset")
            .field("label", &self.label())
            .field("size", &self.size)
            .field("space", &M::NAME)
            .finish()
    }
}

impl<M: MemorySpace> Bitset<M> {
    /// A Bitset `label` of `size` bits, all clear (Kokkos' `Bitset(size)`).
    /// `Err(Error::InvalidArgument)` past 2^40 bits; an allocation error as for a View.
    pub fn new(label: &str, size: usize) -> Result<Self> {
        if size > MAX_SIZE {
            return Err(invalid(
                label,
                format!("{size} bits; a Bitset has at most 2^40"),
            ));
        }
        Ok(Bitset {
            words: View::new(label, [size.div_ceil(32)])?,
            size,
        })
    }

    /// The number of bits (Kokkos' `size()`).
    pub fn size(&self) -> usize {
        self.size
    }

    /// The label.
    pub fn label(&self) -> &str {
        self.words.label()
    }

    /// The number of set bits (Kokkos' `count()`), read after the work that uses the bits.
    pub fn count(&self) -> Result<usize> {
        let host = create_mirror_view(&self.words)?;
        deep_copy(&host, &self.words)?;
        let g = host.host()?;
        Ok((0..host.extent(0))
            .map(|k| g[k].count_ones() as usize)
            .sum())
    }

    /// Sets every bit (Kokkos' `set()`).
    pub fn set_all(&self) -> Result<()> {
        deep_copy(&self.words, u32::MAX)?;
        let tail = self.size % 32;
        if tail != 0 {
            let last = self.words.extent(0) - 1;
            deep_copy(&subview(&self.words, last..last + 1)?, (1u32 << tail) - 1)?;
        }
        Ok(())
    }

    /// Clears every bit (Kokkos' `reset()`).
    pub fn reset_all(&self) -> Result<()> {
        deep_copy(&self.words, 0u32)
    }

    /// Clears every bit (Kokkos' `clear()`, the same as [`reset_all`](Bitset::reset_all)).
    pub fn clear(&self) -> Result<()> {
        self.reset_all()
    }

    /// Copies the bits of `src`, in any memory space, into this Bitset (Kokkos'
    /// `deep_copy(dst, src)` of Bitsets). `Err(Error::InvalidArgument)` naming both when their sizes
    /// differ; then nothing is copied.
    pub fn deep_copy_from<M2: MemorySpace>(&self, src: &Bitset<M2>) -> Result<()> {
        if src.size != self.size {
            return Err(Error::InvalidArgument {
                operation: "Bitset deep_copy",
                reason: format!(
                    "destination \"{}\" has {} bits, source \"{}\" has {}",
                    self.label(),
                    self.size,
                    src.label(),
                    src.size
                ),
            });
        }
        deep_copy(&self.words, &src.words)
    }

    /// Bit `i`'s word and mask, or `Err(Error::OutOfBounds)` naming the Bitset.
    fn bit(&self, i: usize) -> Result<(usize, u32)> {
        if i >= self.size {
            return Err(Error::OutOfBounds {
                label: self.label().to_string(),
                index: vec![i],
                extents: vec![self.size],
            });
        }
        Ok((i / 32, 1u32 << (i % 32)))
    }
}

impl<M: HostAccessible> Bitset<M> {
    /// Whether bit `i` is set (Kokkos' `test(i)`). `Err(Error::OutOfBounds)` for `i >= size()`.
    pub fn test(&self, i: usize) -> Result<bool> {
        let (k, m) = self.bit(i)?;
        Ok(self.words.get(k)? & m != 0)
    }

    /// Sets bit `i`: true when it was clear (Kokkos' `set(i)`). `Err(Error::OutOfBounds)` for
    /// `i >= size()`.
    pub fn set(&self, i: usize) -> Result<bool> {
        self.update(i, |w, m| w | m)
    }

    /// Clears bit `i`: true when it was set (Kokkos' `reset(i)`). `Err(Error::OutOfBounds)` for
    /// `i >= size()`.
    pub fn reset(&self, i: usize) -> Result<bool> {
        self.update(i, |w, m| w & !m)
    }

    /// Replaces bit `i`'s word `w` by `f(w, mask)` under an exclusive borrow of the words; true
    /// when that changed the word.
    fn update(&self, i: usize, f: impl FnOnce(u32, u32) -> u32) -> Result<bool> {
        let (k, m) = self.bit(i)?;
        let mut g = self.words.host_mut()?;
        let old = g[k];
        g[k] = f(old, m);
        Ok(g[k] != old)
    }
}

fn invalid(label: &str, what: String) -> Error {
    Error::InvalidArgument {
        operation: "Bitset",
        reason: format!("\"{label}\": {what}"),
    }
}

/// A kernel captures a Bitset as itself and calls its kernel methods.
impl<M: MemorySpace> IntoCapture for Bitset<M> {
    type Value = Bitset<M>;
    fn capture_value(&self) -> Self::Value {
        self.clone()
    }
}

impl<M: MemorySpace> SealedKernelValue for Bitset<M> {}

impl<M: MemorySpace> KernelValue for Bitset<M> {
    type Host<'a> = BitsetAccess<'a>;
    type Shadow = BitsetShadow;
    /// Updated atomically, so borrowed exclusively: host code reads the words plainly (`count`,
    /// `test`), and the exclusive borrow makes it wait for the launch (a GPU launch runs after the
    /// host returns); the launch checks that its space reaches them.
    fn read_access(&self, name: &'static str) -> Option<ViewAccess<'_>> {
        Some(ViewAccess::of(name, &self.words, AccessMode::Atomic))
    }
    fn read_host<'a>(&'a self, _: &Borrowed) -> BitsetAccess<'a> {
        // SAFETY: the words hold `size.div_ceil(32)` elements (`new`); the proof says the launch
        // holds their allocation (host-accessible: a host launch checked it) while the accessor is
        // used, and every kernel access of them is an accessor's atomic operation.
        unsafe { BitsetAccess::new(&self.words, self.size) }
    }
    fn read_shadow(&self, cxx_name: &str) -> BitsetShadow {
        BitsetShadow::name(cxx_name)
    }
    fn read_cxx_type() -> String {
        "const fk::Bitset".to_string()
    }
    fn read_pack(&self, w: &mut ParamWriter<'_>) {
        w.push([self.words.as_ptr() as u64, self.size as u64]);
    }
}

impl<M: MemorySpace> KernelScalar for Bitset<M> {}
