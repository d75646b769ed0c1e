//! [`BackendError`]: the failures of a backend's own machinery.

/// A failure of a backend's own machinery ([`Error::Backend`](super::Error::Backend)): a driver
/// call, the run-time compiler, or loading one of the libraries the backend needs. The CUDA
/// backend's are here; another backend adds its own variants.
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
