//! [`HostExecutionSpace`]: the execution spaces whose work runs on host threads (Serial, Threads).

use crate::backend::host::{Serial, Threads};
use crate::error::Result;
use crate::space::ExecutionSpace;

mod sealed {
    pub trait Sealed {}
    impl Sealed for crate::Serial {}
    impl Sealed for crate::Threads {}
}

/// An execution space that runs kernels on host threads: [`Serial`] and [`Threads`]. Host spaces
/// accept plain closures as kernels.
pub trait HostExecutionSpace: ExecutionSpace<Kind = super::HostKind> + sealed::Sealed {
    /// Runs `f(participant, participants)` once for each participant of this instance and returns when
    /// all have finished. `what` names the work for the error after finalize.
    #[doc(hidden)]
    fn run_participants(
        &self,
        what: &dyn Fn() -> String,
        f: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<()>;
}

impl HostExecutionSpace for Serial {
    #[inline]
    fn run_participants(
        &self,
        what: &dyn Fn() -> String,
        f: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<()> {
        self.execute(what, || f(0, 1))
    }
}

impl HostExecutionSpace for Threads {
    #[inline]
    fn run_participants(
        &self,
        what: &dyn Fn() -> String,
        f: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<()> {
        self.broadcast(what, &|p| f(p.index, p.count))
    }
}
