//! The built-in timeline: a Chrome trace (the JSON format Perfetto and chrome://tracing open) written
//! while the program runs, enabled by `FERROKKOS_TRACE=path.json`.
//!
//! Lanes (`tid`s) are of two kinds: one per host thread that calls ferrokkos (regions, fences, the
//! calls of `deep_copy`, events), and one per execution-space instance (the kernels on a host
//! instance, timed on the host; the kernels, copies and fills of a Cuda instance, timed by CUDA
//! events on its stream). Spans on one lane nest properly by construction: a thread's regions,
//! fences and copies are nested calls, and an instance runs its work in order. Profile sections get
//! a lane each, since their starts and stops need not nest. Memory in use per space is a counter.
//!
//! Records are streamed to the file as they complete, so memory use does not grow with the run;
//! device spans wait in a list until their end event has completed (checked at fences and at
//! finalize, never by waiting on the launch path).

use std::collections::HashMap;
use std::fmt::Write as _;
use std::fs::File;
use std::io::{BufWriter, Write};
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::thread::ThreadId;
use std::time::Instant;

use crate::error::{Error, Result};

/// A value in a span's `args`.
#[derive(Debug, Clone, Copy)]
pub(crate) enum Arg<'a> {
    /// A string.
    Str(&'a str),
    /// An unsigned integer.
    U64(u64),
}

/// Device work whose timing is known once it has completed (a pair of CUDA events).
pub(crate) trait DeviceSpan: Send {
    /// The work's start and end in microseconds on the trace clock, or `None` while it has not
    /// completed. An error (a device fault) drops the span.
    fn times(&self) -> Result<Option<(f64, f64)>>;
}

/// A device span waiting for its work to complete, with what the trace will say of it.
pub(crate) struct PendingSpan {
    /// The lane (the instance's).
    pub(crate) tid: u64,
    /// `kernel`, `copy` or `fill`.
    pub(crate) cat: &'static str,
    /// The label shown.
    pub(crate) name: String,
    /// Extra facts (`bytes`, `pattern`, ...); numbers are written as JSON numbers.
    pub(crate) args: Vec<(&'static str, String)>,
    /// The timing source.
    pub(crate) span: Box<dyn DeviceSpan>,
}

/// The trace being written.
pub(crate) struct Trace {
    path: PathBuf,
    origin: Instant,
    data: Mutex<TraceData>,
}

struct TraceData {
    out: BufWriter<File>,
    /// The first write error, reported at finish.
    failed: Option<std::io::Error>,
    /// Whether a record was written (for the commas between records).
    any: bool,
    next_tid: u64,
    threads: HashMap<ThreadId, u64>,
    instances: HashMap<u32, u64>,
    sections: HashMap<String, u64>,
    regions: HashMap<u64, Vec<(String, f64)>>,
    memory: HashMap<&'static str, u64>,
    pending: Vec<PendingSpan>,
}

/// `text` as a JSON string literal.
fn json_string(out: &mut String, text: &str) {
    out.push('"');
    for c in text.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push('"');
}

impl Trace {
    /// Creates (truncates) the trace file at `path`; an error names the path. `program` names the
    /// process in the trace.
    pub(crate) fn create(path: &Path, program: &str) -> Result<Trace> {
        let fail = |e: std::io::Error| Error::Trace {
            path: path.display().to_string(),
            source: e,
        };
        let mut out = BufWriter::new(File::create(path).map_err(fail)?);
        out.write_all(b"{\"traceEvents\":[\n").map_err(fail)?;
        let trace = Trace {
            path: path.to_path_buf(),
            origin: Instant::now(),
            data: Mutex::new(TraceData {
                out,
                failed: None,
                any: false,
                next_tid: 1,
                threads: HashMap::new(),
                instances: HashMap::new(),
                sections: HashMap::new(),
                regions: HashMap::new(),
                memory: HashMap::new(),
                pending: Vec::new(),
            }),
        };
        let mut name = String::new();
        json_string(&mut name, &format!("ferrokkos: {program}"));
        trace.lock().record(&format!(
            "{{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"tid\":0,\"args\":{{\"name\":{name}}}}}"
        ));
        Ok(trace)
    }

    /// The instant the trace's clock counts from.
    pub(crate) fn origin(&self) -> Instant {
        self.origin
    }

    /// Microseconds since the trace started.
    pub(crate) fn now(&self) -> f64 {
        self.origin.elapsed().as_secs_f64() * 1e6
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, TraceData> {
        self.data.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The lane of the calling thread.
    pub(crate) fn thread_lane(&self) -> u64 {
        self.lock().thread_lane()
    }

    /// The lane of the instance with Kokkos Tools device ID `device_id`; `name` names a new lane.
    pub(crate) fn instance_lane(&self, device_id: u32, name: impl FnOnce() -> String) -> u64 {
        let mut data = self.lock();
        if let Some(&tid) = data.instances.get(&device_id) {
            return tid;
        }
        let tid = data.new_lane(&name(), instance_sort_index(device_id));
        data.instances.insert(device_id, tid);
        tid
    }

    /// Records a completed span.
    pub(crate) fn span(
        &self,
        tid: u64,
        cat: &str,
        name: &str,
        start: f64,
        end: f64,
        args: &[(&str, Arg<'_>)],
    ) {
        self.lock().span(tid, cat, name, start, end, args);
    }

    /// Records a span from `start` to now on the calling thread's lane.
    pub(crate) fn thread_span(&self, cat: &str, name: &str, start: f64, args: &[(&str, Arg<'_>)]) {
        let end = self.now();
        let mut data = self.lock();
        let tid = data.thread_lane();
        data.span(tid, cat, name, start, end, args);
    }

    /// Records an instant event on the calling thread's lane.
    pub(crate) fn instant(&self, name: &str) {
        let ts = self.now();
        let mut data = self.lock();
        let tid = data.thread_lane();
        let mut n = String::new();
        json_string(&mut n, name);
        data.record(&format!(
            "{{\"ph\":\"i\",\"s\":\"t\",\"name\":{n},\"cat\":\"event\",\"ts\":{ts:.3},\"pid\":1,\"tid\":{tid}}}"
        ));
    }

    /// Opens a region on the calling thread's lane.
    pub(crate) fn push_region(&self, name: &str) {
        let ts = self.now();
        let mut data = self.lock();
        let tid = data.thread_lane();
        data.regions
            .entry(tid)
            .or_default()
            .push((name.to_string(), ts));
    }

    /// Closes the calling thread's innermost region (nothing if it has none).
    pub(crate) fn pop_region(&self) {
        let ts = self.now();
        let mut data = self.lock();
        let tid = data.thread_lane();
        if let Some((name, start)) = data.regions.get_mut(&tid).and_then(Vec::pop) {
            data.span(tid, "region", &name, start, ts, &[]);
        }
    }

    /// Records a profile section's run from `start` to now, on the section's lane.
    pub(crate) fn section(&self, name: &str, start: f64) {
        let end = self.now();
        let mut data = self.lock();
        let tid = match data.sections.get(name) {
            Some(&tid) => tid,
            None => {
                let sort = 500_000 + data.next_tid;
                let tid = data.new_lane(&format!("section {name}"), sort);
                data.sections.insert(name.to_string(), tid);
                tid
            }
        };
        data.span(tid, "section", name, start, end, &[]);
    }

    /// Adds `bytes` to (or removes them from) the memory in use in `space` and records the counter.
    pub(crate) fn memory(&self, space: &'static str, bytes: u64, allocated: bool) {
        let ts = self.now();
        let mut data = self.lock();
        let total = data.memory.entry(space).or_default();
        *total = if allocated {
            total.saturating_add(bytes)
        } else {
            total.saturating_sub(bytes)
        };
        let total = *total;
        data.record(&format!(
            "{{\"ph\":\"C\",\"name\":\"memory {space}\",\"cat\":\"allocation\",\"ts\":{ts:.3},\"pid\":1,\"args\":{{\"bytes\":{total}}}}}"
        ));
    }

    /// Records device work whose timing comes later (the Cuda backend's kernels and copies).
    #[cfg(feature = "cuda")]
    pub(crate) fn pending(&self, span: PendingSpan) {
        self.lock().pending.push(span);
    }

    /// Writes the device spans whose work has completed.
    pub(crate) fn resolve(&self) {
        let mut data = self.lock();
        let pending = std::mem::take(&mut data.pending);
        for p in pending {
            match p.span.times() {
                Ok(Some((start, end))) => {
                    let args: Vec<(&str, Arg<'_>)> = p
                        .args
                        .iter()
                        .map(|(k, v)| match v.parse::<u64>() {
                            Ok(n) => (*k, Arg::U64(n)),
                            Err(_) => (*k, Arg::Str(v)),
                        })
                        .collect();
                    data.span(p.tid, p.cat, &p.name, start, end, &args);
                }
                Ok(None) => data.pending.push(p),
                Err(_) => {}
            }
        }
    }

    /// Records `key = value` in the trace's metadata.
    pub(crate) fn metadata(&self, key: &str, value: &str) {
        let mut data = self.lock();
        let tid = data.thread_lane();
        let (mut k, mut v) = (String::new(), String::new());
        json_string(&mut k, key);
        json_string(&mut v, value);
        let ts = self.now();
        data.record(&format!(
            "{{\"ph\":\"i\",\"s\":\"p\",\"name\":\"metadata\",\"cat\":\"metadata\",\"ts\":{ts:.3},\"pid\":1,\"tid\":{tid},\"args\":{{{k}:{v}}}}}"
        ));
    }

    /// Writes what is left (device spans whose work completed) and closes the file.
    pub(crate) fn finish(&self) -> Result<()> {
        self.resolve();
        let mut data = self.lock();
        let left = data.pending.len();
        data.pending.clear();
        let closing = format!(
            "\n],\"displayTimeUnit\":\"ms\",\"otherData\":{{\"producer\":\"ferrokkos {}\",\"unfinished_device_spans\":{left}}}}}\n",
            env!("CARGO_PKG_VERSION")
        );
        let result = data
            .out
            .write_all(closing.as_bytes())
            .and_then(|()| data.out.flush());
        if let Err(e) = result
            && data.failed.is_none()
        {
            data.failed = Some(e);
        }
        match data.failed.take() {
            None => Ok(()),
            Some(e) => Err(Error::Trace {
                path: self.path.display().to_string(),
                source: e,
            }),
        }
    }
}

impl TraceData {
    fn record(&mut self, json: &str) {
        if self.failed.is_some() {
            return;
        }
        let sep: &[u8] = if self.any { b",\n" } else { b"" };
        self.any = true;
        if let Err(e) = self
            .out
            .write_all(sep)
            .and_then(|()| self.out.write_all(json.as_bytes()))
        {
            self.failed = Some(e);
        }
    }

    fn new_lane(&mut self, name: &str, sort: u64) -> u64 {
        let tid = self.next_tid;
        self.next_tid += 1;
        let mut n = String::new();
        json_string(&mut n, name);
        self.record(&format!(
            "{{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":{tid},\"args\":{{\"name\":{n}}}}}"
        ));
        self.record(&format!(
            "{{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":1,\"tid\":{tid},\"args\":{{\"sort_index\":{sort}}}}}"
        ));
        tid
    }

    fn thread_lane(&mut self) -> u64 {
        let thread = std::thread::current();
        if let Some(&tid) = self.threads.get(&thread.id()) {
            return tid;
        }
        let name = match thread.name() {
            Some(name) => format!("thread {name}"),
            None => format!("thread {:?}", thread.id()),
        };
        let sort = self.threads.len() as u64;
        let tid = self.new_lane(&name, sort);
        self.threads.insert(thread.id(), tid);
        tid
    }

    fn span(
        &mut self,
        tid: u64,
        cat: &str,
        name: &str,
        start: f64,
        end: f64,
        args: &[(&str, Arg<'_>)],
    ) {
        let mut json = String::with_capacity(160);
        json.push_str("{\"ph\":\"X\",\"name\":");
        json_string(&mut json, name);
        let _ = write!(
            json,
            ",\"cat\":\"{cat}\",\"ts\":{start:.3},\"dur\":{:.3},\"pid\":1,\"tid\":{tid}",
            (end - start).max(0.0)
        );
        if !args.is_empty() {
            json.push_str(",\"args\":{");
            for (i, (key, value)) in args.iter().enumerate() {
                if i > 0 {
                    json.push(',');
                }
                json_string(&mut json, key);
                json.push(':');
                match value {
                    Arg::Str(s) => json_string(&mut json, s),
                    Arg::U64(n) => {
                        let _ = write!(json, "{n}");
                    }
                }
            }
            json.push('}');
        }
        json.push('}');
        self.record(&json);
    }
}

/// Where the lane of the instance with device ID `device_id` sorts: after the thread lanes (which
/// sort by their first event, from 0), Serial, Threads, then Cuda, then HIP instances, then any
/// other type; within a type by device, then instance (a second device's Cuda lanes once
/// sorted after HIP's: 100 000 per type was less than a device's step of `1 << 17`).
/// The type codes are `DeviceType`'s (Kokkos Tools' numbers), which this layer below `space`
/// cannot name.
fn instance_sort_index(device_id: u32) -> u64 {
    let rank = match device_id >> 24 {
        0 => 0u64, // Serial
        6 => 1,    // Threads
        2 => 2,    // Cuda
        3 => 3,    // HIP
        _ => 4,
    };
    // The low 24 bits (device and instance) stay below the next type's lanes.
    1_000_000 + (rank << 24) + u64::from(device_id & 0x00ff_ffff)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn instance_lanes_sort_serial_threads_cuda_then_hip() {
        use crate::space::{DeviceType, device_id};
        let order = [
            device_id(DeviceType::Serial, 0, 0),
            device_id(DeviceType::Threads, 0, 1),
            device_id(DeviceType::Cuda, 0, 1),
            device_id(DeviceType::Cuda, 0, 2),
            device_id(DeviceType::Cuda, 1, 1),
            device_id(DeviceType::Hip, 0, 1),
            7 << 24,
        ];
        let sorted: Vec<u64> = order.iter().map(|&d| instance_sort_index(d)).collect();
        assert!(sorted.windows(2).all(|w| w[0] < w[1]), "{sorted:?}");
        assert_eq!(
            instance_sort_index(device_id(DeviceType::Hip, 0, 2)),
            1_000_000 + (3 << 24) + 2
        );
    }

    #[test]
    fn strings_are_escaped_for_json() {
        let mut out = String::new();
        json_string(&mut out, "a\"b\\c\nd\u{1}");
        assert_eq!(out, r#""a\"b\\c\nd\u0001""#);
    }
}
