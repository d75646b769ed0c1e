//! MPI's world communicator (rsmpi), behind the cargo feature `mpi`.
//!
//! Sums are `MPI_Allreduce`; an exchange posts every `MPI_Isend` and `MPI_Irecv` in one
//! request scope and waits for them all. The buffers are host memory: the halo exchange stages
//! device data through host mirrors before it hands them over.

use mpi::collective::SystemOperation;
use mpi::environment::Universe;
use mpi::topology::SimpleCommunicator;
use mpi::traits::*;

use super::{Comms, Message};
use crate::{Result, TeaError};

/// MPI initialised for the run, and its world communicator. Dropping it finalises MPI.
pub struct MpiComms {
    world: SimpleCommunicator,
    // Declared last: dropped (MPI_Finalize) after the communicator.
    _universe: Universe,
}

impl std::fmt::Debug for MpiComms {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("MpiComms")
            .field("rank", &self.world.rank())
            .field("size", &self.world.size())
            .finish()
    }
}

impl MpiComms {
    /// Initialises MPI (once per process: a second call is an error).
    pub fn initialize() -> Result<MpiComms> {
        let universe = mpi::initialize().ok_or_else(|| {
            TeaError::Comms("MPI was already initialised in this process".to_string())
        })?;
        Ok(MpiComms {
            world: universe.world(),
            _universe: universe,
        })
    }
}

impl Comms for MpiComms {
    fn rank(&self) -> usize {
        self.world.rank() as usize
    }

    fn ranks(&self) -> usize {
        self.world.size() as usize
    }

    fn name(&self) -> String {
        let version = mpi::environment::library_version().unwrap_or_default();
        // The library's text may end in NULs; its first clause names it ("Open MPI v4.1.6").
        let first = version
            .trim_end_matches('\0')
            .split([',', '\n'])
            .next()
            .unwrap_or("")
            .trim()
            .to_string();
        format!("MPI, {first}")
    }

    fn sum(&self, values: &mut [f64]) -> Result<()> {
        let local = values.to_vec();
        self.world
            .all_reduce_into(&local[..], values, SystemOperation::sum());
        Ok(())
    }

    fn exchange(&self, messages: &mut [Message<'_>]) -> Result<()> {
        let ranks = self.ranks();
        if let Some(m) = messages.iter().find(|m| m.neighbour >= ranks) {
            return Err(TeaError::Comms(format!(
                "rank {} sends to rank {}, of {ranks} ranks",
                self.rank(),
                m.neighbour
            )));
        }
        mpi::request::scope(|scope| {
            let mut requests = Vec::with_capacity(2 * messages.len());
            for m in messages.iter_mut() {
                let other = self.world.process_at_rank(m.neighbour as i32);
                requests.push(other.immediate_send_with_tag(scope, m.send, m.send_tag));
                requests.push(other.immediate_receive_into_with_tag(scope, m.recv, m.recv_tag));
            }
            for r in requests {
                r.wait();
            }
        });
        Ok(())
    }

    fn barrier(&self) -> Result<()> {
        self.world.barrier();
        Ok(())
    }

    fn share_from_lead(&self, bytes: &mut [u8]) -> Result<bool> {
        self.world.process_at_rank(0).broadcast_into(bytes);
        Ok(true)
    }
}
