// An NCCL communicator cannot be used from two threads at once: NCCL does not allow two
// threads to queue operations on one communicator concurrently, so `NcclComm` is not `Sync`
// (nor `Send`).
use ferrokkos::prelude::*;
use ferrokkos::{Cuda};
use ferrokkos::nccl::{NcclComm, NcclId};

fn main() -> ferrokkos::Result<()> {
    let _rt = ferrokkos::initialize(InitSettings::new())?;
    let exec = Cuda::default_instance()?;
    let comm = NcclComm::new(&exec, &NcclId::new()?, 0, 1)?;
    std::thread::scope(|s| {
        s.spawn(|| comm.rank());
    });
    Ok(())
}
