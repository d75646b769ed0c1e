//! The trace as the timeline draws it: lanes of spans and instants, and counter series, built from
//! the raw events (metadata names and orders the lanes).

use std::collections::BTreeMap;

use serde_json::{Map, Value};

use super::category::Category;
use super::nesting::depths;
use super::parse::RawEvent;

/// A span (`"ph":"X"`) on a lane.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Span {
    /// Its name (the label).
    pub name: String,
    /// Its category (the colour).
    pub category: Category,
    /// Start, microseconds of trace time.
    pub start: f64,
    /// End, microseconds of trace time.
    pub end: f64,
    /// Its nesting level on the lane (0: within no other span).
    pub depth: usize,
}

/// An instant event (`"ph":"i"`) on a lane.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Instant {
    /// Its name.
    pub name: String,
    /// When, microseconds of trace time.
    pub time: f64,
}

/// A row of the picture: one `tid`.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Lane {
    /// The `tid`.
    pub tid: i64,
    /// Its `thread_name`, else `lane <tid>`.
    pub name: String,
    /// Its spans, in file order.
    pub spans: Vec<Span>,
    /// Its instants, in file order.
    pub instants: Vec<Instant>,
}

/// A counter series (`"ph":"C"` events of one name).
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Counter {
    /// The series' name (`memory Cuda`).
    pub name: String,
    /// Whether its values are bytes (allocation counters).
    pub bytes: bool,
    /// `(time, value)` by time: the value holds until the next point.
    pub points: Vec<(f64, f64)>,
}

impl Counter {
    /// The largest value (0 for none).
    pub(crate) fn max(&self) -> f64 {
        self.points.iter().map(|p| p.1).fold(0.0, f64::max)
    }
}

/// A whole trace.
#[derive(Clone, Debug, Default, PartialEq)]
pub(crate) struct Trace {
    /// The `process_name`, if given.
    pub process: Option<String>,
    /// The lanes, in display order: by `thread_sort_index` (lanes without one last), then `tid`.
    pub lanes: Vec<Lane>,
    /// The counter series, in order of first appearance.
    pub counters: Vec<Counter>,
}

/// What is known of a `tid` while reading.
#[derive(Default)]
struct LaneInfo {
    /// `thread_name`.
    name: Option<String>,
    /// `thread_sort_index`.
    sort: Option<i64>,
    /// Spans, without depths yet.
    spans: Vec<Span>,
    /// Instants.
    instants: Vec<Instant>,
}

impl Trace {
    /// The trace of `events`; an event missing what its kind needs is an error naming it
    /// (`traceEvents[7] ("axpy"): ...`). Unknown kinds and fields are ignored.
    pub(crate) fn from_events(events: Vec<RawEvent>) -> Result<Trace, String> {
        let mut trace = Trace::default();
        let mut lanes: BTreeMap<i64, LaneInfo> = BTreeMap::new();
        for (index, event) in events.into_iter().enumerate() {
            let fail = |what: &str| format!("traceEvents[{index}] ({:?}): {what}", event.name);
            let lane = || event.tid.unwrap_or(0);
            match event.ph.as_str() {
                "M" => trace.metadata(&event, &mut lanes),
                "X" => {
                    let (Some(start), Some(dur)) = (event.ts, event.dur) else {
                        return Err(fail("a span (\"ph\":\"X\") needs \"ts\" and \"dur\""));
                    };
                    if dur < 0.0 || !(start + dur).is_finite() {
                        return Err(fail(&format!("\"dur\" {dur} out of range")));
                    }
                    let span = Span {
                        category: Category::from_cat(&event.cat),
                        start,
                        end: start + dur,
                        depth: 0,
                        name: event.name,
                    };
                    lanes.entry(lane()).or_default().spans.push(span);
                }
                "i" | "I" => {
                    let Some(time) = event.ts else {
                        return Err(fail("an instant (\"ph\":\"i\") needs \"ts\""));
                    };
                    let instant = Instant {
                        name: event.name.clone(),
                        time,
                    };
                    lanes.entry(lane()).or_default().instants.push(instant);
                }
                "C" => {
                    let Some(time) = event.ts else {
                        return Err(fail("a counter (\"ph\":\"C\") needs \"ts\""));
                    };
                    trace.count(&event, time);
                }
                _ => {}
            }
        }
        for counter in &mut trace.counters {
            counter.points.sort_by(|a, b| a.0.total_cmp(&b.0));
        }
        trace.lanes = order_lanes(lanes);
        Ok(trace)
    }

    /// Takes in a metadata event: the process name, a lane's name or order.
    fn metadata(&mut self, event: &RawEvent, lanes: &mut BTreeMap<i64, LaneInfo>) {
        let arg = |key: &str| event.args.as_ref().and_then(|args| args.get(key));
        let name = || arg("name").and_then(Value::as_str).map(str::to_string);
        let tid = event.tid.unwrap_or(0);
        match event.name.as_str() {
            "process_name" => self.process = name().or(self.process.take()),
            "thread_name" => lanes.entry(tid).or_default().name = name(),
            "thread_sort_index" => {
                lanes.entry(tid).or_default().sort = arg("sort_index").and_then(Value::as_i64);
            }
            _ => {}
        }
    }

    /// Takes in a counter event at `time`: the sum of its numeric arguments.
    fn count(&mut self, event: &RawEvent, time: f64) {
        let empty = Map::new();
        let args = event.args.as_ref().unwrap_or(&empty);
        let value: f64 = args.values().filter_map(Value::as_f64).sum();
        if !value.is_finite() {
            return;
        }
        let bytes =
            event.cat == "allocation" || (!args.is_empty() && args.keys().all(|k| k == "bytes"));
        match self.counters.iter_mut().find(|c| c.name == event.name) {
            Some(counter) => {
                counter.bytes &= bytes;
                counter.points.push((time, value));
            }
            None => self.counters.push(Counter {
                name: event.name.clone(),
                bytes,
                points: vec![(time, value)],
            }),
        }
    }

    /// The categories of the spans, in legend order.
    pub(crate) fn categories(&self) -> Vec<Category> {
        let spans = || self.lanes.iter().flat_map(|l| &l.spans);
        Category::ALL
            .into_iter()
            .filter(|&c| spans().any(|s| s.category == c))
            .collect()
    }

    /// The time range of the events, `(earliest, latest)` in microseconds; `None` without events.
    pub(crate) fn extent(&self) -> Option<(f64, f64)> {
        let spans = self.lanes.iter().flat_map(|l| l.spans.iter());
        let times = spans.flat_map(|s| [s.start, s.end]);
        let instants = self
            .lanes
            .iter()
            .flat_map(|l| l.instants.iter().map(|i| i.time));
        let counters = self
            .counters
            .iter()
            .flat_map(|c| c.points.iter().map(|p| p.0));
        times
            .chain(instants)
            .chain(counters)
            .fold(None, |range, t| match range {
                None => Some((t, t)),
                Some((lo, hi)) => Some((f64::min(lo, t), f64::max(hi, t))),
            })
    }
}

/// The lanes that have a name or events, in display order, with their spans' depths.
fn order_lanes(lanes: BTreeMap<i64, LaneInfo>) -> Vec<Lane> {
    let mut kept: Vec<(Option<i64>, Lane)> = lanes
        .into_iter()
        .filter(|(_, info)| {
            info.name.is_some() || !info.spans.is_empty() || !info.instants.is_empty()
        })
        .map(|(tid, mut info)| {
            let ranges: Vec<(f64, f64)> = info.spans.iter().map(|s| (s.start, s.end)).collect();
            for (span, depth) in info.spans.iter_mut().zip(depths(&ranges)) {
                span.depth = depth;
            }
            let lane = Lane {
                tid,
                name: info.name.unwrap_or_else(|| format!("lane {tid}")),
                spans: info.spans,
                instants: info.instants,
            };
            (info.sort, lane)
        })
        .collect();
    kept.sort_by_key(|(sort, lane)| (sort.is_none(), *sort, lane.tid));
    kept.into_iter().map(|(_, lane)| lane).collect()
}
