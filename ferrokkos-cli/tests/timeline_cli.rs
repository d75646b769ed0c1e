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
