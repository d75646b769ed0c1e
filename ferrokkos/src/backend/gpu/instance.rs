//! [`Instance`]: the state of one GPU execution space instance — its number, its [`Queue`] and
//! the device it shares with the others. A backend's public handle (`Cuda`) holds it in an `Arc`;
//! dropping the last one waits for the instance's work, then the queue destroys its stream.

use std::sync::Arc;

use super::device::Device;
use super::driver::{DeviceInfo as _, Driver};
use super::queue::Queue;
use crate::error::Result;
use crate::space::device_id;

/// One instance's state.
pub(crate) struct Instance<D: Driver> {
    id: u32,
    shared: Arc<Device<D>>,
    queue: Arc<Queue<D>>,
}

impl<D: Driver> Instance<D> {
    /// A new instance with its own stream; a `recording` one records work into a graph instead of
    /// running it.
    pub(crate) fn create(shared: &Arc<Device<D>>, recording: bool) -> Result<Arc<Instance<D>>> {
        let id = shared.next_id();
        let device = device_id(D::DEVICE_TYPE, shared.info.ordinal() as u32, id);
        let queue = Queue::new(
            &shared.ctx,
            &shared.clock,
            &shared.faults,
            device,
            recording,
        )?;
        Ok(Arc::new(Instance {
            id,
            shared: Arc::clone(shared),
            queue,
        }))
    }

    /// The instance's number (Kokkos Tools' instance ID).
    pub(crate) fn id(&self) -> u32 {
        self.id
    }

    /// Kokkos Tools' device ID of the instance.
    pub(crate) fn device_id(&self) -> u32 {
        device_id(D::DEVICE_TYPE, self.shared.info.ordinal() as u32, self.id)
    }

    /// What every instance of the device shares.
    pub(crate) fn shared(&self) -> &Arc<Device<D>> {
        &self.shared
    }

    /// The instance's queue.
    pub(crate) fn queue(&self) -> &Arc<Queue<D>> {
        &self.queue
    }
}

impl<D: Driver> Drop for Instance<D> {
    fn drop(&mut self) {
        // The queue (and its stream) goes with the instance: wait for the work first (a recording
        // queue runs none).
        if self.queue.is_recording() {
            return;
        }
        if let Err(e) = self
            .queue
            .fence(&|| format!("dropping {} instance {}", D::SPACE, self.id))
        {
            eprintln!("ferrokkos: {e}");
        }
    }
}
