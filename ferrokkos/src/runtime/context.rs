//! Whether the current thread is running a host kernel, so that a dispatch from inside a kernel (a
//! nested parallel pattern) runs inline instead of waiting for the instance it is already running on.

use std::cell::Cell;

thread_local! {
    static IN_KERNEL: Cell<bool> = const { Cell::new(false) };
}

/// Whether this thread is running host-kernel code now. Pool workers always are.
pub(crate) fn in_kernel() -> bool {
    IN_KERNEL.with(Cell::get)
}

/// Marks this thread as running a host kernel for the rest of its life (pool workers).
pub(crate) fn enter_forever() {
    IN_KERNEL.with(|f| f.set(true));
}

/// Marks this thread as running a host kernel until the scope is dropped.
pub(crate) struct KernelScope(());

impl KernelScope {
    pub(crate) fn enter() -> KernelScope {
        IN_KERNEL.with(|f| f.set(true));
        KernelScope(())
    }
}

impl Drop for KernelScope {
    fn drop(&mut self) {
        IN_KERNEL.with(|f| f.set(false));
    }
}

thread_local! {
    static PARTICIPANT: Cell<(usize, usize)> = const { Cell::new((0, 1)) };
}

/// The participant of the host job this thread runs now (`Part::index`: `0..count`, distinct among
/// the threads running one job at the same time; 0 outside a Threads job, as on Serial). A
/// duplicated `ScatterView` writes the copy of this index.
#[inline(always)]
pub(crate) fn participant() -> usize {
    PARTICIPANT.with(Cell::get).0
}

/// The participant of the host job this thread runs now and the job's number of participants
/// (`(0, 1)` outside a Threads job). A `UniqueToken` with at least that many ids gives each thread
/// of the job its own participant's id.
#[inline(always)]
pub(crate) fn participant_of() -> (usize, usize) {
    PARTICIPANT.with(Cell::get)
}

/// A thread's wait for a slot that other threads of its job hold (a UniqueToken's id, a random
/// pool's state): after each full round over the slots, a spin hint for the first 64 rounds, then
/// a yield (a holder may be descheduled).
pub(crate) struct Backoff(u32);

impl Backoff {
    pub(crate) fn new() -> Backoff {
        Backoff(0)
    }

    /// One more round found every slot held.
    pub(crate) fn round(&mut self) {
        self.0 += 1;
        if self.0 < 64 {
            std::hint::spin_loop();
        } else {
            std::thread::yield_now();
        }
    }
}

/// Marks this thread as running participant `index` of a host job of `count` participants until the
/// scope is dropped (then the participant it was before, for a job run inline inside another).
pub(crate) struct ParticipantScope((usize, usize));

impl ParticipantScope {
    pub(crate) fn enter(index: usize, count: usize) -> ParticipantScope {
        debug_assert!(index < count);
        ParticipantScope(PARTICIPANT.with(|p| p.replace((index, count))))
    }
}

impl Drop for ParticipantScope {
    fn drop(&mut self) {
        PARTICIPANT.with(|p| p.set(self.0));
    }
}
