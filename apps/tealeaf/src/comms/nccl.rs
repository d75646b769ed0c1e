//! The ranks' GPUs talking through NCCL (`--nccl`): one communicator per rank, made when the
//! chunk is, where every rank runs on a GPU and can load NCCL. Its id travels from rank 0 to
//! the others through [`Comms::share_from_lead`] (MPI's broadcast).
//!
//! With it, the halo exchange sends device buffers to device buffers (`exchange.rs`) and CG's
//! sums are reduced on the device (`solvers/cg_graph.rs`), all queued on the chunk's instance:
//! the host no longer waits between a kernel and the message or sum that follows it.

use ferrokkos::MemorySpace;
use ferrokkos::nccl::{NcclComm, NcclId};

use super::Comms;
use crate::settings::{Nccl, Settings};
use crate::{Space, TeaError};

/// This rank's communicator, or `None` where NCCL is not used: one rank, `--nccl off`, a host
/// space, NCCL missing on some rank, or ranks that are threads of one process (one GPU, which
/// NCCL does not let two ranks share). Every rank calls it (it sums and broadcasts); with
/// `--nccl on` the cases that cannot use NCCL are errors.
pub fn connect<S: Space>(
    exec: &S,
    settings: &Settings,
    comms: &dyn Comms,
) -> crate::Result<Option<NcclComm>> {
    if comms.ranks() == 1 || settings.nccl == Nccl::Off {
        return Ok(None);
    }
    let on_device = !<S::MemorySpace as MemorySpace>::HOST_ACCESSIBLE;
    let mut able = [f64::from(u8::from(on_device && NcclComm::is_available()))];
    comms.sum(&mut able)?;
    let everywhere = able[0] as usize == comms.ranks();
    let refuse = |why: String| -> crate::Result<Option<NcclComm>> {
        match settings.nccl {
            Nccl::On => Err(TeaError::Comms(format!("--nccl on: {why}"))),
            _ => Ok(None),
        }
    };
    if !everywhere {
        return refuse(format!(
            "{} of {} ranks run on a GPU with NCCL (on {}: {})",
            able[0] as usize,
            comms.ranks(),
            S::NAME,
            if NcclComm::is_available() {
                "NCCL loads"
            } else {
                "NCCL does not load"
            }
        ));
    }
    let mut id = [0u8; 128];
    if comms.rank() == 0 {
        id = NcclId::new()?.to_bytes();
    }
    if !comms.share_from_lead(&mut id)? {
        return refuse(format!(
            "the ranks ({}) are not processes of their own; run them with MPI",
            comms.name()
        ));
    }
    // NCCL refuses two ranks on one GPU (more ranks than GPUs), on every rank; the ranks
    // agree on the outcome before any of them uses the communicator.
    let joined = NcclComm::new(exec, &NcclId::from_bytes(id), comms.rank(), comms.ranks());
    let mut joined_count = [f64::from(u8::from(joined.is_ok()))];
    comms.sum(&mut joined_count)?;
    match joined {
        Ok(comm) if joined_count[0] as usize == comms.ranks() => Ok(Some(comm)),
        Ok(_) => refuse("NCCL failed to start on another rank".into()),
        Err(e) => {
            if settings.nccl == Nccl::Auto && comms.rank() == 0 {
                eprintln!("tealeaf: the ranks talk through the host, not NCCL: {e}");
            }
            refuse(e.to_string())
        }
    }
}
