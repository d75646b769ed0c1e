//! [`HostExecutionSpace`]: the execution spaces whose work runs on host threads (Serial, Threads).

use crate::error::Result;
use crate::seal::SealedHostExecutionSpace;
use crate::space::{ExecutionSpace, HostKind};

/// An execution space that runs kernels on host threads: [`crate::Serial`] and [`crate::Threads`].
/// Host spaces accept plain closures as kernels. Sealed: the host backend implements it.
pub trait HostExecutionSpace: ExecutionSpace<Kind = HostKind> + SealedHostExecutionSpace {
    /// Whether a reduction's contributions go into its accumulator one at a time, in index order,
    /// so that on one participant the result is the plain serial loop's, bit for bit (Serial).
    /// Otherwise (Threads) a participant may regroup its contributions, never reorder them (see
    /// `backend/host/point.rs`), which lets the compiler vectorize reduction bodies.
    #[doc(hidden)]
    const IN_ORDER_REDUCTIONS: bool = false;

    /// Runs `f(participant, participants)` once for each participant of this instance and returns when
    /// all have finished. `what` names the work for the error after finalize.
    #[doc(hidden)]
    fn run_participants(
        &self,
        what: &dyn Fn() -> String,
        f: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<()>;
}
