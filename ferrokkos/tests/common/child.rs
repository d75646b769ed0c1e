//! Runs one test of the current test binary in a child process, with its own environment: each
//! scenario needs its own `initialize` (once per process) with its own tool or trace settings, or
//! must not share its process with the other tests of the binary (process-wide counts, a device's
//! fault record).
#![allow(dead_code)]

use std::process::{Command, Output};

/// The variable that tells a test it runs as the child.
const CHILD: &str = "FERROKKOS_TEST_CHILD";

/// Whether this process is the child of [`run_child`].
pub fn is_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// Runs the test `name` of this binary alone in a new process with `env` added, and returns what it
/// printed. Panics (with the child's output) if the child fails.
pub fn run_child(name: &str, env: &[(&str, &str)]) -> Output {
    let exe = std::env::current_exe().expect("the test binary's path");
    let mut cmd = Command::new(exe);
    cmd.args([
        name,
        "--exact",
        "--nocapture",
        "--test-threads=1",
        "--include-ignored",
    ])
    .env(CHILD, "1");
    for var in [
        "KOKKOS_TOOLS_LIBS",
        "KOKKOS_PROFILE_LIBRARY",
        "KOKKOS_TOOLS_ARGS",
        "FERROKKOS_TRACE",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("running the test binary as a child");
    let text = format!(
        "child {name} exited with {}\n--- stdout\n{}\n--- stderr\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{text}");
    assert!(
        String::from_utf8_lossy(&out.stdout).contains("1 passed"),
        "the child ran no test: {text}"
    );
    out
}

/// The name the test harness gives the test `name` of the module `module` (a `module_path!()`):
/// the module's path without the crate's name, then the test's name.
pub fn test_path(module: &str, name: &str) -> String {
    match module.split_once("::") {
        Some((_, inner)) => format!("{inner}::{name}"),
        None => name.to_string(),
    }
}

/// For a test that must run alone in a process of its own. In the parent: runs the test `name` of
/// the module `module` (the test's `module_path!()`) alone in a child process, panicking with its
/// output if it fails, and returns `false` (the caller returns). In that child: returns `true` (the
/// caller runs its body).
pub fn in_own_process(module: &str, name: &str) -> bool {
    if is_child() {
        return true;
    }
    run_child(&test_path(module, name), &[]);
    false
}
