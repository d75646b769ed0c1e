//! What a host kernel sees of a captured [`RandomPool`](super::RandomPool): `get_state` gives a
//! [`RandState`], which holds one of the pool's states until `free_state` takes it or it is
//! dropped, and writes the generator back then.
//!
//! Soundness: a state's words are read and written only by the iteration holding the state, so
//! no two threads touch them at the same time. A launch holds the pool's words exclusively (no
//! other launch and no host code touches them meanwhile: `AccessMode::Atomic`). When the pool has
//! at least as many states as the launch's host job has participants, a thread's state is its
//! participant number (`runtime/context.rs`), which no other thread of the job has, and a thread
//! holds at most one state of a pool at a time (`kernel!` refuses a second `get_state` while one is
//! held; an `unsafe` kernel that captures one pool under two names could hold its own state twice,
//! which only repeats numbers on that one thread). Otherwise a lock word goes from 0 to 1 only by a
//! compare-exchange (the thread that wins holds the state) and back to 0 only after the state was
//! written back, when the `RandState` is dropped. A `RandState` is neither `Copy` nor `Clone` and
//! borrows the launch's accessor (so it cannot outlive the launch).

use std::marker::PhantomData;
use std::ops::{Deref, DerefMut};
use std::sync::atomic::{AtomicU64, Ordering};

use super::generator::{Generator, draw_methods};
use crate::runtime::context;

/// Where a pool's words are: word `j` of state `i` (word 0 the lock, then the generator's) is at
/// `base + i * state_stride + j * word_stride`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Words {
    pub(crate) base: *mut u64,
    pub(crate) states: usize,
    pub(crate) state_stride: usize,
    pub(crate) word_stride: usize,
}

/// A captured random pool in a host kernel. Its lifetime is the launch's.
pub struct PoolAccess<'a, G> {
    words: Words,
    _launch: PhantomData<&'a AtomicU64>,
    _gen: PhantomData<fn() -> G>,
}

impl<G> Clone for PoolAccess<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G> Copy for PoolAccess<'_, G> {}

// SAFETY: the accessor is a pointer to words the launch borrowed exclusively; each state's words
// are touched only by the thread holding it (the module's documentation), the locks atomically.
unsafe impl<G> Sync for PoolAccess<'_, G> {}
// SAFETY: as for `Sync`.
unsafe impl<G> Send for PoolAccess<'_, G> {}

impl<'a, G: Generator> PoolAccess<'a, G> {
    /// The accessor of a pool whose words are `words`.
    ///
    /// # Safety
    /// The words (`states` states of `1 + G::WORDS` words each, laid out as `words` says) are
    /// allocated, host-accessible and borrowed exclusively by the launch while the accessor is
    /// used, and every lock word is 0 when the launch starts.
    pub(crate) unsafe fn new(words: Words) -> Self {
        PoolAccess {
            words,
            _launch: PhantomData,
            _gen: PhantomData,
        }
    }

    /// Word `j` of state `i` (`i < states`, `j <= G::WORDS`).
    #[inline(always)]
    fn word(&self, i: usize, j: usize) -> *mut u64 {
        debug_assert!(i < self.words.states && j <= G::WORDS);
        // SAFETY: in the allocation: `i < states` and `j <= G::WORDS` (`new`'s contract).
        unsafe {
            self.words
                .base
                .add(i * self.words.state_stride + j * self.words.word_stride)
        }
    }

    /// `pool.get_state()`: holds a free state, waiting for one if every state is held. With at
    /// least as many states as the launch's job has participants, the state is the thread's
    /// participant number; otherwise a thread takes a free state by a compare-exchange of its
    /// lock, starting at its participant's.
    #[inline]
    pub fn get_state(&self) -> RandState<'a, G> {
        let states = self.words.states;
        let (participant, participants) = context::participant_of();
        let (index, lock) = if participants <= states {
            (participant, None)
        } else {
            let start = participant % states;
            let mut k = start;
            let mut backoff = context::Backoff::new();
            loop {
                // SAFETY: word 0 of a state is its lock, only ever accessed atomically in the
                // launch; `AtomicU64` has `u64`'s layout, and the words are 8-aligned.
                let lock = unsafe { &*self.word(k, 0).cast::<AtomicU64>() };
                if lock.load(Ordering::Relaxed) == 0
                    && lock
                        .compare_exchange(0, 1, Ordering::Acquire, Ordering::Relaxed)
                        .is_ok()
                {
                    break (k, Some(lock));
                }
                k = if k + 1 == states { 0 } else { k + 1 };
                if k == start {
                    backoff.round();
                }
            }
        };
        let mut buf = [0u64; 17];
        for (j, w) in buf.iter_mut().enumerate().take(G::WORDS) {
            // SAFETY: this thread holds state `index` (above), so nothing else touches its words.
            *w = unsafe { self.word(index, 1 + j).read() };
        }
        RandState {
            rng: G::load(&buf[..G::WORDS]),
            home: self.word(index, 1),
            word_stride: self.words.word_stride,
            lock,
            _launch: PhantomData,
        }
    }
}

/// A state held from a random pool in a host kernel (`let mut rng = pool.get_state();`): its
/// generator, which the draws (`rng.drand()`, ...) advance. Given back by `pool.free_state(rng)` or
/// when dropped, which writes the generator to the pool and frees the state.
pub struct RandState<'a, G: Generator> {
    rng: G,
    /// The state's first generator word in the pool.
    home: *mut u64,
    word_stride: usize,
    /// The lock taken for the state (none for a participant's own state).
    lock: Option<&'a AtomicU64>,
    _launch: PhantomData<&'a AtomicU64>,
}

impl<G: Generator> RandState<'_, G> {
    draw_methods!(self => &mut self.rng);
}

impl<G: Generator> Deref for RandState<'_, G> {
    type Target = G;
    fn deref(&self) -> &G {
        &self.rng
    }
}

impl<G: Generator> DerefMut for RandState<'_, G> {
    fn deref_mut(&mut self) -> &mut G {
        &mut self.rng
    }
}

impl<G: Generator> Drop for RandState<'_, G> {
    #[inline]
    fn drop(&mut self) {
        let mut buf = [0u64; 17];
        self.rng.store(&mut buf[..G::WORDS]);
        for (j, w) in buf.iter().enumerate().take(G::WORDS) {
            // SAFETY: the state is held by this thread until the lock is released below (or is
            // its participant's own), so nothing else touches its words; `home` and its
            // `G::WORDS - 1` successors at `word_stride` lie in the pool's words.
            unsafe { self.home.add(j * self.word_stride).write(*w) };
        }
        if let Some(lock) = self.lock {
            lock.store(0, Ordering::Release);
        }
    }
}

impl<G: Generator> std::fmt::Debug for RandState<'_, G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("RandState").field(&self.rng).finish()
    }
}

/// `let mut rng = pool.get_state();` in a host kernel.
#[inline(always)]
pub fn rand_get_state<'a, G: Generator>(pool: &PoolAccess<'a, G>) -> RandState<'a, G> {
    pool.get_state()
}

/// `pool.free_state(rng);` in a host kernel: the state is written back and freed.
#[inline(always)]
pub fn rand_free_state<'a, G: Generator>(_pool: &PoolAccess<'a, G>, state: RandState<'a, G>) {
    drop(state);
}
