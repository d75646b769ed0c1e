//! Where a broadcast is announced: one pool-owned post per first worker of a range.
//!
//! The dispatcher that holds worker `a` (see `reserve.rs`) is the only writer of post `a`. It writes
//! the job's number of workers and the address of the job, rings the pool's bell, then writes the
//! job's ticket: a sequence lock whose sequence number is the ticket itself (`BUSY` while the writer
//! is at work). A reader gets the three as one writer wrote them, or waits until it can; and since
//! the ticket is written after the bell, whoever reads a notice has seen its bell rung (the pool's
//! wake-up handshake relies on it). Every field is an atomic, so a reader racing with a writer reads
//! stale or torn values it then discards, never undefined behaviour; and the job's address is only an
//! address: a reader dereferences it only after winning that job's participant (see `Slot::claim`),
//! which keeps the job alive.

use std::sync::atomic::{AtomicPtr, AtomicU64, AtomicUsize, Ordering, fence};

use super::job::Job;
use super::reserve::backoff;

/// The ticket value while the post is being written.
const BUSY: u64 = u64::MAX;

/// What a post announces: the job `ticket` for workers `first .. first + workers`, at `job`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Notice {
    pub ticket: u64,
    pub workers: usize,
    pub job: *const Job,
}

/// A post (see the module's documentation).
pub(super) struct Post {
    ticket: AtomicU64,
    workers: AtomicUsize,
    job: AtomicPtr<Job>,
}

impl Post {
    pub(super) fn new() -> Self {
        Post {
            ticket: AtomicU64::new(0),
            workers: AtomicUsize::new(0),
            job: AtomicPtr::new(std::ptr::null_mut()),
        }
    }

    /// Announces `notice`: writes it, calls `ring` (the bell), then opens it to readers.
    ///
    /// # Safety
    /// The caller holds this post's first worker, so no other thread writes the post now, and
    /// `notice.ticket` is a fresh ticket (larger than any announced before, below `BUSY`).
    pub(super) unsafe fn publish(&self, notice: Notice, ring: impl FnOnce()) {
        self.ticket.store(BUSY, Ordering::Relaxed);
        // Orders the BUSY mark before the new fields: a reader that sees any new field and then
        // fences sees BUSY or the new ticket on its second look (the sequence-lock argument).
        fence(Ordering::Release);
        self.workers.store(notice.workers, Ordering::Relaxed);
        self.job.store(notice.job.cast_mut(), Ordering::Relaxed);
        ring();
        self.ticket.store(notice.ticket, Ordering::Release);
    }

    /// The current announcement (`None` if the post was never used), waiting while a writer is at
    /// work. Acquire: whatever the writer did before opening the notice (writing the job, ringing
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
                let job = self.job.load(Ordering::Relaxed);
                fence(Ordering::Acquire);
                if self.ticket.load(Ordering::Relaxed) == ticket {
                    return Some(Notice {
                        ticket,
                        workers,
                        job,
                    });
                }
            }
            // A writer is between its first and last store, a few instructions apart.
            backoff(&mut spins);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Arc;
    use std::sync::atomic::AtomicBool;

    #[test]
    fn an_empty_post_announces_nothing() {
        assert_eq!(Post::new().read(), None);
    }

    /// A reader never sees the fields of two announcements mixed: every announcement here has
    /// `workers == ticket` and a job address derived from it.
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
                            assert_eq!(n.job as usize, 8 * n.ticket as usize);
                            assert!(n.ticket >= seen, "tickets went back");
                            seen = n.ticket;
                        }
                    }
                    seen
                })
            })
            .collect();
        for ticket in 1..=100_000u64 {
            // SAFETY: this thread is the post's only writer and tickets increase.
            unsafe {
                post.publish(
                    Notice {
                        ticket,
                        workers: ticket as usize,
                        job: std::ptr::without_provenance(8 * ticket as usize),
                    },
                    || {},
                )
            };
        }
        stop.store(true, Ordering::Relaxed);
        for r in readers {
            assert!(r.join().unwrap() <= 100_000);
        }
        assert_eq!(post.read().map(|n| n.ticket), Some(100_000));
    }
}
