//! End to end: `ferrokkos stream` with `FERROKKOS_TRACE` writes a trace, and `ferrokkos timeline`
//! draws it as a PNG of the documented size.

use std::path::Path;
use std::process::Command;

const BIN: &str = env!("CARGO_BIN_EXE_ferrokkos");

/// Width and height from a PNG's IHDR chunk.
fn png_size(path: &Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(
        &bytes[..8],
        b"\x89PNG\r\n\x1a\n",
        "{} is a PNG",
        path.display()
    );
    assert_eq!(&bytes[12..16], b"IHDR");
    let word = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (word(16), word(20))
}

#[test]
fn a_traced_stream_run_is_drawn_with_one_row_per_lane() {
    let dir = std::env::temp_dir().join(format!("ferrokkos-timeline-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("stream.json");
    let run = Command::new(BIN)
        .args(["stream", "-s", "20000", "-n", "3", "--space", "threads"])
        .arg("--kokkos-num-threads=2")
        .env("FERROKKOS_TRACE", &trace)
        .env_remove("KOKKOS_TOOLS_LIBS")
        .output()
        .unwrap();
    assert!(
        run.status.success(),
        "{}",
        String::from_utf8_lossy(&run.stderr)
    );

    let json: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let events = json["traceEvents"].as_array().unwrap();
    let lanes: Vec<&str> = events
        .iter()
        .filter(|e| e["ph"] == "M" && e["name"] == "thread_name")
        .map(|e| e["args"]["name"].as_str().unwrap())
        .collect();
    assert_eq!(lanes.len(), 2, "{lanes:?}");
    assert!(lanes[0].starts_with("thread "), "{lanes:?}");
    assert_eq!(lanes[1], "Threads instance 1");
    // Init, then 3 repetitions of the five Classic kernels.
    let kernels = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == "kernel")
        .count();
    assert_eq!(kernels, 1 + 3 * 5);

    let png = dir.join("stream.png");
    let draw = Command::new(BIN)
        .args([
            "timeline",
            trace.to_str().unwrap(),
            "-o",
            png.to_str().unwrap(),
        ])
        .args(["--width", "1200"])
        .output()
        .unwrap();
    assert!(
        draw.status.success(),
        "{}",
        String::from_utf8_lossy(&draw.stderr)
    );
    let said = String::from_utf8_lossy(&draw.stdout);
    assert!(said.starts_with("timeline: wrote "), "{said}");
    // 108 pixels of header, axis and footer, 64 per lane, 150 for the memory counters.
    assert_eq!(png_size(&png), (1200, 108 + 64 * 2 + 150));
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn a_missing_trace_is_a_run_error_naming_the_file() {
    let out = Command::new(BIN)
        .args(["timeline", "/nonexistent/trace.json"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/trace.json"), "{err}");
}

#[test]
fn a_cut_trace_is_drawn_with_a_warning_and_an_empty_window_is_named() {
    let dir = std::env::temp_dir().join(format!("ferrokkos-cut-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let trace = dir.join("cut.json");
    let png = dir.join("cut.png");
    let run = Command::new(BIN)
        .args(["stream", "-s", "20000", "-n", "3", "--space", "threads"])
        .arg("--kokkos-num-threads=2")
        .env("FERROKKOS_TRACE", &trace)
        .env_remove("KOKKOS_TOOLS_LIBS")
        .output()
        .unwrap();
    assert!(run.status.success());
    // What a crash leaves: the file cut in the middle of an event, its list never closed.
    let full = std::fs::read(&trace).unwrap();
    std::fs::write(&trace, &full[..full.len() * 2 / 3]).unwrap();
    let draw = |extra: &[&str]| {
        let out = Command::new(BIN)
            .arg("timeline")
            .arg(&trace)
            .arg("-o")
            .arg(&png)
            .args(extra)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
        assert!(out.status.success(), "{stderr}");
        stderr
    };
    let stderr = draw(&[]);
    assert!(stderr.contains("ends early, at line "), "{stderr}");
    assert!(stderr.contains("complete events before"), "{stderr}");
    assert!(png_size(&png).0 > 0);
    let far = draw(&["--from", "1e12", "--to", "2e12"]);
    assert!(
        far.contains("the window from 1000000000000 to 2000000000000 us holds no span"),
        "{far}"
    );
    std::fs::remove_dir_all(&dir).unwrap();
}
