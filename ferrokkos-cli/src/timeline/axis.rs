//! The time axis at the bottom, and the grid lines its ticks draw up through the lanes and the
//! counter panel.

use super::layout::Layout;
use super::painter::Painter;
use super::palette::{GREY, GRID, INK, RULE};
use super::ticks::{Tick, ticks};

/// The size of the tick labels.
const LABEL_PX: f32 = 12.0;
/// The least space between two ticks, in pixels.
const TICK_SPACING: i32 = 110;

/// The ticks of the layout's window.
fn layout_ticks(layout: &Layout) -> Vec<Tick> {
    let most = ((layout.plot_right - layout.plot_left) / TICK_SPACING).max(1) as usize;
    ticks(layout.from, layout.to, most)
}

/// Draws the vertical grid lines at the ticks, and the left edge of the time area.
pub(crate) fn draw_grid(painter: &Painter, layout: &Layout) -> Result<(), String> {
    for tick in layout_ticks(layout) {
        let x = layout.x(tick.time).round() as i32;
        painter.line(vec![(x, layout.lanes_top), (x, layout.axis_top)], GRID, 1)?;
    }
    let left = layout.plot_left - 1;
    painter.line(
        vec![(left, layout.lanes_top), (left, layout.axis_top)],
        RULE,
        1,
    )
}

/// Draws the axis line, its ticks and their labels.
pub(crate) fn draw_axis(painter: &Painter, layout: &Layout) -> Result<(), String> {
    let top = layout.axis_top;
    painter.line(
        vec![(layout.plot_left, top), (layout.plot_right, top)],
        GREY,
        1,
    )?;
    let font = painter.font();
    for tick in layout_ticks(layout) {
        let x = layout.x(tick.time).round() as i32;
        painter.line(vec![(x, top), (x, top + 5)], GREY, 1)?;
        let half = (font.width(&tick.label, LABEL_PX) / 2.0).ceil() as i32;
        let centre = x.min(layout.width as i32 - 2 - half);
        painter.text_centred(&tick.label, LABEL_PX, (centre, top + 9), INK)?;
    }
    Ok(())
}
