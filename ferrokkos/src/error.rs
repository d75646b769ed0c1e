//! The one error type of ferrokkos.
//!
//! Every fallible operation returns [`Result<T>`]. Each variant carries the facts a user needs to act on
//! the failure: the View's label, the memory space, sizes, shapes and bounds.

use std::fmt;

/// `Result<T, ferrokkos::Error>`.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// How a View's allocation is borrowed by host code (see [`crate::View::host`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BorrowKind {
    /// Read-only access, shared with other readers.
    Shared,
    /// Read-write access, excluding every other access.
    Exclusive,
}

impl fmt::Display for BorrowKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            BorrowKind::Shared => "shared (read)",
            BorrowKind::Exclusive => "exclusive (write)",
        })
    }
}

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

    /// A kernel on the GPU indexed a View (or a captured array) out of bounds. Those accesses reached
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
        /// What was indexed: a View, a captured array, or a View's dimensions (`x.extent(r)`).
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

/// A failure of a backend's own machinery ([`Error::Backend`]): a driver call, the run-time compiler,
/// or loading one of the libraries the backend needs. The CUDA backend's are here; another backend
/// adds its own variants.
#[derive(Debug, thiserror::Error)]
#[non_exhaustive]
pub enum BackendError {
    /// A GPU library that ferrokkos loads at run time (CUDA's or HIP's) could not be loaded (or
    /// lacks a function).
    #[error("the GPU library {library} could not be loaded: {hint}")]
    LibraryMissing {
        /// The library, e.g. `libnvrtc` or `libamdhip64`.
        library: &'static str,
        /// What was searched for and how to install it.
        hint: String,
    },

    /// NVRTC failed to compile a generated CUDA C++ program (or to hand back its CUBIN).
    #[error(
        "NVRTC could not compile program \"{program}\" for sm_{arch}: {call} returned {code}; \
         compile log:\n{log_text}",
        log_text = if log.trim().is_empty() { "(empty)" } else { log.trim_end() }
    )]
    Nvrtc {
        /// The program's name, the file name of the log's messages (`fk_kernel_l3_0a1b.cu`).
        program: String,
        /// The target architecture: 90 for `sm_90`.
        arch: u32,
        /// The NVRTC function that failed, e.g. `nvrtcCompileProgram`.
        call: &'static str,
        /// The NVRTC error name, e.g. `NVRTC_ERROR_COMPILATION`.
        code: String,
        /// NVRTC's log for the program (empty when the failure came before compiling).
        log: String,
    },

    /// hiprtc (HIP's run-time compiler) failed to compile a generated HIP C++ program (or to hand
    /// back its code object).
    #[error(
        "hiprtc could not compile program \"{program}\" for {target}: {call} returned {code}; \
         compile log:\n{log_text}",
        log_text = if log.trim().is_empty() { "(empty)" } else { log.trim_end() }
    )]
    Hiprtc {
        /// The program's name, the file name of the log's messages (`fk_kernel_l3_0a1b.hip`).
        program: String,
        /// The target: an AMD GPU architecture such as `gfx90a`.
        target: String,
        /// The hiprtc function that failed, e.g. `hiprtcCompileProgram`.
        call: &'static str,
        /// hiprtc's error name, e.g. `HIPRTC_ERROR_COMPILATION`.
        code: &'static str,
        /// hiprtc's log for the program (empty when the failure came before compiling).
        log: String,
    },

    /// An NCCL call failed (a collective or a message between GPUs). `name` is NCCL's result
    /// code (`ncclInvalidUsage`), `message` its text; `what` says what ferrokkos was doing.
    #[error("{what}: {call} failed with {name} ({message})")]
    Nccl {
        /// The NCCL function that failed, e.g. `ncclAllReduce`.
        call: &'static str,
        /// NCCL's result code, e.g. `ncclInvalidArgument`.
        name: String,
        /// NCCL's description of the code.
        message: String,
        /// What was being done: `all_reduce of View "pw" on Cuda`.
        what: String,
    },

    /// A HIP runtime call failed. `name` is the runtime's own error name (`hipErrorOutOfMemory`);
    /// `what` says what ferrokkos was doing; `hint`, for errors with a known fix, what to check.
    #[error(
        "{what}: {call} failed with {name} (error {code}){}",
        if hint.is_empty() { String::new() } else { format!(": {hint}") }
    )]
    Hip {
        /// The runtime function that failed, e.g. `hipMalloc`.
        call: &'static str,
        /// The runtime's error name, e.g. `hipErrorNoDevice`.
        name: String,
        /// The numeric `hipError_t`.
        code: i32,
        /// What was being done: `allocating View "x" in HipSpace`.
        what: String,
        /// What to check for this error (empty when there is no known fix).
        hint: &'static str,
    },

    /// A CUDA driver call failed. `name` is the driver's own error name
    /// (`CUDA_ERROR_ILLEGAL_ADDRESS`); `what` says what ferrokkos was doing (the kernel or View label
    /// and the space).
    #[error("{what}: {call} failed with {name} (error {code})")]
    Cuda {
        /// The driver function that failed, e.g. `cuLaunchKernel`.
        call: &'static str,
        /// The driver's error name, e.g. `CUDA_ERROR_OUT_OF_MEMORY`.
        name: String,
        /// The numeric `CUresult`.
        code: i32,
        /// What was being done: `parallel_for "axpy" on Cuda`, `allocating View "x" in CudaSpace`.
        what: String,
    },
}

/// What a kernel on the GPU indexed out of bounds ([`Error::DeviceOutOfBounds`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
#[non_exhaustive]
pub enum DeviceTarget {
    /// A View's elements.
    View,
    /// A captured array.
    CapturedArray,
    /// A View's dimensions (`x.extent(r)` with `r` at least the rank).
    Dimension,
    /// The threads of a team: `team.team_broadcast(v, source)` with `source` at least the team
    /// size (the extent); every thread got the value's zero.
    TeamRank,
}

impl fmt::Display for DeviceTarget {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DeviceTarget::View => "a View",
            DeviceTarget::CapturedArray => "a captured array",
            DeviceTarget::Dimension => "the dimensions of a View (extent)",
            DeviceTarget::TeamRank => "the threads of a team (the source of team_broadcast)",
        })
    }
}

/// The tail of [`Error::DeviceArithmetic`]'s message for `count` divisions.
fn more_divisions(count: u64) -> String {
    match count {
        0 | 1 => String::new(),
        n => format!(" ({n} times)"),
    }
}

/// The tail of [`Error::DeviceOutOfBounds`]'s message for `count` accesses.
fn more_accesses(count: u64) -> String {
    match count {
        0 | 1 => String::new(),
        2 => " (and 1 more out-of-bounds access)".to_string(),
        n => format!(" (and {} more out-of-bounds accesses)", n - 1),
    }
}

/// A byte count as a short human-readable string (`1.0 PiB`).
pub(crate) fn human_bytes(bytes: u128) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn human_bytes_uses_binary_units() {
        assert_eq!(human_bytes(0), "0 B");
        assert_eq!(human_bytes(1023), "1023 B");
        assert_eq!(human_bytes(1024), "1.0 KiB");
        assert_eq!(human_bytes(1 << 50), "1.0 PiB");
        assert_eq!(human_bytes(3 << 29), "1.5 GiB");
    }

    #[test]
    fn allocation_error_names_label_bytes_and_space() {
        let e = Error::Allocation {
            label: "big".into(),
            bytes: 1 << 50,
            space: "HostSpace",
        };
        assert_eq!(
            e.to_string(),
            "failed to allocate 1125899906842624 bytes (1.0 PiB) for View \"big\" in HostSpace"
        );
    }

    #[test]
    fn library_missing_error_names_library_and_hint() {
        let e = Error::Backend(BackendError::LibraryMissing {
            library: "libnvrtc",
            hint: "searched for [\"libnvrtc.so\"]".into(),
        });
        assert_eq!(
            e.to_string(),
            "the GPU library libnvrtc could not be loaded: searched for [\"libnvrtc.so\"]"
        );
    }

    #[test]
    fn nvrtc_error_names_program_arch_call_code_and_log() {
        let e = Error::Backend(BackendError::Nvrtc {
            program: "k.cu".into(),
            arch: 90,
            call: "nvrtcCompileProgram",
            code: "NVRTC_ERROR_COMPILATION".into(),
            log: "k.cu(3): error: expected a \";\"\n\n".into(),
        });
        assert_eq!(
            e.to_string(),
            "NVRTC could not compile program \"k.cu\" for sm_90: nvrtcCompileProgram returned \
             NVRTC_ERROR_COMPILATION; compile log:\nk.cu(3): error: expected a \";\""
        );
        let empty = Error::Backend(BackendError::Nvrtc {
            program: "k.cu".into(),
            arch: 80,
            call: "nvrtcCreateProgram",
            code: "NVRTC_ERROR_OUT_OF_MEMORY".into(),
            log: String::new(),
        });
        assert!(empty.to_string().ends_with("compile log:\n(empty)"));
    }

    #[test]
    fn an_io_failure_is_the_source_of_the_trace_error() {
        let e = Error::Trace {
            path: "/nope/t.json".into(),
            source: std::io::Error::new(std::io::ErrorKind::NotFound, "no such directory"),
        };
        assert_eq!(
            e.to_string(),
            "the trace file \"/nope/t.json\" could not be written: no such directory"
        );
        let source = std::error::Error::source(&e).expect("the I/O error");
        assert_eq!(source.to_string(), "no such directory");
    }

    #[test]
    fn backend_errors_read_as_their_own_message_and_convert_into_error() {
        let e: Error = BackendError::Cuda {
            call: "cuLaunchKernel",
            name: "CUDA_ERROR_INVALID_VALUE".into(),
            code: 1,
            what: "parallel_for \"x\" on Cuda".into(),
        }
        .into();
        assert_eq!(
            e.to_string(),
            "parallel_for \"x\" on Cuda: cuLaunchKernel failed with CUDA_ERROR_INVALID_VALUE (error 1)"
        );
        assert!(matches!(
            e,
            Error::Backend(BackendError::Cuda { code: 1, .. })
        ));
    }
}
