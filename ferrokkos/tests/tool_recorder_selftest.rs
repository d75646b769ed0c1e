//! Self-test of the recorder tool (`tests/tools/recorder.c`) and its test-support module
//! (`tests/common/tools.rs`), without ferrokkos: the tool is built, opened with `dlopen` and called
//! the way Kokkos calls a tool. The tool keeps its state in statics and reads its environment, so
//! each scenario runs in a child process of its own (this test binary, run again on one test).

#[path = "common/tools.rs"]
mod tools;

use std::ffi::{CStr, CString, c_char, c_int, c_void};
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::OnceLock;
use std::sync::atomic::{AtomicU32, Ordering};

use tools::{
    Record, Variant, assert_matched, build_recorder, callbacks, find, lines, matching_end,
    parse_records, read_records, unmatched,
};

// The dynamic loader (in glibc's libc since 2.34; older ones link libdl, which std links too).
unsafe extern "C" {
    fn dlopen(filename: *const c_char, flags: c_int) -> *mut c_void;
    fn dlsym(handle: *mut c_void, symbol: *const c_char) -> *mut c_void;
    fn dlerror() -> *mut c_char;
}
const RTLD_NOW: c_int = 2;

// Kokkos' C structs (Kokkos_Profiling_C_Interface.h, version 20240906).
#[repr(C)]
struct DeviceInfo {
    device_id: usize,
}

#[repr(C)]
#[derive(Clone, Copy)]
struct SpaceHandle {
    name: [c_char; 64],
}

#[repr(C)]
struct ToolProgrammingInterface {
    fence: Option<unsafe extern "C" fn(u32)>,
    padding: [Option<unsafe extern "C" fn()>; 31],
}

#[repr(C)]
struct ToolSettings {
    requires_global_fencing: bool,
    padding: [bool; 255],
}

const INTERFACE_VERSION: u64 = 20240906;

/// Every function of the full tool; the old one lacks [`NEWER`].
const ALL: [&str; 28] = [
    "kokkosp_init_library",
    "kokkosp_finalize_library",
    "kokkosp_parse_args",
    "kokkosp_print_help",
    "kokkosp_request_tool_settings",
    "kokkosp_provide_tool_programming_interface",
    "kokkosp_begin_parallel_for",
    "kokkosp_end_parallel_for",
    "kokkosp_begin_parallel_reduce",
    "kokkosp_end_parallel_reduce",
    "kokkosp_begin_parallel_scan",
    "kokkosp_end_parallel_scan",
    "kokkosp_begin_fence",
    "kokkosp_end_fence",
    "kokkosp_push_profile_region",
    "kokkosp_pop_profile_region",
    "kokkosp_allocate_data",
    "kokkosp_deallocate_data",
    "kokkosp_begin_deep_copy",
    "kokkosp_end_deep_copy",
    "kokkosp_create_profile_section",
    "kokkosp_start_profile_section",
    "kokkosp_stop_profile_section",
    "kokkosp_destroy_profile_section",
    "kokkosp_profile_event",
    "kokkosp_declare_metadata",
    "kokkosp_dual_view_sync",
    "kokkosp_dual_view_modify",
];
const NEWER: [&str; 8] = [
    "kokkosp_end_parallel_scan",
    "kokkosp_request_tool_settings",
    "kokkosp_provide_tool_programming_interface",
    "kokkosp_begin_fence",
    "kokkosp_end_fence",
    "kokkosp_declare_metadata",
    "kokkosp_dual_view_sync",
    "kokkosp_dual_view_modify",
];

/// A library opened with `dlopen` and never closed (its functions stay valid for the process).
struct Library(*mut c_void);

impl Library {
    fn open(path: &Path) -> Library {
        let c_path = CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: `c_path` is a NUL-terminated string that outlives the call. Opening runs the
        // library's initializers: the recorder has none (it is plain C with no constructor).
        let handle = unsafe { dlopen(c_path.as_ptr(), RTLD_NOW) };
        if handle.is_null() {
            // SAFETY: dlerror returns NULL or a NUL-terminated message valid until the next dl*
            // call of this thread; it is copied at once.
            let why = unsafe {
                let e = dlerror();
                if e.is_null() {
                    String::new()
                } else {
                    CStr::from_ptr(e).to_string_lossy().into_owned()
                }
            };
            panic!("dlopen {}: {why}", path.display());
        }
        Library(handle)
    }

    /// The address of the exported symbol `name`, or null.
    fn symbol(&self, name: &str) -> *mut c_void {
        let c_name = CString::new(name).unwrap();
        // SAFETY: `self.0` is a handle from a successful dlopen that is never closed, and `c_name`
        // is a NUL-terminated string that outlives the call.
        unsafe { dlsym(self.0, c_name.as_ptr()) }
    }

    /// The function `name` as the function pointer type `F`.
    ///
    /// # Safety
    ///
    /// `F` must be an `unsafe extern "C" fn` type with the C signature of `name` in recorder.c.
    unsafe fn function<F: Copy>(&self, name: &str) -> F {
        assert_eq!(
            size_of::<F>(),
            size_of::<*mut c_void>(),
            "{name}: F is no fn pointer"
        );
        let p = self.symbol(name);
        assert!(!p.is_null(), "the tool does not export {name}");
        // SAFETY: `p` is the non-null address of the function `name`, and the caller guarantees
        // that `F` is a function pointer type of its signature (pointer-sized, checked above).
        unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) }
    }
}

type BeginKernel = unsafe extern "C" fn(*const c_char, u32, *mut u64);
type EndKernel = unsafe extern "C" fn(u64);
type NameOnly = unsafe extern "C" fn(*const c_char);
type NoArgs = unsafe extern "C" fn();
type Data = unsafe extern "C" fn(SpaceHandle, *const c_char, *const c_void, u64);
type Section = unsafe extern "C" fn(u32);

/// The tool's functions, called the way Kokkos calls them. The full set is loaded; for the old
/// tool, the newer ones are `None`.
#[derive(Clone, Copy)]
struct Tool {
    init: unsafe extern "C" fn(c_int, u64, u32, *mut DeviceInfo),
    finalize: NoArgs,
    parse_args: unsafe extern "C" fn(c_int, *mut *mut c_char),
    print_help: unsafe extern "C" fn(*mut c_char),
    request_tool_settings: Option<unsafe extern "C" fn(u32, *mut ToolSettings)>,
    provide_interface: Option<unsafe extern "C" fn(u32, ToolProgrammingInterface)>,
    begin_for: BeginKernel,
    end_for: EndKernel,
    begin_reduce: BeginKernel,
    end_reduce: EndKernel,
    begin_scan: BeginKernel,
    end_scan: Option<EndKernel>,
    begin_fence: Option<BeginKernel>,
    end_fence: Option<EndKernel>,
    push_region: NameOnly,
    pop_region: NoArgs,
    allocate: Data,
    deallocate: Data,
    begin_deep_copy: unsafe extern "C" fn(
        SpaceHandle,
        *const c_char,
        *const c_void,
        SpaceHandle,
        *const c_char,
        *const c_void,
        u64,
    ),
    end_deep_copy: NoArgs,
    create_section: unsafe extern "C" fn(*const c_char, *mut u32),
    start_section: Section,
    stop_section: Section,
    destroy_section: Section,
    profile_event: NameOnly,
    declare_metadata: Option<unsafe extern "C" fn(*const c_char, *const c_char)>,
}

/// A C string for a call (the tests' strings have no NUL).
fn c(s: &str) -> CString {
    CString::new(s).unwrap()
}

impl Tool {
    fn load(lib: &Library) -> Tool {
        let newer = |name: &str| !lib.symbol(name).is_null();
        // SAFETY (every `function` call below): each field's type is the C signature of the
        // function named, as declared in recorder.c (Kokkos' signatures): pointers for pointers,
        // u32/u64/c_int for uint32_t/uint64_t/int, and #[repr(C)] copies of Kokkos' structs.
        unsafe {
            Tool {
                init: lib.function("kokkosp_init_library"),
                finalize: lib.function("kokkosp_finalize_library"),
                parse_args: lib.function("kokkosp_parse_args"),
                print_help: lib.function("kokkosp_print_help"),
                request_tool_settings: newer("kokkosp_request_tool_settings")
                    .then(|| lib.function("kokkosp_request_tool_settings")),
                provide_interface: newer("kokkosp_provide_tool_programming_interface")
                    .then(|| lib.function("kokkosp_provide_tool_programming_interface")),
                begin_for: lib.function("kokkosp_begin_parallel_for"),
                end_for: lib.function("kokkosp_end_parallel_for"),
                begin_reduce: lib.function("kokkosp_begin_parallel_reduce"),
                end_reduce: lib.function("kokkosp_end_parallel_reduce"),
                begin_scan: lib.function("kokkosp_begin_parallel_scan"),
                end_scan: newer("kokkosp_end_parallel_scan")
                    .then(|| lib.function("kokkosp_end_parallel_scan")),
                begin_fence: newer("kokkosp_begin_fence")
                    .then(|| lib.function("kokkosp_begin_fence")),
                end_fence: newer("kokkosp_end_fence").then(|| lib.function("kokkosp_end_fence")),
                push_region: lib.function("kokkosp_push_profile_region"),
                pop_region: lib.function("kokkosp_pop_profile_region"),
                allocate: lib.function("kokkosp_allocate_data"),
                deallocate: lib.function("kokkosp_deallocate_data"),
                begin_deep_copy: lib.function("kokkosp_begin_deep_copy"),
                end_deep_copy: lib.function("kokkosp_end_deep_copy"),
                create_section: lib.function("kokkosp_create_profile_section"),
                start_section: lib.function("kokkosp_start_profile_section"),
                stop_section: lib.function("kokkosp_stop_profile_section"),
                destroy_section: lib.function("kokkosp_destroy_profile_section"),
                profile_event: lib.function("kokkosp_profile_event"),
                declare_metadata: newer("kokkosp_declare_metadata")
                    .then(|| lib.function("kokkosp_declare_metadata")),
            }
        }
    }

    fn init(&self, load_seq: c_int, devices: Option<&mut [DeviceInfo]>) {
        let (count, ptr) = match devices {
            Some(d) => (d.len() as u32, d.as_mut_ptr()),
            None => (0, std::ptr::null_mut()),
        };
        // SAFETY: `ptr` is null or points to `count` device infos that outlive the call.
        unsafe { (self.init)(load_seq, INTERFACE_VERSION, count, ptr) }
    }

    fn finalize(&self) {
        // SAFETY: a function of no arguments.
        unsafe { (self.finalize)() }
    }

    fn parse_args(&self, args: &[&str]) {
        let owned: Vec<CString> = args.iter().map(|a| c(a)).collect();
        let mut argv: Vec<*mut c_char> = owned.iter().map(|a| a.as_ptr().cast_mut()).collect();
        // SAFETY: `argv` holds `args.len()` NUL-terminated strings, alive for the call; the tool
        // only reads them (Kokkos' signature is not const-correct).
        unsafe { (self.parse_args)(args.len() as c_int, argv.as_mut_ptr()) }
    }

    fn print_help(&self, exe: &str) {
        let exe = c(exe);
        // SAFETY: a NUL-terminated string alive for the call, which only reads it.
        unsafe { (self.print_help)(exe.as_ptr().cast_mut()) }
    }

    fn request_tool_settings(&self, settings: &mut ToolSettings) {
        let f = self.request_tool_settings.expect("request_tool_settings");
        // SAFETY: one settings struct, valid for reads and writes during the call.
        unsafe { f(1, settings) }
    }

    fn provide_fence(&self, fence: unsafe extern "C" fn(u32)) {
        let f = self
            .provide_interface
            .expect("provide_tool_programming_interface");
        let funcs = ToolProgrammingInterface {
            fence: Some(fence),
            padding: [None; 31],
        };
        // SAFETY: the struct is passed by value as Kokkos does; `fence` is callable with any
        // device id at any time.
        unsafe { f(1, funcs) }
    }

    fn begin(&self, f: BeginKernel, name: &str, device: u32) -> u64 {
        let name = c(name);
        let mut id = u64::MAX;
        // SAFETY: a NUL-terminated name and a valid out pointer, both alive for the call.
        unsafe { f(name.as_ptr(), device, &mut id) };
        id
    }

    fn end(&self, f: EndKernel, id: u64) {
        // SAFETY: plain integers.
        unsafe { f(id) }
    }

    fn name_only(&self, f: NameOnly, name: &str) {
        let name = c(name);
        // SAFETY: a NUL-terminated string alive for the call.
        unsafe { f(name.as_ptr()) }
    }

    fn no_args(&self, f: NoArgs) {
        // SAFETY: a function of no arguments.
        unsafe { f() }
    }

    fn data(&self, f: Data, space: SpaceHandle, label: &str, ptr: usize, size: u64) {
        let label = c(label);
        // SAFETY: the handle by value, a NUL-terminated label alive for the call; the pointer is
        // only printed, never dereferenced.
        unsafe { f(space, label.as_ptr(), ptr as *const c_void, size) }
    }

    #[allow(clippy::too_many_arguments)]
    fn begin_deep_copy(
        &self,
        dst: SpaceHandle,
        dst_label: &str,
        dst_ptr: usize,
        src: SpaceHandle,
        src_label: &str,
        src_ptr: usize,
        size: u64,
    ) {
        let (dst_label, src_label) = (c(dst_label), c(src_label));
        // SAFETY: handles by value and NUL-terminated labels alive for the call; the pointers are
        // only printed.
        unsafe {
            (self.begin_deep_copy)(
                dst,
                dst_label.as_ptr(),
                dst_ptr as *const c_void,
                src,
                src_label.as_ptr(),
                src_ptr as *const c_void,
                size,
            )
        }
    }

    fn create_section(&self, name: &str) -> u32 {
        let name = c(name);
        let mut id = u32::MAX;
        // SAFETY: a NUL-terminated name and a valid out pointer, both alive for the call.
        unsafe { (self.create_section)(name.as_ptr(), &mut id) };
        id
    }

    fn section(&self, f: Section, id: u32) {
        // SAFETY: a plain integer.
        unsafe { f(id) }
    }

    fn declare_metadata(&self, key: &str, value: &str) {
        let f = self.declare_metadata.expect("declare_metadata");
        let (key, value) = (c(key), c(value));
        // SAFETY: NUL-terminated strings alive for the call.
        unsafe { f(key.as_ptr(), value.as_ptr()) }
    }
}

/// A space handle from a name of at most 64 bytes (shorter ones are NUL-terminated).
fn space(name: &[u8]) -> SpaceHandle {
    assert!(name.len() <= 64);
    let mut h = SpaceHandle { name: [0; 64] };
    for (d, &s) in h.name.iter_mut().zip(name) {
        *d = s as c_char;
    }
    h
}

/// The tool loaded in this (child) process, for the fence it calls back.
static TOOL: OnceLock<Tool> = OnceLock::new();
static FENCE_CALLS: AtomicU32 = AtomicU32::new(0);
static FENCED_DEVICE: AtomicU32 = AtomicU32::new(u32::MAX);

/// The fence given to the tool: like Kokkos' global fence, it reports itself through the tool's
/// fence callbacks, re-entering the tool from its own callback.
extern "C" fn fence(device: u32) {
    FENCE_CALLS.fetch_add(1, Ordering::SeqCst);
    FENCED_DEVICE.store(device, Ordering::SeqCst);
    let tool = TOOL.get().expect("the tool is loaded");
    let id = tool.begin(tool.begin_fence.unwrap(), "tool fence", device);
    tool.end(tool.end_fence.unwrap(), id);
}

fn load(variant_env: &str) -> &'static Tool {
    let path = PathBuf::from(std::env::var_os(variant_env).expect("the tool's path"));
    let lib = Library::open(&path);
    for name in ALL {
        let old = variant_env == OLD_LIB;
        let expected = !(old && NEWER.contains(&name));
        assert_eq!(!lib.symbol(name).is_null(), expected, "{name} in {path:?}");
    }
    TOOL.get_or_init(|| Tool::load(&lib))
}

const CHILD: &str = "FK_SELFTEST_CHILD";
const FULL_LIB: &str = "FK_SELFTEST_FULL";
const OLD_LIB: &str = "FK_SELFTEST_OLD";

fn is_child() -> bool {
    std::env::var_os(CHILD).is_some()
}

/// Runs the test `name` of this binary alone in a child with the tool's variables `env` (and none
/// inherited), and returns its output; panics if it fails.
fn run_child(name: &str, env: &[(&str, &Path)], tool_env: &[(&str, &str)]) -> Output {
    let mut cmd = Command::new(std::env::current_exe().unwrap());
    cmd.args([name, "--exact", "--nocapture", "--test-threads=1"])
        .env(CHILD, "1");
    for var in [
        "FK_RECORDER_OUT",
        "FK_RECORDER_NO_GLOBAL_FENCE",
        "FK_RECORDER_CALL_FENCE",
    ] {
        cmd.env_remove(var);
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    for (k, v) in tool_env {
        cmd.env(k, v);
    }
    let out = cmd.output().expect("running this test binary as a child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("1 passed"),
        "child {name}: {}\nstdout:\n{stdout}\nstderr:\n{}",
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A fresh output path for the tool.
fn out_file(name: &str) -> PathBuf {
    let path = Path::new(env!("CARGO_TARGET_TMPDIR")).join(format!(
        "fk_recorder_selftest_{name}_{}.txt",
        std::process::id()
    ));
    let _ = std::fs::remove_file(&path);
    path
}

/// Asserts that the records are exactly `expected` (lines with TAB-separated fields).
fn assert_lines(records: &[Record], expected: &[String]) {
    let got: Vec<String> = records.iter().map(ToString::to_string).collect();
    for (i, (g, e)) in got.iter().zip(expected).enumerate() {
        assert_eq!(g, e, "line {}; all records:\n{}", i + 1, lines(records));
    }
    assert_eq!(got.len(), expected.len(), "records:\n{}", lines(records));
}

/// 64 bytes, none zero: the tool must print at most 64 of them.
const LONG_DST: &[u8; 64] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789+-";
const LONG_SRC: &[u8; 64] = b"################################################################";

fn drive_full() {
    let tool = load(FULL_LIB);
    let mut devices = [DeviceInfo { device_id: 0 }];
    tool.init(3, Some(&mut devices));

    let mut settings = ToolSettings {
        requires_global_fencing: true,
        padding: [false; 255],
    };
    tool.request_tool_settings(&mut settings);
    assert!(
        !settings.requires_global_fencing,
        "FK_RECORDER_NO_GLOBAL_FENCE=1 clears it"
    );
    assert!(settings.padding.iter().all(|&p| !p));
    tool.provide_fence(fence);
    tool.parse_args(&["prog", "a b", "tab\there", ""]);
    tool.print_help("exe\nname");

    assert_eq!(tool.begin(tool.begin_for, "for k", 0x0100_0001), 1);
    tool.end(tool.end_for, 1);
    assert_eq!(tool.begin(tool.begin_reduce, "reduce k", 2), 2);
    tool.end(tool.end_reduce, 2);
    assert_eq!(tool.begin(tool.begin_scan, "scan k", 3), 3);
    tool.end(tool.end_scan.unwrap(), 3);
    assert_eq!(tool.begin(tool.begin_fence.unwrap(), "my fence", 4), 1);
    tool.end(tool.end_fence.unwrap(), 1);

    tool.name_only(tool.push_region, "outer");
    tool.name_only(tool.push_region, "inner\tregion");
    assert_eq!(tool.begin(tool.begin_for, "", u32::MAX), 4);
    tool.end(tool.end_for, 4);
    tool.no_args(tool.pop_region);
    tool.no_args(tool.pop_region);

    let mut long = *LONG_DST;
    long[5] = b'\t';
    tool.data(tool.allocate, space(&long), "x", 0x1000, 8000);
    tool.data(tool.allocate, space(b"Host"), "y", 0x7f00_dead_beef, 0);
    tool.begin_deep_copy(
        space(LONG_DST),
        "y",
        0x7f00_dead_beef,
        space(LONG_SRC),
        "x",
        0x1000,
        8000,
    );
    tool.no_args(tool.end_deep_copy);
    tool.data(tool.deallocate, space(b"Host"), "y", 0x7f00_dead_beef, 0);
    tool.data(tool.deallocate, space(&long), "x", 0x1000, 8000);

    assert_eq!(tool.create_section("solve"), 1);
    assert_eq!(tool.create_section("second"), 2);
    tool.section(tool.start_section, 1);
    tool.section(tool.stop_section, 1);
    tool.section(tool.destroy_section, 1);
    tool.section(tool.destroy_section, 2);

    tool.name_only(tool.profile_event, "mark");
    assert_eq!(FENCE_CALLS.load(Ordering::SeqCst), 0);
    tool.name_only(tool.profile_event, "call fence");
    assert_eq!(
        FENCE_CALLS.load(Ordering::SeqCst),
        1,
        "the tool calls the fence"
    );
    assert_eq!(
        FENCED_DEVICE.load(Ordering::SeqCst),
        7,
        "with FK_RECORDER_CALL_FENCE"
    );
    tool.name_only(tool.profile_event, "call fence");
    assert_eq!(FENCE_CALLS.load(Ordering::SeqCst), 1, "only the first time");

    tool.declare_metadata("key", "value with\ttab");
    tool.finalize();
}

#[test]
fn the_full_tool_records_every_callback_exactly() {
    if is_child() {
        drive_full();
        return;
    }
    let lib = build_recorder(Variant::Full);
    let out = out_file("full");
    run_child(
        "the_full_tool_records_every_callback_exactly",
        &[(FULL_LIB, &lib), ("FK_RECORDER_OUT", &out)],
        &[
            ("FK_RECORDER_NO_GLOBAL_FENCE", "1"),
            ("FK_RECORDER_CALL_FENCE", "7"),
        ],
    );
    let r = read_records(&out);
    let long = String::from_utf8(LONG_DST.to_vec()).unwrap();
    let long_tab = long.replacen('f', " ", 1);
    let hashes = "#".repeat(64);
    let expected: Vec<String> = [
        "init_library\t3\t20240906\t1\tnonnull",
        "request_tool_settings\t1\t1",
        "provide_tool_programming_interface\t1\tnonnull",
        "parse_args\t4\tprog\ta b\ttab here\t",
        "print_help\texe name",
        "begin_parallel_for\tfor k\t16777217\t1",
        "end_parallel_for\t1",
        "begin_parallel_reduce\treduce k\t2\t2",
        "end_parallel_reduce\t2",
        "begin_parallel_scan\tscan k\t3\t3",
        "end_parallel_scan\t3",
        "begin_fence\tmy fence\t4\t1",
        "end_fence\t1",
        "push_profile_region\touter",
        "push_profile_region\tinner region",
        "begin_parallel_for\t\t4294967295\t4",
        "end_parallel_for\t4",
        "pop_profile_region",
        "pop_profile_region",
        format!("allocate_data\t{long_tab}\tx\t0x1000\t8000").as_str(),
        "allocate_data\tHost\ty\t0x7f00deadbeef\t0",
        format!("begin_deep_copy\t{long}\ty\t0x7f00deadbeef\t{hashes}\tx\t0x1000\t8000").as_str(),
        "end_deep_copy",
        "deallocate_data\tHost\ty\t0x7f00deadbeef\t0",
        format!("deallocate_data\t{long_tab}\tx\t0x1000\t8000").as_str(),
        "create_profile_section\tsolve\t1",
        "create_profile_section\tsecond\t2",
        "start_profile_section\t1",
        "stop_profile_section\t1",
        "destroy_profile_section\t1",
        "destroy_profile_section\t2",
        "profile_event\tmark",
        "profile_event\tcall fence",
        "tool_fence\t7",
        "begin_fence\ttool fence\t7\t2",
        "end_fence\t2",
        "profile_event\tcall fence",
        "declare_metadata\tkey\tvalue with tab",
        "finalize_library",
    ]
    .map(String::from)
    .to_vec();
    assert_lines(&r, &expected);

    // The helpers on real output.
    assert_matched(&r);
    assert_eq!(r[3].fields, ["4", "prog", "a b", "tab here", ""]);
    assert_eq!(
        callbacks(&r)[..3],
        [
            "init_library",
            "request_tool_settings",
            "provide_tool_programming_interface"
        ]
    );
    let fences: Vec<&str> = find(&r, "begin_fence").map(|x| x.field(0)).collect();
    assert_eq!(fences, ["my fence", "tool fence"]);
    assert_eq!(matching_end(&r, 13), Some(18), "outer region");
    assert_eq!(matching_end(&r, 14), Some(17), "inner region");
    assert_eq!(matching_end(&r, 15), Some(16), "kernel 4");
    assert_eq!(matching_end(&r, 21), Some(22), "deep copy");
    std::fs::remove_file(&out).unwrap();
}

fn drive_defaults() {
    let tool = load(FULL_LIB);
    tool.init(0, None);
    let mut settings = ToolSettings {
        requires_global_fencing: true,
        padding: [false; 255],
    };
    tool.request_tool_settings(&mut settings);
    assert!(
        settings.requires_global_fencing,
        "kept without FK_RECORDER_NO_GLOBAL_FENCE"
    );
    tool.provide_fence(fence);
    tool.name_only(tool.profile_event, "call fence");
    assert_eq!(
        FENCE_CALLS.load(Ordering::SeqCst),
        0,
        "no FK_RECORDER_CALL_FENCE"
    );

    // Callbacks from several threads at once: whole lines, distinct ids.
    std::thread::scope(|s| {
        for t in 0..4u32 {
            s.spawn(move || {
                for k in 0..50 {
                    let name = format!("t{t} k{k}");
                    let (begin, end) = match k % 3 {
                        0 => (tool.begin_for, tool.end_for),
                        1 => (tool.begin_reduce, tool.end_reduce),
                        _ => (tool.begin_scan, tool.end_scan.unwrap()),
                    };
                    let id = tool.begin(begin, &name, t);
                    let fence = tool.begin(tool.begin_fence.unwrap(), &name, t);
                    tool.end(tool.end_fence.unwrap(), fence);
                    tool.end(end, id);
                    let section = tool.create_section(&name);
                    tool.section(tool.start_section, section);
                    tool.section(tool.stop_section, section);
                    tool.section(tool.destroy_section, section);
                }
            });
        }
    });
    tool.finalize();
}

#[test]
fn without_variables_the_tool_writes_to_stderr_keeps_fencing_and_calls_no_fence() {
    if is_child() {
        drive_defaults();
        return;
    }
    let lib = build_recorder(Variant::Full);
    let out = run_child(
        "without_variables_the_tool_writes_to_stderr_keeps_fencing_and_calls_no_fence",
        &[(FULL_LIB, &lib)],
        &[],
    );
    let r = parse_records(&String::from_utf8_lossy(&out.stderr));
    let all = lines(&r);
    assert_eq!(r.len(), 4 + 4 * 50 * 8 + 1, "{all}");
    assert_lines(
        &r[..4],
        &[
            "init_library\t0\t20240906\t0\tnull".to_owned(),
            "request_tool_settings\t1\t1".to_owned(),
            "provide_tool_programming_interface\t1\tnonnull".to_owned(),
            "profile_event\tcall fence".to_owned(),
        ],
    );
    assert_eq!(r.last().unwrap().to_string(), "finalize_library");
    assert_matched(&r);
    // Kernel ids 1..=200 (shared by for, reduce, scan), fence and section ids 1..=200.
    let ids = |callback: &str, field: usize| {
        let mut ids: Vec<u64> = r
            .iter()
            .filter(|x| x.callback.starts_with(callback))
            .map(|x| x.field(field).parse().unwrap())
            .collect();
        ids.sort_unstable();
        ids
    };
    let expected: Vec<u64> = (1..=200).collect();
    assert_eq!(ids("begin_parallel_", 2), expected);
    assert_eq!(ids("begin_fence", 2), expected);
    assert_eq!(ids("create_profile_section", 1), expected);
    for x in &r[4..r.len() - 1] {
        let n = if x.callback.starts_with("begin_") {
            3
        } else if x.callback.starts_with("create_") {
            2
        } else {
            1
        };
        assert_eq!(x.fields.len(), n, "{x}");
    }
}

fn drive_old() {
    let tool = load(OLD_LIB);
    assert!(tool.end_scan.is_none() && tool.begin_fence.is_none());
    tool.init(1, None);
    assert_eq!(tool.begin(tool.begin_scan, "old scan", 0), 1);
    tool.name_only(tool.profile_event, "call fence");
    tool.finalize();
}

#[test]
fn the_old_tool_lacks_the_newer_callbacks() {
    if is_child() {
        drive_old();
        return;
    }
    let lib = build_recorder(Variant::Old);
    let out = out_file("old");
    run_child(
        "the_old_tool_lacks_the_newer_callbacks",
        &[(OLD_LIB, &lib), ("FK_RECORDER_OUT", &out)],
        &[("FK_RECORDER_CALL_FENCE", "1")],
    );
    let r = read_records(&out);
    assert_lines(
        &r,
        &[
            "init_library\t1\t20240906\t0\tnull",
            "begin_parallel_scan\told scan\t0\t1",
            "profile_event\tcall fence",
            "tool_fence_missing\t1",
            "finalize_library",
        ]
        .map(String::from),
    );
    // Its scans never end.
    assert_eq!(unmatched(&r).len(), 1, "{:?}", unmatched(&r));
    std::fs::remove_file(&out).unwrap();
}

#[test]
fn builds_are_reused_and_both_variants_coexist() {
    if is_child() {
        return;
    }
    let full = build_recorder(Variant::Full);
    let old = build_recorder(Variant::Old);
    assert_ne!(full, old);
    let built = std::fs::metadata(&full).unwrap().modified().unwrap();
    assert_eq!(build_recorder(Variant::Full), full);
    assert_eq!(
        std::fs::metadata(&full).unwrap().modified().unwrap(),
        built,
        "not rebuilt"
    );
    // Several threads at once.
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| assert_eq!(build_recorder(Variant::Old), old));
        }
    });
}

#[test]
fn the_helpers_parse_and_pair_records() {
    if is_child() {
        return;
    }
    let text = "init_library\t0\t20240906\t0\tnull\n\
                begin_parallel_for\t\t1\t1\n\
                begin_parallel_scan\ts\t1\t2\n\
                end_parallel_for\t2\n\
                end_parallel_for\t1\n\
                push_profile_region\tr\n\
                pop_profile_region\n\
                pop_profile_region\n\
                begin_fence\tf\t0\t1\n\
                begin_fence\tg\t0\t1\n\
                end_fence\t1\n\
                create_profile_section\ts\t1\n\
                stop_profile_section\t1\n\
                destroy_profile_section\t1\n\
                start_profile_section\t1\n\
                \n\
                finalize_library";
    let r = parse_records(text);
    assert_eq!(r.len(), 16);
    assert_eq!(r[1].fields, ["", "1", "1"]);
    assert_eq!(r[15].fields, Vec::<String>::new());
    assert_eq!(r[1].field(7), "");
    assert_eq!(find(&r, "pop_profile_region").count(), 2);
    assert_eq!(matching_end(&r, 1), Some(4));
    assert_eq!(matching_end(&r, 2), None, "ended by the wrong kind");
    assert_eq!(matching_end(&r, 5), Some(6));
    let problems = unmatched(&r);
    let expected = [
        "line 4: end_parallel_for\t2 ends the parallel_scan begun on line 3",
        "line 8: pop_profile_region with no region pushed",
        "line 10: fence id 1 was already used on line 9: begin_fence\tg\t0\t1",
        "line 13: stop_profile_section\t1 of a section not started",
        "line 15: start_profile_section\t1 of no live section",
    ];
    assert_eq!(problems, expected);
    let ok = parse_records("begin_parallel_for\tk\t0\t5\nend_parallel_for\t5\n");
    assert!(unmatched(&ok).is_empty());
}
