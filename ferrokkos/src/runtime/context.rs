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
