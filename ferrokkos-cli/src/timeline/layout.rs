//! The geometry of the picture: its size, where the parts go, and where a time is.
//!
//! From the top: the header (title line, legend line), one row per lane, the counter panel if the
//! trace has counters, the time axis. The lane names take a column of fixed width at the left;
//! time runs from the right of that column to the right margin.

/// Space around the picture's contents, in pixels.
pub(crate) const MARGIN: i32 = 12;
/// The width of the lane name column.
pub(crate) const NAME_COLUMN: i32 = 250;
/// The height of the header: the title line and the legend line.
pub(crate) const HEADER: u32 = 64;
/// The height of one lane's row.
pub(crate) const LANE_HEIGHT: u32 = 64;
/// The height of the counter panel, when there is one.
pub(crate) const COUNTERS_HEIGHT: u32 = 150;
/// The height of the time axis with its labels.
pub(crate) const AXIS_HEIGHT: u32 = 36;
/// Space below the axis.
pub(crate) const FOOTER: u32 = 8;
/// The narrowest picture (its time area is then 196 pixels wide).
pub(crate) const MIN_WIDTH: u32 = 470;
/// The widest picture.
pub(crate) const MAX_WIDTH: u32 = 32_768;

/// The picture's `(width, height)` in pixels for `lanes` lanes: the width as asked, and a height of
/// `HEADER + LANE_HEIGHT * max(lanes, 1) + COUNTERS_HEIGHT * has_counters + AXIS_HEIGHT + FOOTER`,
/// that is `108 + 64 * max(lanes, 1)`, plus 150 with counters. A trace without lanes still gets
/// one (empty) row, for the note that says so.
pub(crate) fn image_size(width: u32, lanes: usize, has_counters: bool) -> (u32, u32) {
    let rows = u32::try_from(lanes.max(1)).unwrap_or(u32::MAX);
    let counters = if has_counters { COUNTERS_HEIGHT } else { 0 };
    let height = rows
        .saturating_mul(LANE_HEIGHT)
        .saturating_add(HEADER + counters + AXIS_HEIGHT + FOOTER);
    (width, height)
}

/// Where everything goes in one picture, and the time window it shows.
#[derive(Clone, Debug)]
pub(crate) struct Layout {
    /// The picture's width.
    pub width: u32,
    /// The picture's height.
    pub height: u32,
    /// The x of the window's start.
    pub plot_left: i32,
    /// The x of the window's end.
    pub plot_right: i32,
    /// The top of the first lane row.
    pub lanes_top: i32,
    /// The number of lane rows (at least 1).
    pub rows: usize,
    /// The top of the counter panel, if any.
    pub counters_top: Option<i32>,
    /// The top of the time axis (the bottom of the rows and of the counter panel).
    pub axis_top: i32,
    /// The window's start, microseconds of trace time.
    pub from: f64,
    /// The window's end, microseconds of trace time.
    pub to: f64,
}

impl Layout {
    /// The layout of a picture `width` wide of `lanes` lanes showing `[from, to]`.
    pub(crate) fn new(width: u32, lanes: usize, has_counters: bool, window: (f64, f64)) -> Layout {
        let (width, height) = image_size(width, lanes, has_counters);
        let rows = lanes.max(1);
        let lanes_top = HEADER as i32;
        let rows_height =
            i32::try_from(rows).map_or(i32::MAX, |r| r.saturating_mul(LANE_HEIGHT as i32));
        let lanes_bottom = lanes_top.saturating_add(rows_height);
        let counters_top = has_counters.then_some(lanes_bottom);
        let counters = if has_counters {
            COUNTERS_HEIGHT as i32
        } else {
            0
        };
        let axis_top = lanes_bottom.saturating_add(counters);
        Layout {
            width,
            height,
            plot_left: MARGIN + NAME_COLUMN,
            plot_right: width as i32 - MARGIN,
            lanes_top,
            rows,
            counters_top,
            axis_top,
            from: window.0,
            to: window.1,
        }
    }

    /// The x of time `t` (microseconds), not clamped to the window.
    pub(crate) fn x(&self, t: f64) -> f64 {
        let scale = f64::from(self.plot_right - self.plot_left) / (self.to - self.from);
        f64::from(self.plot_left) + (t - self.from) * scale
    }

    /// The top of lane row `row`.
    pub(crate) fn row_top(&self, row: usize) -> i32 {
        self.lanes_top + row as i32 * LANE_HEIGHT as i32
    }

    /// Whether the span `[start, end]` shows in the window (an instant when `start == end`).
    pub(crate) fn shows(&self, start: f64, end: f64) -> bool {
        end >= self.from && start <= self.to
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_height_follows_the_lanes() {
        assert_eq!(image_size(1600, 3, false), (1600, 108 + 3 * 64));
        assert_eq!(image_size(1600, 3, true), (1600, 108 + 3 * 64 + 150));
        assert_eq!(image_size(800, 0, false), image_size(800, 1, false));
        assert_eq!(image_size(800, usize::MAX, true).1, u32::MAX);
    }

    #[test]
    fn times_map_to_the_time_area() {
        let layout = Layout::new(1000, 2, true, (100.0, 200.0));
        assert_eq!(layout.x(100.0), f64::from(MARGIN + NAME_COLUMN));
        assert_eq!(layout.x(200.0), f64::from(1000 - MARGIN));
        assert_eq!(layout.counters_top, Some(64 + 2 * 64));
        assert_eq!(layout.axis_top as u32 + AXIS_HEIGHT + FOOTER, layout.height);
        assert!(layout.shows(50.0, 100.0) && !layout.shows(200.5, 300.0));
    }
}
