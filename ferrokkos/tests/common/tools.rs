//! The recorder: a Kokkos Tools library written in C (`tests/tools/recorder.c`) that records every
//! callback it receives, one line each, in the file named by `FK_RECORDER_OUT` (stderr when unset).
//!
//! [`build_recorder`] compiles it with the system C compiler (found and configured by the `cc`
//! crate) into a shared library under Cargo's `CARGO_TARGET_TMPDIR`; [`read_records`] parses what
//! it wrote. A line is the callback's name without the `kokkosp_` prefix, then its fields, separated
//! by TABs (strings have their tabs and line breaks replaced by spaces):
//!
//! ```text
//! init_library <loadSeq> <interfaceVer> <devInfoCount> <null|nonnull>
//! request_tool_settings <num_settings> <requires_global_fencing as received: 0|1>
//! provide_tool_programming_interface <num_funcs> <fence: null|nonnull>
//! parse_args <argc> <argv[0]> <argv[1]> ...
//! print_help <exe>
//! begin_parallel_for <name> <devID> <kernel id>      (also _reduce, _scan; ids from 1, shared)
//! end_parallel_for <kernel id>                       (also _reduce, _scan)
//! begin_fence <name> <devID> <fence id>              (fence ids from 1, their own counter)
//! end_fence <fence id>
//! push_profile_region <name>
//! pop_profile_region
//! allocate_data <space> <label> <0x pointer> <bytes> (also deallocate_data)
//! begin_deep_copy <dst space> <dst label> <dst 0x pointer> <src space> <src label> <src 0x pointer> <bytes>
//! end_deep_copy
//! create_profile_section <name> <section id>         (section ids from 1)
//! start_profile_section <section id>                 (also stop_, destroy_)
//! profile_event <name>
//! declare_metadata <key> <value>
//! tool_fence <device id>       (the tool calls Kokkos' fence; see below)
//! tool_fence_missing <device id>  (it would have, but was given no fence function)
//! finalize_library
//! ```
//!
//! Environment of the tool: `FK_RECORDER_OUT` (the output file, truncated by `init_library`);
//! `FK_RECORDER_NO_GLOBAL_FENCE=1` (the tool clears `requires_global_fencing`);
//! `FK_RECORDER_CALL_FENCE=<device id>` (at the first `profile_event` named `call fence`, the tool
//! records `tool_fence <id>` and calls the fence of the tool programming interface with that id).
//! [`Variant::Old`] lacks `end_parallel_scan`, `request_tool_settings`,
//! `provide_tool_programming_interface`, `begin_fence`/`end_fence` and `declare_metadata`.
#![allow(dead_code)]

use std::collections::HashMap;
use std::fmt;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::SystemTime;

/// Which recorder to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Variant {
    /// Every callback of Kokkos' interface version 20240906.
    Full,
    /// An old tool: built with `FK_RECORDER_OLD_TOOL`, without the newer callbacks.
    Old,
}

impl Variant {
    /// The library's file name.
    fn file_name(self) -> &'static str {
        match self {
            Variant::Full => "libfk_recorder_full.so",
            Variant::Old => "libfk_recorder_old.so",
        }
    }
}

/// The recorder's C source.
pub fn recorder_source() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/tools/recorder.c")
}

/// The target triple of this test binary, for `cc` (outside a build script, Cargo's `TARGET` and
/// `HOST` are not set): the tool is loaded into this process or its children, so host and target
/// are both the machine the tests run on.
fn target_triple() -> String {
    let arch = std::env::consts::ARCH;
    match std::env::consts::OS {
        "linux" => {
            let env = if cfg!(target_env = "musl") {
                "musl"
            } else {
                "gnu"
            };
            format!("{arch}-unknown-linux-{env}")
        }
        "macos" => format!("{arch}-apple-darwin"),
        os => panic!("the recorder tool is built for Linux (or macOS) only, not for {os}"),
    }
}

/// Modification time of `path`, if it exists.
fn modified(path: &Path) -> Option<SystemTime> {
    std::fs::metadata(path).and_then(|m| m.modified()).ok()
}

/// Builds the recorder `variant` (once: it is rebuilt only when `recorder.c` or this file is newer
/// than the library) and returns the shared library's path.
///
/// With `FERROKKOS_TEST_RECORDER_DIR` set, returns the library in that directory without building
/// (for test binaries run on a machine without the source tree).
///
/// Safe to call from several test threads and processes at once: each build goes to a file of its
/// own that is then renamed over the library, atomically. Panics with the compiler's output if the
/// build fails.
pub fn build_recorder(variant: Variant) -> PathBuf {
    // Threads of one process build one at a time (the others then find the library fresh).
    static BUILDING: Mutex<()> = Mutex::new(());
    let _guard = BUILDING.lock().unwrap_or_else(PoisonError::into_inner);

    // Test binaries copied to another machine (the GPU machine, which has no source tree) find
    // the libraries built here in this directory.
    if let Some(dir) = std::env::var_os("FERROKKOS_TEST_RECORDER_DIR") {
        return Path::new(&dir).join(variant.file_name());
    }
    let src = recorder_source();
    let out = Path::new(env!("CARGO_TARGET_TMPDIR")).join(variant.file_name());
    let inputs = [
        src.clone(),
        Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/common/tools.rs"),
    ];
    let newest_input = inputs.iter().filter_map(|p| modified(p)).max();
    if let (Some(lib), Some(input)) = (modified(&out), newest_input)
        && lib >= input
    {
        return out;
    }

    let defines: &[&str] = if variant == Variant::Old {
        &["-DFK_RECORDER_OLD_TOOL"]
    } else {
        &[]
    };
    compile_shared(&src, &out, defines);
    out
}

/// Compiles the C file `src` into the shared library `out` with the system C compiler (warnings are
/// errors), `extra` added to the command line. The library is written to a file of its own, then
/// renamed to `out` (atomically, for concurrent builders). Panics with the compiler's output if the
/// build fails.
fn compile_shared(src: &Path, out: &Path, extra: &[&str]) {
    static SEQ: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let cc_dir = dir.join("fk_recorder_cc");
    std::fs::create_dir_all(&cc_dir)
        .unwrap_or_else(|e| panic!("creating {}: {e}", cc_dir.display()));
    let triple = target_triple();
    let compiler = cc::Build::new()
        .target(&triple)
        .host(&triple)
        .opt_level(2)
        .debug(false)
        .out_dir(&cc_dir)
        .cargo_metadata(false)
        .cargo_warnings(false)
        .warnings(true)
        .extra_warnings(true)
        .warnings_into_errors(true)
        .std("c99")
        .pic(true)
        .try_get_compiler()
        .unwrap_or_else(|e| panic!("no C compiler for a test tool ({triple}): {e}"));
    let file_name = out.file_name().unwrap().to_string_lossy();
    let tmp = dir.join(format!(
        ".{file_name}.{}.{}.tmp",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let mut cmd = compiler.to_command();
    cmd.args(extra)
        .arg("-shared")
        .arg("-o")
        .arg(&tmp)
        .arg(src)
        .arg("-lpthread");
    let output = cmd
        .output()
        .unwrap_or_else(|e| panic!("running the C compiler {cmd:?}: {e}"));
    if !output.status.success() {
        let _ = std::fs::remove_file(&tmp);
        panic!(
            "building the test tool {file_name} failed ({}):\n{cmd:?}\n{}{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
    std::fs::rename(&tmp, out).unwrap_or_else(|e| {
        let _ = std::fs::remove_file(&tmp);
        panic!("renaming {} to {}: {e}", tmp.display(), out.display())
    });
}

/// Builds a shared library named `file_name` (under Cargo's `CARGO_TARGET_TMPDIR`) from the C
/// source text `source`, and returns its path. Each call builds afresh (into a file of its own,
/// renamed over the library).
pub fn build_c_library(file_name: &str, source: &str) -> PathBuf {
    static SEQ: AtomicUsize = AtomicUsize::new(0);
    let dir = Path::new(env!("CARGO_TARGET_TMPDIR"));
    let src = dir.join(format!(
        "{file_name}.{}.{}.c",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::write(&src, source).unwrap_or_else(|e| panic!("writing {}: {e}", src.display()));
    let out = dir.join(file_name);
    compile_shared(&src, &out, &[]);
    let _ = std::fs::remove_file(&src);
    out
}

/// One line of the recorder's output.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Record {
    /// The callback's name without the `kokkosp_` prefix, e.g. `begin_parallel_for`.
    pub callback: String,
    /// Its fields, in the order of the line format.
    pub fields: Vec<String>,
}

impl Record {
    /// Field `i`, or "" when the record has fewer fields.
    pub fn field(&self, i: usize) -> &str {
        self.fields.get(i).map_or("", String::as_str)
    }
}

/// The record as the line the tool wrote (TAB-separated).
impl fmt::Display for Record {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.callback)?;
        for field in &self.fields {
            write!(f, "\t{field}")?;
        }
        Ok(())
    }
}

/// Parses recorder output (blank lines are skipped).
pub fn parse_records(text: &str) -> Vec<Record> {
    text.lines()
        .filter(|line| !line.is_empty())
        .map(|line| {
            let mut parts = line.split('\t');
            let callback = parts.next().unwrap_or_default().to_owned();
            Record {
                callback,
                fields: parts.map(str::to_owned).collect(),
            }
        })
        .collect()
}

/// Reads the records the tool wrote to `path`. Panics (naming the path) if it cannot be read.
pub fn read_records(path: &Path) -> Vec<Record> {
    let bytes = std::fs::read(path)
        .unwrap_or_else(|e| panic!("reading the recorder's output {}: {e}", path.display()));
    parse_records(&String::from_utf8_lossy(&bytes))
}

/// The records, one line each, for assertion messages.
pub fn lines(records: &[Record]) -> String {
    records.iter().map(|r| format!("{r}\n")).collect::<String>()
}

/// The callback names, in order.
pub fn callbacks(records: &[Record]) -> Vec<&str> {
    records.iter().map(|r| r.callback.as_str()).collect()
}

/// The records of `callback`, in order.
pub fn find<'a>(records: &'a [Record], callback: &'a str) -> impl Iterator<Item = &'a Record> {
    records.iter().filter(move |r| r.callback == callback)
}

/// For the record at `begin` (a `begin_parallel_*`, `begin_fence`, `push_profile_region` or
/// `begin_deep_copy`), the index of the record that ends it: the end of the same kind with the same
/// id; for regions and deep copies (which have no id), the first end at the same nesting depth.
pub fn matching_end(records: &[Record], begin: usize) -> Option<usize> {
    let b = &records[begin];
    let rest = records.iter().enumerate().skip(begin + 1);
    if let Some(kind) = b.callback.strip_prefix("begin_")
        && (kind.starts_with("parallel_") || kind == "fence")
    {
        let end = format!("end_{kind}");
        let id = b.field(2);
        return rest
            .filter(|(_, r)| r.callback == end && r.field(0) == id)
            .map(|(i, _)| i)
            .next();
    }
    let (open, close) = match b.callback.as_str() {
        "push_profile_region" => ("push_profile_region", "pop_profile_region"),
        "begin_deep_copy" => ("begin_deep_copy", "end_deep_copy"),
        _ => return None,
    };
    let mut depth = 0usize;
    for (i, r) in rest {
        if r.callback == open {
            depth += 1;
        } else if r.callback == close {
            if depth == 0 {
                return Some(i);
            }
            depth -= 1;
        }
    }
    None
}

/// What does not pair up: every kernel begin (`begin_parallel_*`) ended exactly once, later, by the
/// end of its own kind with its id, and ids are never reused; the same for fences; regions pop
/// only what was pushed and are all popped; deep copies likewise; sections are started, stopped
/// and destroyed only between their creation and destruction, stopped only when started. Returns a
/// description of each problem (empty when all pairs match). An [`Variant::Old`] tool has no
/// `end_parallel_scan`: its scans are reported as unended.
pub fn unmatched(records: &[Record]) -> Vec<String> {
    let mut problems = Vec::new();
    // id -> (kind, index of the begin) of what is running; ids ever used.
    let mut kernels: HashMap<String, (String, usize)> = HashMap::new();
    let mut kernel_ids: HashMap<String, usize> = HashMap::new();
    let mut fences: HashMap<String, usize> = HashMap::new();
    let mut fence_ids: HashMap<String, usize> = HashMap::new();
    let mut regions = 0usize;
    let mut copies = 0usize;
    // section id -> running
    let mut sections: HashMap<String, bool> = HashMap::new();
    for (i, r) in records.iter().enumerate() {
        let line = i + 1;
        let cb = r.callback.as_str();
        if let Some(kind) = cb.strip_prefix("begin_parallel_") {
            let id = r.field(2).to_owned();
            if let Some(first) = kernel_ids.insert(id.clone(), line) {
                problems.push(format!(
                    "line {line}: kernel id {id} was already used on line {first}: {r}"
                ));
            }
            kernels.insert(id, (kind.to_owned(), line));
        } else if let Some(kind) = cb.strip_prefix("end_parallel_") {
            let id = r.field(0);
            match kernels.remove(id) {
                Some((begun, _)) if begun == kind => {}
                Some((begun, at)) => problems.push(format!(
                    "line {line}: {r} ends the parallel_{begun} begun on line {at}"
                )),
                None => problems.push(format!("line {line}: {r} ends no running kernel")),
            }
        } else if cb == "begin_fence" {
            let id = r.field(2).to_owned();
            if let Some(first) = fence_ids.insert(id.clone(), line) {
                problems.push(format!(
                    "line {line}: fence id {id} was already used on line {first}: {r}"
                ));
            }
            fences.insert(id, line);
        } else if cb == "end_fence" {
            if fences.remove(r.field(0)).is_none() {
                problems.push(format!("line {line}: {r} ends no running fence"));
            }
        } else if cb == "push_profile_region" {
            regions += 1;
        } else if cb == "pop_profile_region" {
            match regions.checked_sub(1) {
                Some(n) => regions = n,
                None => problems.push(format!("line {line}: {r} with no region pushed")),
            }
        } else if cb == "begin_deep_copy" {
            copies += 1;
        } else if cb == "end_deep_copy" {
            match copies.checked_sub(1) {
                Some(n) => copies = n,
                None => problems.push(format!("line {line}: {r} with no deep copy begun")),
            }
        } else if cb == "create_profile_section" {
            if sections.insert(r.field(1).to_owned(), false).is_some() {
                problems.push(format!("line {line}: {r} reuses a live section id"));
            }
        } else if let Some(action) = cb
            .strip_suffix("_profile_section")
            .filter(|a| ["start", "stop", "destroy"].contains(a))
        {
            let id = r.field(0);
            match (action, sections.get_mut(id)) {
                (_, None) => problems.push(format!("line {line}: {r} of no live section")),
                ("start", Some(running)) => *running = true,
                ("stop", Some(running)) if *running => *running = false,
                ("stop", Some(_)) => {
                    problems.push(format!("line {line}: {r} of a section not started"))
                }
                _ => {
                    sections.remove(id);
                }
            }
        }
    }
    let mut open: Vec<(usize, String)> = kernels
        .into_values()
        .map(|(kind, at)| (at, format!("parallel_{kind}")))
        .chain(fences.into_values().map(|at| (at, "fence".to_owned())))
        .collect();
    open.sort();
    for (at, what) in open {
        problems.push(format!(
            "line {at}: the {what} begun here never ends: {}",
            records[at - 1]
        ));
    }
    if regions > 0 {
        problems.push(format!("{regions} region(s) never popped"));
    }
    if copies > 0 {
        problems.push(format!("{copies} deep copy(ies) never ended"));
    }
    problems
}

/// Panics (with the problems and all records) unless every begin/end pair matches; see
/// [`unmatched`].
pub fn assert_matched(records: &[Record]) {
    let problems = unmatched(records);
    assert!(
        problems.is_empty(),
        "unmatched callbacks:\n{}\nrecords:\n{}",
        problems.join("\n"),
        lines(records)
    );
}
