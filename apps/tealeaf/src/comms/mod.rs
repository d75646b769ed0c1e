//! Communication between ranks (TeaLeaf's `comms`): global sums and the point-to-point messages
//! of the halo exchange.
//!
//! The run talks to the other ranks only through [`Comms`]. [`Solo`] is the single rank of a
//! run without MPI; [`local::LocalComms`] runs ranks as threads of one process (the tests
//! decompose the mesh with it, no MPI needed); with the cargo feature `mpi`,
//! `mpi::MpiComms` is MPI's world communicator (rsmpi).
//!
//! Every rank calls the collective operations ([`Comms::sum`], [`Comms::barrier`]) in the same
//! order, as with MPI.

pub mod local;
#[cfg(feature = "mpi")]
pub mod mpi;
pub mod nccl;

use crate::Result;

/// One message of an exchange: `send` goes to rank `neighbour` with tag `send_tag`, and
/// `recv` is filled from the message `neighbour` sends with tag `recv_tag`.
#[derive(Debug)]
pub struct Message<'a> {
    /// The other rank.
    pub neighbour: usize,
    /// The tag of the message sent.
    pub send_tag: i32,
    /// The tag of the message received.
    pub recv_tag: i32,
    /// What is sent.
    pub send: &'a [f64],
    /// Where the received message goes; its length must be the sent message's.
    pub recv: &'a mut [f64],
}

/// The ranks of a run, as the run sees them.
pub trait Comms {
    /// This rank, from 0.
    fn rank(&self) -> usize;

    /// How many ranks there are.
    fn ranks(&self) -> usize;

    /// What runs this: `"solo"`, `"threads"` or the MPI library's name.
    fn name(&self) -> String;

    /// Replaces each value by its sum over all ranks (`MPI_Allreduce` with `MPI_SUM`).
    fn sum(&self, values: &mut [f64]) -> Result<()>;

    /// Sends and receives every message, and returns once all have arrived
    /// (`MPI_Isend` / `MPI_Irecv` each, then `MPI_Waitall`).
    fn exchange(&self, messages: &mut [Message<'_>]) -> Result<()>;

    /// Waits until every rank has called it.
    fn barrier(&self) -> Result<()>;

    /// Gives every rank rank 0's `bytes` (`MPI_Bcast`), for an id that names something to all
    /// ranks (an NCCL communicator). Returns whether it could: ranks that are not processes of
    /// their own (threads of one process share one GPU, which NCCL does not allow) cannot, and
    /// leave `bytes` as they are.
    fn share_from_lead(&self, bytes: &mut [u8]) -> Result<bool> {
        let _ = bytes;
        Ok(false)
    }
}

/// The only rank of a run: sums are the values themselves, and there is nobody to exchange
/// with.
#[derive(Clone, Copy, Debug, Default)]
pub struct Solo;

impl Comms for Solo {
    fn rank(&self) -> usize {
        0
    }

    fn ranks(&self) -> usize {
        1
    }

    fn name(&self) -> String {
        "solo".to_string()
    }

    fn sum(&self, _values: &mut [f64]) -> Result<()> {
        Ok(())
    }

    fn exchange(&self, messages: &mut [Message<'_>]) -> Result<()> {
        match messages.first() {
            None => Ok(()),
            Some(m) => Err(crate::TeaError::Comms(format!(
                "a single rank has no neighbour {} to exchange {} values with",
                m.neighbour,
                m.send.len()
            ))),
        }
    }

    fn barrier(&self) -> Result<()> {
        Ok(())
    }
}
