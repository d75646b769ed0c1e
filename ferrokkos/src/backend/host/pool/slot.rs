//! One worker's participant state: who runs this worker's share of a job, and whether it is done.
//!
//! The state word is `ticket << 1 | RUNNING`: the ticket of the last job in which this worker's
//! participant was claimed, and whether that participant is still running. Tickets come from one
//! pool-wide counter and the jobs covering a worker run one after another (the reservations), so
//! the tickets a worker's state holds only grow. A participant is claimed exactly once per job, by a
//! compare-exchange from a finished older ticket to `(ticket, RUNNING)`: by the worker itself when it
//! sees the job, or by the participant's parent in the completion tree when that parent finished its
//! own share first (the worker is asleep, descheduled or slower; the parent runs the share itself,
//! so a launch never waits for a thread that has not started). Whoever claimed it stores
//! `(ticket, done)` (Release) once the participant and its subtree finished; the parent waits for
//! that (Acquire) and only then reads the participant's results.
//!
//! Why a claim is safe even for a worker that read an old announcement: a job completes only after
//! every participant's state reached its ticket, and the state never goes back; so a claim that
//! succeeds from a ticket older than the job's proves the job has not completed, and it cannot
//! complete before the claimant stores `done`. The claimant may therefore use the job until then.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicU64, Ordering};
use std::thread::Thread;

use super::reserve::backoff;

/// The low bit of the state: the claimed participant is still running.
const RUNNING: u64 = 1;

/// The largest ticket the state word can hold.
pub(super) const MAX_TICKET: u64 = u64::MAX >> 2;

fn encode(ticket: u64, running: bool) -> u64 {
    ticket << 1 | u64::from(running)
}

/// A worker's participant state and thread (see the module's documentation).
pub(super) struct Slot {
    state: AtomicU64,
    thread: OnceLock<Thread>,
}

impl Slot {
    pub(super) fn new() -> Self {
        Slot {
            state: AtomicU64::new(encode(0, false)),
            thread: OnceLock::new(),
        }
    }

    /// Records the worker thread, so that it can be woken.
    pub(super) fn set_thread(&self, thread: Thread) {
        let _ = self.thread.set(thread);
    }

    /// Wakes the worker if it is parked (or makes its next park return at once).
    pub(super) fn unpark(&self) {
        if let Some(thread) = self.thread.get() {
            thread.unpark();
        }
    }

    /// Claims this participant of job `ticket` if nobody has. On `true` the caller runs it and then
    /// calls [`Slot::finish`].
    pub(super) fn claim(&self, ticket: u64) -> bool {
        let current = self.state.load(Ordering::Acquire);
        current >> 1 < ticket
            && current & RUNNING == 0
            && self
                .state
                .compare_exchange(
                    current,
                    encode(ticket, true),
                    Ordering::Acquire,
                    Ordering::Relaxed,
                )
                .is_ok()
    }

    /// For the participant's parent in job `ticket`: claims the participant if nobody has (returns
    /// `true`: the caller runs it and calls [`Slot::finish`]), else waits until its claimant has
    /// finished it (returns `false`; its results are then visible to the caller).
    pub(super) fn claim_or_wait(&self, ticket: u64) -> bool {
        let mut spins = 0u32;
        let mut current = self.state.load(Ordering::Acquire);
        loop {
            if current == encode(ticket, false) {
                return false;
            }
            if current >> 1 < ticket && current & RUNNING == 0 {
                match self.state.compare_exchange(
                    current,
                    encode(ticket, true),
                    Ordering::Acquire,
                    Ordering::Acquire,
                ) {
                    Ok(_) => return true,
                    Err(now) => current = now,
                }
                continue;
            }
            debug_assert_eq!(current >> 1, ticket, "a state ahead of its running job");
            backoff(&mut spins);
            current = self.state.load(Ordering::Acquire);
        }
    }

    /// Marks the participant of job `ticket` that the caller claimed as finished. Release: publishes
    /// everything the participant (and its subtree) did to the parent that waits for it.
    pub(super) fn finish(&self, ticket: u64) {
        self.state.store(encode(ticket, false), Ordering::Release);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_participant_is_claimed_once_per_ticket() {
        let slot = Slot::new();
        assert!(slot.claim(1));
        assert!(!slot.claim(1), "claimed twice");
        slot.finish(1);
        assert!(!slot.claim(1), "a finished participant claimed again");
        assert!(!slot.claim_or_wait(1), "the parent takes a finished one");
        assert!(slot.claim_or_wait(2), "the parent takes one nobody claimed");
        assert!(!slot.claim(2));
        slot.finish(2);
        // A worker that read an announcement older than its state claims nothing.
        assert!(!slot.claim(1));
        assert!(slot.claim(5));
    }

    #[test]
    fn the_parent_waits_for_a_running_claimant() {
        let slot = std::sync::Arc::new(Slot::new());
        assert!(slot.claim(3));
        let parent = {
            let slot = std::sync::Arc::clone(&slot);
            std::thread::spawn(move || slot.claim_or_wait(3))
        };
        std::thread::sleep(std::time::Duration::from_millis(10));
        assert!(!parent.is_finished(), "the parent did not wait");
        slot.finish(3);
        assert!(!parent.join().unwrap());
    }
}
