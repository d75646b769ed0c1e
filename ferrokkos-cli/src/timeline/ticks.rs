//! The ticks of the time axis: round numbers (1, 2 or 5 times a power of ten) of µs, ms or s.

use super::units::time_unit;

/// A tick of the time axis.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Tick {
    /// Where, in microseconds of trace time.
    pub time: f64,
    /// Its label: `0`, `250 µs`, `1.5 ms`.
    pub label: String,
}

/// The ticks in `[from, to]` (microseconds), at most about `most` of them, at a round step in the
/// unit that suits the window's length.
pub(crate) fn ticks(from: f64, to: f64, most: usize) -> Vec<Tick> {
    let span = to - from;
    if span.is_nan() || span <= 0.0 || !from.is_finite() || !to.is_finite() {
        return Vec::new();
    }
    let unit = time_unit(span);
    let step = round_step(span / unit.us / most.max(1) as f64);
    let decimals = (-step.log10().floor()).max(0.0) as usize;
    let first = (from / unit.us / step).ceil() as i64;
    let last = (to / unit.us / step + 1e-9).floor() as i64;
    (first..=last)
        .map(|k| {
            let value = k as f64 * step;
            let label = if k == 0 {
                "0".to_string()
            } else {
                format!("{:.*} {}", decimals, value, unit.name)
            };
            Tick {
                time: value * unit.us,
                label,
            }
        })
        .collect()
}

/// The smallest of 1, 2, 5 times a power of ten that is at least `raw`.
fn round_step(raw: f64) -> f64 {
    let power = 10f64.powf(raw.log10().floor());
    [1.0, 2.0, 5.0, 10.0]
        .into_iter()
        .map(|m| m * power)
        .find(|&s| s >= raw * (1.0 - 1e-9))
        .unwrap_or(10.0 * power)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn labels(from: f64, to: f64, most: usize) -> Vec<String> {
        ticks(from, to, most).into_iter().map(|t| t.label).collect()
    }

    #[test]
    fn steps_are_round() {
        assert_eq!(round_step(0.3), 0.5);
        assert_eq!(round_step(1.0), 1.0);
        assert_eq!(round_step(1.2), 2.0);
        assert_eq!(round_step(7.0), 10.0);
        assert_eq!(round_step(230.0), 500.0);
    }

    #[test]
    fn labels_in_the_windows_unit() {
        assert_eq!(
            labels(0.0, 100.0, 5),
            ["0", "20 µs", "40 µs", "60 µs", "80 µs", "100 µs"]
        );
        assert_eq!(
            labels(0.0, 2100.0, 5),
            ["0", "0.5 ms", "1.0 ms", "1.5 ms", "2.0 ms"]
        );
        assert_eq!(labels(1.5e6, 4e6, 3), ["2 s", "3 s", "4 s"]);
        let t = ticks(50.0, 2100.0, 10);
        assert_eq!(t.first().map(|t| t.time), Some(500.0));
        assert!(ticks(5.0, 5.0, 10).is_empty());
    }
}
