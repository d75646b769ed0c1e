//! The hooks the rest of the crate calls: kernels, fences, allocations and deep copies. Each checks
//! [`super::active`] first (inlined) and does its work out of line, so that a dispatch without tools
//! pays one predictable branch.

use std::sync::Arc;

use super::library::{CopySide, Pattern};
use super::trace::Arg;
use super::{Tools, current};

/// A kernel launch in progress, as tools see it (kept on the launching thread's stack of launches
/// between its begin and [`end_kernel`]).
struct KernelState {
    pattern: Pattern,
    kernel_id: Option<u64>,
    /// The host span's start, for kernels on host spaces.
    start: Option<f64>,
    name: String,
    space: &'static str,
    device_id: u32,
    instance: u32,
}

/// Where a launch runs, as tools see it (built only when a tool is active).
pub(crate) struct Site {
    /// The execution space's name.
    pub(crate) space: &'static str,
    /// Kokkos Tools' device ID of the instance.
    pub(crate) device_id: u32,
    /// The instance's number.
    pub(crate) instance: u32,
    /// Whether the kernel runs on host threads (its span is timed on the host).
    pub(crate) host: bool,
}

thread_local! {
    /// The launches of this thread that tools have seen begin and not end (nested launches stack).
    static KERNELS: std::cell::RefCell<Vec<KernelState>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// Runs the launch `run` of `pattern` on `space` named `label` (`fallback`, the functor's type name,
/// when the label is empty, as Kokkos does) as tools see it: the tool's `kokkosp_begin_parallel_*`
/// and `kokkosp_end_parallel_*` around it (each after the global fence the tool asked for), and a
/// host kernel's span in the trace. Without tools this is one branch.
///
/// Called where the launch only borrows the kernel: wrapping a launch that takes the kernel by value
/// made rustc copy large captures once more (0.2 µs for 24 kB).
#[inline(always)]
pub(crate) fn profiled<R>(
    pattern: Pattern,
    site: impl FnOnce() -> Site,
    label: &str,
    fallback: &'static str,
    run: impl FnOnce() -> R,
) -> R {
    if !super::active() {
        return run();
    }
    let name = if label.is_empty() { fallback } else { label };
    let ended = begin_active(pattern, site(), name);
    let result = run();
    if ended {
        end_kernel();
    }
    result
}

#[cold]
#[inline(never)]
fn begin_active(pattern: Pattern, site: Site, name: &str) -> bool {
    let Site {
        space,
        device_id,
        instance,
        host,
    } = site;
    let Some(tools) = current() else {
        return false;
    };
    let kernel_id = tools.library().map(|library| {
        tools.tool_fence(library.has_kernel_callback(pattern, false));
        library.begin_kernel(pattern, name, device_id)
    });
    let start = tools.trace().filter(|_| host).map(|t| t.now());
    KERNELS.with_borrow_mut(|k| {
        k.push(KernelState {
            pattern,
            kernel_id,
            start,
            name: name.to_string(),
            space,
            device_id,
            instance,
        })
    });
    true
}

/// Ends the launch that the last `begin_active` of this thread started: the host kernel's span in
/// the trace, then the tool's `kokkosp_end_parallel_*` (after the global fence it asked for). Not
/// called when the launch panicked (as Kokkos skips it on an exception); the entry then stays
/// below later ones until the thread ends.
#[cold]
#[inline(never)]
fn end_kernel() {
    let Some(state) = KERNELS.with_borrow_mut(Vec::pop) else {
        return;
    };
    let Some(tools) = current() else { return };
    if let (Some(trace), Some(start)) = (tools.trace(), state.start) {
        let end = trace.now();
        let lane = trace.instance_lane(state.device_id, || {
            format!("{} instance {}", state.space, state.instance)
        });
        trace.span(
            lane,
            "kernel",
            &state.name,
            start,
            end,
            &[
                ("pattern", Arg::Str(state.pattern.name())),
                ("space", Arg::Str(state.space)),
                ("device_id", Arg::U64(u64::from(state.device_id))),
            ],
        );
    }
    if let (Some(library), Some(id)) = (tools.library(), state.kernel_id) {
        tools.tool_fence(library.has_kernel_callback(state.pattern, true));
        library.end_kernel(state.pattern, id);
    }
}

/// A fence, seen by tools: `kokkosp_begin_fence` when it starts and `kokkosp_end_fence` when this
/// guard drops; a span on the calling thread's lane of the trace, after which device spans that have
/// completed are written.
#[must_use]
pub(crate) struct FenceScope(Option<Box<FenceState>>);

struct FenceState {
    tools: Arc<Tools>,
    id: u64,
    start: f64,
    name: String,
    device_id: u32,
}

impl FenceScope {
    /// Starts a fence named `label` of the instance (or, with instance 0, the whole backend) with
    /// Kokkos Tools device ID `device_id`.
    #[inline]
    pub(crate) fn begin(label: &str, device_id: u32) -> FenceScope {
        if !super::active() {
            return FenceScope(None);
        }
        FenceScope::begin_active(label, device_id)
    }

    #[cold]
    #[inline(never)]
    fn begin_active(label: &str, device_id: u32) -> FenceScope {
        let Some(tools) = current() else {
            return FenceScope(None);
        };
        let id = tools
            .library()
            .map_or(0, |library| library.begin_fence(label, device_id));
        let start = tools.trace().map_or(0.0, |t| t.now());
        FenceScope(Some(Box::new(FenceState {
            tools,
            id,
            start,
            name: label.to_string(),
            device_id,
        })))
    }
}

impl Drop for FenceScope {
    fn drop(&mut self) {
        let Some(state) = self.0.take() else { return };
        if let Some(trace) = state.tools.trace() {
            trace.thread_span(
                "fence",
                &state.name,
                state.start,
                &[("device_id", Arg::U64(u64::from(state.device_id)))],
            );
            trace.resolve();
        }
        if let Some(library) = state.tools.library() {
            library.end_fence(state.id);
        }
    }
}

/// An allocation (`allocated`) or its release, seen by tools: `kokkosp_allocate_data` or
/// `kokkosp_deallocate_data` with the space's tool name, and the memory counter of the trace.
#[inline]
pub(crate) fn data(
    allocated: bool,
    space: &'static str,
    label: &str,
    ptr: *const u8,
    bytes: usize,
) {
    if super::active() {
        data_active(allocated, space, label, ptr, bytes);
    }
}

#[cold]
#[inline(never)]
fn data_active(allocated: bool, space: &'static str, label: &str, ptr: *const u8, bytes: usize) {
    let Some(tools) = current() else { return };
    if let Some(library) = tools.library() {
        library.data(allocated, space, label, ptr, bytes as u64);
    }
    if let Some(trace) = tools.trace() {
        trace.memory(space, bytes as u64, allocated);
    }
}

/// A DualView's sync (`sync`, to the side `device` says) or modification, seen by tools:
/// `kokkosp_dual_view_sync` or `kokkosp_dual_view_modify` with its label and data pointer.
pub(crate) fn dual_view(sync: bool, label: &str, ptr: *const u8, device: bool) {
    if super::active()
        && let Some(tools) = current()
        && let Some(library) = tools.library()
    {
        library.dual_view(sync, label, ptr, device);
    }
}

/// A `deep_copy`, seen by tools: `kokkosp_begin_deep_copy` when it starts and
/// `kokkosp_end_deep_copy` when this guard drops; a span on the calling thread's lane.
#[must_use]
pub(crate) struct DeepCopyScope(Option<Box<CopyState>>);

struct CopyState {
    tools: Arc<Tools>,
    start: f64,
    name: String,
    bytes: u64,
    dst_space: &'static str,
    src_space: &'static str,
}

impl DeepCopyScope {
    /// Starts a copy of `bytes` bytes from `src` to `dst`.
    #[inline]
    pub(crate) fn begin(dst: CopySide<'_>, src: CopySide<'_>, bytes: usize) -> DeepCopyScope {
        if !super::active() {
            return DeepCopyScope(None);
        }
        DeepCopyScope::begin_active(dst, src, bytes)
    }

    #[cold]
    #[inline(never)]
    fn begin_active(dst: CopySide<'_>, src: CopySide<'_>, bytes: usize) -> DeepCopyScope {
        let Some(tools) = current() else {
            return DeepCopyScope(None);
        };
        if let Some(library) = tools.library() {
            library.begin_deep_copy(&dst, &src, bytes as u64);
        }
        let start = tools.trace().map_or(0.0, |t| t.now());
        DeepCopyScope(Some(Box::new(CopyState {
            tools,
            start,
            name: format!("deep_copy \"{}\" -> \"{}\"", src.label, dst.label),
            bytes: bytes as u64,
            dst_space: dst.space,
            src_space: src.space,
        })))
    }
}

impl Drop for DeepCopyScope {
    fn drop(&mut self) {
        let Some(state) = self.0.take() else { return };
        if let Some(trace) = state.tools.trace() {
            trace.thread_span(
                "copy",
                &state.name,
                state.start,
                &[
                    ("bytes", Arg::U64(state.bytes)),
                    ("dst_space", Arg::Str(state.dst_space)),
                    ("src_space", Arg::Str(state.src_space)),
                ],
            );
        }
        if let Some(library) = state.tools.library() {
            library.end_deep_copy();
        }
    }
}

/// The trace clock now, when a trace is written: the start of host work that [`host_span`] records.
/// Called by the Cuda backend around its compilations.
#[cfg(feature = "cuda")]
#[inline]
pub(crate) fn trace_start() -> Option<f64> {
    if !super::active() {
        return None;
    }
    current()?.trace().map(|t| t.now())
}

/// Records host work that began at `start` (from [`trace_start`]) and ends now, as a span of
/// category `cat` on the calling thread's lane (e.g. a kernel's compilation, `jit`): the Cuda
/// backend's compilations.
#[cfg(feature = "cuda")]
pub(crate) fn host_span(cat: &str, name: &str, start: Option<f64>) {
    if let Some(start) = start
        && let Some(tools) = current()
        && let Some(trace) = tools.trace()
    {
        trace.thread_span(cat, name, start, &[]);
    }
}
