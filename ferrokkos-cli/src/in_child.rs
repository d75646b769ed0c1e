//! For unit tests that need ferrokkos' runtime: it can be initialized once per process, and other
//! tests of this binary initialize it their own way, so such a test runs its body in a child
//! process of the test binary that runs that test alone.

use std::process::Command;

/// The variable that tells a child which test it runs.
const CHILD: &str = "FERROKKOS_CLI_TEST_CHILD";

/// The name libtest gives test `function` of module `module` (`module_path!()`, whose first
/// segment, the crate's name, libtest leaves out).
pub fn test_name(module: &str, function: &str) -> String {
    let path = module.split_once("::").map_or("", |(_, rest)| rest);
    format!("{path}::{function}")
}

/// Runs `body` with an initialized runtime (Threads of 2 threads) in a child process that runs the
/// test `name` alone (see [`test_name`]); in the parent, passes when the child's test passed.
pub fn with_runtime(name: &str, body: impl FnOnce()) {
    if std::env::var(CHILD).as_deref() == Ok(name) {
        let runtime = ferrokkos::initialize(ferrokkos::InitSettings::new().num_threads(2))
            .expect("the child initializes ferrokkos");
        body();
        runtime.finalize().expect("the child finalizes ferrokkos");
        return;
    }
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = Command::new(exe)
        .args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, name)
        .output()
        .expect("the child test runs");
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(out.status.success(), "{name} failed in its child:\n{text}");
    assert!(
        text.contains("1 passed"),
        "{name}: the child ran no test:\n{text}"
    );
}
