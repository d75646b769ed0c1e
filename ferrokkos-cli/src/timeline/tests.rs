//! Tests of the whole command: reading traces, its options, and the PNG files it writes.

use std::path::PathBuf;

use serde_json::{Value, json};

use super::category::Category;
use super::layout::image_size;
use super::{Config, Failure, Progress, Trace, load, main, parse};

/// The example trace of the command's specification.
const EXAMPLE: &str = r#"{"traceEvents":[
 {"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"ferrokkos: overlap"}},
 {"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"thread main"}},
 {"ph":"M","name":"thread_sort_index","pid":1,"tid":1,"args":{"sort_index":0}},
 {"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"Cuda instance 1 (stream)"}},
 {"ph":"M","name":"thread_sort_index","pid":1,"tid":2,"args":{"sort_index":1}},
 {"ph":"X","name":"axpy","cat":"kernel","ts":120.5,"dur":33.25,"pid":1,"tid":2,"args":{"pattern":"parallel_for","space":"Cuda","device_id":33554433}},
 {"ph":"X","name":"deep_copy x -> x_mirror","cat":"copy","ts":160.0,"dur":900.0,"pid":1,"tid":3,"args":{"bytes":8388608,"dst_space":"CudaHostPinned","src_space":"Cuda"}},
 {"ph":"X","name":"fill y","cat":"fill","ts":10.0,"dur":2.0,"pid":1,"tid":2,"args":{"bytes":800}},
 {"ph":"X","name":"step 3","cat":"region","ts":100.0,"dur":2000.0,"pid":1,"tid":1},
 {"ph":"X","name":"fence \"after copies\"","cat":"fence","ts":1200.0,"dur":50.0,"pid":1,"tid":1},
 {"ph":"i","s":"t","name":"checkpoint","cat":"event","ts":1500.0,"pid":1,"tid":1},
 {"ph":"C","name":"memory Cuda","cat":"allocation","ts":5.0,"pid":1,"args":{"bytes":16777216}}
],"displayTimeUnit":"ms","otherData":{"producer":"ferrokkos 0.1.0"}}"#;

/// A fresh directory for one test's files.
fn scratch(test: &str) -> PathBuf {
    let dir =
        std::env::temp_dir().join(format!("ferrokkos-timeline-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Writes `json` to `dir/name` and returns the path.
fn write(dir: &std::path::Path, name: &str, json: &str) -> PathBuf {
    let path = dir.join(name);
    std::fs::write(&path, json).unwrap();
    path
}

/// `ferrokkos timeline ARGS`, parsed as the program parses it (a clap error is a usage error).
fn parse_options(args: &[&str]) -> Result<super::Args, Failure> {
    let line = ["ferrokkos", "timeline"].iter().chain(args);
    match crate::cli::parse(line).map_err(Failure::Usage)?.command {
        Some(crate::cli::Command::Timeline(args)) => Ok(args),
        other => panic!("{args:?} parsed as {other:?}"),
    }
}

/// The options `args`, checked: a usage error's message if they are wrong.
fn checked(args: &[&str]) -> Result<Config, String> {
    match parse_options(args) {
        Ok(options) => Config::try_from(options)
            .map_err(|e| crate::cli::usage_error("timeline", e).to_string()),
        Err(Failure::Usage(e)) => Err(e.to_string()),
        Err(Failure::Run(e)) => panic!("{args:?}: {e}"),
    }
}

/// Runs the command with `args`.
fn run(args: &[&str]) -> Result<(), Failure> {
    main(parse_options(args)?)
}

/// The `(width, height)` in the IHDR of the PNG file at `path`, after checking its signature.
fn png_size(path: &std::path::Path) -> (u32, u32) {
    let bytes = std::fs::read(path).unwrap();
    assert_eq!(&bytes[..8], b"\x89PNG\r\n\x1a\n", "not a PNG");
    assert_eq!(&bytes[12..16], b"IHDR");
    let be = |at: usize| u32::from_be_bytes(bytes[at..at + 4].try_into().unwrap());
    (be(16), be(20))
}

#[test]
fn the_example_parses_into_ordered_lanes_with_depths_and_counters() {
    let trace =
        Trace::from_events(parse::parse_events(EXAMPLE.as_bytes()).unwrap().events).unwrap();
    assert_eq!(trace.process.as_deref(), Some("ferrokkos: overlap"));
    let names: Vec<&str> = trace.lanes.iter().map(|l| l.name.as_str()).collect();
    assert_eq!(names, ["thread main", "Cuda instance 1 (stream)", "lane 3"]);
    let main = &trace.lanes[0];
    let depths: Vec<(&str, usize)> = main
        .spans
        .iter()
        .map(|s| (s.name.as_str(), s.depth))
        .collect();
    assert_eq!(depths, [("step 3", 0), ("fence \"after copies\"", 1)]);
    assert_eq!(main.spans[1].category, Category::Fence);
    assert_eq!((main.instants.len(), main.instants[0].time), (1, 1500.0));
    let cuda = &trace.lanes[1];
    assert!(cuda.spans.iter().all(|s| s.depth == 0));
    assert_eq!((cuda.spans[0].start, cuda.spans[0].end), (120.5, 153.75));
    assert_eq!(trace.lanes[2].spans[0].category, Category::Copy);
    assert_eq!(trace.lanes.iter().map(|l| l.spans.len()).sum::<usize>(), 5);
    assert_eq!(
        trace.categories(),
        [
            Category::Kernel,
            Category::Copy,
            Category::Fill,
            Category::Fence,
            Category::Region
        ]
    );
    assert_eq!(trace.counters.len(), 1);
    let memory = &trace.counters[0];
    assert_eq!((memory.name.as_str(), memory.bytes), ("memory Cuda", true));
    assert_eq!(memory.points, [(5.0, 16_777_216.0)]);
    assert_eq!(trace.extent(), Some((5.0, 2100.0)));
}

#[test]
fn the_array_format_and_unknown_kinds_are_read() {
    let json = r#"[{"ph":"B","name":"b","ts":1,"tid":1},{"ph":"X","name":"k","cat":"odd","ts":2,"dur":1,"tid":7},
        {"ph":"C","name":"queue","ts":3,"args":{"a":1,"b":2.5,"c":"x"}}]"#;
    let trace = Trace::from_events(parse::parse_events(json.as_bytes()).unwrap().events).unwrap();
    assert_eq!(trace.lanes.len(), 1);
    assert_eq!(
        (
            trace.lanes[0].name.as_str(),
            trace.lanes[0].spans[0].category
        ),
        ("lane 7", Category::Other)
    );
    assert_eq!(
        (trace.counters[0].bytes, trace.counters[0].points[0]),
        (false, (3.0, 3.5))
    );
}

#[test]
fn bad_files_are_errors_naming_the_file_and_the_position() {
    let dir = scratch("bad");
    let path = write(
        &dir,
        "trace.json",
        "{\"traceEvents\":[\n {\"ph\":\"X\",\n  \"ts\":1,,\n]}",
    );
    let Err(Failure::Run(e)) = load(&path, &Progress::spinner("test")) else {
        panic!("no error")
    };
    let expected = format!("{}: line 3 column 10: ", path.display());
    assert!(e.starts_with(&expected), "{e}");

    let path = write(&dir, "span.json", r#"[{"ph":"X","name":"axpy","ts":1}]"#);
    let Err(Failure::Run(e)) = load(&path, &Progress::spinner("test")) else {
        panic!("no error")
    };
    assert!(
        e.contains("span.json: traceEvents[0] (\"axpy\"): a span"),
        "{e}"
    );

    let missing = dir.join("missing.json");
    let Err(Failure::Run(e)) = run(&[missing.to_str().unwrap()]) else {
        panic!("no error")
    };
    assert!(e.starts_with(&format!("{}: ", missing.display())), "{e}");
}

#[test]
fn options_have_defaults_and_bad_ones_are_usage_errors() {
    let config = checked(&["t/run.json"]).unwrap();
    assert_eq!(config.trace, PathBuf::from("t/run.json"));
    assert_eq!(config.output, PathBuf::from("t/run.png"));
    assert_eq!((config.width, config.from, config.to), (1600, None, None));
    let config = checked(&[
        "--from=-5",
        "a.json",
        "-o",
        "b.png",
        "--width",
        "800",
        "--to",
        "7.5",
    ])
    .unwrap();
    assert_eq!(config.output, PathBuf::from("b.png"));
    assert_eq!(
        (config.width, config.from, config.to),
        (800, Some(-5.0), Some(7.5))
    );
    let negative = checked(&["a.json", "--from", "-20", "--to", "-10"]).unwrap();
    assert_eq!((negative.from, negative.to), (Some(-20.0), Some(-10.0)));
    let Err(Failure::Usage(help)) = parse_options(&["a.json", "--help"]) else {
        panic!("--help is no help");
    };
    assert_eq!(help.kind(), clap::error::ErrorKind::DisplayHelp);
    assert!(
        help.to_string()
            .contains("Usage: ferrokkos timeline [OPTIONS] <TRACE.json>")
    );
    for (bad, says) in [
        (
            &["a.json", "--width", "100"][..],
            "invalid value '100' for '--width <W>': expected an integer from 470 to 32768",
        ),
        (
            &["a.json", "--width", "wide"],
            "expected an integer from 470 to 32768",
        ),
        (
            &["a.json", "--from", "5", "--to", "5"],
            "--from (5) must be less than --to (5)",
        ),
        (
            &["a.json", "--to", "inf"],
            "invalid value 'inf' for '--to <US>': expected a finite number of microseconds",
        ),
        (&["a.json", "b.json"], "unexpected argument 'b.json'"),
        (&["a.json", "--colour"], "unexpected argument '--colour'"),
        (
            &["a.json", "-o"],
            "a value is required for '--output <OUT.png>'",
        ),
        (
            &["a.png"],
            "the picture would overwrite the trace a.png; name one with -o",
        ),
        (&[], "the following required arguments were not provided"),
    ] {
        let e = checked(bad).unwrap_err();
        assert!(e.contains(says), "{bad:?}: {e}");
        assert!(e.contains("Usage: ferrokkos timeline"), "{bad:?}: {e}");
        let Err(Failure::Usage(e)) = run(bad) else {
            panic!("{bad:?} ran");
        };
        assert_eq!(e.exit_code(), 2, "{bad:?}");
    }
}

/// A span event.
fn span(tid: u64, cat: &str, name: &str, ts: f64, dur: f64) -> Value {
    json!({"ph": "X", "name": name, "cat": cat, "ts": ts, "dur": dur, "pid": 1, "tid": tid})
}

/// The metadata naming lane `tid` and giving its place.
fn lane(tid: u64, name: &str) -> [Value; 2] {
    [
        json!({"ph": "M", "name": "thread_name", "pid": 1, "tid": tid, "args": {"name": name}}),
        json!({"ph": "M", "name": "thread_sort_index", "pid": 1, "tid": tid, "args": {"sort_index": tid}}),
    ]
}

#[test]
fn a_three_lane_picture_has_the_formulas_size() {
    let dir = scratch("three");
    let mut events: Vec<Value> = (1..=3)
        .flat_map(|t| lane(t, &format!("lane number {t}")))
        .collect();
    for t in 1..=3u64 {
        events.push(span(t, "kernel", "work", 10.0 * t as f64, 50.0));
    }
    let trace = json!({ "traceEvents": events }).to_string();
    let path = write(&dir, "three.json", &trace);
    let out = dir.join("three.png");
    run(&[
        path.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--width",
        "900",
    ])
    .unwrap();
    assert_eq!(png_size(&out), image_size(900, 3, false));
    run(&[path.to_str().unwrap()]).unwrap();
    assert_eq!(png_size(&dir.join("three.png")), image_size(1600, 3, false));
}

#[test]
fn an_empty_trace_still_renders() {
    let dir = scratch("empty");
    for (name, json) in [
        ("object.json", r#"{"traceEvents":[]}"#),
        ("array.json", "[]"),
    ] {
        let path = write(&dir, name, json);
        run(&[path.to_str().unwrap()]).unwrap();
        assert_eq!(
            png_size(&path.with_extension("png")),
            image_size(1600, 0, false)
        );
    }
    let path = write(
        &dir,
        "counters.json",
        r#"[{"ph":"C","name":"n","ts":0,"args":{"v":1}}]"#,
    );
    run(&[path.to_str().unwrap(), "--from", "10", "--width", "470"]).unwrap();
    assert_eq!(
        png_size(&path.with_extension("png")),
        image_size(470, 0, true)
    );
}

/// Two Cuda instances each alternating a kernel and a device-to-host copy, half a step apart so
/// that one's copies overlap the other's kernels; the host thread's regions and fences; the
/// memory counters.
fn overlap_trace() -> String {
    let mut events = vec![
        json!({"ph": "M", "name": "process_name", "pid": 1, "tid": 0,
        "args": {"name": "ferrokkos: overlap_timeline"}}),
    ];
    events.extend(lane(1, "thread main"));
    events.extend(lane(2, "Cuda instance 1 (stream 0x5d2c)"));
    events.extend(lane(3, "Cuda instance 2 (stream 0x5e10)"));
    events.push(span(1, "region", "overlap loop", 20.0, 4420.0));
    let count = |ts: f64, space: &str, bytes: f64| json!({"ph": "C", "name": format!("memory {space}"), "cat": "allocation", "ts": ts, "pid": 1, "args": {"bytes": bytes}});
    events.push(count(2.0, "Cuda", 33_554_432.0));
    events.push(count(3.0, "CudaHostPinned", 16_777_216.0));
    for step in 0..4 {
        let t0 = 40.0 + 1000.0 * f64::from(step);
        events.push(span(1, "region", &format!("step {step}"), t0, 990.0));
        for (tid, offset) in [(2, 0.0), (3, 480.0)] {
            let instance = tid - 1;
            let k = t0 + offset;
            events.push(span(tid, "kernel", &format!("axpy x{instance}"), k, 430.0));
            events.push(span(
                tid,
                "copy",
                &format!("deep_copy x{instance} -> x{instance}_mirror"),
                k + 440.0,
                470.0,
            ));
        }
        events.push(span(1, "fence", "fence \"after copies\"", t0 + 900.0, 85.0));
        events.push(json!({"ph": "i", "s": "t", "name": "checkpoint", "cat": "event", "ts": t0 + 988.0, "pid": 1, "tid": 1}));
    }
    events.push(span(2, "fill", "fill y1", 25.0, 12.0));
    events.push(count(4450.0, "CudaHostPinned", 0.0));
    events.push(count(4460.0, "Cuda", 0.0));
    json!({"traceEvents": events, "displayTimeUnit": "ms"}).to_string()
}

#[test]
fn the_overlap_demo_renders() {
    // Left in the temporary directory to look at: timeline_demo.json and timeline_demo.png.
    let dir = std::env::temp_dir();
    let path = write(&dir, "timeline_demo.json", &overlap_trace());
    run(&[path.to_str().unwrap()]).unwrap();
    assert_eq!(
        png_size(&dir.join("timeline_demo.png")),
        image_size(1600, 3, true)
    );
}
