//! End to end: what every user meets first, the version, the help of `info`, and output piped
//! into a program that stops reading.

mod common;

use std::process::{Command, Stdio};

use common::{BIN, ferrokkos, text};

/// SIGPIPE's number on Linux.
const SIGPIPE: i32 = 13;

#[test]
fn version_prints_the_package_version_under_each_spelling() {
    for spelling in ["--version", "-V", "version"] {
        let out = ferrokkos(&[spelling]);
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{spelling}: {stderr}");
        assert_eq!(
            stdout.trim(),
            format!("ferrokkos {}", env!("CARGO_PKG_VERSION")),
            "{spelling}"
        );
    }
}

#[test]
fn info_help_describes_the_command_and_succeeds() {
    for (spelling, about) in [
        (
            "--help",
            "Prints the version, the execution spaces with their concurrency",
        ),
        (
            "-h",
            "version, execution spaces, thread count, CUDA device and memory spaces",
        ),
    ] {
        let out = ferrokkos(&["info", spelling]);
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{spelling}: {stderr}");
        assert!(stdout.starts_with(about), "{spelling}: {stdout}");
        assert!(
            stdout.contains("\n\nUsage: ferrokkos info [OPTIONS]\n"),
            "{spelling}: {stdout}"
        );
    }
    common::usage_errors(
        "info",
        &[
            (&["--bogus"], "unexpected argument '--bogus' found"),
            (&["extra"], "unexpected argument 'extra' found"),
        ],
    );
}

#[test]
fn help_and_no_command_print_the_top_level_help() {
    let help = |args: &[&str]| {
        let out = ferrokkos(args);
        let (stdout, stderr) = text(&out);
        assert!(out.status.success(), "{args:?}: {stderr}");
        assert!(stderr.is_empty(), "{args:?}: {stderr}");
        stdout
    };
    let top = help(&["help"]);
    assert!(
        top.contains("\nUsage: ferrokkos [OPTIONS] [COMMAND]\n"),
        "{top}"
    );
    for command in [
        "info", "stream", "spmv", "stencil", "latency", "timeline", "version", "help",
    ] {
        assert!(top.contains(&format!("\n  {command} ")), "{command}: {top}");
    }
    for spelling in [&["--help"][..], &["-h"], &[]] {
        assert_eq!(help(spelling), top, "{spelling:?}");
    }
    // A command's help through `help`.
    let stream = help(&["help", "stream"]);
    assert!(
        stream.contains("Usage: ferrokkos stream [OPTIONS]"),
        "{stream}"
    );
}

#[test]
fn an_unknown_command_is_a_usage_error_with_the_top_level_usage() {
    let out = ferrokkos(&["strem"]);
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(
        stderr.starts_with("error: unrecognized subcommand 'strem'"),
        "{stderr}"
    );
    assert!(
        stderr.contains("tip: a similar subcommand exists: 'stream'"),
        "{stderr}"
    );
    assert!(
        stderr.contains("Usage: ferrokkos [OPTIONS] [COMMAND]"),
        "{stderr}"
    );
}

#[test]
fn a_bad_runtime_option_is_a_usage_error_before_clap() {
    let out = Command::new(BIN)
        .args(["info", "--kokkos-num-threads=many"])
        .output()
        .unwrap();
    let (_, stderr) = text(&out);
    assert_eq!(out.status.code(), Some(2), "{stderr}");
    assert!(stderr.starts_with("ferrokkos: "), "{stderr}");
    assert!(stderr.contains("many"), "{stderr}");
}

#[test]
fn a_closed_pipe_ends_the_program_without_a_panic() {
    use std::os::unix::process::ExitStatusExt;
    // The reading end is closed before the program starts: its first write meets a closed pipe.
    for args in [&["info"][..], &["help"][..]] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let out = Command::new(BIN)
            .args(args)
            .arg("--kokkos-num-threads=2")
            .env("FERROKKOS_DISABLE_CUDA", "1")
            .stdout(Stdio::from(writer))
            .stderr(Stdio::piped())
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!stderr.contains("panicked"), "{args:?}: {stderr}");
        assert!(
            out.status.success() || out.status.signal() == Some(SIGPIPE),
            "{args:?}: {:?} {stderr}",
            out.status
        );
    }
}

#[test]
fn info_says_in_one_line_why_cuda_is_missing_and_how_to_fix_it() {
    let out = ferrokkos(&["info"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("Cuda"))
        .unwrap_or_else(|| panic!("no Cuda line: {stdout}"));
    if line.contains("not available") && line.contains("libcuda") {
        // A machine without the driver (this one and CI): the reason and the fix, briefly.
        assert!(line.contains("libcuda.so.1 was not found"), "{line}");
        assert!(line.contains("install the NVIDIA driver"), "{line}");
        assert!(line.len() < 300, "{} chars: {line}", line.len());
    }
}

#[test]
fn info_says_what_the_build_does_for_amd_gpus() {
    let out = ferrokkos(&["info"]);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    let line = stdout
        .lines()
        .find(|l| l.trim_start().starts_with("HIP: compile only"))
        .unwrap_or_else(|| panic!("no HIP line: {stdout}"));
    if std::env::var("FERROKKOS_REQUIRE_HIPRTC").is_ok_and(|v| v.trim() == "1") {
        assert!(
            line.contains("(hiprtc ") && line.contains("gfx90a"),
            "{line}"
        );
    } else {
        assert!(line.contains("hiprtc"), "{line}");
    }
}

#[test]
fn more_threads_than_the_machine_has_warns_on_stderr_unless_disabled() {
    let hardware = std::thread::available_parallelism().map_or(1, |n| n.get());
    let threads = format!("--kokkos-num-threads={}", hardware + 1);
    let run = |extra: &[&str]| {
        let out = Command::new(BIN)
            .args(["info", &threads])
            .args(extra)
            .env("FERROKKOS_DISABLE_CUDA", "1")
            .env_remove("KOKKOS_DISABLE_WARNINGS")
            .output()
            .unwrap();
        let (_, stderr) = text(&out);
        assert!(out.status.success(), "{stderr}");
        stderr
    };
    let warned = run(&[]);
    assert!(
        warned.contains(&format!("warning: {} threads", hardware + 1)),
        "{warned}"
    );
    assert!(!run(&["--kokkos-disable-warnings"]).contains("warning"));
}

#[test]
fn help_lists_every_runtime_option_and_variable() {
    let out = ferrokkos(&["help"]);
    let (stdout, _) = text(&out);
    assert!(out.status.success());
    for name in [
        "--kokkos-num-threads",
        "--ferrokkos-pin-threads",
        "--kokkos-device-id",
        "--kokkos-map-device-id-by",
        "--kokkos-tools-libs",
        "--kokkos-tools-args",
        "--ferrokkos-trace",
        "--kokkos-disable-warnings",
        "--ferrokkos-tools-optional",
        "FERROKKOS_TOOLS_OPTIONAL",
        "FERROKKOS_NUM_THREADS",
        "KOKKOS_NUM_THREADS",
        "FERROKKOS_PIN_THREADS",
        "FERROKKOS_DEVICE",
        "KOKKOS_DEVICE_ID",
        "KOKKOS_TOOLS_LIBS",
        "KOKKOS_TOOLS_ARGS",
        "FERROKKOS_TRACE",
        "KOKKOS_DISABLE_WARNINGS",
        "FERROKKOS_DISABLE_CUDA",
        "FERROKKOS_CACHE_DIR",
        "FERROKKOS_STREAMING_STORES",
        "FERROKKOS_WIDE_VECTORS",
        "FERROKKOS_CUDA_BLOCK",
        "FERROKKOS_CUDA_MAX_WAVES",
    ] {
        assert!(stdout.contains(name), "{name} missing from:\n{stdout}");
    }
}

/// `script` runs a command on a pseudo-terminal (util-linux); `None` where it is missing.
fn on_a_terminal(command: &str) -> Option<String> {
    let out = Command::new("script")
        .args(["-qec", command, "/dev/null"])
        .env("FERROKKOS_DISABLE_CUDA", "1")
        .output()
        .ok()?;
    assert!(out.status.success(), "{command}: {:?}", out.status);
    Some(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn progress_is_drawn_on_a_terminal_only_and_never_with_quiet() {
    let args = ["stream", "-s", "20000", "-n", "12", "--space", "serial"];
    // Captured (a pipe): no progress on either stream.
    let out = ferrokkos(&args);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(!stderr.contains("repetitions") && !stdout.contains("stream: repetitions"));
    assert!(
        ferrokkos(&[&args[..], &["--quiet"]].concat())
            .status
            .success()
    );
    let command = format!("{BIN} {} --kokkos-num-threads=2", args.join(" "));
    let Some(shown) = on_a_terminal(&command) else {
        eprintln!("skipped the terminal half: no `script` here");
        return;
    };
    assert!(shown.contains("stream: repetitions ["), "{shown}");
    assert!(shown.contains("/12"), "{shown}");
    let quiet = on_a_terminal(&format!("{command} -q")).unwrap_or_default();
    assert!(!quiet.contains("repetitions ["), "{quiet}");
    assert!(
        quiet.contains("Validation: passed") || quiet.contains("Copy"),
        "{quiet}"
    );
}

#[test]
fn timeline_says_what_it_reads_on_a_terminal_only() {
    let dir = std::env::temp_dir().join(format!("ferrokkos-spinner-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("small.json");
    let events: Vec<String> = (0..2000)
        .map(|k| format!(r#"{{"ph":"X","name":"k","cat":"kernel","tid":0,"ts":{k},"dur":0.5}}"#))
        .collect();
    std::fs::write(
        &trace,
        format!("{{\"traceEvents\":[{}]}}", events.join(",\n")),
    )
    .unwrap();
    let args = ["timeline", trace.to_str().unwrap()];
    let out = ferrokkos(&args);
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    assert!(stdout.contains("timeline: wrote"), "{stdout}");
    assert!(!stderr.contains("timeline: reading"), "{stderr}");
    let command = format!("{BIN} {}", args.join(" "));
    if let Some(shown) = on_a_terminal(&command) {
        assert!(shown.contains("timeline: reading"), "{shown}");
        assert!(shown.contains("timeline: wrote"), "{shown}");
        let quiet = on_a_terminal(&format!("{command} --quiet")).unwrap_or_default();
        assert!(!quiet.contains("timeline: reading"), "{quiet}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn completions_cover_every_command_and_bash_reads_them() {
    let out = ferrokkos(&["completions", "bash"]);
    let (script, stderr) = text(&out);
    assert!(out.status.success(), "{stderr}");
    for word in [
        "info",
        "stream",
        "spmv",
        "stencil",
        "latency",
        "timeline",
        "--space",
        "--compare",
        "--quiet",
    ] {
        assert!(script.contains(word), "{word} missing from the bash script");
    }
    assert!(script.contains("complete -F _ferrokkos"), "{script}");
    // bash parses it (`-n`: read, do not run).
    let path =
        std::env::temp_dir().join(format!("ferrokkos-completion-{}.bash", std::process::id()));
    std::fs::write(&path, &script).unwrap();
    let checked = Command::new("bash").arg("-n").arg(&path).output().unwrap();
    std::fs::remove_file(&path).unwrap();
    assert!(
        checked.status.success(),
        "{}",
        String::from_utf8_lossy(&checked.stderr)
    );
    for shell in ["zsh", "fish", "elvish", "powershell"] {
        let out = ferrokkos(&["completions", shell]);
        assert!(out.status.success(), "{shell}");
        assert!(text(&out).0.contains("timeline"), "{shell}");
    }
    let bad = ferrokkos(&["completions", "tcsh"]);
    assert_eq!(bad.status.code(), Some(2));
    assert!(
        text(&bad)
            .1
            .contains("possible values: bash, elvish, fish, powershell, zsh")
    );
}
