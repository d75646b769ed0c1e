//! What a host kernel sees of a captured [`Bitset`](super::Bitset): `set`, `reset` and `test` of
//! one bit, each one atomic operation on the bit's word, and `size`.
//!
//! Soundness: the accessor is made only by a launch that holds the words' allocation exclusively
//! (the capture's access is `AccessMode::Atomic`), so host code, which reads and writes the words
//! plainly through guards and copies, waits for the launch; within the launch every access of
//! the words is one of the accessor's atomic operations. Every access checks `i < size`, and the
//! words hold `size.div_ceil(32)` `u32`s (`Bitset::new`).

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::layout::LayoutRight;
use crate::space::MemorySpace;
use crate::view::View;

/// A captured Bitset in a host kernel. Its lifetime is the launch's.
#[derive(Clone, Copy)]
pub struct BitsetAccess<'a> {
    words: *const AtomicU32,
    size: usize,
    _launch: PhantomData<&'a AtomicU32>,
}

// SAFETY: the accessor is a pointer to atomics the launch borrowed; every access is atomic.
unsafe impl Sync for BitsetAccess<'_> {}
// SAFETY: as for `Sync`.
unsafe impl Send for BitsetAccess<'_> {}

impl<'a> BitsetAccess<'a> {
    /// The accessor of a Bitset of `size` bits whose words are `words`.
    ///
    /// # Safety
    /// `words` holds at least `size.div_ceil(32)` elements; the launch holds its allocation, in
    /// host-accessible memory, while the accessor is used, and every access of the words meanwhile
    /// is atomic.
    pub(crate) unsafe fn new<M: MemorySpace>(
        words: &'a View<u32, 1, LayoutRight, M>,
        size: usize,
    ) -> Self {
        debug_assert!(words.extent(0) >= size.div_ceil(32));
        BitsetAccess {
            words: words.as_ptr().cast::<AtomicU32>(),
            size,
            _launch: PhantomData,
        }
    }

    /// The word of bit `i` and the bit's mask, if `i < size`.
    #[inline(always)]
    fn word(&self, i: usize) -> Option<(&'a AtomicU32, u32)> {
        (i < self.size).then(|| {
            // SAFETY: `i < size`, so word `i / 32` is one of the `size.div_ceil(32)` words the
            // launch holds (`new`); `AtomicU32` has `u32`'s layout.
            let w = unsafe { &*self.words.add(i >> 5) };
            (w, 1u32 << (i & 31))
        })
    }

    /// `b.set(i)`: sets bit `i`; true when this call changed it, false when it was set already or
    /// `i >= size()` (Kokkos' `Bitset::set`).
    #[inline]
    pub fn set(&self, i: usize) -> bool {
        self.word(i)
            .is_some_and(|(w, m)| w.fetch_or(m, Ordering::AcqRel) & m == 0)
    }

    /// `b.reset(i)`: clears bit `i`; true when this call changed it, false when it was clear
    /// already or `i >= size()`.
    #[inline]
    pub fn reset(&self, i: usize) -> bool {
        self.word(i)
            .is_some_and(|(w, m)| w.fetch_and(!m, Ordering::AcqRel) & m != 0)
    }

    /// `b.test(i)`: whether bit `i` is set (false for `i >= size()`).
    #[inline]
    pub fn test(&self, i: usize) -> bool {
        self.word(i)
            .is_some_and(|(w, m)| w.load(Ordering::Acquire) & m != 0)
    }

    /// `b.size()`: the number of bits.
    #[inline(always)]
    pub fn size(&self) -> usize {
        self.size
    }
}
