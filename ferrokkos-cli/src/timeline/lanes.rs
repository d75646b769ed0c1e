//! The lane rows: a striped background with the lane's name at the left, its spans as coloured
//! rectangles (one sub-row per nesting level, labelled when the name fits) and its instants as
//! diamonds along the row's bottom.

use super::header::diamond;
use super::layout::{LANE_HEIGHT, Layout, MARGIN, NAME_COLUMN};
use super::painter::Painter;
use super::palette::{GREY, INK, INSTANT, RULE, STRIPE};
use super::trace::{Lane, Span};

/// The size of lane names.
const NAME_PX: f32 = 13.0;
/// The size of the line under a lane name.
const DETAIL_PX: f32 = 11.0;
/// The tallest sub-row of a nesting level.
const LEVEL_MAX: i32 = 24;
/// The shortest sub-row (deeper levels share the last one).
const LEVEL_MIN: i32 = 4;
/// Space above and below the spans in a row.
const PAD: i32 = 4;
/// The height of the strip for instant markers at the bottom of a row that has instants.
const INSTANT_STRIP: i32 = 10;

/// Draws the background, separator and name of each lane row.
pub(crate) fn draw_backgrounds(
    painter: &Painter,
    layout: &Layout,
    lanes: &[Lane],
) -> Result<(), String> {
    let right = layout.width as i32 - 1;
    for row in 0..layout.rows {
        let top = layout.row_top(row);
        let bottom = top + LANE_HEIGHT as i32 - 1;
        if row % 2 == 1 {
            painter.rect((0, top), (right, bottom), STRIPE)?;
        }
        painter.line(vec![(0, bottom), (right, bottom)], RULE, 1)?;
    }
    let font = painter.font();
    for (row, lane) in lanes.iter().enumerate() {
        let middle = layout.row_top(row) + LANE_HEIGHT as i32 / 2;
        let room = (NAME_COLUMN - 14) as f32;
        let name = font.fit(&lane.name, NAME_PX, room, 1).unwrap_or_default();
        painter.text_middle(&name, NAME_PX, (MARGIN, middle - 8), INK)?;
        let detail = lane_detail(lane);
        painter.text_middle(&detail, DETAIL_PX, (MARGIN, middle + 9), GREY)?;
    }
    Ok(())
}

/// The grey line under a lane's name: what it holds.
fn lane_detail(lane: &Lane) -> String {
    let plural = |n: usize, what: &str| format!("{n} {what}{}", if n == 1 { "" } else { "s" });
    let levels = lane.spans.iter().map(|s| s.depth + 1).max().unwrap_or(0);
    let mut parts = vec![plural(lane.spans.len(), "span")];
    if levels > 1 {
        parts.push(plural(levels, "level"));
    }
    if !lane.instants.is_empty() {
        parts.push(plural(lane.instants.len(), "instant"));
    }
    parts.join(", ")
}

/// Draws the spans and instants of each lane that show in the window; returns how many spans.
pub(crate) fn draw_lanes(
    painter: &Painter,
    layout: &Layout,
    lanes: &[Lane],
) -> Result<usize, String> {
    let mut drawn = 0;
    for (row, lane) in lanes.iter().enumerate() {
        let top = layout.row_top(row);
        let visible: Vec<&Span> = lane
            .spans
            .iter()
            .filter(|s| layout.shows(s.start, s.end))
            .collect();
        let instants: Vec<f64> = lane
            .instants
            .iter()
            .map(|i| i.time)
            .filter(|&t| layout.shows(t, t))
            .collect();
        let strip = if instants.is_empty() {
            0
        } else {
            INSTANT_STRIP
        };
        let room = LANE_HEIGHT as i32 - 2 * PAD - strip;
        let levels = visible.iter().map(|s| s.depth + 1).max().unwrap_or(1) as i32;
        let level = (room / levels).clamp(LEVEL_MIN, LEVEL_MAX);
        let deepest = (room / level - 1).max(0) as usize;
        // The levels as a block centred in the room.
        let block_top = top + PAD + (room - levels.min(deepest as i32 + 1) * level) / 2;
        let mut by_depth = visible;
        by_depth.sort_by_key(|s| s.depth);
        for span in by_depth {
            let y0 = block_top + span.depth.min(deepest) as i32 * level;
            draw_span(painter, layout, span, (y0, y0 + level - 2))?;
            drawn += 1;
        }
        let y = top + LANE_HEIGHT as i32 - PAD - INSTANT_STRIP / 2;
        for t in instants {
            let x = layout.x(t).round() as i32;
            painter.polygon(diamond((x, y), 5), INSTANT)?;
        }
    }
    Ok(drawn)
}

/// Draws `span` between the heights `y0` and `y1`, clipped to the window, with its label inside
/// when there is room.
fn draw_span(
    painter: &Painter,
    layout: &Layout,
    span: &Span,
    (y0, y1): (i32, i32),
) -> Result<(), String> {
    let left = layout.x(span.start).max(f64::from(layout.plot_left));
    let right = layout.x(span.end).min(f64::from(layout.plot_right));
    let x0 = left.floor() as i32;
    let x1 = (right.ceil() as i32 - 1).max(x0);
    painter.rect((x0, y0), (x1, y1), span.category.fill())?;
    if x1 - x0 >= 3 {
        painter.frame((x0, y0), (x1, y1), span.category.border())?;
    }
    let height = y1 - y0 + 1;
    let px = if height >= 17 { 12.0 } else { 11.0 };
    let room = (x1 - x0 - 6) as f32;
    if height >= 12
        && room >= 12.0
        && let Some(label) = painter.font().fit(&span.name, px, room, 2)
    {
        painter.text_middle(&label, px, (x0 + 4, (y0 + y1) / 2 + 1), INK)?;
    }
    Ok(())
}
