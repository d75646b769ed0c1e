//! Scratch memory on the host: each participant's arena for one level, carved into
//! [`ScratchView`]s for the league rank it is running (Kokkos' `ScratchMemorySpace`).
//!
//! Invariants: an arena is a slice of initialized words that only the participant running the team
//! uses; each view takes a fresh, disjoint part of it (the rest stays in the arena), so views never
//! alias; a view of a type that not every bit pattern is a value of is zero-filled when it is made.
//! The words outlive every view (the views borrow them for the member's lifetime).

use std::cell::Cell;
use std::marker::PhantomData;
use std::ops::{Index, IndexMut};

use crate::error::{Error, Result};
use crate::view::Element;

/// The words of scratch memory left at one level for one team or thread.
pub struct ScratchArena<'a> {
    rest: Cell<&'a mut [u64]>,
    level: usize,
    requested: usize,
}

impl<'a> ScratchArena<'a> {
    /// An arena over `words` (the bytes the policy asked for at `level`, `requested`, rounded up).
    pub(crate) fn new(words: &'a mut [u64], level: usize, requested: usize) -> Self {
        ScratchArena {
            rest: Cell::new(words),
            level,
            requested,
        }
    }

    /// The level (0 or 1).
    pub fn level(&self) -> usize {
        self.level
    }

    /// The bytes left for views (the request rounded up to 8, less what earlier views took).
    pub fn remaining(&self) -> usize {
        let rest = self.rest.take();
        let n = rest.len() * 8;
        self.rest.set(rest);
        n
    }

    /// A new View of `extents` (right layout) in this scratch memory, disjoint from the arena's
    /// earlier views. Each view starts at a multiple of 8 bytes, so it takes its size rounded up
    /// to 8 (as Kokkos pads scratch allocations); every space lays views out this way. Its elements hold what the team's earlier work left there (zeros at first,
    /// and always zeros for types such as `bool`, not every bit pattern of which is a value), as
    /// Kokkos' scratch holds stale data. An error when the arena has too little room left (the
    /// message names the level, the bytes asked for and the bytes left) or the type's alignment
    /// exceeds 8.
    pub fn view<T: Element, const R: usize>(
        &self,
        extents: [usize; R],
    ) -> Result<ScratchView<'a, T, R>> {
        let fail = |reason: String| Error::Policy {
            policy: "TeamPolicy".into(),
            reason,
        };
        if self.level > 1 {
            return Err(fail(
                "scratch memory has levels 0 and 1 (team_scratch(0), thread_scratch(1), ...)"
                    .into(),
            ));
        }
        let size = std::mem::size_of::<T>();
        if std::mem::align_of::<T>() > 8 {
            return Err(fail(format!(
                "scratch Views hold types aligned to at most 8 bytes; {} is aligned to {}",
                std::any::type_name::<T>(),
                std::mem::align_of::<T>()
            )));
        }
        let len = extents.iter().try_fold(1usize, |a, &e| a.checked_mul(e));
        let bytes = len.and_then(|n| n.checked_mul(size));
        let left = self.remaining();
        let (Some(len), Some(bytes)) = (len, bytes) else {
            return Err(fail(format!(
                "a scratch View of extents {extents:?} at level {} does not fit in memory",
                self.level
            )));
        };
        if bytes.div_ceil(8) * 8 > left {
            return Err(fail(format!(
                "a scratch View of extents {extents:?} ({bytes} bytes) at level {} does not fit: \
                 {left} bytes of the {} asked for with set_scratch_size are left (views start at \
                 multiples of 8 bytes)",
                self.level, self.requested
            )));
        }
        let rest = self.rest.take();
        let (mine, rest) = rest.split_at_mut(bytes.div_ceil(8));
        self.rest.set(rest);
        if !T::ANY_BIT_PATTERN {
            mine.fill(0);
        }
        // SAFETY: `mine` is a slice of initialized `u64`s that this view borrows exclusively for
        // 'a (it was split off the arena, which keeps only the rest); it holds `bytes` = `len *
        // size_of::<T>()` bytes or more, is 8-byte aligned (a `u64` slice) and T's alignment is at
        // most 8 (checked above); every bit pattern is a `T` (`ANY_BIT_PATTERN`), or the words
        // are all zero, which is a value of every `Element` (its contract).
        let data = unsafe { std::slice::from_raw_parts_mut(mine.as_mut_ptr().cast::<T>(), len) };
        Ok(ScratchView {
            data,
            extents,
            _not_send: PhantomData,
        })
    }
}

/// A View in a team's or a thread's scratch memory on the host (right layout), valid while the
/// kernel runs the team: `team.team_scratch(0).view::<f64, 2>([16, 16])?`. Indexing follows Rust's
/// slices (an index out of bounds panics, naming it).
pub struct ScratchView<'a, T, const R: usize> {
    data: &'a mut [T],
    extents: [usize; R],
    _not_send: PhantomData<*const ()>,
}

impl<'a, T, const R: usize> ScratchView<'a, T, R> {
    /// The extent of dimension `d` (0 past the rank).
    pub fn extent(&self, d: usize) -> usize {
        self.extents.get(d).copied().unwrap_or(0)
    }

    /// The number of elements.
    pub fn len(&self) -> usize {
        self.data.len()
    }

    /// Whether the View has no elements.
    pub fn is_empty(&self) -> bool {
        self.data.is_empty()
    }

    /// The elements in memory order.
    pub fn as_slice(&self) -> &[T] {
        self.data
    }

    /// The elements in memory order, writable.
    pub fn as_mut_slice(&mut self) -> &mut [T] {
        self.data
    }

    /// The elements for the rest of the view's lifetime (for `kernel!`'s scratch Views).
    pub(crate) fn take_slice(&mut self) -> &'a mut [T] {
        std::mem::take(&mut self.data)
    }

    /// The position of `index` in memory (see [`right_offset`]).
    fn offset(&self, index: [usize; R]) -> usize {
        right_offset(index, &self.extents)
    }
}

macro_rules! scratch_index {
    ($r:literal, $idx:ty, |$i:ident| $arr:expr) => {
        impl<T> Index<$idx> for ScratchView<'_, T, $r> {
            type Output = T;
            fn index(&self, $i: $idx) -> &T {
                &self.data[self.offset($arr)]
            }
        }
        impl<T> IndexMut<$idx> for ScratchView<'_, T, $r> {
            fn index_mut(&mut self, $i: $idx) -> &mut T {
                let at = self.offset($arr);
                &mut self.data[at]
            }
        }
    };
}

scratch_index!(1, usize, |i| [i]);
scratch_index!(2, (usize, usize), |i| [i.0, i.1]);
scratch_index!(3, (usize, usize, usize), |i| [i.0, i.1, i.2]);

/// The position of `index` in a right-layout array of `extents`, panicking with the index and the
/// extents when it is out of bounds (as Rust's slices do).
pub(super) fn right_offset<const R: usize>(index: [usize; R], extents: &[usize; R]) -> usize {
    let mut at = 0;
    for d in 0..R {
        assert!(
            index[d] < extents[d],
            "scratch View index {index:?} out of bounds for extents {extents:?}"
        );
        at = at * extents[d] + index[d];
    }
    at
}
