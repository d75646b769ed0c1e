//! The header: a title line (the process and the time window shown) and a legend line (the colour
//! of each category that occurs, and the instant marker).

use super::category::Category;
use super::layout::{Layout, MARGIN};
use super::painter::Painter;
use super::palette::{INK, INSTANT};
use super::units::{format_in, time_unit};

/// The size of the title.
const TITLE_PX: f32 = 17.0;
/// The size of the legend's text.
const LEGEND_PX: f32 = 13.0;

/// Draws the title `name` with the window of `layout`, and the legend of `categories` (and of
/// instants, if `instants`).
pub(crate) fn draw_header(
    painter: &Painter,
    layout: &Layout,
    name: &str,
    categories: &[Category],
    instants: bool,
) -> Result<(), String> {
    let unit = time_unit(layout.to - layout.from);
    let window = format!(
        "   {} to {} of trace time ({})",
        format_in(layout.from, unit),
        format_in(layout.to, unit),
        format_in(layout.to - layout.from, unit)
    );
    let room = layout.width as f32 - 2.0 * MARGIN as f32;
    let font = painter.font();
    let name_room = room - font.width(&window, TITLE_PX);
    let title = match font.fit(name, TITLE_PX, name_room, 4) {
        Some(name) => name + &window,
        None => font.fit(name, TITLE_PX, room, 1).unwrap_or_default(),
    };
    painter.text(&title, TITLE_PX, (MARGIN, 10), INK)?;

    let (top, bottom) = (40, 52);
    let mut x = MARGIN;
    for category in categories {
        painter.rect((x, top), (x + 18, bottom), category.fill())?;
        painter.frame((x, top), (x + 18, bottom), category.border())?;
        let label = category.label();
        painter.text_middle(label, LEGEND_PX, (x + 24, (top + bottom) / 2), INK)?;
        x += 24 + font.width(label, LEGEND_PX).ceil() as i32 + 22;
    }
    if instants {
        let (cx, cy) = (x + 9, (top + bottom) / 2);
        painter.polygon(diamond((cx, cy), 6), INSTANT)?;
        painter.text_middle("instant", LEGEND_PX, (x + 24, cy), INK)?;
    }
    Ok(())
}

/// The corners of a diamond of radius `r` around `(x, y)`.
pub(crate) fn diamond((x, y): (i32, i32), r: i32) -> Vec<(i32, i32)> {
    vec![(x, y - r), (x + r, y), (x, y + r), (x - r, y)]
}
