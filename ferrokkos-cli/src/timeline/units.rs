//! Times (µs, ms, s) and byte counts (B, KiB, MiB, GiB) as people read them.

/// A time unit: its name and its size in microseconds.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TimeUnit {
    /// `µs`, `ms` or `s`.
    pub name: &'static str,
    /// Microseconds per unit.
    pub us: f64,
}

/// The unit for times in a window `span_us` long: µs below 1 ms, ms below 1 s, else s.
pub(crate) fn time_unit(span_us: f64) -> TimeUnit {
    let span = span_us.abs();
    if span >= 1e6 {
        TimeUnit { name: "s", us: 1e6 }
    } else if span >= 1e3 {
        TimeUnit {
            name: "ms",
            us: 1e3,
        }
    } else {
        TimeUnit {
            name: "µs",
            us: 1.0,
        }
    }
}

/// `value` with three significant digits at most (at least the units), trailing zeros dropped.
fn significant(value: f64) -> String {
    let decimals = match value.abs() {
        v if v >= 100.0 => 0,
        v if v >= 10.0 => 1,
        _ => 2,
    };
    let text = format!("{:.*}", decimals, value + 0.0);
    let text = if text.contains('.') {
        text.trim_end_matches('0').trim_end_matches('.')
    } else {
        &text
    };
    if text == "-0" {
        "0".into()
    } else {
        text.into()
    }
}

/// `us` microseconds in `unit`: `0.85 ms`.
pub(crate) fn format_in(us: f64, unit: TimeUnit) -> String {
    format!("{} {}", significant(us / unit.us), unit.name)
}

/// A number of bytes: `800 B`, `1.5 KiB`, `16 MiB`, `2.25 GiB`.
pub(crate) fn format_bytes(bytes: f64) -> String {
    const UNITS: [(&str, f64); 3] = [
        ("GiB", 1024.0 * 1024.0 * 1024.0),
        ("MiB", 1024.0 * 1024.0),
        ("KiB", 1024.0),
    ];
    for (name, size) in UNITS {
        if bytes.abs() >= size {
            return format!("{} {name}", significant(bytes / size));
        }
    }
    format!("{} B", significant(bytes))
}

/// A counter value: bytes for allocation counters, else a plain number.
pub(crate) fn format_value(value: f64, bytes: bool) -> String {
    if bytes {
        format_bytes(value)
    } else if value.abs() >= 1e6 {
        format!("{value:.3e}")
    } else {
        significant(value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `us` in the unit that suits it: `850 µs`, `2.1 ms`, `1.25 s`.
    fn format_time(us: f64) -> String {
        format_in(us, time_unit(us))
    }

    #[test]
    fn times_pick_their_unit() {
        assert_eq!(format_time(0.0), "0 µs");
        assert_eq!(format_time(33.5), "33.5 µs");
        assert_eq!(format_time(850.0), "850 µs");
        assert_eq!(format_time(2100.0), "2.1 ms");
        assert_eq!(format_time(1_250_000.0), "1.25 s");
        assert_eq!(format_in(850.0, time_unit(1000.0)), "0.85 ms");
        assert_eq!(time_unit(999.0).name, "µs");
        assert_eq!(time_unit(1000.0).name, "ms");
    }

    #[test]
    fn bytes_use_binary_units() {
        assert_eq!(format_bytes(800.0), "800 B");
        assert_eq!(format_bytes(1536.0), "1.5 KiB");
        assert_eq!(format_bytes(16_777_216.0), "16 MiB");
        assert_eq!(format_bytes(2.25 * 1024.0 * 1024.0 * 1024.0), "2.25 GiB");
        assert_eq!(format_value(3.0, false), "3");
    }
}
