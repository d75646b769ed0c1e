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

/// Runs `ferrokkos COMMAND BAD` for each `(BAD, SAYS)` of `bad` and checks that it is a usage
/// error: exit status 2, and standard error with clap's message naming the offending argument or
/// value (it contains `SAYS`), then the usage of `command` itself (not the top-level one), and
/// nothing on standard output.
pub fn usage_errors(command: &str, bad: &[(&[&str], &str)]) {
    for (bad, says) in bad {
        let out = ferrokkos(&[&[command][..], bad].concat());
        let (stdout, stderr) = text(&out);
        assert_eq!(out.status.code(), Some(2), "{bad:?}: {stderr}");
        assert!(stderr.starts_with("error: "), "{bad:?}: {stderr}");
        assert!(stderr.contains(says), "{bad:?}: no {says:?} in {stderr}");
        let usage = stderr
            .lines()
            .find(|l| l.starts_with("Usage: "))
            .unwrap_or_else(|| panic!("{bad:?}: no usage in {stderr}"));
        let ours = format!("Usage: ferrokkos {command}");
        assert!(
            usage == ours || usage.starts_with(&format!("{ours} ")),
            "{bad:?}: {usage:?} is not {command}'s usage"
        );
        assert!(stdout.is_empty(), "{bad:?}: {stdout}");
        assert!(!stderr.contains("panicked"), "{bad:?}: {stderr}");
    }
}

/// The last column (a ratio) of `name`'s row in the table printed under `section:` (`scatter`'s
/// workloads, `map`'s phases); NaN when there is no such row.
pub fn ratio(stdout: &str, section: &str, name: &str) -> f64 {
    let table = stdout
        .split(&format!("\n{section}:\n"))
        .nth(1)
        .unwrap_or_default();
    let row = table
        .lines()
        .find(|l| l.trim_start().starts_with(name))
        .unwrap_or_default();
    row.split_whitespace()
        .last()
        .unwrap_or("nan")
        .parse()
        .unwrap_or(f64::NAN)
}
