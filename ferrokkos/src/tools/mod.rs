//! Kokkos Tools and the built-in timeline.
//!
//! - A Kokkos Tools library named by `KOKKOS_TOOLS_LIBS` (or `--kokkos-tools-libs=`) is loaded at
//!   initialize and called through Kokkos' C interface ([`library`]), with Kokkos' device IDs and
//!   memory-space names, so existing tools (kernel-logger, simple-kernel-timer, space-time-stack,
//!   nvtx-connector) work unchanged.
//! - `FERROKKOS_TRACE=path.json` writes a Chrome trace of what ran where ([`trace`]), which
//!   `ferrokkos timeline` draws.
//! - [`crate::profiling`] is the public API: regions, sections, events, metadata.
//!
//! With neither a tool nor a trace, every hook in the library is behind [`active`]: one load of a
//! static flag and a branch the CPU predicts, nothing more. The tool and the trace live in a static
//! slot from initialize to finalize and are dropped at finalize (nothing is left behind).

mod compile_events;
mod ffi;
mod hooks;
mod library;
pub mod profiling;
mod symbol_kind;
pub(crate) mod trace;

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, RwLock};

#[cfg_attr(not(feature = "cuda"), allow(unused_imports))] // used by the CUDA backend
pub(crate) use compile_events::compiling;
#[cfg_attr(not(feature = "cuda"), allow(unused_imports))] // used by the CUDA backend
pub(crate) use hooks::{DeepCopyScope, FenceScope, Site, data, dual_view, profiled};
#[cfg(feature = "cuda")]
pub(crate) use hooks::{host_span, trace_start};
pub(crate) use library::{CopySide, Pattern};

use crate::error::Result;
use crate::settings::InitSettings;
use library::ToolLibrary;
use trace::Trace;

/// Whether a tool or a trace is active: the one check on every dispatch.
static ACTIVE: AtomicBool = AtomicBool::new(false);

/// The active tools, from initialize to finalize.
static TOOLS: RwLock<Option<Arc<Tools>>> = RwLock::new(None);

/// The label of the global fences that a tool's `requires_global_fencing` adds around kernels and
/// regions (Kokkos' own label).
const TOOL_FENCE: &str = "Kokkos::Tools::invoke_kokkosp_callback: Kokkos Profile Tool Fence";

/// The tool library and the trace of a running ferrokkos.
pub(crate) struct Tools {
    library: Option<ToolLibrary>,
    trace: Option<Trace>,
    /// The tool's `requires_global_fencing` (on unless it cleared it).
    global_fencing: AtomicBool,
    /// The runtime's global fence (the runtime sits above the tools, so it hands it down).
    fence_all: GlobalFence,
}

/// The runtime's global fence, as [`prepare`] receives it.
pub(crate) type GlobalFence = fn(&str) -> Result<()>;

/// Whether a tool or a trace is active. Inlined into every dispatch: with no tool, this is the whole
/// cost of the tools.
#[inline(always)]
pub(crate) fn active() -> bool {
    ACTIVE.load(Ordering::Relaxed)
}

/// The active tools, if any.
pub(crate) fn current() -> Option<Arc<Tools>> {
    TOOLS.read().unwrap_or_else(|e| e.into_inner()).clone()
}

impl Tools {
    /// The tool library, if one is loaded.
    pub(crate) fn library(&self) -> Option<&ToolLibrary> {
        self.library.as_ref()
    }

    /// The trace, if one is written.
    pub(crate) fn trace(&self) -> Option<&Trace> {
        self.trace.as_ref()
    }

    /// The global fence a tool asked for before a kernel or region callback, if it has that
    /// callback (`has_callback`), as Kokkos does.
    fn tool_fence(&self, has_callback: bool) {
        if has_callback && self.global_fencing.load(Ordering::Relaxed) {
            // A failing fence (a device fault) is reported by the work that follows, not here.
            let _ = (self.fence_all)(TOOL_FENCE);
        }
    }
}

/// What [`prepare`] opened before the backends start: the tool library and the trace file, so that a
/// bad path fails initialize before anything else is set up.
pub(crate) struct Prepared {
    tools: Option<Tools>,
}

/// Loads the tool library and creates the trace file that `settings` name. An error names the path
/// and why (a missing file, not a shared library, no `kokkosp_*` function, an unwritable trace); a
/// library that does not load is only a warning where the settings make tools optional.
/// `fence_all` is the runtime's global fence, which tools call when they ask for one.
pub(crate) fn prepare(settings: &InitSettings, fence_all: GlobalFence) -> Result<Prepared> {
    let library = match settings.tools_library().map(ToolLibrary::load) {
        Some(Err(e)) if settings.tools_are_optional() => {
            if !settings.warnings_disabled() {
                eprintln!("ferrokkos: warning: {e}; going on without it");
            }
            None
        }
        loaded => loaded.transpose()?,
    };
    let trace = settings
        .trace_path()
        .map(|path| Trace::create(path, &settings.program_name()))
        .transpose()?;
    if library.is_none() && trace.is_none() {
        return Ok(Prepared { tools: None });
    }
    Ok(Prepared {
        tools: Some(Tools {
            library,
            trace,
            global_fencing: AtomicBool::new(true),
            fence_all,
        }),
    })
}

impl Prepared {
    /// The instant the trace's clock counts from, when a trace is written.
    pub(crate) fn trace_origin(&self) -> Option<std::time::Instant> {
        self.tools.as_ref()?.trace.as_ref().map(Trace::origin)
    }

    /// Activates the tools once the runtime runs, calling the tool's start-up callbacks in Kokkos'
    /// order: `kokkosp_init_library`, `kokkosp_request_tool_settings`,
    /// `kokkosp_provide_tool_programming_interface`, `kokkosp_parse_args`, then
    /// `kokkosp_declare_metadata` for the runtime's configuration (`metadata`).
    pub(crate) fn activate(self, settings: &InitSettings, metadata: &[(&str, String)]) {
        let Some(tools) = self.tools else { return };
        let tools = Arc::new(tools);
        *TOOLS.write().unwrap_or_else(|e| e.into_inner()) = Some(Arc::clone(&tools));
        ACTIVE.store(true, Ordering::Release);
        if let Some(trace) = &tools.trace {
            // The backends' start-up (CUDA's initialization takes a good part of a second).
            let lane = trace.thread_lane();
            trace.span(
                lane,
                "runtime",
                "ferrokkos::initialize",
                0.0,
                trace.now(),
                &[],
            );
        }
        if let Some(library) = &tools.library {
            library.init();
            let fencing = library.request_global_fencing();
            tools.global_fencing.store(fencing, Ordering::Relaxed);
            library.provide_interface(tool_invoked_fence);
            library.parse_args(&settings.program_name(), &settings.tools_arguments());
        }
        for (key, value) in metadata {
            profiling::declare_metadata(key, value);
        }
    }
}

/// The fence a tool may call through its programming interface: a global fence (the device ID is
/// ignored, as in Kokkos).
extern "C" fn tool_invoked_fence(_device_id: u32) {
    if let Some(tools) = current() {
        let _ = (tools.fence_all)(
            "Kokkos::Tools::Experimental::Impl::tool_invoked_fence: Tool Requested Fence",
        );
    }
}

/// Ends the tools at finalize, before the backends stop: completes the trace (after a global fence,
/// so that device spans are resolved), calls `kokkosp_finalize_library`, and drops the library.
pub(crate) fn finish() -> Result<()> {
    let Some(tools) = current() else {
        return Ok(());
    };
    let mut result = Ok(());
    if let Some(trace) = &tools.trace {
        let _ = (tools.fence_all)("ferrokkos::finalize: trace");
        result = trace.finish();
    }
    if let Some(library) = &tools.library {
        library.finalize();
    }
    ACTIVE.store(false, Ordering::Release);
    *TOOLS.write().unwrap_or_else(|e| e.into_inner()) = None;
    drop(tools);
    result
}

/// The name a memory space has in Kokkos Tools: its name without the `Space` suffix (`"Host"`,
/// `"Cuda"`, `"CudaUVM"`, `"CudaHostPinned"`).
pub(crate) fn space_name(name: &'static str) -> &'static str {
    name.strip_suffix("Space").unwrap_or(name)
}
