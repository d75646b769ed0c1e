//! The messages of the errors: each names the facts its variant carries.

use super::format::human_bytes;
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
fn offset_out_of_bounds_names_the_index_and_the_ranges() {
    let e = Error::OffsetOutOfBounds {
        label: "u".into(),
        index: vec![-2, 3],
        begins: vec![-1, 0],
        ends: vec![11, 5],
    };
    assert_eq!(
        e.to_string(),
        "index [-2, 3] is out of bounds for OffsetView \"u\" with index ranges [-1..11, 0..5]"
    );
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

#[test]
fn kernel_abort_names_the_wait_the_kernel_and_the_message() {
    let e = Error::KernelAbort {
        what: "fence \"after\"".into(),
        kernel: "parallel_for \"solve\" (src/main.rs:12)".into(),
        message: "a singular row".into(),
        count: 3,
    };
    assert_eq!(
        e.to_string(),
        "fence \"after\": parallel_for \"solve\" (src/main.rs:12) panicked on the GPU: a singular \
         row (3 faults in all)"
    );
}
