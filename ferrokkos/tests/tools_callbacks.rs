//! Kokkos Tools: a test tool written in C (`tests/tools/recorder.c`, built here with the system C
//! compiler) records every callback it receives; each scenario runs in its own process with the
//! tool loaded through `KOKKOS_TOOLS_LIBS`, and the test checks the sequence, names, device IDs,
//! space names, sizes and labels.

mod common;

use std::path::{Path, PathBuf};

use common::child::{is_child, run_child};
use common::tools::{Record, Variant, build_c_library, build_recorder, lines, read_records};
use ferrokkos::prelude::*;
use ferrokkos::profiling::{self, ProfilingSection, ScopedRegion};
use ferrokkos::{Serial, Threads, kernel};

/// Kokkos' label of the global fences a tool's `requires_global_fencing` adds.
const TOOL_FENCE: &str = "Kokkos::Tools::invoke_kokkosp_callback: Kokkos Profile Tool Fence";

/// A fresh output file for the recorder.
fn out_file(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrokkos-tools-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(format!("{name}.txt"))
}

/// Runs test `name` as a child with the recorder `variant` loaded, and returns what it recorded.
fn recorded(name: &str, variant: Variant, extra: &[(&str, &str)]) -> Vec<Record> {
    let lib = build_recorder(variant);
    let out = out_file(name);
    let mut env = vec![
        ("KOKKOS_TOOLS_LIBS", lib.to_str().unwrap()),
        ("FK_RECORDER_OUT", out.to_str().unwrap()),
    ];
    env.extend_from_slice(extra);
    run_child(name, &env);
    read_records(&out)
}

/// The fields of the only record of `callback` whose first field is `first`.
fn one<'a>(records: &'a [Record], callback: &str, first: &str) -> &'a [String] {
    let found: Vec<&Record> = records
        .iter()
        .filter(|r| r.callback == callback && r.fields.first().map(String::as_str) == Some(first))
        .collect();
    assert_eq!(found.len(), 1, "{callback} {first}:\n{}", lines(records));
    &found[0].fields
}

/// The position of the only record of `callback` whose first field is `first`.
fn position(records: &[Record], callback: &str, first: &str) -> usize {
    records
        .iter()
        .position(|r| r.callback == callback && r.fields.first().map(String::as_str) == Some(first))
        .unwrap_or_else(|| panic!("no {callback} {first}:\n{}", lines(records)))
}

/// The kernel `name`: its device ID, and whether its begin is followed by the end with its ID.
fn kernel_device(records: &[Record], pattern: &str, name: &str) -> u32 {
    let begin = position(records, &format!("begin_parallel_{pattern}"), name);
    let fields = &records[begin].fields;
    let id = &fields[2];
    let end = records
        .iter()
        .position(|r| r.callback == format!("end_parallel_{pattern}") && r.fields == [id.clone()])
        .unwrap_or_else(|| panic!("no end for {name}:\n{}", lines(records)));
    assert!(end > begin);
    fields[1].parse().unwrap()
}

/// The work of the host scenario.
fn host_work() {
    let rt = ferrokkos::initialize(InitSettings::from_env().unwrap().num_threads(2)).unwrap();
    let serial = Serial::default_instance().unwrap();
    let threads = Threads::default_instance().unwrap();
    let x = View::<f64, 1>::new("x", [1000]).unwrap();
    let y = View::<f64, 1>::new("y", [1000]).unwrap();
    {
        let _outer = ScopedRegion::new("outer");
        profiling::push_region("inner");
        let policy = RangePolicy::new(&serial, 0, 1000usize).unwrap();
        parallel_for("for on serial", policy, kernel!(|i| x[i] = 1.0)).unwrap();
        let policy = RangePolicy::new(&threads, 0, 1000usize).unwrap();
        let s: f64 = parallel_reduce(
            "reduce on threads",
            policy,
            kernel!(|i, s: &mut f64| *s += x[i]),
            Sum::new(),
        )
        .unwrap();
        assert_eq!(s, 1000.0);
        profiling::pop_region();
    }
    let policy = RangePolicy::new(&threads, 0, 100usize).unwrap();
    let total: u64 = parallel_scan(
        "scan on threads",
        policy,
        kernel!(|i, p: &mut u64, _last: bool| *p += i as u64),
    )
    .unwrap();
    assert_eq!(total, 4950);
    let policy = MDRangePolicy::new(&threads, [0, 0], [4i64, 4]).unwrap();
    parallel_for("md on threads", policy, |_: (i64, i64)| {}).unwrap();
    parallel_for("", 10, |_: usize| {}).unwrap();
    deep_copy(&y, &x).unwrap();
    deep_copy(&y, 2.0).unwrap();
    threads.fence("my fence").unwrap();
    ferrokkos::fence("global fence").unwrap();
    let parts = partition_space(&threads, 2).unwrap();
    let policy = RangePolicy::new(&parts[1], 0, 10usize).unwrap();
    parallel_for("on a partition", policy, |_: usize| {}).unwrap();
    let section = ProfilingSection::new("solve");
    section.start();
    section.stop();
    drop(section);
    profiling::mark_event("checkpoint");
    profiling::declare_metadata("problem", "host scenario");
    // A DualView in host memory: one View, each modification reported with its side.
    let mut dual = ferrokkos::DualView::<f64, 1>::new("dual", [4]).unwrap();
    dual.modify_host().unwrap();
    dual.modify_device().unwrap();
    drop((x, y, parts, dual));
    rt.finalize().unwrap();
}

#[test]
fn host_callbacks_follow_kokkos_order_names_ids_and_sizes() {
    if is_child() {
        host_work();
        return;
    }
    let r = recorded(
        "host_callbacks_follow_kokkos_order_names_ids_and_sizes",
        Variant::Full,
        &[
            ("FK_RECORDER_NO_GLOBAL_FENCE", "1"),
            ("KOKKOS_TOOLS_ARGS", "--alpha 1 \t beta"),
        ],
    );
    let all = lines(&r);
    // Start-up, in Kokkos' order.
    assert_eq!(r[0].callback, "init_library", "{all}");
    assert_eq!(r[0].fields, ["0", "20240906", "0", "null"], "{all}");
    assert_eq!(r[1].callback, "request_tool_settings");
    assert_eq!(
        r[1].fields,
        ["1", "1"],
        "global fencing is on unless the tool clears it"
    );
    assert_eq!(r[2].callback, "provide_tool_programming_interface");
    assert_eq!(r[2].fields, ["1", "nonnull"]);
    assert_eq!(r[3].callback, "parse_args");
    assert_eq!(r[3].fields.len(), 5, "{all}");
    assert_eq!(r[3].fields[0], "4");
    assert!(
        r[3].fields[1].contains("tools_callbacks"),
        "argv[0] is the program: {all}"
    );
    assert_eq!(r[3].fields[2..], ["--alpha", "1", "beta"]);
    assert_eq!(
        one(&r, "declare_metadata", "ferrokkos version")[1],
        env!("CARGO_PKG_VERSION")
    );
    assert_eq!(one(&r, "declare_metadata", "Threads concurrency")[1], "2");
    assert_eq!(one(&r, "declare_metadata", "problem")[1], "host scenario");
    assert_eq!(r.last().unwrap().callback, "finalize_library", "{all}");

    // Kernels: names, device IDs (type << 24 | device << 17 | instance), matching kernel IDs.
    assert_eq!(kernel_device(&r, "for", "for on serial"), 1);
    assert_eq!(
        kernel_device(&r, "reduce", "reduce on threads"),
        0x0600_0001
    );
    assert_eq!(kernel_device(&r, "scan", "scan on threads"), 0x0600_0001);
    assert_eq!(kernel_device(&r, "for", "md on threads"), 0x0600_0001);
    assert_eq!(kernel_device(&r, "for", "on a partition"), 0x0600_0003);
    let unnamed = r
        .iter()
        .find(|x| x.callback == "begin_parallel_for" && x.fields[0].contains("tools_callbacks"))
        .unwrap_or_else(|| panic!("an unlabelled kernel is named by its type:\n{all}"));
    assert_eq!(unnamed.fields[1], "100663297");

    // Regions nest around the kernels.
    let outer = position(&r, "push_profile_region", "outer");
    let inner = position(&r, "push_profile_region", "inner");
    let k = position(&r, "begin_parallel_for", "for on serial");
    let pops: Vec<usize> = (0..r.len())
        .filter(|&i| r[i].callback == "pop_profile_region")
        .collect();
    assert_eq!(pops.len(), 2, "{all}");
    assert!(outer < inner && inner < k && k < pops[0], "{all}");

    // Allocations: space "Host", label, size; each released with the same pointer.
    let allocs: Vec<&Record> = r.iter().filter(|x| x.callback == "allocate_data").collect();
    let x = allocs
        .iter()
        .find(|a| a.fields[1] == "x")
        .expect("x allocated");
    assert_eq!(
        (x.fields[0].as_str(), x.fields[3].as_str()),
        ("Host", "8000")
    );
    for a in &allocs {
        let freed = r
            .iter()
            .filter(|d| d.callback == "deallocate_data" && d.fields == a.fields)
            .count();
        assert_eq!(
            freed, 1,
            "{a:?} is released once with the same fields:\n{all}"
        );
    }
    // DualView modifications: the label, the side's data (one View on the host), the side.
    let dual: Vec<&Record> = r
        .iter()
        .filter(|x| x.callback == "dual_view_modify")
        .collect();
    assert_eq!(dual.len(), 2, "{all}");
    assert_eq!(
        (dual[0].fields[0].as_str(), dual[0].fields[2].as_str()),
        ("dual", "0")
    );
    assert_eq!(
        (dual[1].fields[0].as_str(), dual[1].fields[2].as_str()),
        ("dual", "1")
    );
    assert_eq!(dual[0].fields[1], dual[1].fields[1]);
    // deep_copy: destination first, then source, then bytes; a value fill names "Scalar".
    let copies: Vec<&Record> = r
        .iter()
        .filter(|x| x.callback == "begin_deep_copy")
        .collect();
    assert_eq!(copies.len(), 2, "{all}");
    let y = allocs
        .iter()
        .find(|a| a.fields[1] == "y")
        .expect("y allocated");
    assert_eq!(
        copies[0].fields,
        ["Host", "y", &y.fields[2], "Host", "x", &x.fields[2], "8000"]
    );
    assert_eq!(copies[1].fields[..3], ["Host", "y", &y.fields[2]]);
    assert_eq!(copies[1].fields[4], "Scalar");
    assert_eq!(copies[1].fields[6], "8000");
    assert_eq!(
        r.iter().filter(|x| x.callback == "end_deep_copy").count(),
        2
    );

    // Fences: an instance fence has the instance's ID; a global one reports each backend with
    // instance 0.
    assert_eq!(one(&r, "begin_fence", "my fence")[1], "100663297");
    let global: Vec<&str> = r
        .iter()
        .filter(|x| x.callback == "begin_fence" && x.fields[0] == "global fence")
        .map(|x| x.fields[1].as_str())
        .collect();
    assert!(global.starts_with(&["0", "100663296"]), "{all}");
    assert!(
        !r.iter()
            .any(|x| x.fields.first().map(String::as_str) == Some(TOOL_FENCE))
    );

    // Sections and events.
    let sid = &one(&r, "create_profile_section", "solve")[1];
    for action in [
        "start_profile_section",
        "stop_profile_section",
        "destroy_profile_section",
    ] {
        one(&r, action, sid);
    }
    one(&r, "profile_event", "checkpoint");
}

/// A kernel with the tool's global fencing on.
fn fenced_work() {
    let rt = ferrokkos::initialize(InitSettings::from_env().unwrap()).unwrap();
    let serial = Serial::default_instance().unwrap();
    let policy = RangePolicy::new(&serial, 0, 10usize).unwrap();
    parallel_for("fenced", policy, |_: usize| {}).unwrap();
    profiling::mark_event("call fence");
    rt.finalize().unwrap();
}

#[test]
fn global_fencing_surrounds_kernels_and_tools_can_fence() {
    if is_child() {
        fenced_work();
        return;
    }
    let r = recorded(
        "global_fencing_surrounds_kernels_and_tools_can_fence",
        Variant::Full,
        &[("FK_RECORDER_CALL_FENCE", "0")],
    );
    let all = lines(&r);
    let begin = position(&r, "begin_parallel_for", "fenced");
    let end = begin
        + 1
        + r[begin + 1..]
            .iter()
            .position(|x| x.callback == "end_parallel_for")
            .unwrap();
    // The tool fence before the begin and before the end: one per backend (Serial, Threads, and
    // Cuda when the process has a GPU), each a begin/end pair with instance 0.
    let fences_before = |at: usize| -> Vec<String> {
        let mut ids = Vec::new();
        let mut i = at;
        while i >= 2 && r[i - 1].callback == "end_fence" && r[i - 2].callback == "begin_fence" {
            assert_eq!(r[i - 2].fields[0], TOOL_FENCE, "{all}");
            assert_eq!(
                r[i - 1].fields[0],
                r[i - 2].fields[2],
                "end_fence ends its fence"
            );
            ids.push(r[i - 2].fields[1].clone());
            i -= 2;
        }
        ids.reverse();
        ids
    };
    let before = fences_before(begin);
    assert!(
        before.starts_with(&["0".into(), "100663296".into()]),
        "{all}"
    );
    assert_eq!(fences_before(end), before, "{all}");
    // The tool's fence (called from its profile_event callback) is a global fence.
    let asked = position(&r, "tool_fence", "0");
    assert_eq!(
        r[asked + 1].fields[0],
        "Kokkos::Tools::Experimental::Impl::tool_invoked_fence: Tool Requested Fence",
        "{all}"
    );
}

fn old_tool_work() {
    let rt = ferrokkos::initialize(InitSettings::from_env().unwrap()).unwrap();
    let total: u64 = parallel_scan(
        "old scan",
        10,
        kernel!(|i, p: &mut u64, _last: bool| *p += i as u64),
    )
    .unwrap();
    assert_eq!(total, 45);
    ferrokkos::fence("unseen").unwrap();
    profiling::declare_metadata("unseen", "too");
    rt.finalize().unwrap();
}

#[test]
fn an_old_tool_without_newer_callbacks_gets_the_ones_it_has() {
    if is_child() {
        old_tool_work();
        return;
    }
    let trace = out_file("old-tool-trace").with_extension("json");
    let r = recorded(
        "an_old_tool_without_newer_callbacks_gets_the_ones_it_has",
        Variant::Old,
        &[("FERROKKOS_TRACE", trace.to_str().unwrap())],
    );
    let all = lines(&r);
    let names: Vec<&str> = r.iter().map(|x| x.callback.as_str()).collect();
    assert_eq!(names[0], "init_library", "{all}");
    position(&r, "begin_parallel_scan", "old scan");
    for missing in [
        "end_parallel_scan",
        "begin_fence",
        "request_tool_settings",
        "provide_tool_programming_interface",
        "declare_metadata",
    ] {
        assert!(!names.contains(&missing), "{missing}:\n{all}");
    }
    assert_eq!(names.last(), Some(&"finalize_library"));
    // Global fencing stays on (the tool cannot clear it), but as in Kokkos the fence comes only
    // before a callback the tool has: before the scan's begin, not before its missing end.
    let trace: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(&trace).unwrap()).unwrap();
    let fences: Vec<u64> = trace["traceEvents"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|e| e["ph"] == "X" && e["name"] == TOOL_FENCE)
        .map(|e| e["args"]["device_id"].as_u64().unwrap())
        .collect();
    let mut backends = fences.clone();
    backends.sort_unstable();
    backends.dedup();
    assert!(
        backends.contains(&0) && backends.contains(&0x0600_0000),
        "{fences:?}"
    );
    assert_eq!(
        fences.len(),
        backends.len(),
        "one global fence, before the begin: {fences:?}"
    );
}

fn bad_paths() {
    let try_init = |path: &str| {
        let e = ferrokkos::initialize(InitSettings::new().tools_libs(path)).unwrap_err();
        assert!(matches!(e, ferrokkos::Error::ToolLibrary { .. }), "{e}");
        e.to_string()
    };
    let missing = try_init("/nonexistent/libkp_missing.so");
    assert!(
        missing.starts_with(
            "the Kokkos Tools library \"/nonexistent/libkp_missing.so\" could not be loaded: "
        ),
        "{missing}"
    );
    assert!(missing.contains("No such file"), "{missing}");
    let text = std::env::temp_dir().join(format!("not-a-library-{}.so", std::process::id()));
    std::fs::write(&text, "this is text\n").unwrap();
    let not_elf = try_init(text.to_str().unwrap());
    assert!(not_elf.contains("not-a-library"), "{not_elf}");
    std::fs::remove_file(&text).unwrap();
    let no_symbols = try_init("libm.so.6");
    assert!(
        no_symbols.ends_with("exports no kokkosp_* function: it is not a Kokkos Tools library"),
        "{no_symbols}"
    );
    // Nothing was started: the program can go on without the tool, if it chooses to.
    let rt = ferrokkos::initialize(InitSettings::new().tools_libs("/x").without_tools()).unwrap();
    assert!(!profiling::profile_library_loaded());
    rt.finalize().unwrap();
}

#[test]
fn a_tool_path_that_is_not_a_tool_library_fails_initialize_with_the_reason() {
    if is_child() {
        bad_paths();
        return;
    }
    run_child(
        "a_tool_path_that_is_not_a_tool_library_fails_initialize_with_the_reason",
        &[],
    );
}

#[test]
fn an_optional_tool_that_does_not_load_is_a_warning_and_the_run_goes_on() {
    if is_child() {
        let rt = ferrokkos::initialize(InitSettings::from_env().unwrap()).unwrap();
        assert!(!profiling::profile_library_loaded());
        rt.finalize().unwrap();
        return;
    }
    let out = run_child(
        "an_optional_tool_that_does_not_load_is_a_warning_and_the_run_goes_on",
        &[
            ("KOKKOS_TOOLS_LIBS", "/nonexistent/libkp_missing.so"),
            ("FERROKKOS_TOOLS_OPTIONAL", "1"),
        ],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(
            "ferrokkos: warning: the Kokkos Tools library \"/nonexistent/libkp_missing.so\" \
             could not be loaded"
        ),
        "{stderr}"
    );
    assert!(stderr.contains("going on without it"), "{stderr}");
}

/// A "tool" whose `kokkosp_begin_parallel_for` is an `int`, not a function (with a real
/// `kokkosp_init_library` next to it).
const DATA_SYMBOL_TOOL: &str = "\
int kokkosp_begin_parallel_for = 5;
void kokkosp_init_library(int seq, unsigned long long version, unsigned int count, void *info) {
    (void)seq; (void)version; (void)count; (void)info;
}
";

fn data_symbol_tool() {
    let lib = std::env::var("FK_DATA_SYMBOL_TOOL").unwrap();
    // By default the tool fails initialize, naming the library, the symbol and what it is.
    let e = ferrokkos::initialize(InitSettings::new().tools_libs(lib.as_str())).unwrap_err();
    assert!(matches!(e, ferrokkos::Error::ToolLibrary { .. }), "{e}");
    assert_eq!(
        e.to_string(),
        format!(
            "the Kokkos Tools library {lib:?} could not be loaded: the symbol \
             kokkosp_begin_parallel_for is a data object (STT_OBJECT), not a function; a Kokkos \
             Tools callback must be a function"
        )
    );
    // Optional tools: a warning, and the program runs (and launches) without the tool.
    let rt = ferrokkos::initialize(
        InitSettings::new()
            .tools_libs(lib.as_str())
            .tools_optional(true),
    )
    .unwrap();
    assert!(!profiling::profile_library_loaded());
    let y = View::<u32, 1>::new("y", [8]).unwrap();
    parallel_for(
        "after a refused tool",
        RangePolicy::new(&Serial::default_instance().unwrap(), 0, 8).unwrap(),
        kernel!(|i| y[i] = 2 * i as u32),
    )
    .unwrap();
    assert_eq!(
        y.to_vec().unwrap(),
        (0..8).map(|i| 2 * i).collect::<Vec<u32>>()
    );
    rt.finalize().unwrap();
}

#[test]
fn a_tool_whose_callback_name_is_a_data_symbol_fails_initialize_instead_of_crashing() {
    if is_child() {
        data_symbol_tool();
        return;
    }
    let lib = build_c_library("libfk_data_symbol_tool.so", DATA_SYMBOL_TOOL);
    let out = run_child(
        "a_tool_whose_callback_name_is_a_data_symbol_fails_initialize_instead_of_crashing",
        &[("FK_DATA_SYMBOL_TOOL", lib.to_str().unwrap())],
    );
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!(
            "ferrokkos: warning: the Kokkos Tools library {:?} could not be loaded: the symbol \
             kokkosp_begin_parallel_for is a data object (STT_OBJECT)",
            lib.to_str().unwrap()
        )),
        "{stderr}"
    );
    assert!(stderr.contains("going on without it"), "{stderr}");
}

fn check_loaded() {
    let rt = ferrokkos::initialize(InitSettings::from_env().unwrap()).unwrap();
    assert!(profiling::profile_library_loaded());
    rt.finalize().unwrap();
}

#[test]
fn the_deprecated_variable_loads_the_tool_too() {
    if is_child() {
        check_loaded();
        return;
    }
    let lib = build_recorder(Variant::Full);
    let out = out_file("deprecated");
    run_child(
        "the_deprecated_variable_loads_the_tool_too",
        &[
            ("KOKKOS_PROFILE_LIBRARY", lib.to_str().unwrap()),
            ("FK_RECORDER_OUT", out.to_str().unwrap()),
        ],
    );
    let r = read_records(Path::new(&out));
    assert_eq!(r.first().map(|x| x.callback.as_str()), Some("init_library"));
}
