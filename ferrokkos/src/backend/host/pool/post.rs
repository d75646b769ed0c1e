//! Where a broadcast is announced: one pool-owned post per first worker of a range.
//!
//! The dispatcher that holds worker `a` (see `reserve.rs`) is the only writer of post `a`. It writes
//! the job's number of workers and its code (`job::Code`), rings the pool's bell, then writes the
//! job's ticket: a sequence lock whose sequence number is the ticket itself (`BUSY` while the writer
//! is at work). A reader gets the ticket and the number of workers as one writer wrote them, or
//! waits until it can; since the ticket is written after the bell, whoever reads a notice has seen
//! its bell rung (the pool's wake-up handshake relies on it). Both are atomics, so a reader racing
//! with a writer reads stale or torn values it then discards, never undefined behaviour.
//!
//! The code is plain data, read only by a thread that has won one of the announced job's
//! participants (see `Slot::claim`): that job cannot complete, so the post cannot be written again,
//! before the winner finishes its participant, and the winner read the ticket (Acquire) after the
//! writer wrote the code. So the code is never read while it is written, and it sits in the same
//! cache line as the notice (and, for post 0, the bell): a worker gets all it needs in one transfer.

use std::cell::UnsafeCell;
use std::mem::MaybeUninit;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering, fence};

use super::job::Code;
use super::reserve::backoff;

/// The ticket value while the post is being written.
const BUSY: u64 = u64::MAX;

/// What a post announces: job `ticket` for workers `first .. first + workers`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Notice {
    pub ticket: u64,
    pub workers: usize,
}

/// A post (see the module's documentation).
pub(super) struct Post {
    ticket: AtomicU64,
    workers: AtomicUsize,
    code: UnsafeCell<MaybeUninit<Code>>,
}

// SAFETY: `code` is written only by the holder of the post's first worker, before it opens a notice
// (Release), and read only by threads that won a participant of the job of the notice they read
// (Acquire), which keeps the holder from writing it again until they finish (see the module's
// documentation); so it is never accessed by two threads without a happens-before edge. The code's
// pointers are only dereferenced under the same rule (`job.rs`). The other fields are atomics.
unsafe impl Sync for Post {}
// SAFETY: as for Sync; a post owns nothing tied to a thread.
unsafe impl Send for Post {}

impl Post {
    pub(super) fn new() -> Self {
        Post {
            ticket: AtomicU64::new(0),
            workers: AtomicUsize::new(0),
            code: UnsafeCell::new(MaybeUninit::uninit()),
        }
    }

    /// Announces `notice` for a job of `code`: writes them, calls `ring` (the bell), then opens the
    /// notice to readers.
    ///
    /// # Safety
    /// The caller holds this post's first worker, so no other thread writes the post now, and no
    /// thread runs a participant of the post's previous job any more (it completed before the
    /// worker was released); `notice.ticket` is a fresh ticket (larger than any announced before,
    /// below `BUSY`).
    pub(super) unsafe fn publish(&self, notice: Notice, code: Code, ring: impl FnOnce()) {
        self.ticket.store(BUSY, Ordering::Relaxed);
        // Orders the BUSY mark before the new fields: a reader that sees any new field and then
        // fences sees BUSY or the new ticket on its second look (the sequence-lock argument).
        fence(Ordering::Release);
        self.workers.store(notice.workers, Ordering::Relaxed);
        // SAFETY: nobody reads the code now: its readers are the participants of the previous job,
        // all finished (the caller's contract), and those of the new one, which cannot claim before
        // reading the ticket stored below.
        unsafe { (*self.code.get()).write(code) };
        ring();
        self.ticket.store(notice.ticket, Ordering::Release);
    }

    /// The current announcement (`None` if the post was never used), waiting while a writer is at
    /// work. Acquire: whatever the writer did before opening the notice (writing the code, ringing
    /// the bell) happens before the caller's next steps.
    pub(super) fn read(&self) -> Option<Notice> {
        let mut spins = 0u32;
        loop {
            let ticket = self.ticket.load(Ordering::Acquire);
            if ticket == 0 {
                return None;
            }
            if ticket != BUSY {
                let workers = self.workers.load(Ordering::Relaxed);
                fence(Ordering::Acquire);
                if self.ticket.load(Ordering::Relaxed) == ticket {
                    return Some(Notice { ticket, workers });
                }
            }
            // A writer is between its first and last store, a few instructions apart.
            backoff(&mut spins);
        }
    }

    /// The code of the announced job.
    ///
    /// # Safety
    /// The caller read the job's notice from this post and then won one of its participants, and
    /// has not finished it (so the job has not completed, and the post is not written again).
    pub(super) unsafe fn code(&self) -> Code {
        // SAFETY: the code was written before the notice the caller read (happens-before through
        // the ticket), and is not written again while the caller's participant runs.
        unsafe { (*self.code.get()).assume_init() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::host::pool::job::Panic;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn an_empty_post_announces_nothing() {
        assert_eq!(Post::new().read(), None);
    }

    /// A reader never sees the fields of two announcements mixed: every announcement here has
    /// `workers == ticket`.
    #[test]
    fn readers_never_see_a_torn_announcement() {
        let post = Arc::new(Post::new());
        let stop = Arc::new(AtomicBool::new(false));
        let readers: Vec<_> = (0..2)
            .map(|_| {
                let (post, stop) = (Arc::clone(&post), Arc::clone(&stop));
                std::thread::spawn(move || {
                    let mut seen = 0u64;
                    while !stop.load(Ordering::Relaxed) {
                        if let Some(n) = post.read() {
                            assert_eq!(n.workers as u64, n.ticket);
                            assert!(n.ticket >= seen, "tickets went back");
                            seen = n.ticket;
                        }
                    }
                    seen
                })
            })
            .collect();
        let panic = Panic::default();
        let code = Code::new(&|_| {}, None, &panic);
        for ticket in 1..=100_000u64 {
            let notice = Notice {
                ticket,
                workers: ticket as usize,
            };
            // SAFETY: this thread is the post's only writer, nobody reads the code, tickets grow.
            unsafe { post.publish(notice, code, || {}) };
        }
        stop.store(true, Ordering::Relaxed);
        for r in readers {
            assert!(r.join().unwrap() <= 100_000);
        }
        assert_eq!(post.read().map(|n| n.ticket), Some(100_000));
    }
}
