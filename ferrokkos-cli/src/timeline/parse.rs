//! Reading a Chrome trace file into its events, as written: the JSON object format
//! (`{"traceEvents": [...], ...}`) or the JSON array format (a bare array of events, whose closing
//! `]` may be missing, as the format allows), with errors that give the line and column.

use std::fmt;

use serde::Deserialize;
use serde::de::{self, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use serde_json::{Map, Value};

/// One trace event with the fields the timeline reads; other fields are ignored.
#[derive(Debug, Default, Deserialize)]
pub(crate) struct RawEvent {
    /// The phase: `X` complete span, `i`/`I` instant, `C` counter, `M` metadata, ...
    #[serde(default)]
    pub ph: String,
    /// The event's name.
    #[serde(default)]
    pub name: String,
    /// The category.
    #[serde(default)]
    pub cat: String,
    /// Start, in microseconds.
    pub ts: Option<f64>,
    /// Duration of an `X` event, in microseconds.
    pub dur: Option<f64>,
    /// The lane.
    pub tid: Option<i64>,
    /// The arguments (metadata values, counter values, span details).
    pub args: Option<Map<String, Value>>,
}

/// The events of a trace file, in file order.
struct TraceFile(Vec<RawEvent>);

impl<'de> Deserialize<'de> for TraceFile {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Self, D::Error> {
        deserializer.deserialize_any(TraceFileVisitor)
    }
}

/// Accepts the object format and the array format.
struct TraceFileVisitor;

impl<'de> Visitor<'de> for TraceFileVisitor {
    type Value = TraceFile;

    fn expecting(&self, f: &mut fmt::Formatter) -> fmt::Result {
        f.write_str("a Chrome trace: an object with \"traceEvents\" or an array of events")
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<TraceFile, A::Error> {
        let mut events = Vec::new();
        while let Some(event) = seq.next_element()? {
            events.push(event);
        }
        Ok(TraceFile(events))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<TraceFile, A::Error> {
        let mut events = None;
        while let Some(key) = map.next_key::<String>()? {
            if key == "traceEvents" {
                events = Some(map.next_value::<Vec<RawEvent>>()?);
            } else {
                map.next_value::<IgnoredAny>()?;
            }
        }
        events
            .map(TraceFile)
            .ok_or_else(|| de::Error::custom("no \"traceEvents\" in the trace object"))
    }
}

/// Where a trace that ends early was cut: what the timeline says when it draws the events before.
#[derive(Debug, Clone, PartialEq)]
pub(crate) struct Cut {
    /// The line (from 1) where the last, incomplete event starts (or where the file ends).
    pub line: usize,
    /// The bytes from there to the end of the file, dropped.
    pub dropped_bytes: usize,
}

/// The events of a trace file, and where it was cut if it ends early.
#[derive(Debug)]
pub(crate) struct Parsed {
    /// The complete events, in file order.
    pub events: Vec<RawEvent>,
    /// `Some` when the file ends inside its list of events (a program that stopped before it
    /// closed its trace): the events before the cut are kept.
    pub cut: Option<Cut>,
}

/// The events of the trace text `json`. A file that ends inside its list of events (the object
/// format's `traceEvents` or the array format, whose closing `]` the format allows to be
/// missing) keeps every complete event before the end, with [`Parsed::cut`] saying where; an
/// error is `line L column C: what was wrong`.
pub(crate) fn parse_events(json: &[u8]) -> Result<Parsed, String> {
    match serde_json::from_slice::<TraceFile>(json) {
        Ok(TraceFile(events)) => Ok(Parsed { events, cut: None }),
        Err(e) if e.is_eof() => events_before_the_end(json).ok_or_else(|| describe(&e)),
        Err(e) => Err(describe(&e)),
    }
}

/// The complete events of a trace that ends early: those of its event list up to the first one
/// that the end of the file cuts (`None` if the list's start cannot be found or an event before
/// the end is malformed, which the strict parse reports better).
fn events_before_the_end(json: &[u8]) -> Option<Parsed> {
    let mut at = list_start(json)?;
    let mut events = Vec::new();
    loop {
        // Separators between events: white space and commas.
        while at < json.len() && (json[at].is_ascii_whitespace() || json[at] == b',') {
            at += 1;
        }
        let cut = |at: usize| Cut {
            line: line_of(json, at),
            dropped_bytes: json.len() - at,
        };
        if at >= json.len() {
            // The file ends between two events: only the list's end is missing.
            return Some(Parsed {
                events,
                cut: Some(cut(at)),
            });
        }
        if json[at] == b']' {
            // The list is closed and what follows it is cut: every event is there.
            return Some(Parsed { events, cut: None });
        }
        let mut one = serde_json::Deserializer::from_slice(&json[at..]).into_iter::<RawEvent>();
        match one.next()? {
            Ok(event) => {
                events.push(event);
                at += one.byte_offset();
            }
            Err(e) if e.is_eof() => {
                return Some(Parsed {
                    events,
                    cut: Some(cut(at)),
                });
            }
            Err(_) => return None,
        }
    }
}

/// The offset just past the `[` that opens the event list: the file's own in the array format,
/// else the one after `"traceEvents":`.
fn list_start(json: &[u8]) -> Option<usize> {
    let first = json.iter().position(|b| !b.is_ascii_whitespace())?;
    if json[first] == b'[' {
        return Some(first + 1);
    }
    let key = b"\"traceEvents\"";
    let after_key = json.windows(key.len()).position(|w| w == key)? + key.len();
    let rest = &json[after_key..];
    let colon = rest.iter().position(|b| !b.is_ascii_whitespace())?;
    if rest[colon] != b':' {
        return None;
    }
    let open = colon
        + 1
        + rest[colon + 1..]
            .iter()
            .position(|b| !b.is_ascii_whitespace())?;
    (rest[open] == b'[').then_some(after_key + open + 1)
}

/// The line (from 1) of byte offset `at`.
fn line_of(json: &[u8], at: usize) -> usize {
    1 + json[..at.min(json.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// `line L column C: message` for a serde_json error (whose own text puts the position last).
fn describe(e: &serde_json::Error) -> String {
    let text = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let message = text.strip_suffix(&suffix).unwrap_or(&text);
    if e.line() == 0 {
        message.to_string()
    } else {
        format!("line {} column {}: {message}", e.line(), e.column())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn object_and_array_formats() {
        let object =
            br#"{"traceEvents":[{"ph":"X","name":"a","ts":1,"dur":2,"tid":3,"x":[1]}],"z":{}}"#;
        let events = parse_events(object).unwrap().events;
        assert_eq!(events.len(), 1);
        assert_eq!(
            (events[0].ts, events[0].dur, events[0].tid),
            (Some(1.0), Some(2.0), Some(3))
        );
        let array = br#"[{"ph":"i","name":"b","ts":4.5},{"ph":"M"}]"#;
        assert_eq!(parse_events(array).unwrap().events.len(), 2);
        assert!(parse_events(b"[]").unwrap().events.is_empty());
    }

    #[test]
    fn an_unclosed_array_keeps_its_events() {
        let cut = b"[{\"ph\":\"i\",\"ts\":1},\n{\"ph\":\"i\",\"ts\":2},\n";
        let parsed = parse_events(cut).unwrap();
        assert_eq!(parsed.events.len(), 2);
        let expected = Cut {
            line: 3,
            dropped_bytes: 0,
        };
        assert_eq!(parsed.cut, Some(expected));
    }

    #[test]
    fn a_trace_cut_inside_an_event_keeps_the_events_before() {
        // As FERROKKOS_TRACE writes it, one event per line, cut in the third event.
        let cut = b"{\"traceEvents\":[\n{\"ph\":\"X\",\"ts\":1,\"dur\":2,\"tid\":0},\n\
                    {\"ph\":\"i\",\"ts\":5,\"args\":{\"a\":[1,2]}},\n{\"ph\":\"X\",\"ts\":9,\"du";
        let parsed = parse_events(cut).unwrap();
        assert_eq!(parsed.events.len(), 2);
        assert_eq!(parsed.events[1].ts, Some(5.0));
        let expected = Cut {
            line: 4,
            dropped_bytes: 20,
        };
        assert_eq!(parsed.cut, Some(expected));
        // Cut right after a comma, with the key after another one.
        let after_comma = b"{\"displayTimeUnit\":\"ms\", \"traceEvents\" : [{\"ph\":\"M\"},";
        let parsed = parse_events(after_comma).unwrap();
        assert_eq!(parsed.events.len(), 1);
        assert_eq!(parsed.cut.map(|c| c.dropped_bytes), Some(0));
        // A closed list with its object cut: every event, no cut.
        let parsed = parse_events(b"{\"traceEvents\":[{\"ph\":\"M\"}]").unwrap();
        assert_eq!((parsed.events.len(), parsed.cut), (1, None));
    }

    #[test]
    fn errors_give_line_and_column() {
        let bad = b"{\"traceEvents\":[\n{\"ph\":\"X\",\n \"ts\": \"soon\"}]}";
        let e = parse_events(bad).unwrap_err();
        assert!(e.starts_with("line 3 column "), "{e}");
        assert!(
            e.contains("invalid type: string \"soon\", expected f64"),
            "{e}"
        );
        let e = parse_events(b"{\"displayTimeUnit\":\"ms\"}").unwrap_err();
        assert!(e.contains("no \"traceEvents\""), "{e}");
        let e = parse_events(b"42").unwrap_err();
        assert!(e.contains("expected a Chrome trace"), "{e}");
        // A malformed event before the end stays an error, even in a cut file.
        let e = parse_events(b"{\"traceEvents\":[\n{\"ph\":1}, {\"ph\":\"X\"").unwrap_err();
        assert!(e.starts_with("line 2 column "), "{e}");
        let empty = parse_events(b"{\"traceEvents\":[").unwrap();
        assert!(empty.events.is_empty() && empty.cut.is_some());
    }
}
