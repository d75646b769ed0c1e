//! Initialize and finalize: the [`Runtime`] guard that owns all process-wide state.
//!
//! Everything ferrokkos keeps for the process (the Threads pool, the memory spaces' accounting, the
//! default instances, the finalize hooks) lives in one `State` object. [`crate::initialize`] creates it and the
//! [`Runtime`] guard's drop (or [`Runtime::finalize`]) runs the finalize hooks, shuts the backends down
//! and drops it, so nothing is left behind (Kokkos 4.6 leaked a Serial singleton, kokkos#8041). Objects
//! that outlive finalize (a View, an instance handle) keep only their own memory alive, free it when they
//! drop, and refuse new work with [`Error::Finalized`].
//!
//! Backends reach their part of the state through [`state`]; this is the only global of the crate.
//! The runtime names no backend: it is given their start functions ([`Start`], listed in
//! `backend/mod.rs`) and drives them through the [`Backend`] trait.

mod backend;
mod bulk;
pub(crate) mod context;
pub(crate) mod started;

use std::any::Any;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

pub(crate) use backend::{Backend, Start};
pub(crate) use bulk::HostBulk;

use crate::error::{Error, Result};
use crate::settings::InitSettings;

/// A function run at finalize.
type Hook = Box<dyn FnOnce() + Send>;

/// The process-wide state of a running ferrokkos.
pub(crate) struct State {
    settings: InitSettings,
    /// The running backends in start order, each also as `Any` for [`State::backend`].
    backends: Vec<(Arc<dyn Backend>, Arc<dyn Any + Send + Sync>)>,
    hooks: Mutex<Vec<Hook>>,
}

impl State {
    /// The running backend of type `B`, if it started (the Cuda backend does not without a GPU).
    pub(crate) fn backend<B: Backend>(&self) -> Option<&B> {
        self.backends
            .iter()
            .find_map(|(_, any)| any.downcast_ref::<B>())
    }

    /// The backend that carries out large host copies and fills, if one runs.
    pub(crate) fn host_bulk(&self) -> Option<&dyn HostBulk> {
        self.backends.iter().find_map(|(b, _)| b.host_bulk())
    }

    /// The running backend of type `B`, or an error naming `what` when it did not start.
    pub(crate) fn started<B: Backend>(&self, what: impl FnOnce() -> String) -> Result<&B> {
        self.backend::<B>().ok_or_else(|| Error::Internal {
            what: what(),
            reason: format!("the backend {} is not running", std::any::type_name::<B>()),
        })
    }
}

enum Lifecycle {
    Uninitialized,
    Running(Arc<State>),
    Finalized,
}

static LIFECYCLE: Mutex<Lifecycle> = Mutex::new(Lifecycle::Uninitialized);

fn lifecycle() -> MutexGuard<'static, Lifecycle> {
    LIFECYCLE.lock().unwrap_or_else(|e| e.into_inner())
}

/// The running state, or the error that says why there is none. `what` describes the attempted
/// operation for the message (e.g. `allocating View "x" in HostSpace`).
pub(crate) fn state(what: impl FnOnce() -> String) -> Result<Arc<State>> {
    started::register();
    match &*lifecycle() {
        Lifecycle::Running(state) => Ok(Arc::clone(state)),
        Lifecycle::Uninitialized => Err(Error::NotInitialized { what: what() }),
        Lifecycle::Finalized => Err(Error::Finalized { what: what() }),
    }
}

/// Starts ferrokkos with `settings` and the backends `starts` (in order), and returns the guard whose
///
/// May be called once per process: a second call while running is [`Error::AlreadyInitialized`], a call
/// after finalize is [`Error::InitializeAfterFinalize`] (as in Kokkos).
///
pub(crate) fn initialize(settings: InitSettings, starts: &[Start]) -> Result<Runtime> {
    started::register();
    let mut guard = lifecycle();
    match &*guard {
        Lifecycle::Running(_) => return Err(Error::AlreadyInitialized),
        Lifecycle::Finalized => return Err(Error::InitializeAfterFinalize),
        Lifecycle::Uninitialized => {}
    }
    // The tool library and the trace file first: a bad path fails before anything starts.
    let tools = crate::tools::prepare(&settings, fence_all)?;
    let mut backends: Vec<Arc<dyn Backend>> = Vec::with_capacity(starts.len());
    let started = starts.iter().try_for_each(|start| {
        if let Some(backend) = start(&settings)? {
            backends.push(backend);
        }
        Ok(())
    });
    let clocks = || match tools.trace_origin() {
        Some(origin) => backends
            .iter()
            .try_for_each(|b| b.start_trace_clock(origin)),
        None => Ok(()),
    };
    if let Err(e) = started.and_then(|()| clocks()) {
        for backend in backends.iter().rev() {
            backend.shutdown();
        }
        return Err(e);
    }
    let mut metadata = vec![("ferrokkos version", env!("CARGO_PKG_VERSION").to_string())];
    metadata.extend(backends.iter().flat_map(|b| b.metadata()));
    let backends = backends
        .into_iter()
        .map(|b| (Arc::clone(&b), b.into_any()))
        .collect();
    *guard = Lifecycle::Running(Arc::new(State {
        settings: settings.clone(),
        backends,
        hooks: Mutex::new(Vec::new()),
    }));
    // The tool's start-up callbacks run once the runtime is up (a tool may fence from them).
    drop(guard);
    tools.activate(&settings, &metadata);
    Ok(Runtime { done: false })
}

/// Whether ferrokkos is initialized and not yet finalized.
pub fn is_initialized() -> bool {
    matches!(&*lifecycle(), Lifecycle::Running(_))
}

/// Whether ferrokkos has been finalized.
pub fn is_finalized() -> bool {
    matches!(&*lifecycle(), Lifecycle::Finalized)
}

/// Registers `hook` to run at finalize, before the backends shut down. Hooks run in reverse order of
/// registration (the last pushed runs first), as in Kokkos; they may still use ferrokkos.
pub fn push_finalize_hook(hook: impl FnOnce() + Send + 'static) -> Result<()> {
    let state = state(|| "registering a finalize hook".into())?;
    state
        .hooks
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .push(Box::new(hook));
    Ok(())
}

/// The settings the running ferrokkos was initialized with.
pub fn settings() -> Result<InitSettings> {
    Ok(state(|| "reading the settings".into())?.settings.clone())
}

/// Fences the default instance of every backend.
pub(crate) fn fence_all(label: &str) -> Result<()> {
    let state = state(|| format!("fence \"{label}\""))?;
    state
        .backends
        .iter()
        .try_for_each(|(backend, _)| backend.fence_all(label))
}

/// The guard returned by [`crate::initialize`]. Dropping it finalizes ferrokkos; [`Runtime::finalize`] does the
/// same and reports a failed finalize hook as an error.
#[derive(Debug)]
#[must_use = "dropping the Runtime finalizes ferrokkos at once"]
pub struct Runtime {
    done: bool,
}

impl Runtime {
    /// Finalizes ferrokkos: runs the finalize hooks (last registered first), waits for work in flight,
    /// stops the backends and drops all process-wide state.
    ///
    /// Every hook runs even if an earlier one panicked; panics are reported as
    /// [`Error::FinalizeHook`] after the shutdown completed.
    ///
    /// Called (or the guard dropped) from inside a host kernel, where stopping the backends would
    /// wait for the kernel itself, finalize is deferred: it returns `Ok(())` at once and the runtime
    /// finalizes when the outermost launch running on the calling thread has returned (its errors are
    /// then printed to stderr, as `Drop` does). The same holds on a thread that a running host
    /// kernel started (e.g. with `std::thread::scope`; see [`crate::ExecutionSpace::fence`] for how
    /// such a thread is told): finalize happens once that kernel's launch has returned.
    pub fn finalize(mut self) -> Result<()> {
        self.done = true;
        finalize_now()
    }
}

impl Drop for Runtime {
    fn drop(&mut self) {
        if !self.done
            && let Err(e) = finalize_now()
        {
            eprintln!("ferrokkos: {e}");
        }
    }
}

/// Set when finalize was asked for inside a host kernel; the launch entry points finalize once the
/// launch has returned ([`DeferredFinalize`]).
static DEFERRED: AtomicBool = AtomicBool::new(false);

/// Finalizes, when finalize was asked for inside a kernel, as this value drops (at the end of a host
/// launch, also when it unwinds) on a thread that is not running a kernel any more. Costs one
/// relaxed load otherwise.
pub(crate) struct DeferredFinalize;

impl Drop for DeferredFinalize {
    #[inline]
    fn drop(&mut self) {
        if DEFERRED.load(Ordering::Relaxed) {
            finish_deferred();
        }
    }
}

#[cold]
#[inline(never)]
fn finish_deferred() {
    if !context::in_kernel()
        && DEFERRED.swap(false, Ordering::AcqRel)
        && let Err(e) = finalize_now()
    {
        eprintln!("ferrokkos: {e}");
    }
}

fn finalize_now() -> Result<()> {
    // Inside a kernel, or on a thread a running kernel started, shutting the backends down would
    // wait for that kernel: finalize afterwards.
    if context::in_kernel() || started_by_running_work() {
        DEFERRED.store(true, Ordering::Release);
        return Ok(());
    }
    let Ok(state) = state(String::new) else {
        return Ok(());
    };
    // Hooks may push further hooks; run until none is left.
    let mut panics = Vec::new();
    loop {
        let hooks = std::mem::take(&mut *state.hooks.lock().unwrap_or_else(|e| e.into_inner()));
        if hooks.is_empty() {
            break;
        }
        for hook in hooks.into_iter().rev() {
            if let Err(payload) = std::panic::catch_unwind(std::panic::AssertUnwindSafe(hook)) {
                panics.push(panic_message(&*payload));
            }
        }
    }
    // Tools end after the hooks and before the backends stop, as in Kokkos.
    let tools = crate::tools::finish();
    for (backend, _) in &state.backends {
        backend.stop_trace_clock();
    }
    let previous = std::mem::replace(&mut *lifecycle(), Lifecycle::Finalized);
    if !matches!(previous, Lifecycle::Running(_)) {
        // Finalized concurrently by someone else: put back what was there.
        *lifecycle() = previous;
        return Ok(());
    }
    drop(previous);
    for (backend, _) in state.backends.iter().rev() {
        backend.shutdown();
    }
    drop(state);
    tools?;
    match panics.len() {
        0 => Ok(()),
        count => Err(Error::FinalizeHook {
            count,
            first: panics.swap_remove(0),
        }),
    }
}

/// Whether the calling thread counts as started by work running on a backend (which may wait for it).
fn started_by_running_work() -> bool {
    state(String::new).is_ok_and(|state| {
        state
            .backends
            .iter()
            .any(|(backend, _)| backend.started_by_running_work())
    })
}

fn panic_message(payload: &(dyn std::any::Any + Send)) -> String {
    if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "a non-string panic payload".to_string()
    }
}
