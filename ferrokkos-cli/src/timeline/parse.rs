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

/// The events of the trace text `json`; an error is `line L column C: what was wrong`.
pub(crate) fn parse_events(json: &[u8]) -> Result<Vec<RawEvent>, String> {
    match serde_json::from_slice::<TraceFile>(json) {
        Ok(TraceFile(events)) => Ok(events),
        Err(e) => {
            // The array format may end without its `]` (a trace cut short): close it and retry.
            if e.is_eof()
                && let Some(closed) = close_array(json)
                && let Ok(TraceFile(events)) = serde_json::from_slice::<TraceFile>(&closed)
            {
                return Ok(events);
            }
            Err(describe(&e))
        }
    }
}

/// `json` with its array closed (less a trailing comma), if it is an array format trace.
fn close_array(json: &[u8]) -> Option<Vec<u8>> {
    let start = json.iter().position(|b| !b.is_ascii_whitespace())?;
    if json[start] != b'[' {
        return None;
    }
    let mut text = json.trim_ascii_end().to_vec();
    if text.last() == Some(&b',') {
        text.pop();
    }
    text.push(b']');
    Some(text)
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
        let events = parse_events(object).unwrap();
        assert_eq!(events.len(), 1);
        assert_eq!(
            (events[0].ts, events[0].dur, events[0].tid),
            (Some(1.0), Some(2.0), Some(3))
        );
        let array = br#"[{"ph":"i","name":"b","ts":4.5},{"ph":"M"}]"#;
        assert_eq!(parse_events(array).unwrap().len(), 2);
        assert!(parse_events(b"[]").unwrap().is_empty());
    }

    #[test]
    fn an_unclosed_array_is_closed() {
        let cut = b"[{\"ph\":\"i\",\"ts\":1},\n{\"ph\":\"i\",\"ts\":2},\n";
        assert_eq!(parse_events(cut).unwrap().len(), 2);
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
        let e = parse_events(b"{\"traceEvents\":[").unwrap_err();
        assert!(e.starts_with("line 1 column 16: EOF"), "{e}");
    }
}
