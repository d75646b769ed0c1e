//! Counts of the driver objects alive in the process (plain atomic counters, no allocation), so
//! that tests and users can check that nothing outlives its owner: after finalize, with every View
//! and instance dropped, all are zero.

use std::sync::atomic::{AtomicUsize, Ordering};

/// Streams, events, modules and retained contexts alive now.
pub(crate) static STREAMS: AtomicUsize = AtomicUsize::new(0);
/// See [`STREAMS`].
pub(crate) static EVENTS: AtomicUsize = AtomicUsize::new(0);
/// See [`STREAMS`].
pub(crate) static MODULES: AtomicUsize = AtomicUsize::new(0);
/// See [`STREAMS`].
pub(crate) static CONTEXTS: AtomicUsize = AtomicUsize::new(0);
/// See [`STREAMS`] (graphs and instantiated graphs).
pub(crate) static GRAPHS: AtomicUsize = AtomicUsize::new(0);

/// Counts one more object of a kind.
pub(crate) fn created(counter: &AtomicUsize) {
    counter.fetch_add(1, Ordering::Relaxed);
}

/// Counts one object of a kind less.
pub(crate) fn destroyed(counter: &AtomicUsize) {
    counter.fetch_sub(1, Ordering::Relaxed);
}

/// The CUDA driver objects ferrokkos holds right now (see [`crate::Cuda::live_handles`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct CudaHandles {
    /// Streams (one per Cuda instance).
    pub streams: usize,
    /// Events (recorded for ordering between instances; short-lived).
    pub events: usize,
    /// Loaded modules (compiled kernels).
    pub modules: usize,
    /// Retained device contexts.
    pub contexts: usize,
    /// CUDA graphs and instantiated graphs ([`crate::Graph`]s instantiated on Cuda hold two).
    pub graphs: usize,
}

/// The counts now.
pub(crate) fn handles() -> CudaHandles {
    CudaHandles {
        streams: STREAMS.load(Ordering::Relaxed),
        events: EVENTS.load(Ordering::Relaxed),
        modules: MODULES.load(Ordering::Relaxed),
        contexts: CONTEXTS.load(Ordering::Relaxed),
        graphs: GRAPHS.load(Ordering::Relaxed),
    }
}
