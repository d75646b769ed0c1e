//! [`MemoryOrder`] and [`MemoryScope`]: what an atomic operation orders around it, and among whom
//! (Kokkos' and desul's `MemoryOrderRelaxed`, ..., `MemoryScopeDevice`, `MemoryScopeSystem`).

use std::sync::atomic::Ordering;

/// The memory order of an atomic operation in a kernel (`h.atomic_fetch_add_ord(k, v,
/// MemoryOrder::AcqRel, MemoryScope::Device)`), as Kokkos' `MemoryOrderRelaxed`, ... and C++'s
/// `std::memory_order`. The forms without `_ord` are [`MemoryOrder::Relaxed`].
///
/// On the host each is Rust's [`Ordering`] of the same name. On the GPU the operation itself is
/// relaxed and fences give it the order: one before it for a release (`Release`, `AcqRel`,
/// `SeqCst`), one after it for an acquire (`Acquire`, `AcqRel`, `SeqCst`); a GPU fence is
/// sequentially consistent, so this is at least as strong. A load has no release part and a
/// store no acquire part: those orders (`atomic_load_ord` with `Release` or `AcqRel`,
/// `atomic_store_ord` with `Acquire` or `AcqRel`) are rejected in a kernel.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryOrder {
    /// Orders nothing around the operation (Kokkos' `MemoryOrderRelaxed`).
    Relaxed,
    /// Later accesses stay after it (`MemoryOrderAcquire`).
    Acquire,
    /// Earlier accesses stay before it (`MemoryOrderRelease`).
    Release,
    /// Both (`MemoryOrderAcqRel`).
    AcqRel,
    /// Both, and one total order of all such operations (`MemoryOrderSeqCst`).
    SeqCst,
}

/// Which threads an atomic operation's order is with (Kokkos' `MemoryScopeDevice`,
/// `MemoryScopeSystem`). On the host both are the same. On the GPU the fences of the order are
/// `__threadfence()` (`Device`) or `__threadfence_system()` (`System`); the operation itself is a
/// device atomic in both, which loses nothing: no one outside the device reaches a View while a
/// kernel runs on it (the launch borrows it).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum MemoryScope {
    /// The threads of the device (`MemoryScopeDevice`).
    Device,
    /// The threads of the device and the host (`MemoryScopeSystem`).
    System,
}

impl MemoryOrder {
    /// Rust's ordering of a read-modify-write.
    pub(crate) fn rmw(self) -> Ordering {
        match self {
            MemoryOrder::Relaxed => Ordering::Relaxed,
            MemoryOrder::Acquire => Ordering::Acquire,
            MemoryOrder::Release => Ordering::Release,
            MemoryOrder::AcqRel => Ordering::AcqRel,
            MemoryOrder::SeqCst => Ordering::SeqCst,
        }
    }

    /// Rust's ordering of a failed compare-exchange (a load) in an operation of this order.
    pub(crate) fn failure(self) -> Ordering {
        match self {
            MemoryOrder::Relaxed | MemoryOrder::Release => Ordering::Relaxed,
            MemoryOrder::Acquire | MemoryOrder::AcqRel => Ordering::Acquire,
            MemoryOrder::SeqCst => Ordering::SeqCst,
        }
    }

    /// Rust's ordering of a load (a kernel cannot ask a load for a release; called directly, one
    /// is made `SeqCst`, which is stronger).
    pub(crate) fn load(self) -> Ordering {
        match self {
            MemoryOrder::Relaxed => Ordering::Relaxed,
            MemoryOrder::Acquire => Ordering::Acquire,
            _ => Ordering::SeqCst,
        }
    }

    /// Rust's ordering of a store (a kernel cannot ask a store for an acquire; called directly,
    /// one is made `SeqCst`, which is stronger).
    pub(crate) fn store(self) -> Ordering {
        match self {
            MemoryOrder::Relaxed => Ordering::Relaxed,
            MemoryOrder::Release => Ordering::Release,
            _ => Ordering::SeqCst,
        }
    }

    /// Whether the GPU fences before the operation (a release).
    pub(crate) fn fence_before(self) -> bool {
        matches!(
            self,
            MemoryOrder::Release | MemoryOrder::AcqRel | MemoryOrder::SeqCst
        )
    }

    /// Whether the GPU fences after the operation (an acquire).
    pub(crate) fn fence_after(self) -> bool {
        matches!(
            self,
            MemoryOrder::Acquire | MemoryOrder::AcqRel | MemoryOrder::SeqCst
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn orders_map_to_rust_orderings_valid_for_each_access() {
        assert_eq!(MemoryOrder::AcqRel.rmw(), Ordering::AcqRel);
        assert_eq!(MemoryOrder::Release.failure(), Ordering::Relaxed);
        assert_eq!(MemoryOrder::AcqRel.failure(), Ordering::Acquire);
        assert_eq!(MemoryOrder::Release.load(), Ordering::SeqCst);
        assert_eq!(MemoryOrder::Acquire.load(), Ordering::Acquire);
        assert_eq!(MemoryOrder::Acquire.store(), Ordering::SeqCst);
        assert_eq!(MemoryOrder::Release.store(), Ordering::Release);
        assert!(MemoryOrder::SeqCst.fence_before() && MemoryOrder::SeqCst.fence_after());
        assert!(!MemoryOrder::Acquire.fence_before() && MemoryOrder::Acquire.fence_after());
        assert!(!MemoryOrder::Relaxed.fence_before() && !MemoryOrder::Relaxed.fence_after());
    }
}
