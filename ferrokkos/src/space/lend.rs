//! Who holds host borrows of memory lent by `View::with_slice`, so that the end of the lend can tell
//! a borrow that will be given back (a live thread holds it) from one that never will (a guard
//! forgotten by the lending thread, or by a thread that has exited).
//!
//! Each lent record counts, per thread, the borrows taken minus those given back, and whether that
//! thread has exited. A guard may be dropped on another thread than the one that took it: a thread
//! that gives back more than it took is charged to a holder that has exited first (the guard most
//! likely came from there), else to a live one, so balances never go negative and a positive
//! balance means "took a borrow that is still out".
//!
//! Exits are seen without any allocation per thread (a View lent on the main thread must leave
//! nothing behind at finalize): a thread that takes a borrow of lent memory arms a thread-local
//! whose destructor, at the thread's exit, marks the thread exited in every lend still running
//! (listed in [`LENDS`], which is empty again once they end).

use std::cell::Cell;
use std::sync::{Arc, Mutex, MutexGuard, Weak};
use std::thread::ThreadId;

/// One thread's borrows of a lent record.
struct Holder {
    thread: ThreadId,
    /// Borrows taken minus borrows given back (charged as the module says): never negative.
    balance: usize,
    /// Whether the thread has exited (its thread-local destructors ran).
    exited: bool,
}

/// The borrow holders of one lent record.
pub(crate) struct Holders {
    entries: Mutex<Vec<Holder>>,
}

/// What the holders of a lent record are, as the end of the lend sees them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outstanding {
    /// No thread holds a borrow (one being taken or given back may not be counted yet).
    None,
    /// The calling thread holds a borrow: waiting cannot end it.
    Here,
    /// A live thread holds a borrow: it may still give it back.
    Live,
    /// Only threads that have exited hold borrows: no thread that took them can give them back
    /// (a guard moved to another thread may still be dropped there).
    OnlyExited,
}

/// The lends that are running: where an exiting thread marks itself.
static LENDS: Mutex<Vec<Weak<Holders>>> = Mutex::new(Vec::new());

fn lends() -> MutexGuard<'static, Vec<Weak<Holders>>> {
    LENDS.lock().unwrap_or_else(|e| e.into_inner())
}

/// Armed on a thread once it takes a borrow of lent memory: at the thread's exit, marks it exited
/// in every running lend.
struct ExitWatch {
    thread: Cell<Option<ThreadId>>,
}

impl Drop for ExitWatch {
    fn drop(&mut self) {
        let Some(me) = self.thread.get() else { return };
        let running: Vec<Arc<Holders>> = lends().iter().filter_map(Weak::upgrade).collect();
        for holders in running {
            holders.mark_exited(me);
        }
    }
}

thread_local! {
    static EXIT_WATCH: ExitWatch = const { ExitWatch { thread: Cell::new(None) } };
}

/// Arms this thread's exit watch; `false` when the thread is already exiting (its thread-locals
/// are being destroyed).
fn watch_exit(me: ThreadId) -> bool {
    EXIT_WATCH
        .try_with(|w| {
            if w.thread.get().is_none() {
                w.thread.set(Some(me));
            }
        })
        .is_ok()
}

impl Holders {
    /// The holders of a new lend, listed as running until [`Holders::retire`].
    pub(crate) fn new() -> Arc<Holders> {
        let holders = Arc::new(Holders {
            entries: Mutex::new(Vec::new()),
        });
        let mut running = lends();
        running.retain(|w| w.strong_count() > 0);
        running.push(Arc::downgrade(&holders));
        holders
    }

    /// Ends the lend's listing (at its end, when no borrow can be taken any more).
    pub(crate) fn retire(self: &Arc<Self>) {
        let mut running = lends();
        running.retain(|w| w.strong_count() > 0 && !std::ptr::eq(w.as_ptr(), Arc::as_ptr(self)));
        if running.is_empty() {
            // Give the capacity back: nothing of a finished lend stays allocated.
            *running = Vec::new();
        }
    }

    fn entries(&self) -> MutexGuard<'_, Vec<Holder>> {
        self.entries.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Counts a borrow taken by this thread.
    pub(crate) fn taken(&self) {
        let me = std::thread::current().id();
        let exiting = !watch_exit(me);
        let mut entries = self.entries();
        match entries.iter_mut().find(|h| h.thread == me) {
            Some(h) => {
                h.balance += 1;
                h.exited |= exiting;
            }
            None => entries.push(Holder {
                thread: me,
                balance: 1,
                exited: exiting,
            }),
        }
    }

    /// Counts a borrow given back by this thread: from its own balance, else (the guard was taken
    /// on another thread) from an exited holder's, else from a live one's.
    pub(crate) fn given_back(&self) {
        let me = std::thread::current().id();
        let mut entries = self.entries();
        let from = entries
            .iter()
            .position(|h| h.thread == me)
            .or_else(|| entries.iter().position(|h| h.exited))
            .or_else(|| (!entries.is_empty()).then_some(0));
        // Every borrow is counted (under this lock) before its guard exists, so some holder has a
        // positive balance here; entries of balance 0 are removed.
        if let Some(k) = from {
            entries[k].balance -= 1;
            if entries[k].balance == 0 {
                entries.swap_remove(k);
            }
        }
    }

    fn mark_exited(&self, thread: ThreadId) {
        if let Some(h) = self.entries().iter_mut().find(|h| h.thread == thread) {
            h.exited = true;
        }
    }

    /// Who holds the borrows that are out.
    pub(crate) fn outstanding(&self) -> Outstanding {
        let me = std::thread::current().id();
        let entries = self.entries();
        if entries.iter().any(|h| h.thread == me) {
            Outstanding::Here
        } else if entries.iter().any(|h| !h.exited) {
            Outstanding::Live
        } else if entries.is_empty() {
            Outstanding::None
        } else {
            Outstanding::OnlyExited
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_borrow_of_a_thread_that_exited_is_outstanding_only_there() {
        let holders = Holders::new();
        assert_eq!(holders.outstanding(), Outstanding::None);
        let h = Arc::clone(&holders);
        std::thread::spawn(move || h.taken()).join().unwrap();
        assert_eq!(holders.outstanding(), Outstanding::OnlyExited);
        // Given back here (a guard moved to this thread): charged to the exited holder.
        holders.given_back();
        assert_eq!(holders.outstanding(), Outstanding::None);
        holders.retire();
    }

    #[test]
    fn a_live_holder_and_the_calling_thread_are_told_apart() {
        let holders = Holders::new();
        holders.taken();
        assert_eq!(holders.outstanding(), Outstanding::Here);
        let (h, (go, wait)) = (Arc::clone(&holders), std::sync::mpsc::channel::<()>());
        let (done, taken) = std::sync::mpsc::channel::<()>();
        let t = std::thread::spawn(move || {
            h.taken();
            done.send(()).unwrap();
            wait.recv().unwrap();
            h.given_back();
        });
        taken.recv().unwrap();
        holders.given_back();
        assert_eq!(holders.outstanding(), Outstanding::Live);
        go.send(()).unwrap();
        t.join().unwrap();
        assert_eq!(holders.outstanding(), Outstanding::None);
        holders.retire();
    }

    #[test]
    fn a_retired_lend_is_no_longer_listed() {
        let holders = Holders::new();
        assert!(
            lends()
                .iter()
                .any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(&holders)))
        );
        holders.retire();
        assert!(
            !lends()
                .iter()
                .any(|w| std::ptr::eq(w.as_ptr(), Arc::as_ptr(&holders)))
        );
    }
}
