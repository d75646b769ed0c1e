//! Device work in flight on an allocation (DESIGN.md decision 5): each asynchronous launch or copy
//! stamps the allocations it uses with its queue (a CUDA stream) and sequence number, and host access
//! to the elements waits for that work first.

#[cfg(feature = "cuda")]
use std::any::Any;
use std::sync::Weak;

use crate::error::Result;

/// An ordered queue of asynchronous work (a backend's stream), as seen by generic code.
pub(crate) trait WorkQueue: Send + Sync {
    /// Waits until the queue's work numbered `seq` (and everything before it) has completed.
    /// `what` describes the wait for errors.
    fn wait_for(&self, seq: u64, what: &dyn Fn() -> String) -> Result<()>;

    /// Whether the work numbered `seq` has completed (without waiting).
    fn completed(&self, seq: u64) -> bool;

    /// The queue as `Any`, so that its backend can recognize its own queues (the Cuda backend's
    /// streams).
    #[cfg(feature = "cuda")]
    fn as_any(&self) -> &dyn Any;
}

/// The last piece of asynchronous work that uses an allocation.
///
/// It holds its queue weakly: a queue is dropped only after its owner (an execution space instance)
/// fenced it, so work on a queue that no longer exists has completed, and a View never keeps a
/// stream alive.
#[derive(Clone)]
pub(crate) struct Pending {
    /// The queue the work was submitted to.
    pub(crate) queue: Weak<dyn WorkQueue>,
    /// The work's number in that queue.
    pub(crate) seq: u64,
}

impl Pending {
    /// Waits for the work.
    pub(crate) fn wait(&self, what: &dyn Fn() -> String) -> Result<()> {
        match self.queue.upgrade() {
            Some(queue) if !queue.completed(self.seq) => queue.wait_for(self.seq, what),
            _ => Ok(()),
        }
    }

    /// Whether the work has completed (without waiting).
    pub(crate) fn is_complete(&self) -> bool {
        self.queue
            .upgrade()
            .is_none_or(|queue| queue.completed(self.seq))
    }
}

impl std::fmt::Debug for Pending {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Pending").field("seq", &self.seq).finish()
    }
}
