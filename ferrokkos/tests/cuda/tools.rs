//! Kokkos Tools and the trace on Cuda (GPU tests, ignored without one): device IDs, memory-space
//! names and copies as the recorder tool sees them, and GPU-timed spans on each instance's lane of
//! the trace, where a download on one instance overlaps a kernel on another.

use std::path::PathBuf;

use crate::common::child::{is_child, run_child, test_path};
use crate::common::tools::{Record, Variant, build_recorder, lines, read_records};
use ferrokkos::prelude::*;
use ferrokkos::{
    Cuda, CudaHostPinnedSpace, CudaSpace, CudaUVMSpace, create_mirror_view_in, deep_copy_async,
    kernel,
};
use serde_json::Value;

type Field = View<f64, 1, LayoutRight, CudaSpace>;

fn temp(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ferrokkos-tools-cuda-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir.join(name)
}

fn find<'a>(records: &'a [Record], callback: &str, first: &str) -> &'a Record {
    records
        .iter()
        .find(|r| r.callback == callback && r.fields.first().map(String::as_str) == Some(first))
        .unwrap_or_else(|| panic!("no {callback} {first}:\n{}", lines(records)))
}

fn cuda_work() {
    let rt = ferrokkos::initialize(InitSettings::from_env().unwrap()).unwrap();
    let cuda = Cuda::default_instance().unwrap();
    let second = Cuda::new_instance().unwrap();
    let d = Field::new("d", [1000]).unwrap();
    let uvm = View::<f64, 1, LayoutRight, CudaUVMSpace>::new("uvm", [10]).unwrap();
    let mirror = create_mirror_view_in(CudaHostPinnedSpace, &d).unwrap();
    let policy = RangePolicy::new(&cuda, 0, 1000usize).unwrap();
    parallel_for("cuda for", policy, kernel!(|i| d[i] = 1.0)).unwrap();
    let policy = RangePolicy::new(&second, 0, 1000usize).unwrap();
    let s: f64 = parallel_reduce(
        "cuda reduce",
        policy,
        kernel!(|i, s: &mut f64| *s += d[i]),
        Sum::new(),
    )
    .unwrap();
    assert_eq!(s, 1000.0);
    let policy = RangePolicy::new(&cuda, 0, 100usize).unwrap();
    let total: u64 = parallel_scan(
        "cuda scan",
        policy,
        kernel!(|i, p: &mut u64, _last: bool| *p += i as u64),
    )
    .unwrap();
    assert_eq!(total, 4950);
    deep_copy(&mirror, &d).unwrap();
    assert_eq!(mirror.get(999).unwrap(), 1.0);
    cuda.fence("cuda fence").unwrap();
    drop((d, uvm, mirror, second));
    rt.finalize().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_callbacks_report_device_ids_spaces_and_copies() {
    if is_child() {
        cuda_work();
        return;
    }
    let lib = build_recorder(Variant::Full);
    let out = temp("cuda.txt");
    run_child(
        &test_path(
            module_path!(),
            "cuda_callbacks_report_device_ids_spaces_and_copies",
        ),
        &[
            ("KOKKOS_TOOLS_LIBS", lib.to_str().unwrap()),
            ("FK_RECORDER_OUT", out.to_str().unwrap()),
            ("FK_RECORDER_NO_GLOBAL_FENCE", "1"),
        ],
    );
    let r = read_records(&out);
    let all = lines(&r);
    // Device 0, instances 1 (the default) and 2.
    assert_eq!(
        find(&r, "begin_parallel_for", "cuda for").fields[1],
        "33554433",
        "{all}"
    );
    assert_eq!(
        find(&r, "begin_parallel_reduce", "cuda reduce").fields[1],
        "33554434"
    );
    assert_eq!(
        find(&r, "begin_parallel_scan", "cuda scan").fields[1],
        "33554433"
    );
    assert_eq!(find(&r, "begin_fence", "cuda fence").fields[1], "33554433");
    for (space, label, bytes) in [("Cuda", "d", "8000"), ("CudaUVM", "uvm", "80")] {
        let a = find(&r, "allocate_data", space);
        assert_eq!(
            (a.fields[1].as_str(), a.fields[3].as_str()),
            (label, bytes),
            "{all}"
        );
    }
    let pinned = find(&r, "allocate_data", "CudaHostPinned");
    assert_eq!(pinned.fields[3], "8000");
    let copy = find(&r, "begin_deep_copy", "CudaHostPinned");
    assert_eq!(copy.fields[..2], ["CudaHostPinned", "d_mirror"], "{all}");
    assert_eq!(copy.fields[3..5], ["Cuda", "d"], "{all}");
    assert_eq!(copy.fields[6], "8000");
    for a in r.iter().filter(|x| x.callback == "allocate_data") {
        assert!(
            r.iter()
                .any(|d| d.callback == "deallocate_data" && d.fields == a.fields),
            "{a:?} released:\n{all}"
        );
    }
    assert_eq!(r.last().unwrap().callback, "finalize_library");
}

/// Elements per field: 2^24 doubles, a download of a few milliseconds.
const N: usize = 1 << 24;

fn overlap_work() {
    let rt = ferrokkos::initialize(InitSettings::from_env().unwrap()).unwrap();
    let parts = partition_space(&Cuda::default_instance().unwrap(), 2).unwrap();
    let a = Field::new("a", [N]).unwrap();
    let b = Field::new("b", [N]).unwrap();
    let b_mirror = create_mirror_view_in(CudaHostPinnedSpace, &b).unwrap();
    deep_copy(&b, 3.0).unwrap();
    let rounds = 2000;
    let policy = RangePolicy::new(&parts[0], 0, N).unwrap();
    parallel_for(
        "long kernel",
        policy,
        kernel!(|i| {
            let mut v = a[i];
            for _ in 0..rounds {
                v = v * 0.5 + 1.0;
            }
            a[i] = v;
        }),
    )
    .unwrap();
    deep_copy_async(&parts[1], &b_mirror, &b).unwrap();
    for p in &parts {
        p.fence("both done").unwrap();
    }
    assert_eq!(b_mirror.get(N - 1).unwrap(), 3.0);
    drop((a, b, b_mirror, parts));
    rt.finalize().unwrap();
}

#[test]
#[ignore = "needs a CUDA GPU"]
fn cuda_trace_times_gpu_work_per_stream_and_shows_a_copy_overlapping_a_kernel() {
    if is_child() {
        overlap_work();
        return;
    }
    let path = temp("overlap.json");
    run_child(
        &test_path(
            module_path!(),
            "cuda_trace_times_gpu_work_per_stream_and_shows_a_copy_overlapping_a_kernel",
        ),
        &[("FERROKKOS_TRACE", path.to_str().unwrap())],
    );
    let trace: Value = serde_json::from_str(&std::fs::read_to_string(&path).unwrap()).unwrap();
    let events = trace["traceEvents"].as_array().unwrap();
    let lane = |name: &str| {
        events
            .iter()
            .find(|e| e["ph"] == "M" && e["name"] == "thread_name" && e["args"]["name"] == name)
            .and_then(|e| e["tid"].as_u64())
            .unwrap_or_else(|| panic!("no lane {name}: {trace}"))
    };
    let span = |name: &str| {
        events
            .iter()
            .find(|e| e["ph"] == "X" && e["name"] == name)
            .unwrap_or_else(|| panic!("no span {name}: {trace}"))
    };
    // Partitions of the default instance are instances 2 and 3.
    let kernel = span("long kernel");
    assert_eq!(
        kernel["tid"].as_u64(),
        Some(lane("Cuda instance 2 (stream)"))
    );
    assert_eq!(kernel["cat"], "kernel");
    let copy = span("deep_copy into View \"b_mirror\" from View \"b\"");
    assert_eq!(copy["tid"].as_u64(), Some(lane("Cuda instance 3 (stream)")));
    assert_eq!(copy["args"]["bytes"], (N * 8) as u64);
    let (ks, kd) = (
        kernel["ts"].as_f64().unwrap(),
        kernel["dur"].as_f64().unwrap(),
    );
    let (cs, cd) = (copy["ts"].as_f64().unwrap(), copy["dur"].as_f64().unwrap());
    assert!(
        kd > 100.0 && cd > 100.0,
        "GPU durations in µs: kernel {kd}, copy {cd}"
    );
    assert!(
        cs < ks + kd && ks < cs + cd,
        "the download on instance 3 overlaps the kernel on instance 2: kernel [{ks}, {}], copy [{cs}, {}]",
        ks + kd,
        cs + cd
    );
    let fill = events
        .iter()
        .find(|e| e["ph"] == "X" && e["cat"] == "fill")
        .expect("the fill of b is a span");
    assert_eq!(fill["args"]["bytes"], (N * 8) as u64);
    // The host thread's fence waits end after the GPU work they wait for.
    let fence_end = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == "fence")
        .map(|e| e["ts"].as_f64().unwrap() + e["dur"].as_f64().unwrap())
        .fold(0.0, f64::max);
    assert!(
        fence_end + 50.0 >= ks + kd,
        "fences end {fence_end}, kernel ends {}",
        ks + kd
    );
    // The kernel's compilation (or its load from the disk cache) is a span on the thread's lane,
    // before the kernel ran.
    let jit: Vec<&Value> = events
        .iter()
        .filter(|e| e["ph"] == "X" && e["cat"] == "jit")
        .collect();
    assert!(!jit.is_empty(), "no jit span: {trace}");
    let compiled = jit
        .iter()
        .find(|e| {
            let name = e["name"].as_str().unwrap();
            (name.starts_with("compile fk_kernel") || name.starts_with("load fk_kernel"))
                && e["ts"].as_f64().unwrap() + e["dur"].as_f64().unwrap() <= ks + 50.0
        })
        .unwrap_or_else(|| panic!("the long kernel's compilation precedes it: {jit:?}"));
    assert!(compiled["dur"].as_f64().unwrap() > 0.0);
    assert_eq!(trace["otherData"]["unfinished_device_spans"], 0);
    println!(
        "kernel [{ks:.1}, {:.1}] µs on instance 2, copy [{cs:.1}, {:.1}] µs on instance 3",
        ks + kd,
        cs + cd
    );
}

/// `profiling::compile_events` on a GPU: with the disk cache off (a child process), a kernel's
/// first launch compiles it and reports the start and the end; its second launch finds it loaded
/// and reports nothing; the count of compilations matches `Cuda::jit_stats`.
#[test]
#[ignore = "needs a CUDA GPU"]
fn a_first_launch_reports_its_compilation_and_a_second_does_not() {
    use ferrokkos::profiling::{CompileStage, compile_events};
    if !is_child() {
        run_child(
            &test_path(
                module_path!(),
                "a_first_launch_reports_its_compilation_and_a_second_does_not",
            ),
            &[("FERROKKOS_CACHE_DIR", "off")],
        );
        return;
    }
    let _rt = ferrokkos::initialize(InitSettings::from_env().unwrap()).unwrap();
    let cuda = Cuda::default_instance().unwrap();
    let events = compile_events();
    let before = Cuda::jit_stats().unwrap();
    let d = Field::new("d", [256]).unwrap();
    // The same kernel (one source location) each time.
    let launch = || {
        let policy = RangePolicy::new(&cuda, 0, 256usize).unwrap();
        parallel_for("compiled", policy, kernel!(|i| d[i] = 3.0)).unwrap();
        cuda.fence("launch").unwrap();
    };
    launch();
    let after_first = Cuda::jit_stats().unwrap();
    let first: Vec<_> = events.try_iter().collect();
    let compiled = (after_first.compiled - before.compiled) as usize;
    assert!(compiled >= 1, "{before:?} {after_first:?}");
    assert_eq!(first.len(), 2 * compiled, "{first:?}");
    let started = first.iter().filter(|e| e.stage == CompileStage::Started);
    assert_eq!(started.count(), compiled, "{first:?}");
    let finished = first
        .iter()
        .filter(|e| matches!(e.stage, CompileStage::Finished { elapsed } if !elapsed.is_zero()));
    assert_eq!(finished.count(), compiled, "{first:?}");
    let arch = first[0].target.strip_prefix("sm_").unwrap_or("");
    assert!(arch.parse::<u32>().is_ok_and(|a| a >= 70), "{first:?}");
    launch();
    assert_eq!(Cuda::jit_stats().unwrap().compiled, after_first.compiled);
    assert_eq!(events.try_iter().count(), 0);
}
