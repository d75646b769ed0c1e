//! Backends: each implements the generic traits of [`crate::space`] and the launch seams of
//! [`crate::dispatch`] in its own folder, and registers with the runtime through
//! `runtime::Backend`. This file lists them; nothing else names them.

#[cfg(feature = "cuda")]
pub(crate) mod cuda;
// What both GPU backends share: code generation, planning, the disk cache, and the runtime over
// the driver traits (built where a driver is).
#[cfg(any(feature = "cuda", feature = "hip"))]
pub(crate) mod gpu;
#[cfg(feature = "hip")]
pub(crate) mod hip;
pub(crate) mod host;
pub(crate) mod shared;

use crate::error::Result;
use crate::runtime::{Runtime, Start};
use crate::settings::InitSettings;

/// The backends of this build, in start order (the host backend first: the others may use it).
const BACKENDS: &[Start] = &[
    host::start,
    #[cfg(feature = "cuda")]
    cuda::start,
];

/// Starts ferrokkos with `settings` and returns the guard whose drop finalizes it.
///
/// May be called once per process: a second call while running is [`crate::Error::AlreadyInitialized`], a call
/// after finalize is [`crate::Error::InitializeAfterFinalize`] (as in Kokkos).
///
/// ```
/// use ferrokkos::{InitSettings, View};
/// let rt = ferrokkos::initialize(InitSettings::from_env()?)?;
/// assert!(ferrokkos::is_initialized());
/// let v = View::<f64, 1>::new("v", [10])?;
/// assert_eq!(v.size(), 10);
/// drop(v);
/// rt.finalize()?;
/// assert!(ferrokkos::is_finalized());
/// # Ok::<(), ferrokkos::Error>(())
/// ```
pub fn initialize(settings: InitSettings) -> Result<Runtime> {
    crate::runtime::initialize(settings, BACKENDS)
}

/// For the library's own tests that need a running ferrokkos (Views, launches): one runtime for
/// the whole test process, never finalized, since `initialize` may run once per process and a
/// test that finalized would leave the tests after it (in name order, on the GPU machine's single
/// test thread) without one.
#[cfg(all(test, feature = "cuda"))]
pub(crate) fn test_runtime() -> &'static Runtime {
    static RUNTIME: std::sync::OnceLock<Runtime> = std::sync::OnceLock::new();
    RUNTIME.get_or_init(|| initialize(InitSettings::new()).expect("initialize for the tests"))
}
