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
    static PARTICIPANT: Cell<usize> = const { Cell::new(0) };
}

/// The participant of the host job this thread runs now (`Part::index`: `0..count`, distinct among
/// the threads running one job at the same time; 0 outside a Threads job, as on Serial). A
/// duplicated `ScatterView` writes the copy of this index.
pub(crate) fn participant() -> usize {
    PARTICIPANT.with(Cell::get)
}

/// Marks this thread as running participant `index` of a host job until the scope is dropped (then
/// the index it had before, for a job run inline inside another).
pub(crate) struct ParticipantScope(usize);

impl ParticipantScope {
    pub(crate) fn enter(index: usize) -> ParticipantScope {
        ParticipantScope(PARTICIPANT.with(|p| p.replace(index)))
    }
}

impl Drop for ParticipantScope {
    fn drop(&mut self) {
        PARTICIPANT.with(|p| p.set(self.0));
    }
}
