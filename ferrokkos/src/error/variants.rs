//! [`Error`]: everything that can go wrong in ferrokkos, one variant per failure with its facts.

use super::backend::BackendError;
use super::facts::{BorrowKind, DeviceTarget};
use super::format::{human_bytes, index_ranges, more_accesses, more_divisions, more_panics};

/// Everything that can go wrong in ferrokkos.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum Error {
    /// [`crate::initialize`] was called while ferrokkos was already initialized.
    #[error("ferrokkos is already initialized: initialize may be called once per process")]
    AlreadyInitialized,

    /// [`crate::initialize`] was called after [`crate::Runtime::finalize`] (Kokkos forbids this too).
    #[error("ferrokkos cannot be initialized again after it was finalized")]
    InitializeAfterFinalize,

    /// An operation needs the runtime but [`crate::initialize`] has not been called yet.
    #[error("{what} requires ferrokkos to be initialized: call ferrokkos::initialize first")]
    NotInitialized {
        /// What was attempted, e.g. `allocating View "x" in HostSpace`.
        what: String,
    },

    /// An operation needs the runtime but it has already been finalized.
    #[error("{what} is not possible: ferrokkos has been finalized")]
    Finalized {
        /// What was attempted.
        what: String,
    },

    /// A setting from the environment, the command line or [`crate::InitSettings`] is invalid.
    #[error("invalid setting {name}={value:?}: {reason}")]
    Setting {
        /// The variable or option, e.g. `FERROKKOS_NUM_THREADS` or `--kokkos-num-threads`.
        name: String,
        /// The value as given.
        value: String,
        /// What is expected instead.
        reason: String,
    },

    /// The memory space could not provide the requested bytes (Kokkos: `TestViewBadAlloc`).
    #[error(
        "failed to allocate {bytes} bytes ({human}) for View \"{label}\" in {space}",
        human = human_bytes(*bytes)
    )]
    Allocation {
        /// The View's label.
        label: String,
        /// The number of bytes requested.
        bytes: u128,
        /// The memory space's name, e.g. `HostSpace`.
        space: &'static str,
    },

    /// The extents (or strides) of a View describe more elements than the address space holds.
    #[error("View \"{label}\" with extents {extents:?} is too large: its size overflows usize")]
    SizeOverflow {
        /// The View's label.
        label: String,
        /// The requested extents.
        extents: Vec<usize>,
    },

    /// Host access to a View conflicts with an access that is already in progress.
    #[error(
        "View \"{label}\" cannot be borrowed {requested} on the host: it is already borrowed {held}"
    )]
    Borrow {
        /// The View's label.
        label: String,
        /// The access that was asked for.
        requested: BorrowKind,
        /// The access that is in progress.
        held: BorrowKind,
    },

    /// The View wraps borrowed memory whose scope has ended.
    #[error(
        "View \"{label}\" wraps borrowed memory whose scope has ended; it can no longer be used"
    )]
    Expired {
        /// The View's label.
        label: String,
    },

    /// An index is outside the extents of a View.
    #[error("index {index:?} is out of bounds for View \"{label}\" with extents {extents:?}")]
    OutOfBounds {
        /// The View's label.
        label: String,
        /// The offending multi-index.
        index: Vec<usize>,
        /// The View's extents.
        extents: Vec<usize>,
    },

    /// An index is outside the index ranges of an OffsetView.
    #[error(
        "index {index:?} is out of bounds for OffsetView \"{label}\" with index ranges {}",
        index_ranges(begins, ends)
    )]
    OffsetOutOfBounds {
        /// The OffsetView's label.
        label: String,
        /// The offending multi-index.
        index: Vec<i128>,
        /// The first index of each dimension.
        begins: Vec<i64>,
        /// One past the last index of each dimension.
        ends: Vec<i64>,
    },

    /// A kernel on the GPU indexed a View (or an array) out of bounds. Those accesses reached
    /// no memory (writes were dropped, reads gave zero), so the results of that work are wrong, but
    /// nothing else was touched and the device stays usable. Reported when the host next waits for
    /// the device (a fence, a reduction's result, a guard waiting for device work).
    #[error(
        "{what}: {kernel} indexed {target} out of bounds on the GPU: index {index:?} with extents \
         {extents:?}{more}; those accesses reached no memory (writes were dropped, reads gave \
         zero), so the results of that work are wrong",
        more = more_accesses(*count)
    )]
    DeviceOutOfBounds {
        /// The wait that found the fault (`fence "x" on Cuda instance 1`).
        what: String,
        /// The kernel (`the kernel at src/main.rs:12:5`).
        kernel: String,
        /// What was indexed: a View, an array, or a View's dimensions (`x.extent(r)`).
        target: DeviceTarget,
        /// The index of the first access recorded.
        index: Box<[u64]>,
        /// The extents it was checked against (the array's length for an array).
        extents: Box<[u64]>,
        /// How many accesses were out of bounds.
        count: u64,
    },

    /// A kernel on the GPU divided an integer by zero, or the smallest signed value by -1, where Rust
    /// panics. The division gave 0 and the kernel went on, so the results of that work are wrong;
    /// the device stays usable. Reported as [`Error::DeviceOutOfBounds`] is.
    #[error(
        "{what}: {kernel} divided an integer by zero (or MIN by -1), or converted an integer \
         with `try_into().unwrap()` to a type that cannot hold it, on the GPU{more}; where Rust \
         panics the device gave 0, so the results of that work are wrong",
        more = more_divisions(*count)
    )]
    DeviceArithmetic {
        /// The wait that found the fault.
        what: String,
        /// The kernel.
        kernel: String,
        /// How many operations failed.
        count: u64,
    },

    /// A kernel on the GPU called `panic!("message")` (Kokkos' `abort`). The thread recorded the
    /// message (the first fault of the device since the last wait wins) and ended its iteration
    /// instead of trapping, so the device stays usable; the results of that work are incomplete.
    /// On the host spaces the same `panic!` unwinds out of the launch as Rust's panics do.
    #[error(
        "{what}: {kernel} panicked on the GPU: {message}{more}",
        more = more_panics(*count)
    )]
    KernelAbort {
        /// The wait that found the fault.
        what: String,
        /// The kernel.
        kernel: String,
        /// The message of the first panic (at most 127 bytes of it).
        message: String,
        /// How many faults (panics and others) the device recorded since the last wait.
        count: u64,
    },

    /// A side of a [`crate::DualView`] was asked for while it is stale (the other side was modified
    /// since the last sync), or marked modified while the other side has unsynced changes.
    #[error(
        "{wanted} of DualView \"{label}\": the {modified} side was modified since the last sync, \
         so the {stale} side is stale; call sync_{stale}() first"
    )]
    DualViewStale {
        /// The DualView's label.
        label: String,
        /// What was asked (`reading the host side`, `modifying the device side`).
        wanted: String,
        /// The side that is out of date: `host` or `device`.
        stale: &'static str,
        /// The side with the changes: `device` or `host`.
        modified: &'static str,
    },

    /// A kernel writes a View whose allocation another View captured by the same kernel shares, which
    /// could race; a kernel that needs this must say so with `unsafe { }`.
    #[error(
        "{launch}: the kernel writes View \"{label}\" through `{written}`, and `{other}` shares its \
         allocation; a kernel may write an allocation only through one captured View (or mark the \
         access `unsafe`)"
    )]
    KernelAlias {
        /// The launch (`parallel_for "label" on Threads`).
        launch: String,
        /// The capture that writes.
        written: String,
        /// The other capture of the same allocation.
        other: String,
        /// The label of the allocation.
        label: String,
    },

    /// Two nodes of a graph that no chain of dependencies orders use one allocation, and one of
    /// them writes it: they could run at once and race.
    #[error(
        "graph on {space}: nodes \"{first}\" and \"{second}\" both use View \"{label}\" and \
         \"{}\" writes it, but no dependency orders them; make one come after the other \
         (`then_*` on it, or `when_all`)", if *first_writes { first } else { second }
    )]
    GraphRace {
        /// The graph's space.
        space: &'static str,
        /// The node added first.
        first: String,
        /// The node added later.
        second: String,
        /// Whether the first node writes the View (else the second does).
        first_writes: bool,
        /// The label of the allocation.
        label: String,
    },

    /// A kernel reads or writes a View it writes at two index maps that the launch could not prove
    /// apart over its iterations (see `kernel!`'s race rules: disjoint access is checked at launch).
    #[error(
        "{launch}: the kernel writes View `{view}` and also reaches it at `{first}` and `{second}`: \
         {reason}; make the ranges apart, use an atomic, or mark the accesses `unsafe`"
    )]
    KernelOverlap {
        /// The launch (`parallel_for "label" on Threads`).
        launch: String,
        /// The View as the kernel names it.
        view: &'static str,
        /// One access as written (`y[i + n]`).
        first: &'static str,
        /// The other access as written.
        second: &'static str,
        /// Why the launch refused it.
        reason: &'static str,
    },

    /// A kernel writes a rank-0 View (`s[()] = v`), one element for every iteration, in a launch
    /// of more than one iteration.
    #[error(
        "{launch}: the kernel writes rank-0 View `{view}` (`{access}`), one element for every \
         iteration, but this launch has {iterations} iterations; write it from a policy of one \
         iteration, as a `parallel_reduce`'s target, or with an atomic (`{view}.atomic_add((), v)`)"
    )]
    KernelSharedWrite {
        /// The launch (`parallel_for "label" on Threads`).
        launch: String,
        /// The View as the kernel names it.
        view: &'static str,
        /// The write as written (`s[()]`).
        access: &'static str,
        /// The launch's number of iterations (saturated at `u128::MAX`).
        iterations: u128,
    },

    /// Two Views that must have equal extents do not.
    #[error(
        "{operation}: extents differ: destination \"{dst_label}\" has {dst_extents:?}, \
         source \"{src_label}\" has {src_extents:?}"
    )]
    ExtentMismatch {
        /// The operation, e.g. `deep_copy`.
        operation: &'static str,
        /// The destination View's label.
        dst_label: String,
        /// The destination View's extents.
        dst_extents: Vec<usize>,
        /// The source View's label.
        src_label: String,
        /// The source View's extents.
        src_extents: Vec<usize>,
    },

    /// A subview argument selects indices outside the parent View.
    #[error(
        "subview of View \"{label}\": argument {arg} ({given}) is out of bounds for dimension {arg} \
         of extent {extent} (parent extents {extents:?})"
    )]
    SubviewBounds {
        /// The parent View's label.
        label: String,
        /// The position of the offending argument (= the parent dimension).
        arg: usize,
        /// The argument as given, e.g. `3..9` or `7`.
        given: String,
        /// The parent's extent in that dimension.
        extent: usize,
        /// All parent extents.
        extents: Vec<usize>,
    },

    /// A View cannot be built or changed as asked (bad strides, a too-short slice, resizing an
    /// unmanaged View, ...).
    #[error("View \"{label}\": {reason}")]
    InvalidView {
        /// The View's label.
        label: String,
        /// What is wrong.
        reason: String,
    },

    /// An argument of an operation is invalid.
    #[error("{operation}: {reason}")]
    InvalidArgument {
        /// The operation, e.g. `partition_space`.
        operation: &'static str,
        /// What is wrong.
        reason: String,
    },

    /// An execution policy was given bounds, tile sizes or a chunk size it cannot use.
    #[error("invalid {policy}: {reason}")]
    Policy {
        /// The policy, e.g. `RangePolicy` or `MDRangePolicy<3>`.
        policy: String,
        /// What is wrong, e.g. `lower bound (100) is greater than the upper bound (90)`.
        reason: String,
    },

    /// The Threads pool could not start (thread creation or pinning failed).
    #[error("Threads pool: {reason}")]
    ThreadPool {
        /// What failed.
        reason: String,
    },

    /// One or more finalize hooks panicked; finalize still ran every hook and shut the backends down.
    #[error("finalize: {count} finalize hook(s) panicked; first: {first}")]
    FinalizeHook {
        /// How many hooks panicked.
        count: usize,
        /// The first panic's message.
        first: String,
    },

    /// The Kokkos Tools library named by `KOKKOS_TOOLS_LIBS` / `--kokkos-tools-libs` could not be
    /// loaded: the file is missing, is not a shared library for this machine, or exports no
    /// `kokkosp_*` function. Initialize fails; initializing again without the tool
    /// ([`crate::InitSettings::without_tools`]) goes on without it.
    #[error("the Kokkos Tools library {path:?} could not be loaded: {reason}")]
    ToolLibrary {
        /// The path as given.
        path: String,
        /// Why (the dynamic loader's message).
        reason: String,
    },

    /// The trace file named by `FERROKKOS_TRACE` could not be created or written.
    #[error("the trace file {path:?} could not be written: {source}")]
    Trace {
        /// The path as given.
        path: String,
        /// The I/O error (also [`std::error::Error::source`]).
        #[source]
        source: std::io::Error,
    },

    /// A backend failed: its driver, its run-time compiler, or one of the libraries it loads.
    #[error(transparent)]
    Backend(#[from] BackendError),

    /// An execution or memory space is not usable in this process (no GPU, no driver, or a device
    /// number that does not exist).
    #[error("{space} is not available: {reason}")]
    Unavailable {
        /// The space, e.g. `Cuda`.
        space: &'static str,
        /// Why not.
        reason: String,
    },

    /// A kernel cannot run on the execution space it was launched on.
    #[error("{what}: {reason}")]
    Unsupported {
        /// The launch or operation, e.g. `parallel_for "axpy" on Threads`.
        what: String,
        /// Why not, e.g. which View lives in memory the space cannot reach.
        reason: String,
    },

    /// An invariant of ferrokkos itself does not hold: a bug in ferrokkos, never in the caller's
    /// code. Please report it with the message.
    #[error("{what}: internal error in ferrokkos: {reason}")]
    Internal {
        /// The operation that found it.
        what: String,
        /// The broken invariant.
        reason: String,
    },
}
