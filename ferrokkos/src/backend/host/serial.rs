//! [`Serial`]: runs work on the calling thread, one iteration after the other.

use std::sync::Arc;

use super::launch_lock::{LaunchLock, Listed};
use super::{HostShared, HostSpace, host_execution_space};
use crate::error::Result;
use crate::runtime;
use crate::runtime::context::{self, KernelScope};
use crate::space::{DeviceType, ExecutionSpace};

/// The Serial execution space: work runs on the thread that dispatches it, in order.
///
/// ```
/// use ferrokkos::{ExecutionSpace, InitSettings, Serial};
/// let _rt = ferrokkos::initialize(InitSettings::new())?;
/// let serial = Serial::default_instance()?;
/// assert_eq!((serial.name(), serial.concurrency(), serial.instance_id()), ("Serial", 1, 1));
/// assert_eq!(serial.device_id(), 1); // device type 0, instance 1
/// # Ok::<(), ferrokkos::Error>(())
/// ```
#[derive(Clone)]
pub struct Serial {
    inner: Arc<SerialInstance>,
}

struct SerialInstance {
    id: u32,
    shared: Arc<HostShared>,
    /// Held while work runs, so that a fence from another thread waits for it.
    launch: LaunchLock,
}

impl Serial {
    /// Waits until the work other threads run on this instance has finished (the fence, without
    /// the tools' callbacks). Inside a kernel, or on a thread that the kernel running on this
    /// instance started (`launch_lock.rs`), it returns at once: the work running is the caller's
    /// own.
    pub(crate) fn wait_idle(&self, label: &str) -> Result<()> {
        self.inner
            .shared
            .check_alive(|| format!("fence \"{label}\" on Serial"))?;
        if !context::in_kernel() {
            let launch = &self.inner.launch;
            launch.wait_idle(|me| launch.owner_for(me));
        }
        Ok(())
    }

    /// A new instance with the next instance number.
    pub(super) fn create(shared: &Arc<HostShared>) -> Serial {
        let inner = shared.create(&shared.serial_ids, |id| SerialInstance {
            id,
            shared: Arc::clone(shared),
            launch: LaunchLock::default(),
        });
        Serial { inner }
    }

    /// Runs `f` as this instance's next piece of work. From inside a host kernel, or from a thread
    /// that the kernel running on this instance started (`launch_lock.rs`), it runs at once,
    /// inline, as a nested dispatch does. `what` describes the work for the error returned after
    /// finalize.
    pub(crate) fn execute<R>(
        &self,
        what: impl FnOnce() -> String,
        f: impl FnOnce() -> R,
    ) -> Result<R> {
        self.inner.shared.check_alive(what)?;
        if context::in_kernel() {
            return Ok(f());
        }
        let launch = &self.inner.launch;
        // `None`: the caller belongs to the running kernel; it runs `f` inline, as that kernel's
        // own thread would.
        let _launch = launch.enter(|me| launch.owner_for(me));
        let _scope = KernelScope::enter();
        Ok(f())
    }
}

impl std::fmt::Debug for Serial {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Serial")
            .field("instance", &self.inner.id)
            .finish()
    }
}

host_execution_space!(Serial, SerialInstance, serial, workers(_instance) = 0..0, {
    fn concurrency(&self) -> usize {
        1
    }

    /// New Serial instances, one per weight (the weights do not matter: each runs on its caller).
    fn partition(&self, weights: &[f64]) -> Result<Vec<Self>> {
        self.inner
            .shared
            .check_alive(|| "partition_space on Serial".into())?;
        let shares = crate::space::split_concurrency(1, weights)?;
        Ok(shares
            .iter()
            .map(|_| Serial::create(&self.inner.shared))
            .collect())
    }
});

impl crate::dispatch::HostExecutionSpace for Serial {
    const IN_ORDER_REDUCTIONS: bool = true;

    #[inline]
    fn run_participants(
        &self,
        what: &dyn Fn() -> String,
        f: &(dyn Fn(usize, usize) + Sync),
    ) -> Result<()> {
        self.execute(what, || f(0, 1))
    }
}
