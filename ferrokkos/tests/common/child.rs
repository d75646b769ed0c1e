//! Runs one test of the current test binary in a child process, with its own environment: each
//! scenario needs its own `initialize` (once per process) with its own tool or trace settings, or
//! must not share its process with the other tests of the binary (process-wide counts, a device's
//! fault record).
#![allow(dead_code)]

use std::io::Read;
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};

/// The variable that tells a test it runs as the child.
const CHILD: &str = "FERROKKOS_TEST_CHILD";

/// Whether this process is the child of [`run_child`].
pub fn is_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// Runs the test `name` of this binary alone in a new process with `env` added, and returns what it
/// printed. Panics (with the child's output) if the child fails.
pub fn run_child(name: &str, env: &[(&str, &str)]) -> Output {
    let out = command(name, env)
        .output()
        .expect("running the test binary as a child");
    check(name, out)
}

/// [`run_child`], but the child is killed, and the test fails, if it runs longer than `limit` (ten
/// times that under valgrind): a hang fails instead of stopping the test suite.
pub fn run_child_within(name: &str, env: &[(&str, &str)], limit: Duration) -> Output {
    let limit = if under_valgrind() { limit * 10 } else { limit };
    let mut child = command(name, env)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("running the test binary as a child");
    // Read both streams as they come, so that a child writing much never blocks.
    let drain = |mut r: Box<dyn Read + Send>| {
        std::thread::spawn(move || {
            let mut bytes = Vec::new();
            let _ = r.read_to_end(&mut bytes);
            bytes
        })
    };
    let stdout = drain(Box::new(child.stdout.take().unwrap()));
    let stderr = drain(Box::new(child.stderr.take().unwrap()));
    let start = Instant::now();
    let status = loop {
        if let Some(status) = child.try_wait().expect("waiting for the child") {
            break Some(status);
        }
        if start.elapsed() > limit {
            let _ = child.kill();
            let _ = child.wait();
            break None;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    let (stdout, stderr) = (stdout.join().unwrap(), stderr.join().unwrap());
    let Some(status) = status else {
        panic!(
            "child {name} hung: killed after {limit:?}\n--- stdout\n{}\n--- stderr\n{}",
            String::from_utf8_lossy(&stdout),
            String::from_utf8_lossy(&stderr)
        );
    };
    check(
        name,
        Output {
            status,
            stdout,
            stderr,
        },
    )
}

/// Whether this process runs under valgrind (which preloads its own libraries into the program).
pub fn under_valgrind() -> bool {
    std::env::var("LD_PRELOAD").is_ok_and(|p| p.contains("vgpreload"))
}

/// The command that runs the test `name` alone, as a child, with `env` added.
fn command(name: &str, env: &[(&str, &str)]) -> Command {
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
    cmd
}

/// Panics (with its output) unless the child `name` succeeded after running one test; returns its
/// output.
fn check(name: &str, out: Output) -> Output {
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
