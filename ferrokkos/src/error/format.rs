//! The helpers of the messages: counts and byte sizes as words.

/// The tail of [`Error::DeviceArithmetic`](super::Error::DeviceArithmetic)'s message for `count`
/// divisions.
pub(super) fn more_divisions(count: u64) -> String {
    match count {
        0 | 1 => String::new(),
        n => format!(" ({n} times)"),
    }
}

/// The tail of [`Error::KernelAbort`](super::Error::KernelAbort)'s message for `count` faults.
pub(super) fn more_panics(count: u64) -> String {
    match count {
        0 | 1 => String::new(),
        n => format!(" ({n} faults in all)"),
    }
}

/// The tail of [`Error::DeviceOutOfBounds`](super::Error::DeviceOutOfBounds)'s message for `count`
/// accesses.
pub(super) fn more_accesses(count: u64) -> String {
    match count {
        0 | 1 => String::new(),
        2 => " (and 1 more out-of-bounds access)".to_string(),
        n => format!(" (and {} more out-of-bounds accesses)", n - 1),
    }
}

/// An OffsetView's index ranges as Rust ranges: `[-1..11, 0..5]`.
pub(crate) fn index_ranges(begins: &[i64], ends: &[i64]) -> String {
    let ranges: Vec<String> = begins
        .iter()
        .zip(ends)
        .map(|(b, e)| format!("{b}..{e}"))
        .collect();
    format!("[{}]", ranges.join(", "))
}

/// A byte count as a short human-readable string (`1.0 PiB`).
pub(super) fn human_bytes(bytes: u128) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    let mut value = bytes as f64;
    let mut unit = 0;
    while value >= 1024.0 && unit + 1 < UNITS.len() {
        value /= 1024.0;
        unit += 1;
    }
    if unit == 0 {
        format!("{bytes} B")
    } else {
        format!("{value:.1} {}", UNITS[unit])
    }
}
