//! What a host kernel sees of a captured [`UniqueToken`](super::UniqueToken): `acquire` gives a
//! [`TokenId`], which holds its id until `release` takes it or it is dropped.
//!
//! Soundness: the race rules accept a write at a View coordinate that is an id held from a token
//! (`kernel!` writes that coordinate as [`token_held`]). That is sound because within a launch an
//! id is held by one thread at a time. When the token has at least as many ids as the launch's
//! host job has participants, a thread's id is its participant number (`runtime/context.rs`),
//! which no other thread of the job has; every thread of one job sees the same count, so a launch
//! never mixes this with the other way. Otherwise a slot word goes from 0 to 1 only by a
//! compare-exchange (the thread that wins holds the id) and back to 0 only when that thread's
//! `TokenId` is released or dropped. (Two launches running at once on different instances may
//! hold one id each: a View written at ids is borrowed exclusively by each launch, so they never
//! write one View at the same time.) A
//! `TokenId` is neither `Copy` nor `Clone`, borrows the launch's accessor (so it cannot outlive
//! the launch), and `release` consumes it: a coordinate that type-checks as a held id is one. The
//! acquire (`Acquire`) and release (`Release`) orderings make a holder's accesses happen after
//! the previous holder's.

use std::marker::PhantomData;
use std::sync::atomic::{AtomicU32, Ordering};

use crate::layout::LayoutRight;
use crate::runtime::context;
use crate::space::MemorySpace;
use crate::view::View;

/// The words of one id's slot in a host token: a 64-byte cache line each, so that threads holding
/// different ids do not share a line.
pub(crate) const HOST_SLOT_WORDS: usize = 16;

/// A captured UniqueToken in a host kernel. Its lifetime is the launch's.
#[derive(Clone, Copy)]
pub struct TokenAccess<'a> {
    base: *const AtomicU32,
    /// The ids the accessor hands out (at most the slots the words hold).
    slots: usize,
    /// The token's own number of ids (`size()`).
    size: usize,
    _launch: PhantomData<&'a AtomicU32>,
}

// SAFETY: the accessor is a pointer to atomics the launch borrowed; every access is atomic.
unsafe impl Sync for TokenAccess<'_> {}
// SAFETY: as for `Sync`.
unsafe impl Send for TokenAccess<'_> {}

impl<'a> TokenAccess<'a> {
    /// The accessor of a token whose state is `slots` (`HOST_SLOT_WORDS` words per id), with
    /// `size` ids.
    ///
    /// # Safety
    /// The launch holds `slots`' allocation, in host-accessible memory, while the accessor is used,
    /// and every access of its words meanwhile is atomic.
    pub(crate) unsafe fn new<M: MemorySpace>(
        slots: &'a View<u32, 1, LayoutRight, M>,
        size: usize,
    ) -> Self {
        TokenAccess {
            base: slots.as_ptr().cast::<AtomicU32>(),
            slots: size.min(slots.extent(0) / HOST_SLOT_WORDS).max(1),
            size,
            _launch: PhantomData,
        }
    }

    /// The slot word of id `k` (`k < slots`).
    #[inline(always)]
    fn slot(&self, k: usize) -> &'a AtomicU32 {
        debug_assert!(k < self.slots);
        // SAFETY: `k < slots`, and the words hold `slots` slots of `HOST_SLOT_WORDS` words (`new`),
        // alive and host-accessible for the launch; `AtomicU32` has `u32`'s layout.
        unsafe { &*self.base.add(k * HOST_SLOT_WORDS) }
    }

    /// `token.acquire()`: holds a free id, waiting for one if every id is held. With at least as
    /// many ids as the launch's job has participants, the id is the thread's participant number,
    /// which no other thread of the job has (no atomic operation). Otherwise a thread takes a free
    /// id by a compare-exchange, starting at its participant's.
    #[inline]
    pub fn acquire(&self) -> TokenId<'a> {
        let (participant, participants) = context::participant_of();
        if participants <= self.slots {
            return TokenId {
                index: participant,
                slot: None,
                owner: self.base,
            };
        }
        let start = participant % self.slots;
        let mut k = start;
        let mut backoff = context::Backoff::new();
        loop {
            let slot = self.slot(k);
            if slot.load(Ordering::Relaxed) == 0
                && slot
                    .compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
                    .is_ok()
            {
                return TokenId {
                    index: k,
                    slot: Some(slot),
                    owner: self.base,
                };
            }
            k = if k + 1 == self.slots { 0 } else { k + 1 };
            if k == start {
                backoff.round();
            }
        }
    }

    /// `token.release(id)`: the id is free again.
    #[inline]
    pub fn release(&self, id: TokenId<'a>) {
        drop(id);
    }

    /// `token.size()`: the number of ids.
    #[inline(always)]
    pub fn size(&self) -> usize {
        self.size
    }
}

/// An id held from a UniqueToken in a host kernel (`let id = token.acquire();`): released by
/// `token.release(id)` or when dropped.
pub struct TokenId<'a> {
    index: usize,
    /// The slot taken for the id (none for a participant's own id).
    slot: Option<&'a AtomicU32>,
    /// The token's words (which token the id is of).
    owner: *const AtomicU32,
}

impl TokenId<'_> {
    /// The id, `0..token.size()`.
    #[inline(always)]
    pub fn index(&self) -> usize {
        self.index
    }
}

impl Drop for TokenId<'_> {
    #[inline(always)]
    fn drop(&mut self) {
        if let Some(slot) = self.slot {
            slot.store(0, Ordering::Release);
        }
    }
}

impl std::fmt::Debug for TokenId<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "TokenId({})", self.index)
    }
}

/// `let id = token.acquire();` in a host kernel.
#[inline(always)]
pub fn token_acquire<'a>(token: &TokenAccess<'a>) -> TokenId<'a> {
    token.acquire()
}

/// `token.release(id)` in a host kernel.
#[inline(always)]
pub fn token_release<'a>(token: &TokenAccess<'a>, id: TokenId<'a>) {
    token.release(id)
}

/// `token.size()` in a host kernel.
#[inline(always)]
pub fn token_size(token: &TokenAccess<'_>) -> usize {
    token.size()
}

/// An id used as a number in a host kernel.
#[inline(always)]
pub fn token_value(id: &TokenId<'_>) -> usize {
    id.index
}

/// A View coordinate that the race rules take for an id held from `token` (`work[(id, k)]`): the
/// id, after checking that it is one of `token`'s. Panics otherwise, as a bad index does.
#[inline(always)]
#[track_caller]
pub fn token_held(token: &TokenAccess<'_>, id: &TokenId<'_>) -> usize {
    assert!(
        std::ptr::eq(id.owner, token.base),
        "a UniqueToken id indexes a View that the kernel indexes with another token's ids"
    );
    id.index
}
