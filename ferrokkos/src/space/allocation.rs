//! The allocation record every View handle of one allocation shares: the memory, its label and space,
//! and the host borrow state (DESIGN.md decision 5).
//!
//! The borrow state is a non-blocking reader-writer flag: `n > 0` shared borrows, `-1` one exclusive
//! borrow, [`EXPIRED`] for borrowed memory whose scope has ended. A conflicting request is an error that
//! names the View, never a wait.

use std::ptr::NonNull;
use std::sync::atomic::{AtomicBool, AtomicIsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use super::lend::{Holders, Outstanding};
use super::{Pending, RawMemory};
use crate::error::{BorrowKind, Error, Result};

const EXCLUSIVE: isize = -1;
const EXPIRED: isize = isize::MIN;

/// How long the end of a lend waits for a borrow that no live thread that took it can give back (a
/// guard moved to another thread may be about to be dropped there) before it aborts.
const ORPHAN_GRACE: Duration = Duration::from_secs(1);

/// Where an allocation's memory comes from.
enum Memory {
    /// Allocated by a memory space; freed when the record drops.
    Owned(RawMemory),
    /// Provided by the user; never freed here.
    Unmanaged(NonNull<u8>),
}

/// The shared record of one allocation.
pub(crate) struct Allocation {
    label: String,
    memory: Memory,
    borrow: AtomicIsize,
    /// Whether `pending` may hold work (a fast check for allocations no device ever used).
    has_pending: AtomicBool,
    /// The last asynchronous device work that uses this allocation, one entry per queue (work on
    /// one queue completes in order): two instances may read an allocation at once, and each of
    /// their kernels must be waited for before the memory is written by the host or freed.
    pending: Mutex<Vec<Pending>>,
    /// For memory lent by `View::with_slice`: which threads hold borrows and whether they have
    /// exited (`lend.rs`), so that the end of the lend can tell a borrow that will be given back
    /// from one that never will. `None` for every other allocation.
    lent: Option<Arc<Holders>>,
    /// For unmanaged memory: whether kernels on the GPU can reach it, as the driver says (`None`:
    /// as the View's space declares).
    device_reachable: Option<bool>,
}

// SAFETY: the record's memory is only accessed through borrows checked by the atomic `borrow` flag (host
// guards) or by the unsafe contracts of raw accessors; the fields themselves are immutable.
unsafe impl Send for Allocation {}
// SAFETY: as above; `&Allocation` only exposes immutable fields and the atomic flag.
unsafe impl Sync for Allocation {}

impl Allocation {
    /// A record owning memory from a memory space.
    pub(crate) fn owned(label: &str, memory: RawMemory) -> Arc<Allocation> {
        memory.report(true, label);
        Arc::new(Allocation {
            label: label.to_string(),
            memory: Memory::Owned(memory),
            borrow: AtomicIsize::new(0),
            has_pending: AtomicBool::new(false),
            pending: Mutex::new(Vec::new()),
            lent: None,
            device_reachable: None,
        })
    }

    /// A record for memory the user manages; `device_reachable` says whether the GPU can reach it
    /// (`None`: as the View's space declares).
    pub(crate) fn unmanaged(
        label: &str,
        ptr: NonNull<u8>,
        device_reachable: Option<bool>,
    ) -> Arc<Allocation> {
        Arc::new(Self::unmanaged_record(label, ptr, false, device_reachable))
    }

    /// A record for memory lent by `View::with_slice` for a scope ([`Allocation::expire`] ends it).
    pub(crate) fn lent(
        label: &str,
        ptr: NonNull<u8>,
        device_reachable: Option<bool>,
    ) -> Arc<Allocation> {
        Arc::new(Self::unmanaged_record(label, ptr, true, device_reachable))
    }

    fn unmanaged_record(
        label: &str,
        ptr: NonNull<u8>,
        lent: bool,
        device_reachable: Option<bool>,
    ) -> Allocation {
        Allocation {
            label: label.to_string(),
            memory: Memory::Unmanaged(ptr),
            borrow: AtomicIsize::new(0),
            has_pending: AtomicBool::new(false),
            pending: Mutex::new(Vec::new()),
            lent: lent.then(Holders::new),
            device_reachable,
        }
    }

    /// Whether kernels on the GPU can reach the memory, when that was looked up (unmanaged memory);
    /// `None` means as the View's space declares.
    pub(crate) fn device_reachable(&self) -> Option<bool> {
        self.device_reachable
    }

    /// For lent memory: counts a borrow taken (`+1`) or given back (`-1`) by this thread.
    #[cold]
    #[inline(never)]
    fn note_holder(&self, delta: isize) {
        let Some(lent) = &self.lent else { return };
        if delta > 0 {
            lent.taken();
        } else {
            lent.given_back();
        }
    }

    /// Whether the memory is lent by `View::with_slice`.
    pub(crate) fn is_lent(&self) -> bool {
        self.lent.is_some()
    }

    /// For lent memory: who holds the borrows that are out.
    fn outstanding(&self) -> Outstanding {
        self.lent
            .as_ref()
            .map_or(Outstanding::None, |lent| lent.outstanding())
    }

    pub(crate) fn label(&self) -> &str {
        &self.label
    }

    /// The start of the memory.
    pub(crate) fn ptr(&self) -> NonNull<u8> {
        match &self.memory {
            Memory::Owned(m) => m.ptr(),
            Memory::Unmanaged(ptr) => *ptr,
        }
    }

    /// Whether a memory space allocated (and will free) the memory.
    pub(crate) fn is_managed(&self) -> bool {
        matches!(self.memory, Memory::Owned(_))
    }

    /// Takes a shared borrow for host access, or says why not. Device work still using the
    /// allocation is waited for first.
    pub(crate) fn borrow_shared(&self) -> Result<()> {
        self.borrow_shared_async()?;
        self.wait_pending().inspect_err(|_| self.release_shared())
    }

    /// Takes the exclusive borrow for host access, or says why not. Device work still using the
    /// allocation is waited for first.
    pub(crate) fn borrow_exclusive(&self) -> Result<()> {
        self.borrow_exclusive_async()?;
        self.wait_pending()
            .inspect_err(|_| self.release_exclusive())
    }

    /// Takes a shared borrow without waiting for device work (for device launches, which order
    /// themselves after that work on their stream).
    pub(crate) fn borrow_shared_async(&self) -> Result<()> {
        let mut state = self.borrow.load(Ordering::Relaxed);
        loop {
            if state < 0 {
                return Err(self.conflict(BorrowKind::Shared, state));
            }
            match self.borrow.compare_exchange_weak(
                state,
                state + 1,
                Ordering::Acquire,
                Ordering::Relaxed,
            ) {
                Ok(_) => {
                    if self.lent.is_some() {
                        self.note_holder(1);
                    }
                    return Ok(());
                }
                Err(now) => state = now,
            }
        }
    }

    /// Gives back a shared borrow.
    pub(crate) fn release_shared(&self) {
        if self.lent.is_some() {
            self.note_holder(-1);
        }
        self.borrow.fetch_sub(1, Ordering::Release);
    }

    /// Takes the exclusive borrow without waiting for device work.
    pub(crate) fn borrow_exclusive_async(&self) -> Result<()> {
        self.borrow
            .compare_exchange(0, EXCLUSIVE, Ordering::Acquire, Ordering::Relaxed)
            .map_err(|state| self.conflict(BorrowKind::Exclusive, state))?;
        if self.lent.is_some() {
            self.note_holder(1);
        }
        Ok(())
    }

    /// Gives back the exclusive borrow.
    pub(crate) fn release_exclusive(&self) {
        if self.lent.is_some() {
            self.note_holder(-1);
        }
        self.borrow.store(0, Ordering::Release);
    }

    /// Records work number `seq` of `queue` as the last on that queue that uses this allocation
    /// (updating that queue's entry in place; entries of completed work are dropped). Called by
    /// the Cuda backend's asynchronous launches and copies.
    #[cfg(feature = "cuda")]
    pub(crate) fn stamp_from(
        &self,
        queue: &std::sync::Weak<dyn crate::space::WorkQueue>,
        seq: u64,
    ) {
        let mut list = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        match list
            .iter_mut()
            .find(|p| std::sync::Weak::ptr_eq(&p.queue, queue))
        {
            Some(p) => p.seq = seq,
            None => {
                list.retain(|p| !p.is_complete());
                list.push(Pending {
                    queue: queue.clone(),
                    seq,
                });
            }
        }
        self.has_pending.store(true, Ordering::Release);
    }

    /// The asynchronous work recorded on this allocation on queues other than `queue` that may still
    /// be running (work on `queue` itself is ordered by the queue). Empty (no allocation) in the
    /// common case. Called by the Cuda backend, which orders its stream after that work.
    #[cfg(feature = "cuda")]
    pub(crate) fn pending_elsewhere(
        &self,
        queue: &std::sync::Weak<dyn crate::space::WorkQueue>,
    ) -> Vec<Pending> {
        if !self.has_pending.load(Ordering::Acquire) {
            return Vec::new();
        }
        let list = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        list.iter()
            .filter(|p| !std::sync::Weak::ptr_eq(&p.queue, queue) && !p.is_complete())
            .cloned()
            .collect()
    }

    /// Waits until all device work recorded on this allocation (on every queue) has completed.
    pub(crate) fn wait_pending(&self) -> Result<()> {
        if !self.has_pending.load(Ordering::Acquire) {
            return Ok(());
        }
        let work: Vec<Pending> = {
            let list = self.pending.lock().unwrap_or_else(|e| e.into_inner());
            list.iter().filter(|p| !p.is_complete()).cloned().collect()
        };
        for w in &work {
            w.wait(&|| format!("waiting for device work on View \"{}\"", self.label))?;
        }
        let mut list = self.pending.lock().unwrap_or_else(|e| e.into_inner());
        list.retain(|p| !p.is_complete());
        if list.is_empty() {
            self.has_pending.store(false, Ordering::Release);
        }
        Ok(())
    }

    /// Ends the life of borrowed memory: waits until no host borrow is held (on any thread), makes
    /// every later borrow fail with [`Error::Expired`], then waits for the device work that used the
    /// memory.
    ///
    /// Borrows held by live threads are waited for, with a message every 10 seconds. A borrow that
    /// no waiting can end makes the process abort with a message naming the View (returning would
    /// let the guard alias memory the caller owns again; a hang would be the only other sound
    /// outcome): one the calling thread itself took (a guard of a clone of the View kept, leaked or
    /// forgotten with `mem::forget`), or one taken only by threads that have exited (a guard
    /// forgotten or leaked there). Either may also be a guard moved to another thread, which may
    /// be about to drop it: the abort comes after [`ORPHAN_GRACE`] without the borrow coming back.
    pub(crate) fn expire(&self) {
        // New borrows are refused first, then the device work stamped on the allocation is waited
        // for: the other order would let a launch on another thread start between the two, and its
        // kernel could still write the memory after the lend has returned it.
        let start = Instant::now();
        let mut warned = Duration::ZERO;
        let mut spins = 0u32;
        // Since when the borrows out have been ones that no waiting can end, and whose.
        let mut orphaned: Option<(Instant, Outstanding)> = None;
        while self
            .borrow
            .compare_exchange_weak(0, EXPIRED, Ordering::AcqRel, Ordering::Relaxed)
            .is_err()
        {
            let outstanding = if self.borrow.load(Ordering::Acquire) != 0 {
                self.outstanding()
            } else {
                Outstanding::None
            };
            match (outstanding, orphaned) {
                (Outstanding::Here | Outstanding::OnlyExited, Some((since, whose)))
                    if whose == outstanding =>
                {
                    if since.elapsed() >= ORPHAN_GRACE {
                        self.abort_orphaned(outstanding);
                    }
                }
                (Outstanding::Here | Outstanding::OnlyExited, _) => {
                    orphaned = Some((Instant::now(), outstanding));
                }
                _ => orphaned = None,
            }
            spins += 1;
            if spins < 100 {
                std::thread::yield_now();
            } else {
                std::thread::sleep(Duration::from_micros(100));
            }
            let waited = start.elapsed();
            if waited >= warned + Duration::from_secs(10) {
                warned = waited;
                eprintln!(
                    "ferrokkos: View::with_slice has waited {}s for another thread to drop its \
                     guard of View \"{}\" (a guard forgotten there would make this wait forever)",
                    waited.as_secs(),
                    self.label
                );
            }
        }
        if let Some(lent) = &self.lent {
            lent.retire();
        }
        // No launch can stamp the allocation any more; wait for every kernel and copy that did.
        if let Err(e) = self.wait_pending() {
            eprintln!("ferrokkos: {e}");
        }
    }

    /// Reports a borrow of lent memory that no waiting can end, and aborts.
    #[cold]
    fn abort_orphaned(&self, whose: Outstanding) -> ! {
        if whose == Outstanding::Here {
            eprintln!(
                "ferrokkos: View \"{}\" lent by View::with_slice still has a guard of this \
                 thread when the lend ends (a guard of a clone of the View was kept, leaked or \
                 forgotten); returning would let that guard alias memory the caller owns again, \
                 so the process aborts",
                self.label
            );
        } else {
            eprintln!(
                "ferrokkos: View \"{}\" lent by View::with_slice still has a guard taken on a \
                 thread that has exited and was never dropped (it was forgotten, leaked, or is \
                 still held elsewhere); the lend cannot return memory a guard might still reach, \
                 so the process aborts",
                self.label
            );
        }
        std::process::abort();
    }

    fn conflict(&self, requested: BorrowKind, state: isize) -> Error {
        match state {
            EXPIRED => Error::Expired {
                label: self.label.clone(),
            },
            EXCLUSIVE => Error::Borrow {
                label: self.label.clone(),
                requested,
                held: BorrowKind::Exclusive,
            },
            _ => Error::Borrow {
                label: self.label.clone(),
                requested,
                held: BorrowKind::Shared,
            },
        }
    }
}

impl Drop for Allocation {
    fn drop(&mut self) {
        // Device work may still read or write the memory: wait before it is freed (the memory
        // drops after this, with the fields).
        if let Err(e) = self.wait_pending() {
            eprintln!("ferrokkos: {e}");
        }
        if let Memory::Owned(memory) = &self.memory {
            memory.report(false, &self.label);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record() -> Arc<Allocation> {
        Allocation::unmanaged("r", NonNull::dangling(), None)
    }

    #[test]
    fn shared_borrows_stack_and_exclude_writers() {
        let a = record();
        a.borrow_shared().unwrap();
        a.borrow_shared().unwrap();
        let e = a.borrow_exclusive().unwrap_err();
        assert_eq!(
            e.to_string(),
            "View \"r\" cannot be borrowed exclusive (write) on the host: it is already borrowed \
             shared (read)"
        );
        a.release_shared();
        a.release_shared();
        a.borrow_exclusive().unwrap();
        let e = a.borrow_shared().unwrap_err();
        assert!(
            matches!(
                e,
                Error::Borrow {
                    held: BorrowKind::Exclusive,
                    ..
                }
            ),
            "{e}"
        );
        a.release_exclusive();
        a.borrow_shared().unwrap();
        a.release_shared();
    }

    #[test]
    fn expired_records_refuse_every_borrow() {
        let a = record();
        a.expire();
        assert_eq!(
            a.borrow_shared().unwrap_err().to_string(),
            "View \"r\" wraps borrowed memory whose scope has ended; it can no longer be used"
        );
        assert!(matches!(a.borrow_exclusive(), Err(Error::Expired { .. })));
    }

    #[test]
    fn expire_waits_for_a_borrow_on_another_thread() {
        let a = record();
        a.borrow_shared().unwrap();
        let b = Arc::clone(&a);
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            b.release_shared();
        });
        let start = std::time::Instant::now();
        a.expire();
        assert!(start.elapsed() >= Duration::from_millis(20));
        t.join().unwrap();
    }
}
