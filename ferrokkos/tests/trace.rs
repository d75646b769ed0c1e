//! The Chrome trace written with `FERROKKOS_TRACE`: it parses, its lanes and events match what ran,
//! durations are positive and spans nest properly on every lane.

mod common;

use common::child::{is_child, run_child};
use ferrokkos::prelude::*;
use ferrokkos::profiling::{self, ProfilingSection, ScopedRegion};
use ferrokkos::{Serial, Threads, kernel};
use serde_json::Value;

/// The work the traced child does (on Serial and Threads only).
fn host_work() {
    let rt = ferrokkos::initialize(InitSettings::from_env().unwrap().num_threads(2)).unwrap();
    let threads = Threads::default_instance().unwrap();
    let serial = Serial::default_instance().unwrap();
    let n = 200_000usize;
    let x = View::<f64, 1>::new("x", [n]).unwrap();
    let y = View::<f64, 1>::new("y", [n]).unwrap();
    {
        let _outer = ScopedRegion::new("outer");
        let policy = RangePolicy::new(&threads, 0, n).unwrap();
        parallel_for("fill", policy, kernel!(|i| x[i] = i as f64)).unwrap();
        let _inner = ScopedRegion::new("inner");
        let policy = RangePolicy::new(&serial, 0, n).unwrap();
        let sum: f64 = parallel_reduce(
            "sum",
            policy,
            kernel!(|i, s: &mut f64| *s += x[i]),
            Sum::new(),
        )
        .unwrap();
        assert_eq!(sum, (n * (n - 1) / 2) as f64);
    }
    let policy = RangePolicy::new(&threads, 0, 1000usize).unwrap();
    let total: u64 = parallel_scan(
        "scan",
        policy,
        kernel!(|i, partial: &mut u64, _last: bool| *partial += i as u64),
    )
    .unwrap();
    assert_eq!(total, 499_500);
    deep_copy(&y, &x).unwrap();
    threads.fence("explicit").unwrap();
    profiling::mark_event("checkpoint");
    let section = ProfilingSection::new("solve");
    for _ in 0..2 {
        section.start();
        parallel_for("step", 1000, kernel!(|i| y[i] = 1.0)).unwrap();
        section.stop();
    }
    drop(section);
    drop((x, y));
    rt.finalize().unwrap();
}

/// A span of the trace.
#[derive(Debug, Clone)]
struct Span {
    name: String,
    cat: String,
    tid: u64,
    ts: f64,
    dur: f64,
    args: Value,
}

fn spans(trace: &Value) -> Vec<Span> {
    events(trace)
        .iter()
        .filter(|e| e["ph"] == "X")
        .map(|e| Span {
            name: e["name"].as_str().unwrap().to_string(),
            cat: e["cat"].as_str().unwrap().to_string(),
            tid: e["tid"].as_u64().unwrap(),
            ts: e["ts"].as_f64().unwrap(),
            dur: e["dur"].as_f64().unwrap(),
            args: e["args"].clone(),
        })
        .collect()
}

fn events(trace: &Value) -> &Vec<Value> {
    trace["traceEvents"].as_array().expect("traceEvents")
}

/// The lane named `name` (its tid), if any.
fn lane(trace: &Value, name: &str) -> Option<u64> {
    events(trace)
        .iter()
        .find(|e| e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == name)
        .map(|e| e["tid"].as_u64().unwrap())
}

fn find<'a>(spans: &'a [Span], name: &str) -> &'a Span {
    spans
        .iter()
        .find(|s| s.name == name)
        .unwrap_or_else(|| panic!("no span {name:?} in {spans:#?}"))
}

fn contains(outer: &Span, inner: &Span) -> bool {
    outer.ts <= inner.ts && inner.ts + inner.dur <= outer.ts + outer.dur + 1e-3
}

/// Every two spans of one lane are disjoint or nested.
fn assert_nested(spans: &[Span]) {
    for a in spans {
        for b in spans.iter().filter(|b| b.tid == a.tid) {
            let disjoint = a.ts + a.dur <= b.ts + 1e-3 || b.ts + b.dur <= a.ts + 1e-3;
            assert!(
                disjoint || contains(a, b) || contains(b, a),
                "spans overlap without nesting on lane {}: {a:?} and {b:?}",
                a.tid
            );
        }
    }
}

#[test]
fn host_trace_has_lanes_kernels_regions_copies_fences_and_counters() {
    if is_child() {
        host_work();
        return;
    }
    let dir = std::env::temp_dir().join(format!("ferrokkos-trace-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("host.json");
    run_child(
        "host_trace_has_lanes_kernels_regions_copies_fences_and_counters",
        &[("FERROKKOS_TRACE", path.to_str().unwrap())],
    );
    let text = std::fs::read_to_string(&path).unwrap();
    let trace: Value = serde_json::from_str(&text).expect("the trace is valid JSON");
    let spans = spans(&trace);
    assert!(spans.iter().all(|s| s.dur >= 0.0), "{spans:#?}");
    assert_nested(&spans);

    let threads_lane = lane(&trace, "Threads instance 1").expect("a Threads lane");
    let serial_lane = lane(&trace, "Serial instance 1").expect("a Serial lane");
    let fill = find(&spans, "fill");
    assert_eq!((fill.cat.as_str(), fill.tid), ("kernel", threads_lane));
    assert_eq!(fill.args["pattern"], "parallel_for");
    assert_eq!(fill.args["device_id"], 0x0600_0001);
    assert!(fill.dur > 0.0);
    let sum = find(&spans, "sum");
    assert_eq!(
        (sum.tid, sum.args["pattern"].as_str()),
        (serial_lane, Some("parallel_reduce"))
    );
    assert_eq!(sum.args["device_id"], 1);
    assert_eq!(find(&spans, "scan").args["pattern"], "parallel_scan");
    assert_eq!(spans.iter().filter(|s| s.name == "step").count(), 2);

    // Regions nest on the thread's lane and contain their kernels in time.
    let outer = find(&spans, "outer");
    let inner = find(&spans, "inner");
    assert_eq!(
        (outer.cat.as_str(), inner.cat.as_str()),
        ("region", "region")
    );
    assert_eq!(outer.tid, inner.tid);
    assert!(contains(outer, inner) && contains(outer, fill) && contains(inner, sum));
    let thread_lane = outer.tid;
    assert_ne!(thread_lane, threads_lane);

    let init = find(&spans, "ferrokkos::initialize");
    assert_eq!(
        (init.cat.as_str(), init.tid, init.ts),
        ("runtime", thread_lane, 0.0)
    );
    assert!(init.ts + init.dur <= outer.ts);

    let copy = find(&spans, "deep_copy \"x\" -> \"y\"");
    assert_eq!((copy.cat.as_str(), copy.tid), ("copy", thread_lane));
    assert_eq!(copy.args["bytes"], 200_000 * 8);
    assert_eq!(copy.args["src_space"], "Host");
    let fence = find(&spans, "explicit");
    assert_eq!((fence.cat.as_str(), fence.tid), ("fence", thread_lane));
    assert_eq!(fence.args["device_id"], 0x0600_0001);

    let solve_lane = lane(&trace, "section solve").expect("a lane for the section");
    let runs: Vec<_> = spans.iter().filter(|s| s.tid == solve_lane).collect();
    assert_eq!(runs.len(), 2);
    assert!(runs.iter().all(|s| s.cat == "section" && s.name == "solve"));

    let all = events(&trace);
    assert!(
        all.iter()
            .any(|e| e["ph"] == "i" && e["name"] == "checkpoint" && e["tid"] == thread_lane)
    );
    let host_memory: Vec<u64> = all
        .iter()
        .filter(|e| e["ph"] == "C" && e["name"] == "memory Host")
        .map(|e| e["args"]["bytes"].as_u64().unwrap())
        .collect();
    assert!(host_memory.contains(&(2 * 200_000 * 8)), "{host_memory:?}");
    assert_eq!(host_memory.last(), Some(&0), "{host_memory:?}");
    assert!(
        all.iter()
            .any(|e| e["name"] == "metadata" && e["args"]["ferrokkos version"].is_string())
    );
    assert_eq!(trace["otherData"]["unfinished_device_spans"], 0);
    std::fs::remove_dir_all(&dir).unwrap();
}

#[test]
fn an_unwritable_trace_path_fails_initialize_and_names_the_path() {
    if !is_child() {
        run_child(
            "an_unwritable_trace_path_fails_initialize_and_names_the_path",
            &[("FERROKKOS_TRACE", "/nonexistent-dir/trace.json")],
        );
        return;
    }
    let e = ferrokkos::initialize(InitSettings::from_env().unwrap()).unwrap_err();
    assert!(
        e.to_string()
            .starts_with("the trace file \"/nonexistent-dir/trace.json\" could not be written"),
        "{e}"
    );
    // Nothing started: initializing again without the trace works.
    let rt = ferrokkos::initialize(InitSettings::from_env().unwrap().without_tools()).unwrap();
    rt.finalize().unwrap();
}
