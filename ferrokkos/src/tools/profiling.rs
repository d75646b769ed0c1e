//! Profiling annotations for Kokkos Tools and the built-in trace: regions, sections, events and
//! metadata (Kokkos' `Kokkos::Profiling` / `Kokkos::Tools` functions).
//!
//! Each call goes to the loaded Kokkos Tools library (if any) and to the trace written by
//! `FERROKKOS_TRACE` (if any). Without either, they cost one branch. Before initialize and after
//! finalize they do nothing.
//!
//! [`compile_events`] is ferrokkos' own: a channel that reports each compilation of GPU kernels
//! (NVRTC, at a kernel's first launch when it is not in the on-disk cache), for progress displays.
//!
//! ```
//! use ferrokkos::prelude::*;
//! use ferrokkos::kernel;
//! use ferrokkos::profiling::{self, ProfilingSection, ScopedRegion};
//!
//! let _rt = ferrokkos::initialize(InitSettings::new())?;
//! let x = View::<f64, 1>::new("x", [100])?;
//! {
//!     let _region = ScopedRegion::new("setup");
//!     parallel_for("fill", 100, kernel!(|i| x[i] = 1.0))?;
//! }
//! let solve = ProfilingSection::new("solve");
//! for _ in 0..3 {
//!     solve.start();
//!     let s: f64 = parallel_reduce("sum", 100, kernel!(|i, s: &mut f64| *s += x[i]), Sum::new())?;
//!     solve.stop();
//!     assert_eq!(s, 100.0);
//! }
//! profiling::mark_event("converged");
//! profiling::declare_metadata("problem size", "100");
//! # Ok::<(), ferrokkos::Error>(())
//! ```

use std::sync::Mutex;

pub use super::compile_events::{CompileEvent, CompileStage, compile_events};
use super::library::SectionAction;
use super::{active, current};

/// Opens a region named `name` on the calling thread (Kokkos' `Kokkos::Profiling::pushRegion`).
/// Regions nest; [`pop_region`] closes the innermost one. Prefer [`ScopedRegion`], which cannot be
/// left open.
#[inline]
pub fn push_region(name: &str) {
    if active() {
        push_active(name);
    }
}

#[cold]
#[inline(never)]
fn push_active(name: &str) {
    let Some(tools) = current() else { return };
    if let Some(library) = tools.library() {
        tools.tool_fence(library.has_region_callback(false));
        library.push_region(name);
    }
    if let Some(trace) = tools.trace() {
        trace.push_region(name);
    }
}

/// Closes the calling thread's innermost region (Kokkos' `Kokkos::Profiling::popRegion`).
#[inline]
pub fn pop_region() {
    if active() {
        pop_active();
    }
}

#[cold]
#[inline(never)]
fn pop_active() {
    let Some(tools) = current() else { return };
    if let Some(library) = tools.library() {
        tools.tool_fence(library.has_region_callback(true));
        library.pop_region();
    }
    if let Some(trace) = tools.trace() {
        trace.pop_region();
    }
}

/// A region that closes when it drops (Kokkos' `Kokkos::Profiling::ScopedRegion`).
#[derive(Debug)]
#[must_use = "the region closes when this guard drops"]
pub struct ScopedRegion {
    _not_send: std::marker::PhantomData<*const ()>,
}

impl ScopedRegion {
    /// Opens region `name` on the calling thread until the guard drops.
    pub fn new(name: &str) -> ScopedRegion {
        push_region(name);
        ScopedRegion {
            _not_send: std::marker::PhantomData,
        }
    }
}

impl Drop for ScopedRegion {
    fn drop(&mut self) {
        pop_region();
    }
}

/// A named section that can be started and stopped many times (Kokkos'
/// `Kokkos::Profiling::ProfilingSection`): `kokkosp_create_profile_section` when it is made,
/// `kokkosp_start/stop_profile_section` for each run, `kokkosp_destroy_profile_section` when it
/// drops. In the trace, each run is a span on the section's own lane.
#[derive(Debug)]
pub struct ProfilingSection {
    name: String,
    /// The tool's ID for this section (0 without a tool).
    id: u32,
    /// When the current run started on the trace clock.
    started: Mutex<Option<f64>>,
}

impl ProfilingSection {
    /// Creates section `name`.
    pub fn new(name: &str) -> ProfilingSection {
        let mut id = 0;
        if active()
            && let Some(tools) = current()
            && let Some(library) = tools.library()
        {
            id = library.create_section(name);
        }
        ProfilingSection {
            name: name.to_string(),
            id,
            started: Mutex::new(None),
        }
    }

    /// The section's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Starts a run of the section.
    pub fn start(&self) {
        if !active() {
            return;
        }
        let Some(tools) = current() else { return };
        if let Some(library) = tools.library() {
            library.section(SectionAction::Start, self.id);
        }
        if let Some(trace) = tools.trace() {
            *self.started.lock().unwrap_or_else(|e| e.into_inner()) = Some(trace.now());
        }
    }

    /// Stops the current run.
    pub fn stop(&self) {
        if !active() {
            return;
        }
        let Some(tools) = current() else { return };
        if let Some(library) = tools.library() {
            library.section(SectionAction::Stop, self.id);
        }
        if let Some(trace) = tools.trace()
            && let Some(start) = self
                .started
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .take()
        {
            trace.section(&self.name, start);
        }
    }
}

impl Drop for ProfilingSection {
    fn drop(&mut self) {
        if active()
            && let Some(tools) = current()
            && let Some(library) = tools.library()
        {
            library.section(SectionAction::Destroy, self.id);
        }
    }
}

/// Marks a point in time named `name` (Kokkos' `Kokkos::Profiling::markEvent`).
#[inline]
pub fn mark_event(name: &str) {
    if active()
        && let Some(tools) = current()
    {
        if let Some(library) = tools.library() {
            library.profile_event(name);
        }
        if let Some(trace) = tools.trace() {
            trace.instant(name);
        }
    }
}

/// Declares `key = value` to the tool (Kokkos' `Kokkos::Tools::declareMetadata`) and in the trace.
pub fn declare_metadata(key: &str, value: &str) {
    if active()
        && let Some(tools) = current()
    {
        if let Some(library) = tools.library() {
            library.declare_metadata(key, value);
        }
        if let Some(trace) = tools.trace() {
            trace.metadata(key, value);
        }
    }
}

/// Whether a Kokkos Tools library is loaded (Kokkos' `Kokkos::Tools::profileLibraryLoaded`).
pub fn profile_library_loaded() -> bool {
    active() && current().is_some_and(|t| t.library().is_some())
}
