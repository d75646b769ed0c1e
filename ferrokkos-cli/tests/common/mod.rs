//! What the end-to-end tests of the benchmarks share: running the `ferrokkos` binary on two
//! threads, without tools or tracing, and reading its output. Each test binary uses only some of
//! these helpers.
#![allow(dead_code)]

use std::process::{Command, Output};

/// The binary under test.
pub const BIN: &str = env!("CARGO_BIN_EXE_ferrokkos");

/// Runs `ferrokkos ARGS` on two threads, with no Kokkos Tools library and no trace.
pub fn ferrokkos(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .arg("--kokkos-num-threads=2")
        .env_remove("KOKKOS_TOOLS_LIBS")
        .env_remove("FERROKKOS_TRACE")
        .output()
        .unwrap()
}

/// Standard output and error as text.
pub fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Runs `ferrokkos ARGS` with the GPU disabled and checks that it fails cleanly: exit status 1,
/// the reason on standard error, no panic.
pub fn fails_without_cuda(args: &[&str]) {
    let out = Command::new(BIN)
        .args(args)
        .env("FERROKKOS_DISABLE_CUDA", "1")
        .output()
        .unwrap();
    let (stdout, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(1), "{stdout}\n{stderr}");
    assert!(stderr.contains("Cuda is not available"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Runs `ferrokkos COMMAND BAD` for each of `bad` and checks that it is a usage error (exit
/// status 2) that names the command.
pub fn usage_errors(command: &str, bad: &[&[&str]]) {
    for bad in bad {
        let out = ferrokkos(&[&[command][..], bad].concat());
        let (_, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {stderr}");
        let prefix = format!("ferrokkos: {command}: ");
        assert!(stderr.starts_with(&prefix), "{bad:?}: {stderr}");
    }
}
