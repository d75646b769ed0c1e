//! The host backend: the Serial and Threads execution spaces (their memory, HostSpace, is in
//! `space/`: every build has it).

mod bulk;
mod graph;
pub(crate) mod isa;
mod launch_lock;
mod md_range;
mod nontemporal;
mod point;
mod pool;
mod range;
mod run;
mod serial;
mod team;
mod threads;
mod work;

use std::any::Any;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU32, Ordering};

use crate::space::host_space::HostSpace;
pub use isa::host_vector_instructions;
use pool::Pool;
pub use serial::Serial;
pub use threads::Threads;

/// What Serial and Threads implement alike: `Listed` for their instances (`$instance`, with its
/// `launch` lock; `$workers` the pool workers of instance `$me`), and of `ExecutionSpace` the
/// types, the default instance (the backend's `$default()`), the fence and the instance number;
/// `$rest` holds the methods where they differ. Both hold their instance as `inner: Arc<$instance>`,
/// with its number in `id`.
macro_rules! host_execution_space {
    (
        $space:ident, $instance:ident, $default:ident,
        workers($me:ident) = $workers:expr,
        { $($rest:tt)* }
    ) => {
        impl Listed for $instance {
            fn launch_lock(&self) -> &LaunchLock {
                &self.launch
            }

            fn workers(&self) -> std::ops::Range<usize> {
                let $me = self;
                $workers
            }
        }

        impl ExecutionSpace for $space {
            type MemorySpace = HostSpace;
            type SharedSpace = HostSpace;
            type SharedHostPinnedSpace = HostSpace;
            type ArrayLayout = crate::layout::LayoutRight;
            const NAME: &'static str = stringify!($space);
            const DEVICE_TYPE: DeviceType = DeviceType::$space;
            type Kind = crate::space::HostKind;

            fn default_instance() -> Result<Self> {
                let what = || {
                    concat!("getting the default ", stringify!($space), " instance").to_string()
                };
                let state = runtime::state(what)?;
                Ok(state.started::<super::HostBackend>(what)?.$default().clone())
            }

            fn fence(&self, label: &str) -> Result<()> {
                let _tools = crate::tools::FenceScope::begin(label, self.device_id());
                self.wait_idle(label)
            }

            fn instance_id(&self) -> u32 {
                self.inner.id
            }

            $($rest)*
        }

        impl crate::seal::Sealed for $space {}
    };
}
use host_execution_space;

/// The host execution space that Kokkos code gets by default (`Kokkos::DefaultHostExecutionSpace`).
pub type DefaultHostExecutionSpace = Threads;

use crate::error::{Error, Result};
use crate::runtime::Backend;
use crate::settings::InitSettings;
use crate::space::{DeviceType, ExecutionSpace, device_id};
use crate::tools::FenceScope;

/// What every host instance shares: whether the backend still runs, the instance counters, and the
/// list of instances (for the rule on threads that a running kernel started: `launch_lock.rs`).
#[derive(Debug)]
pub(crate) struct HostShared {
    alive: AtomicBool,
    serial_ids: AtomicU32,
    threads_ids: AtomicU32,
    instances: launch_lock::Instances,
}

impl HostShared {
    /// The next instance number of a space, counted by `ids`, and the instance `make` builds with
    /// it, entered in the list of instances.
    fn create<T: launch_lock::Listed + 'static>(
        &self,
        ids: &AtomicU32,
        make: impl FnOnce(u32) -> T,
    ) -> Arc<T> {
        let inner = Arc::new(make(ids.fetch_add(1, Ordering::Relaxed) + 1));
        let listed: Arc<dyn launch_lock::Listed> = inner.clone();
        self.instances.add(Arc::downgrade(&listed));
        inner
    }

    fn check_alive(&self, what: impl FnOnce() -> String) -> Result<()> {
        if self.alive.load(Ordering::Acquire) {
            Ok(())
        } else {
            Err(Error::Finalized { what: what() })
        }
    }
}

/// The host backend's part of the runtime state.
pub(crate) struct HostBackend {
    shared: Arc<HostShared>,
    pool: Pool,
    serial: Serial,
    threads: Threads,
    /// Whether large copies and fills may use streaming stores (`InitSettings::streaming_stores`).
    streaming_stores: bool,
}

impl HostBackend {
    /// Starts the pool and creates the default instances.
    pub(crate) fn start(settings: &InitSettings) -> Result<HostBackend> {
        let shared = Arc::new(HostShared {
            alive: AtomicBool::new(true),
            serial_ids: AtomicU32::new(0),
            threads_ids: AtomicU32::new(0),
            instances: launch_lock::Instances::default(),
        });
        isa::allow(settings.uses_wide_vectors());
        let hardware = std::thread::available_parallelism().map_or(1, |n| n.get());
        if let Some(warning) = settings.oversubscription_warning(hardware) {
            eprintln!("ferrokkos: {warning}");
        }
        let pool = Pool::start(settings.effective_threads(), settings.pins_threads())?;
        let serial = Serial::create(&shared);
        let threads = Threads::create(&shared, pool.shared(), 0..pool.workers());
        Ok(HostBackend {
            shared,
            pool,
            serial,
            threads,
            streaming_stores: settings.uses_streaming_stores(),
        })
    }

    /// The default Serial instance.
    pub(crate) fn serial(&self) -> &Serial {
        &self.serial
    }

    /// The default Threads instance.
    pub(crate) fn threads(&self) -> &Threads {
        &self.threads
    }

    /// Fences the default instances.
    /// The global fence of the host backends: each reports to tools with its instance-0 device ID,
    /// as Kokkos' static fences do.
    pub(crate) fn fence_all(&self, label: &str) -> Result<()> {
        {
            let _tools = FenceScope::begin(label, device_id(DeviceType::Serial, 0, 0));
            self.serial.wait_idle(label)?;
        }
        let _tools = FenceScope::begin(label, device_id(DeviceType::Threads, 0, 0));
        self.threads.wait_idle(label)
    }
}

impl Backend for HostBackend {
    fn fence_all(&self, label: &str) -> Result<()> {
        HostBackend::fence_all(self, label)
    }

    /// Waits for work in flight, stops the pool; host instances refuse work afterwards.
    fn shutdown(&self) {
        // Wait for dispatches in progress on the default instances, then close the door.
        let _ = self.fence_all("ferrokkos::finalize");
        self.shared.alive.store(false, Ordering::Release);
        self.pool.shutdown();
    }

    /// Whether the calling thread is treated as part of a kernel running on a host instance
    /// (`launch_lock.rs`): finalize from it would wait for that kernel. A candidate waits up to the
    /// grace for such kernels to end first.
    fn started_by_running_work(&self) -> bool {
        let me = crate::runtime::started::register();
        let start = std::time::Instant::now();
        while self.shared.instances.any_owner_for(me) {
            if start.elapsed() >= launch_lock::ADOPTION_GRACE {
                return true;
            }
            std::thread::sleep(std::time::Duration::from_micros(200));
        }
        false
    }

    fn metadata(&self) -> Vec<(&'static str, String)> {
        vec![(
            "Threads concurrency",
            self.threads.concurrency().to_string(),
        )]
    }

    fn host_bulk(&self) -> Option<&dyn crate::runtime::HostBulk> {
        Some(self)
    }

    fn into_any(self: Arc<Self>) -> Arc<dyn Any + Send + Sync> {
        self
    }
}

/// Starts the host backend (the runtime's [`crate::runtime::Start`] for it).
pub(crate) fn start(settings: &InitSettings) -> Result<Option<Arc<dyn Backend>>> {
    Ok(Some(Arc::new(HostBackend::start(settings)?)))
}
